"""Requests between server processes over the bus (issue 13 item 2): the relay's calls.

A socket may be connected to any process; its match is run by the one process that owns the
match's lease. Everything the socket asks of the match — attach, a command, a chat line, a join
or a read over HTTP — goes to the owner as a request on the owner's channel and comes back as a
reply on the asker's, matched by a number. A command's time is the owner's receive time: it is
stamped when the request is read there, so the hop is part of the way to the server, like the
network (R7.7). An owner that does not answer within :data:`CALL_TIMEOUT_S` (dead, or its Redis
is gone) makes the call fail with ``server_busy``: the client tries again, and by then a peer
has ended the match (issue 13 item 3) or the owner is back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from spectacular_bid.service.bus import Bus
from spectacular_bid.service.ports import Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.timesource import MsSource
from spectacular_bid.web.json_text import compact, parse

log = logging.getLogger(__name__)

SERVER_CHANNEL: Final = "specbid:server:"
"""Followed by a server id: the requests to that process and the replies to its own."""
MATCH_CHANNEL: Final = "specbid:match:"
"""Followed by a match id: what its owner sends to the sockets on other processes."""
CALL_TIMEOUT_S: Final = 5.0
RETRY_AFTER_S: Final = 2

Body = dict[str, Any]
Request = Body
"""A request as read: its fields, ``"at"`` the owner's receive time in ms."""
Serve = Callable[[Request], Awaitable[Body]]


def player_json(player: Player | None) -> Body | None:
    return None if player is None else {"id": player.id, "name": player.name, "a": player.account}


def player_of(data: object) -> Player | None:
    if not isinstance(data, dict):
        return None
    return Player(str(data["id"]), str(data["name"]), bool(data["a"]))


class Relay:
    """This process's end of the relay: its calls to owners, and the ops it serves as one."""

    def __init__(self, bus: Bus, server_id: str, now_ms: MsSource) -> None:
        self.bus = bus
        self.server_id = server_id
        self.now_ms = now_ms
        self._ops: dict[str, Serve] = {}
        self._calls: dict[int, asyncio.Future[Body]] = {}
        self._numbers = 0
        self._answering: set[asyncio.Task[None]] = set()

    def serve(self, op: str, handler: Serve) -> None:
        self._ops[op] = handler

    async def start(self) -> None:
        await self.bus.listen(SERVER_CHANNEL + self.server_id, self._on_text)

    async def close(self) -> None:
        await self.bus.unlisten(SERVER_CHANNEL + self.server_id)
        for task in list(self._answering):
            task.cancel()
        for call in self._calls.values():
            if not call.done():
                call.set_exception(_no_answer())

    async def call(self, server_id: str, op: str, body: Body) -> Body:
        """``op`` at ``server_id``; its reply, or the :class:`Rejection` the owner raised."""
        self._numbers += 1
        number = self._numbers
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[Body] = loop.create_future()
        self._calls[number] = reply
        request = {"q": number, "from": self.server_id, "op": op, **body}
        self.bus.send(SERVER_CHANNEL + server_id, compact(request))
        # A timer on the reply itself, not asyncio.wait_for: that wraps every call in a
        # second future and two callbacks, a tenth of the relay's cost per relayed command
        # in the stack samples of ``specbid bench server --processes 2``.
        timer = loop.call_later(CALL_TIMEOUT_S, _expire, reply)
        try:
            answer = await reply
        finally:
            timer.cancel()
            self._calls.pop(number, None)
        error = answer.get("err")
        if error is not None:
            raise Rejection(ErrorCode(error), str(answer["msg"]), retry_after_s=answer.get("ra"))
        return answer

    def tell(self, server_id: str, op: str, body: Body) -> None:
        """``op`` at ``server_id``, with no reply wanted (a socket that left)."""
        request = {"from": self.server_id, "op": op, **body}
        self.bus.send(SERVER_CHANNEL + server_id, compact(request))

    def _on_text(self, text: str) -> None:
        message = parse(text)
        if "a" in message:
            reply = self._calls.get(message["a"])
            if reply is not None and not reply.done():
                reply.set_result(message)
            return
        message["at"] = self.now_ms()  # the owner's receive time (R7.7)
        task = asyncio.create_task(self._answer(message))
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)

    async def _answer(self, request: Request) -> None:
        handler = self._ops.get(str(request.get("op")))
        number = request.get("q")
        try:
            if handler is None:
                raise Rejection(ErrorCode.UNKNOWN_TYPE, f"no relay op {request.get('op')!r}")
            body = await handler(request)
        except Rejection as rejection:
            body = {"err": rejection.code.value, "msg": rejection.message}
            if rejection.retry_after_s is not None:
                body["ra"] = rejection.retry_after_s
        except Exception:
            log.exception("relay: %s from %s failed", request.get("op"), request.get("from"))
            body = {"err": ErrorCode.STORAGE_FAILED.value, "msg": "the match's server failed"}
        if number is not None:
            self.bus.send(SERVER_CHANNEL + str(request["from"]), compact({"a": number, **body}))


def _expire(reply: asyncio.Future[Body]) -> None:
    if not reply.done():
        reply.set_exception(_no_answer())


def _no_answer() -> Rejection:
    return Rejection(
        ErrorCode.SERVER_BUSY,
        "the server process that runs this match did not answer; try again shortly",
        retry_after_s=RETRY_AFTER_S,
    )
