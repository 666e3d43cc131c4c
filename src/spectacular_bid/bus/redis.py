"""The bus on Redis pub/sub (issue 13 item 2), through redis-py's asyncio client.

Redis pub/sub delivers at most once and keeps nothing: exactly the bus's promise, and nothing
depends on more (the database is authoritative). Two connections: one subscribed, read by one
task that hands each message to its channel's handler; one that publishes, fed by one task from
a queue, so that everything this process sends leaves in the order it was sent and the match
actor that sends a version never waits for Redis. When Redis goes away (a restart, a network
cut) both tasks keep trying with a growing pause; once the subscription is back, every channel
is subscribed again and the reconnect callbacks run, so the relay resynchronises its streams.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from typing import Any, Final

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from spectacular_bid.service.bus import BusDownError, Handler

log = logging.getLogger(__name__)

RETRY_FIRST_S: Final = 0.05
RETRY_MAX_S: Final = 1.0
BATCH: Final = 256
"""Messages published in one round trip at most."""
QUEUE_LIMIT: Final = 100_000
"""Messages waiting while Redis is down before the oldest are dropped (they would be stale)."""

_CONNECTION_ERRORS: Final = (RedisError, OSError, asyncio.TimeoutError)


def resolve_redis_url(url: str | None) -> str | None:
    """The Redis to relay through: ``url``, else ``$REDIS_URL``, else none (one process)."""
    return url or os.environ.get("REDIS_URL") or None


class RedisBus:
    """:class:`~spectacular_bid.service.bus.Bus` on the Redis at ``url``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._handlers: dict[str, Handler] = {}
        self._reconnected: list[Callable[[], None]] = []
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._client: Redis | None = None
        self._pubsub: PubSub | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._up = False
        self._subscribed = asyncio.Event()

    @property
    def is_up(self) -> bool:
        return self._up

    async def start(self) -> None:
        """Connect (a Redis that is down now is retried in the background: the process serves
        its own matches without it)."""
        self._client = Redis.from_url(
            self.url, decode_responses=True, socket_connect_timeout=2, socket_timeout=5
        )
        self._tasks = [
            asyncio.create_task(self._read(), name="bus-read"),
            asyncio.create_task(self._write(), name="bus-write"),
        ]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        if self._pubsub is not None:
            with contextlib.suppress(*_CONNECTION_ERRORS):
                await self._pubsub.aclose()
        if self._client is not None:
            with contextlib.suppress(*_CONNECTION_ERRORS):
                await self._client.aclose()
        self._up = False

    def send(self, channel: str, text: str) -> None:
        if self._outbox.qsize() >= QUEUE_LIMIT:
            self._outbox.get_nowait()
        self._outbox.put_nowait((channel, text))

    async def listen(self, channel: str, handler: Handler) -> None:
        self._handlers[channel] = handler
        self._subscribed.set()
        if self._pubsub is not None and self._up:
            try:
                await self._pubsub.subscribe(channel)
            except _CONNECTION_ERRORS as exc:
                log.warning("bus: subscribing to %s failed, will retry: %s", channel, exc)

    async def unlisten(self, channel: str) -> None:
        if self._handlers.pop(channel, None) is None:
            return
        if self._pubsub is not None and self._up:
            with contextlib.suppress(*_CONNECTION_ERRORS):
                await self._pubsub.unsubscribe(channel)

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

    # -- the two tasks ------------------------------------------------------------------

    async def _read(self) -> None:
        await self._subscribed.wait()
        pause = RETRY_FIRST_S
        first = True
        while True:
            try:
                await self._subscribe_all()
                if not first:
                    log.warning("bus: connected to Redis again; resynchronising")
                    for callback in self._reconnected:
                        callback()
                first = False
                pause = RETRY_FIRST_S
                await self._deliver()
            except _CONNECTION_ERRORS as exc:
                if self._up:
                    log.warning("bus: lost Redis: %s", exc)
                self._up = False
                first = False
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX_S, pause * 2)

    async def _subscribe_all(self) -> None:
        assert self._client is not None
        if self._pubsub is not None:
            with contextlib.suppress(*_CONNECTION_ERRORS):
                await self._pubsub.aclose()
        self._pubsub = self._client.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(*self._handlers)
        self._up = True

    async def _deliver(self) -> None:
        pubsub = self._pubsub
        assert pubsub is not None
        while True:
            message: dict[str, Any] | None = await pubsub.get_message(timeout=None)
            if message is None or message.get("type") != "message":
                continue
            handler = self._handlers.get(message["channel"])
            if handler is None:
                continue
            try:
                handler(message["data"])
            except Exception:
                log.exception("bus: the handler of %s failed", message["channel"])

    async def _write(self) -> None:
        pause = RETRY_FIRST_S
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < BATCH and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            try:
                await self._publish(batch)
                pause = RETRY_FIRST_S
            except _CONNECTION_ERRORS as exc:
                log.warning("bus: %d messages not published: %s", len(batch), exc)
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX_S, pause * 2)

    async def _publish(self, batch: list[tuple[str, str]]) -> None:
        assert self._client is not None
        if len(batch) == 1:
            await self._client.publish(*batch[0])
            return
        async with self._client.pipeline(transaction=False) as pipe:
            for channel, text in batch:
                pipe.publish(channel, text)
            await pipe.execute()
