"""``/ws/matches/{id}``: one socket of a player or a spectator (PROTOCOL.md "The WebSocket").

Before the handshake is accepted another site's page is refused (a foreign ``Origin``, or
``Sec-Fetch-Site`` saying so: close 1008), and so is a token presented in the header or
``?token=`` that names no one (close 4001); a socket that acts for a player holds its token
(``session_sockets.py``) and is closed with 4001 when the token ends, on whichever process it
ended. Then the socket subscribes to its match's room (``room.py``) — with ``?since=V`` it first
gets the missed events, or a full state when the gap exceeds the resend window — and two tasks
run until either ends:

- the sender drains the subscriber's queue; a ``None`` means the room dropped this socket for
  falling behind, and the socket closes with 1013 so the client reconnects and resyncs;
- the receiver stamps each frame with the server's receive time (R7.7: that is the time that
  counts), applies the size and rate limits, parses the frame and submits its command.

Replies to the sender (``ack``, ``error``, ``pong``) go through the same queue as the match's own
messages, so this socket has exactly one writer and a command's ``update`` always reaches it
before the command's ``ack``. Errors go to this socket only and never change a match (R8.3).

An ended match that is no longer in memory is read from its record instead: the socket gets one
``state`` message and is closed normally (1000).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.chat import shown_channels
from spectacular_bid.service.guests import token_hash
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.ports import Player, StorageError
from spectacular_bid.service.ratelimit import TokenBucket
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.service.replay import Rebuilt
from spectacular_bid.service.telemetry import current_match
from spectacular_bid.service.whereabouts import Elsewhere, locate
from spectacular_bid.web.appstate import remote_rooms_of, rooms_of, service_of, settings_of
from spectacular_bid.web.chat_messages import ClientChat, chat_text
from spectacular_bid.web.frame_decode import (
    FrameRefusal,
    client_id_in,
    client_id_of,
    decode_client_text,
)
from spectacular_bid.web.identity import player_of, presented_token, token_of
from spectacular_bid.web.match_link import LocalLink, MatchLink
from spectacular_bid.web.messages import (
    ClientPing,
    ack_text,
    error_text,
    parse_client_message,
    pong_text,
)
from spectacular_bid.web.origin import foreign_page
from spectacular_bid.web.remote_room import RemoteRoom
from spectacular_bid.web.room import Room, Rooms, audience_for
from spectacular_bid.web.session_sockets import Held, SessionSockets
from spectacular_bid.web.settings import WebSettings
from spectacular_bid.web.socket_caps import SocketCaps
from spectacular_bid.web.subscriber import Subscriber

log = logging.getLogger(__name__)

SOCKET_PATH: Final = "/ws/matches/"
CLOSE_NORMAL: Final = 1000
"""An ended match read from its record: its one ``state`` message was sent."""
CLOSE_POLICY: Final = 1008
"""A foreign origin, a refused subscription, a socket over its address's or guest's cap, or one
that keeps flooding: do not retry as is."""
CLOSE_TRY_AGAIN: Final = 1013
"""Dropped for falling behind, or the server is stopping: reconnect with ``?since=``."""
CLOSE_INTERNAL: Final = 1011
CLOSE_RESTART: Final = 1012
"""The match moved to another server process (a deploy, PROTOCOL.md "Several servers on one
database"): reconnect."""
CLOSE_SESSION_ENDED: Final = 4001
"""The socket's token ended (a logout, a new password, the guest became an account; on any
server process), or the token it presented names no one: authenticate again, then reconnect."""

Close = tuple[int, str]


class MatchSocketEndpoint:
    """``/ws/matches/{id}`` as a bare ASGI endpoint in front of the app (OPERATIONS.md "Under load
    and abuse").

    Through FastAPI every open socket kept its whole call chain suspended: the application and
    its middleware, routing, dependency solving, six exit stacks, the exception wrappers — about
    24 KiB and 200 objects per idle socket, which every collection walked. In front of all of it
    a socket costs its own coroutine, its sender task and its :class:`MatchSocket`. Every other
    scope (HTTP, lifespan, any other WebSocket path) goes on to ``app``.
    """

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            path: str = scope["path"]
            match_id = path[len(SOCKET_PATH) :] if path.startswith(SOCKET_PATH) else ""
            if match_id and "/" not in match_id:
                scope["app"] = self.app  # where the app would have put itself: its state
                await match_socket(WebSocket(scope, receive, send), match_id)
                return
        await self.app(scope, receive, send)


async def match_socket(websocket: WebSocket, match_id: str) -> None:
    """Players and spectators of one match. Query: ``since`` (last version seen), ``as``
    (``spectator`` to watch one's own match as a spectator), ``token`` (else the cookie)."""
    service, settings = service_of(websocket), settings_of(websocket)
    if foreign_page(websocket.headers, websocket.url.scheme, settings.allowed_origins):
        await websocket.close(CLOSE_POLICY, "foreign origin")
        return
    player = await player_of(websocket)
    if player is None and presented_token(websocket) is not None:
        await _refuse_token(websocket)
        return
    token = token_of(websocket)
    sockets = session_sockets_of(websocket)
    # Held before the next await: an end announced from here on closes this socket.
    held = sockets.hold(token_hash(token), player) if player is not None and token else None
    try:
        await websocket.accept()
        caps = caps_of(websocket)
        address = websocket.client.host if websocket.client is not None else None
        guest_id = player.id if player is not None else None
        refused = caps.open(address, guest_id)
        if refused is not None:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await websocket.close(CLOSE_POLICY, refused)
            return
        try:
            await _serve(websocket, match_id, player, held, service, settings, rooms_of(websocket))
        finally:
            caps.close(address, guest_id)
    finally:
        if held is not None:
            sockets.release(held)


async def _refuse_token(websocket: WebSocket) -> None:
    """A token presented (header or ``?token=``) that names no one: its session ended, or it
    never was one. One ``unauthorized`` error, then close 4001."""
    rejection = Rejection(
        ErrorCode.UNAUTHORIZED,
        "this token names no one (its session ended, or it never was one): log in again or "
        "create a guest, then reconnect",
    )
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        await websocket.accept()
        await websocket.send_text(error_text(0, rejection, None))
        await websocket.close(CLOSE_SESSION_ENDED, "session ended")


def session_sockets_of(websocket: WebSocket) -> SessionSockets:
    sockets = websocket.app.state.session_sockets
    assert isinstance(sockets, SessionSockets), "create_app() puts them on app.state"
    return sockets


def caps_of(websocket: WebSocket) -> SocketCaps:
    caps = websocket.app.state.socket_caps
    assert isinstance(caps, SocketCaps), "create_app() puts the SocketCaps on app.state"
    return caps


async def _serve(
    websocket: WebSocket,
    match_id: str,
    player: Player | None,
    held: Held | None,
    service: MatchService,
    settings: WebSettings,
    rooms: Rooms,
) -> None:
    """An accepted socket within the caps: its match's room until either side closes — the room
    here, or the stand-in of the room of the process that runs the match (PROTOCOL.md "Several
    servers on one database")."""
    match: MatchActor | Rebuilt | Elsewhere | None = None
    try:
        since, audience = _connect_params(websocket.query_params)
        match = await locate(service, match_id, relaying=remote_rooms_of(websocket) is not None)
        current_match.set(match_id)  # this connection's task: its log lines name the match
        if isinstance(match, Rebuilt):
            shown = audience_for(match.state, player, audience)
            await _send_ended(websocket, rooms.state_text(match, shown))
            return
        if isinstance(match, Elsewhere):
            remote = remote_rooms_of(websocket)
            assert remote is not None
            stand_in = remote.room(match_id, match.server_id)
            here: Room | RemoteRoom = stand_in
            subscriber = await stand_in.subscribe(player, since, audience)
            link: MatchLink = stand_in
        else:
            here = rooms.room(match)
            subscriber = here.subscribe(player, since, audience)
            link = LocalLink(here, service)
    except Rejection as rejection:
        version = match.version if isinstance(match, MatchActor | Rebuilt) else 0
        close = CLOSE_TRY_AGAIN if rejection.code is ErrorCode.SERVER_BUSY else CLOSE_POLICY
        with contextlib.suppress(WebSocketDisconnect, OSError):  # the client may already be gone
            await websocket.send_text(error_text(version, rejection, None))
            await websocket.close(close, rejection.code.value)
        return
    try:
        await _send_chat_history(service, link, subscriber, here)
        await MatchSocket(websocket, service, settings, link, subscriber, player, held).run()
    finally:
        here.unsubscribe(subscriber)


async def _send_ended(websocket: WebSocket, message: str) -> None:
    """An ended match no longer in memory (D5: e.g. aborted while the server was down): one
    ``state`` message, re-run from its record, then a normal close — nothing more will happen."""
    with contextlib.suppress(WebSocketDisconnect, OSError):
        await websocket.send_text(message)
        await websocket.close(CLOSE_NORMAL, "the match has ended")


async def _send_chat_history(
    service: MatchService, link: MatchLink, subscriber: Subscriber, room: Room | RemoteRoom
) -> None:
    """The lines so far in the channels the socket is shown, after its state; a line said
    meanwhile may come twice, and the page keeps each number once."""
    if isinstance(room, Room):
        if service.chat.said(link.id) == 0:
            return  # most matches: no read at all
        shown = shown_channels(room.actor.state, subscriber.player_id, subscriber.audience)
    else:
        if room.said(subscriber) == 0:
            return  # the owner counted none when the socket attached
        shown = room.channels_of(subscriber)
    try:
        lines = await service.chat.lines(link.id, shown)
    except StorageError as exc:
        log.warning("match %s: its chat could not be read: %s", link.id, exc)
        return
    if lines:
        subscriber.offer(chat_text(link.version, lines))


def _connect_params(query: QueryParams) -> tuple[int | None, Audience | None]:
    since_text = query.get("since")
    since: int | None = None
    if since_text is not None:
        if not (since_text.isascii() and since_text.isdigit() and len(since_text) <= 18):
            raise Rejection(
                ErrorCode.BAD_MESSAGE, f"since must be a version (an integer >= 0): {since_text!r}"
            )
        since = int(since_text)
    as_text = query.get("as")
    audience: Audience | None = None
    if as_text is not None:
        try:
            audience = Audience(as_text)
        except ValueError:
            names = ", ".join(a.value for a in Audience)
            raise Rejection(
                ErrorCode.BAD_MESSAGE, f"as must be one of {names}: {as_text!r}"
            ) from None
    return since, audience


class MatchSocket:
    """The state of one accepted socket: its subscription, its rate limit, its two loops."""

    def __init__(
        self,
        websocket: WebSocket,
        service: MatchService,
        settings: WebSettings,
        link: MatchLink,
        subscriber: Subscriber,
        player: Player | None,
        held: Held | None = None,
    ) -> None:
        self.websocket = websocket
        self.service = service
        self.settings = settings
        self.match = link
        self.subscriber = subscriber
        self.speaker = player
        """Who this socket chats as (a seated player, or a spectator with a name)."""
        self.chatting: set[asyncio.Task[None]] = set()
        self.player = None if subscriber.audience is Audience.SPECTATOR else player
        """Who this socket acts for: a socket that watches as a spectator acts for no one."""
        self.bucket = TokenBucket(settings.rate_limit_per_s, settings.rate_burst, service.now_ms())
        self.refusals = 0
        """Messages refused by the rate limit in a row; past ``rate_burst`` the socket closes."""
        self.receiving = True
        self.held = held
        """The socket's hold on its token: its end closes the socket (4001)."""

    async def run(self) -> None:
        """Receive in this task and send from one more: two tasks per socket, not three.

        Whichever side ends first ends the other: the receiver cancels the sender; a sender
        that stops (the socket was dropped) cancels this task's wait for the client's next
        frame and hands over its close.
        """
        receiver = asyncio.current_task()
        assert receiver is not None
        if self.held is not None:
            # The subscriber's, not this socket's: no reference cycle through the hold.
            self.held.on_end = self.subscriber.close
            if self.held.ended:
                self.subscriber.close()
        sender = asyncio.create_task(self._send_loop(receiver))
        close: Close | None = None
        try:
            close = await self._receive_loop()
            self.receiving = False
        except asyncio.CancelledError:
            if not (sender.done() and receiver.uncancel() == 0):
                raise  # the server itself is stopping this socket
        except WebSocketDisconnect:
            pass  # the client is gone
        except Exception:
            log.exception("match %s: socket failed", self.match.id)
            close = (CLOSE_INTERNAL, "internal error")
        finally:
            self.receiving = False
            if not sender.done():
                sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(sender, return_exceptions=True)
        if sender.done() and not sender.cancelled():
            # exception(), not result(): raised here, the error's traceback would take in this
            # frame, which holds the sender task, which holds the error: a reference cycle that
            # kept the whole socket, for ever once frozen under load (web.collector).
            error = sender.exception()
            if error is None:
                close = sender.result() or close
            elif not isinstance(error, WebSocketDisconnect):  # else the client is gone
                log.error("match %s: socket failed", self.match.id, exc_info=error)
                close = (CLOSE_INTERNAL, "internal error")
        if close is not None and self.websocket.application_state is WebSocketState.CONNECTED:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
                await self._flush()
                await self.websocket.close(*close)

    async def _flush(self) -> None:
        """What is still queued goes before the close (a flood's last ``rate_limited``)."""
        queue = self.subscriber.queue
        while not queue.empty() and (text := queue.get_nowait()) is not None:
            await self.websocket.send_text(text)

    async def _send_loop(self, receiver: asyncio.Task[None]) -> Close:
        try:
            return await self._send_all()
        finally:
            if self.receiving:  # the sender stopped first: the receiver stops too
                receiver.cancel()

    async def _send_all(self) -> Close:
        queue = self.subscriber.queue
        while True:
            text = await queue.get()
            if text is None:
                if self.held is not None and self.held.ended:
                    return (CLOSE_SESSION_ENDED, "session ended")
                if self.subscriber.restarting:
                    return (CLOSE_RESTART, "the match moved: reconnect with ?since=")
                return (CLOSE_TRY_AGAIN, "dropped: reconnect with ?since=<last version>")
            try:
                await self.websocket.send_text(text)
            except RuntimeError:
                # uvicorn sent a close of its own (1009 for an oversized frame) and reports the
                # next send as a RuntimeError a moment before the disconnect: the client is gone.
                raise WebSocketDisconnect(CLOSE_TRY_AGAIN) from None

    async def _receive_loop(self) -> Close | None:
        while True:
            message = await self.websocket.receive()
            if message["type"] == "websocket.disconnect":
                return None
            received_ms = self.service.now_ms()
            close = await self._on_frame(message.get("text"), received_ms)
            if close is not None:
                return close

    async def _on_frame(self, text: str | None, received_ms: int) -> Close | None:
        limit = self.settings.max_message_bytes
        if not self.bucket.take(received_ms):
            self.refusals += 1
            if self.refusals > self.settings.rate_burst:
                return (CLOSE_POLICY, "rate limit: too many messages")
            rate = self.settings.rate_limit_per_s
            # The id by a cheap scan, not a parse: a flood costs little more than its reading.
            refused_id = client_id_in(text) if text is not None and len(text) <= limit else None
            self._refuse(
                ErrorCode.RATE_LIMITED, f"more than {rate:g} messages per second", refused_id
            )
            return None
        self.refusals = 0
        if text is None:
            self._refuse(ErrorCode.BAD_MESSAGE, "send JSON in text frames, not binary")
            return None
        # surrogatepass: a text from an ASGI server that let a surrogate through is measured
        # (decode_client_text refuses it), not an exception.
        if len(text) > limit or (
            4 * len(text) > limit and len(text.encode("utf-8", "surrogatepass")) > limit
        ):
            self._refuse(ErrorCode.TOO_LARGE, f"a message has at most {limit} bytes")
            return None
        try:
            data = decode_client_text(text)
        except FrameRefusal as refusal:
            self.subscriber.offer(error_text(self.match.version, refusal, refusal.client_id))
            return None
        client_id = client_id_of(data)
        try:
            message = parse_client_message(data)
            if isinstance(message, ClientPing):
                now = self.service.now_ms()
                self.subscriber.offer(pong_text(self.match.version, client_id, now))
                return None
            if isinstance(message, ClientChat):
                self._chat(message, client_id)
                return None
            player_id = self.player.id if self.player is not None else None
            version = await self.match.submit(player_id, data, message, received_ms)
        except Rejection as rejection:
            self.subscriber.offer(error_text(self.match.version, rejection, client_id))
        else:
            self.subscriber.offer(ack_text(version, client_id))
        return None

    def _chat(self, message: ClientChat, client_id: str | None) -> None:
        """Said beside this socket's commands, not before its next one: a line waits for its
        store, a command sent after it does not wait for the line (PROTOCOL.md "chat")."""
        task = asyncio.create_task(self._say(message, client_id))
        self.chatting.add(task)
        task.add_done_callback(self.chatting.discard)

    async def _say(self, message: ClientChat, client_id: str | None) -> None:
        try:
            line = await self.match.say(self.speaker, message.text, message.phrase_value())
        except Rejection as rejection:
            self.subscriber.offer(error_text(self.match.version, rejection, client_id))
            return
        self.subscriber.offer(ack_text(self.match.version, client_id))
        if line is not None:
            self.match.show(line)

    def _refuse(self, code: ErrorCode, message: str, client_id: str | None = None) -> None:
        self.subscriber.offer(error_text(self.match.version, Rejection(code, message), client_id))
