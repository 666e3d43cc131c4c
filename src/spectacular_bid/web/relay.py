"""Requests between server processes over the bus (PROTOCOL.md "Several servers on one database"):
the relay's calls.

A socket may be connected to any process; its match is run by the one process that owns the
match's lease. Everything the socket asks of the match — attach, a command, a chat line, a join
or a read over HTTP — goes to the owner as a request on the owner's channel and comes back as a
reply on the asker's, matched by a number.

The relay is the service's own affair, not the player's (PROTOCOL.md, *Several servers on one
database*). A request not answered within :data:`ATTEMPT_S` — Redis down or restarting, the owner
not yet listening again — is sent again by the asking process, not by the client, until
:data:`CALL_TIMEOUT_S`; the owner answers each request once and sends a retry of one it has answered
the same reply, so a command is never run twice. Only an owner that stays silent that long (dead, or
Redis gone for good) makes the call fail with ``server_busy``: the client tries again, and by then a
peer has ended the match (PROTOCOL.md "Several servers on one database") or the owner is back.

A relayed command's time is the receiving process's receive time (R7.7): both processes are the
server. It travels as that process's wall time and is read against the owner's clock, so a
command is charged from its receipt by the service however long the relay held it; what it
spent in the relay is recorded with it (``relayed_ms``, the clock audit). The two wall clocks are
trusted only within :data:`RELAY_BOUND_MS`: a receipt from the owner's future counts as now, one
older than the bound as the bound (a clock out of step never gives a player more than that).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from spectacular_bid.service.bus import Bus
from spectacular_bid.service.ports import Player
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.timesource import MsSource, wall_ms
from spectacular_bid.web.json_text import compact, parse

log = logging.getLogger(__name__)

SERVER_CHANNEL: Final = "specbid:server:"
"""Followed by a server id: the requests to that process and the replies to its own."""
MATCH_CHANNEL: Final = "specbid:match:"
"""Followed by a match id: what its owner sends to the sockets on other processes."""
ATTEMPT_S: Final = 1.0
"""A request not answered this long is sent again (a Redis restart is noticed within it)."""
CALL_TIMEOUT_S: Final = 5.0
"""A call still unanswered after this many seconds of attempts fails with ``server_busy``."""
RETRY_AFTER_S: Final = 2
RELAY_BOUND_MS: Final = 6_000
"""The most of a relayed command's time that its owner takes as spent in the relay: a call's
attempts and then some. A receipt time further back than this counts as this far back."""
ANSWERED_KEEP_MS: Final = round(CALL_TIMEOUT_S * 1000) + 2_000
"""How long an owner keeps its reply to a request, for a retry of it that may still come."""

Body = dict[str, Any]
Request = Body
"""A request as read: its fields, ``"at"`` the owner's receive time in ms, and for a relayed
command ``"late"``, how long before that the asking process received it (:func:`relayed_ms`)."""
Serve = Callable[[Request], Awaitable[Body]]


def player_json(player: Player | None) -> Body | None:
    return None if player is None else {"id": player.id, "name": player.name, "a": player.account}


def player_of(data: object) -> Player | None:
    if not isinstance(data, dict):
        return None
    return Player(str(data["id"]), str(data["name"]), bool(data["a"]))


class _Call:
    """One call waiting for its reply: what to send again, and until when."""

    __slots__ = ("channel", "deadline", "reply", "text", "timer")

    def __init__(self, reply: asyncio.Future[Body], channel: str, text: str, deadline: float):
        self.reply = reply
        self.channel = channel
        self.text = text
        self.deadline = deadline
        self.timer: asyncio.TimerHandle | None = None


class Relay:
    """This process's end of the relay: its calls to owners, and the ops it serves as one."""

    def __init__(self, bus: Bus, server_id: str, now_ms: MsSource) -> None:
        self.bus = bus
        self.server_id = server_id
        self.now_ms = now_ms
        self._ops: dict[str, Serve] = {}
        self._calls: dict[int, _Call] = {}
        self._numbers = 0
        self._answering: set[asyncio.Task[None]] = set()
        self._answers: dict[tuple[str, int], str | None] = {}
        """Requests answered or being answered, by asker and number: the reply's text (None
        while it runs), for a retry of the same request: those that came in this window of
        :data:`ANSWERED_KEEP_MS`, and in :attr:`_older` those of the window before, so a request
        is remembered that long at least and twice that at most, with nothing kept per request
        but its entry."""
        self._older: dict[tuple[str, int], str | None] = {}
        self._window = 0

    def serve(self, op: str, handler: Serve) -> None:
        self._ops[op] = handler

    async def start(self) -> None:
        self.bus.on_reconnect(self._send_all_again)
        await self.bus.listen(SERVER_CHANNEL + self.server_id, self._on_text)

    async def close(self) -> None:
        await self.bus.unlisten(SERVER_CHANNEL + self.server_id)
        for task in list(self._answering):
            task.cancel()
        for call in self._calls.values():
            if call.timer is not None:
                call.timer.cancel()
            if not call.reply.done():
                call.reply.set_exception(_no_answer())

    async def call(self, server_id: str, op: str, body: Body) -> Body:
        """``op`` at ``server_id``; its reply, or the :class:`Rejection` the owner raised."""
        self._numbers += 1
        number = self._numbers
        loop = asyncio.get_running_loop()
        reply: asyncio.Future[Body] = loop.create_future()
        channel = SERVER_CHANNEL + server_id
        text = compact({"q": number, "from": self.server_id, "op": op, **body})
        call = _Call(reply, channel, text, loop.time() + CALL_TIMEOUT_S)
        self._calls[number] = call
        if self.bus.is_up:
            self.bus.send(channel, text)
        # A timer on the reply itself, not asyncio.wait_for: that wraps every call in a
        # second future and two callbacks, a tenth of the relay's cost per relayed command
        # in the stack samples of ``specbid bench server --processes 2``.
        call.timer = loop.call_later(min(ATTEMPT_S, CALL_TIMEOUT_S), self._again, number)
        try:
            answer = await reply
        finally:
            if call.timer is not None:
                call.timer.cancel()
            self._calls.pop(number, None)
        error = answer.get("err")
        if error is not None:
            raise Rejection(ErrorCode(error), str(answer["msg"]), retry_after_s=answer.get("ra"))
        return answer

    def _send(self, number: int, call: _Call, loop: asyncio.AbstractEventLoop) -> None:
        """Send the request (not while the bus is down: it is sent when the bus is back) and
        look again in :data:`ATTEMPT_S`."""
        if self.bus.is_up:
            self.bus.send(call.channel, call.text)
        wait = min(ATTEMPT_S, call.deadline - loop.time())
        call.timer = loop.call_later(max(wait, 0.0), self._again, number)

    def _again(self, number: int) -> None:
        call = self._calls.get(number)
        if call is None or call.reply.done():
            return
        loop = asyncio.get_running_loop()
        if loop.time() >= call.deadline:
            call.reply.set_exception(_no_answer())
            return
        self._send(number, call, loop)

    def _send_all_again(self) -> None:
        """The bus is back: every waiting request goes now (what was sent meanwhile is lost)."""
        loop = asyncio.get_running_loop()
        for number, call in list(self._calls.items()):
            if not call.reply.done():
                if call.timer is not None:
                    call.timer.cancel()
                self._send(number, call, loop)

    def tell(self, server_id: str, op: str, body: Body) -> None:
        """``op`` at ``server_id``, with no reply wanted (a socket that left)."""
        request = {"from": self.server_id, "op": op, **body}
        self.bus.send(SERVER_CHANNEL + server_id, compact(request))

    def _on_text(self, text: str) -> None:
        message = parse(text)
        if "a" in message:
            call = self._calls.get(message["a"])
            if call is not None and not call.reply.done():
                call.reply.set_result(message)
            return
        now = message["at"] = self.now_ms()  # the owner's receive time (R7.7)
        sent = message.get("rw")
        if isinstance(sent, int):
            message["late"] = min(max(wall_ms() - sent, 0), RELAY_BOUND_MS)
        number = message.get("q")
        if number is not None:
            key = (message.get("from"), number)
            answers = self._answers
            if key in answers or key in self._older:  # a retry: answered again, never run again
                answered = answers[key] if key in answers else self._older[key]
                if answered is not None:
                    self.bus.send(SERVER_CHANNEL + str(key[0]), answered)
                return
            window = now // ANSWERED_KEEP_MS
            if window != self._window:
                self._older = answers if window == self._window + 1 else {}
                self._answers = {}
                self._window = window
            self._answers[key] = None
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
            asker = request["from"]
            text = compact({"a": number, **body})
            key = (asker, number)
            if key in self._answers:
                self._answers[key] = text
            elif key in self._older:
                self._older[key] = text
            self.bus.send(SERVER_CHANNEL + str(asker), text)


def relayed_ms(request: Request) -> int | None:
    """How long before the owner read ``request`` its asking process received the command it
    carries: its time in the relay, within :data:`RELAY_BOUND_MS` (None from an asker of an
    earlier release, which does not say: the command is then timed at the owner's receipt)."""
    late = request.get("late")
    return late if isinstance(late, int) else None


def received_wall_ms(received_ms: int, now_ms: int) -> int:
    """The wall time of a receipt at monotonic ``received_ms``, read at monotonic ``now_ms``:
    what a relayed command carries as its receipt (``"rw"``)."""
    return wall_ms() - max(now_ms - received_ms, 0)


def _no_answer() -> Rejection:
    return Rejection(
        ErrorCode.SERVER_BUSY,
        "the server process that runs this match did not answer; try again shortly",
        retry_after_s=RETRY_AFTER_S,
    )
