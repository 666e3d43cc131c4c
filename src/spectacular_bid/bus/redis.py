"""The bus on Redis pub/sub (PROTOCOL.md "Several servers on one database").

Redis pub/sub delivers at most once and keeps nothing: exactly the bus's promise, and nothing
depends on more (the database is authoritative). What the relay sends and reads — every version
of every match with sockets elsewhere, every relayed command and its reply — goes over two
connections of this module's own, read by hiredis (the Redis project's C parser of its protocol):
one that publishes, one subscribed. A message is written to the publishing connection where it
is sent, with the others of the same turn of the loop, and each message read is handed to its
channel's handler as it is parsed. Through redis-py's asyncio client a relayed version cost a
task's wake-up at each end and a round trip before the next batch could leave: at 2,000 matches
over two processes the relay's p99 was 25 ms (its target is 5) and the bus took about a tenth of
the servers' samples. redis-py remains for the few other commands (the lobby's keys).

When Redis goes away (a restart, a network cut, or no answer to a ping for
:data:`PING_TIMEOUT_S`) both connections are opened again with a growing pause; once they are
back, every channel is subscribed again and the reconnect callbacks run, so the relay
resynchronises its streams. What is sent meanwhile waits, in order, up to :data:`QUEUE_LIMIT`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
from collections import deque
from collections.abc import Callable
from typing import Any, Final, cast
from urllib.parse import unquote, urlsplit

import hiredis
from redis.asyncio import Redis
from redis.exceptions import RedisError

from spectacular_bid.service.bus import BusDownError, Handler

log = logging.getLogger(__name__)

RETRY_FIRST_S: Final = 0.05
RETRY_MAX_S: Final = 0.25
"""The longest pause between two attempts to reach Redis again: a restarted Redis is found
within it, and what it held up (the versions of a seat on the move, its commands) goes on. Each
second of it was a second the seats of relayed sockets waited on a restart already over
(PROTOCOL.md *Several servers on one database*: a restart costs a seat what it lasts, no more);
an attempt at a Redis that is down is refused at once, so four a second cost nothing."""
CONNECT_TIMEOUT_S: Final = 2.0
PING_S: Final = 2.0
PING_TIMEOUT_S: Final = 5.0
"""A connection whose ping is not answered this long is taken for lost (a silent network cut
sends no reset)."""
SUBSCRIBE_WAIT_S: Final = 2.0
QUEUE_LIMIT: Final = 100_000
"""Messages waiting while Redis is down before the oldest are dropped (they would be stale)."""

_CONNECTION_ERRORS: Final = (RedisError, OSError, asyncio.TimeoutError, ConnectionError)


def resolve_redis_url(url: str | None) -> str | None:
    """The Redis to relay through: ``url``, else ``$REDIS_URL``, else none (one process)."""
    return url or os.environ.get("REDIS_URL") or None


def command(*parts: str) -> bytes:
    """One command in Redis's protocol (RESP): an array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = part.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


_PUBLISH: Final = b"*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%b\r\n$%d\r\n%b\r\n"


def publish_command(channel: str, text: str) -> bytes:
    """:func:`command` of ``PUBLISH channel text``, made in one formatting rather than part by
    part: the relay's every message is one (half the cost of making it)."""
    name, data = channel.encode(), text.encode()
    return _PUBLISH % (len(name), name, len(data), data)


class RedisLink(asyncio.Protocol):
    """One connection to Redis. Commands are written at the end of the loop's turn, together;
    replies are parsed as they come: a subscribed connection's pushes (``message``,
    ``subscribe``, ``pong`` …) go to ``on_push``, every other reply to the oldest waiting
    command (a future, or nothing for a command whose reply is not wanted)."""

    def __init__(self, on_push: Callable[[list[Any]], None] | None) -> None:
        self._loop = asyncio.get_running_loop()
        self._reader = hiredis.Reader(encoding="utf-8")
        self._on_push = on_push
        self._transport: asyncio.Transport | None = None
        self._out: list[bytes] = []
        self._waiting: deque[asyncio.Future[Any] | None] = deque()
        self.lost: asyncio.Future[None] = self._loop.create_future()
        self.answered_at = self._loop.time()
        """When Redis last said anything on this connection (the watchdog reads it)."""
        self.errors = 0

    @property
    def is_open(self) -> bool:
        return self._transport is not None and not self.lost.done()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.answered_at = self._loop.time()
        self._reader.feed(data)
        while (reply := self._reader.gets()) is not False:
            if self._on_push is not None and isinstance(reply, list):
                self._on_push(reply)
                continue
            waiter = self._waiting.popleft() if self._waiting else None
            if waiter is None:
                if isinstance(reply, hiredis.ReplyError):
                    self.errors += 1
                    log.warning("bus: Redis refused a command: %s", reply)
            elif not waiter.done():
                if isinstance(reply, hiredis.ReplyError):
                    waiter.set_exception(RedisError(str(reply)))
                else:
                    waiter.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)
        while self._waiting:
            waiter = self._waiting.popleft()
            if waiter is not None and not waiter.done():
                waiter.set_exception(ConnectionError(f"Redis closed the connection: {exc}"))

    def send(self, *parts: str, reply: asyncio.Future[Any] | None = None) -> None:
        self._queue(command(*parts), reply)

    def publish(self, channel: str, text: str) -> None:
        """``PUBLISH``, its reply not wanted."""
        self._queue(publish_command(channel, text), None)

    def _queue(self, data: bytes, reply: asyncio.Future[Any] | None) -> None:
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(data)
        if self._on_push is None or reply is not None:
            self._waiting.append(reply)

    async def call(self, *parts: str) -> Any:
        """A command's reply (for the few that are waited for: AUTH, SELECT)."""
        reply: asyncio.Future[Any] = self._loop.create_future()
        self.send(*parts, reply=reply)
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            return await reply

    def _flush(self) -> None:
        out, self._out = self._out, []
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(b"".join(out))

    def close(self) -> None:
        if self._transport is not None:
            self._transport.abort()


class RedisBus:
    """:class:`~spectacular_bid.service.bus.Bus` on the Redis at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._handlers: dict[str, Handler] = {}
        self._reconnected: list[Callable[[], None]] = []
        self._backlog: deque[tuple[str, str]] = deque()
        self._client: Redis | None = None
        self._pub: RedisLink | None = None
        self._sub: RedisLink | None = None
        self._confirming: dict[str, asyncio.Future[None]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._up = False
        self.on_failure: Callable[[str, Exception], None] | None = None
        """Told a relay listener's failure (a handler of a message, or a reconnection's
        callback), which is logged here and counted there (``service.periodic``)."""

    @property
    def is_up(self) -> bool:
        return self._up

    async def start(self) -> None:
        """Connect (a Redis that is down now is retried in the background: the process serves
        its own matches without it)."""
        self._client = Redis.from_url(
            self.url, decode_responses=True, socket_connect_timeout=2, socket_timeout=5
        )
        self._tasks = [asyncio.create_task(self._keep(), name="bus-keep")]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        self._drop_links()
        if self._client is not None:
            with contextlib.suppress(*_CONNECTION_ERRORS):
                await self._client.aclose()

    def send(self, channel: str, text: str) -> None:
        pub = self._pub
        if self._up and pub is not None and pub.is_open:
            pub.publish(channel, text)
            return
        if len(self._backlog) >= QUEUE_LIMIT:
            self._backlog.popleft()
        self._backlog.append((channel, text))

    async def listen(self, channel: str, handler: Handler) -> None:
        """Subscribe, and return once Redis confirmed it (or after :data:`SUBSCRIBE_WAIT_S`:
        a message missed meanwhile costs a resync, as any lost one does)."""
        self._handlers[channel] = handler
        sub = self._sub
        if not (self._up and sub is not None and sub.is_open):
            return  # subscribed with all the others once connected
        confirmed = self._confirming.get(channel)
        if confirmed is None or confirmed.done():
            confirmed = self._confirming[channel] = asyncio.get_running_loop().create_future()
        sub.send("SUBSCRIBE", channel)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SUBSCRIBE_WAIT_S):
                await asyncio.shield(confirmed)

    async def unlisten(self, channel: str) -> None:
        if self._handlers.pop(channel, None) is None:
            return
        sub = self._sub
        if self._up and sub is not None and sub.is_open:
            sub.send("UNSUBSCRIBE", channel)

    async def put(self, key: str, text: str, ttl_ms: int) -> None:
        assert self._client is not None
        try:
            await self._client.set(key, text, px=ttl_ms)
        except _CONNECTION_ERRORS as exc:
            raise BusDownError(f"Redis: {exc}") from exc

    async def read(self, prefix: str) -> dict[str, str]:
        assert self._client is not None
        try:
            keys = [key async for key in self._client.scan_iter(match=prefix + "*", count=100)]
            values = await self._client.mget(keys) if keys else []
        except _CONNECTION_ERRORS as exc:
            raise BusDownError(f"Redis: {exc}") from exc
        return {str(k): str(v) for k, v in zip(keys, values, strict=True) if v is not None}

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        self._reconnected.append(callback)

    # -- inside -------------------------------------------------------------------------

    def _on_push(self, push: list[Any]) -> None:
        kind = push[0] if push else None
        if kind == "message" and len(push) == 3:
            handler = self._handlers.get(push[1])
            if handler is None:
                return
            try:
                handler(push[2])
            except Exception as exc:
                log.exception("bus: the handler of %s failed", push[1])
                self._failed(exc)
        elif kind == "subscribe" and len(push) == 3:
            confirmed = self._confirming.pop(push[1], None)
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(None)

    async def _keep(self) -> None:
        """Connect, and connect again each time a connection is lost."""
        pause = RETRY_FIRST_S
        lost_once = False
        while True:
            try:
                await self._connect()
            except Exception as exc:  # a driver's error too: the loop must not end
                if not isinstance(exc, _CONNECTION_ERRORS):
                    log.exception("bus: the connection to Redis failed")
                    self._failed(exc)
                elif not lost_once:
                    log.warning("bus: cannot reach Redis, will retry: %s", exc)
                lost_once = True
                self._drop_links()
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX_S, pause * 2)
                continue
            pause = RETRY_FIRST_S
            self._up = True
            self._send_backlog()
            if lost_once:
                log.warning("bus: connected to Redis again; resynchronising")
                for callback in self._reconnected:
                    try:
                        callback()
                    except Exception as exc:
                        log.exception("bus: a resynchronisation after reconnecting failed")
                        self._failed(exc)
            reason = await self._watch()
            log.warning("bus: lost Redis: %s", reason)
            self._up = False
            lost_once = True
            self._drop_links()

    def _failed(self, exc: Exception) -> None:
        if self.on_failure is not None:
            self.on_failure("relay-listener", exc)

    async def _connect(self) -> None:
        self._drop_links()
        self._pub = await self._open(None)
        self._sub = await self._open(self._on_push)
        channels = list(self._handlers)
        for start in range(0, len(channels), 1000):
            self._sub.send("SUBSCRIBE", *channels[start : start + 1000])

    async def _open(self, on_push: Callable[[list[Any]], None] | None) -> RedisLink:
        parts = urlsplit(self.url)
        loop = asyncio.get_running_loop()

        def make() -> RedisLink:
            return RedisLink(on_push)

        if parts.scheme == "unix":
            opening = loop.create_unix_connection(make, parts.path)
        else:
            context = ssl.create_default_context() if parts.scheme == "rediss" else None
            host, port = parts.hostname or "localhost", parts.port or 6379
            opening = loop.create_connection(make, host, port, ssl=context)
        async with asyncio.timeout(CONNECT_TIMEOUT_S):
            _, link = await opening
        if parts.password is not None:
            user = [unquote(parts.username)] if parts.username else []
            await link.call("AUTH", *user, unquote(parts.password))
        return link

    async def _watch(self) -> str:
        """Ping both connections every :data:`PING_S` until one is lost or stops answering;
        what happened."""
        links = [link for link in (self._pub, self._sub) if link is not None]
        loop = asyncio.get_running_loop()
        while True:
            done, _ = await asyncio.wait(
                [link.lost for link in links], timeout=PING_S, return_when=asyncio.FIRST_COMPLETED
            )
            if done:
                return "the connection was closed"
            now = loop.time()
            for link in links:
                if now - link.answered_at > PING_TIMEOUT_S:
                    return f"no answer for {PING_TIMEOUT_S:.0f} s"
                link.send("PING")

    def _send_backlog(self) -> None:
        backlog, self._backlog = self._backlog, deque()
        for channel, text in backlog:
            self.send(channel, text)

    def _drop_links(self) -> None:
        for link in (self._pub, self._sub):
            if link is not None:
                link.close()
        self._pub = self._sub = None
        for confirmed in self._confirming.values():
            if not confirmed.done():
                confirmed.set_result(None)
        self._confirming.clear()
