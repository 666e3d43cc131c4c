"""The Redis bus (PROTOCOL.md "Several servers on one database") against the real Redis of the
machine (``TEST_REDIS_URL``; CI sets it, and there a missing Redis fails the run rather than
skipping it).

The relay's promise rests on the bus: what one process sends reaches every process listening,
in the order it was sent; ``listen`` returns only once Redis will deliver the channel's next
message; and a lost connection comes back by itself, with every channel subscribed again, what
was sent meanwhile sent then, and the reconnect callbacks run (so sockets resynchronise).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from spectacular_bid.bus.redis import RedisBus, command, publish_command
from waiting import until

REDIS_URL = os.environ.get("TEST_REDIS_URL", "")


@pytest.fixture
async def buses() -> AsyncIterator[tuple[RedisBus, RedisBus]]:
    if not REDIS_URL:
        if os.environ.get("CI"):
            pytest.fail("TEST_REDIS_URL is not set: CI must test the bus on a real Redis")
        pytest.skip("TEST_REDIS_URL is not set")
    pair = (RedisBus(REDIS_URL), RedisBus(REDIS_URL))
    for bus in pair:
        await bus.start()
    await until(lambda: all(bus.is_up for bus in pair))
    yield pair
    for bus in pair:
        await bus.close()


def test_a_command_is_an_array_of_bulk_strings() -> None:
    assert (
        command("PUBLISH", "c", "é\r\n")
        == b"*3\r\n$7\r\nPUBLISH\r\n$1\r\nc\r\n$4\r\n\xc3\xa9\r\n\r\n"
    )


@pytest.mark.parametrize(
    ("channel", "text"), [("c", "é\r\n"), ("specbid:match:x", ""), ("ü" * 3, "%d %s $1\r\n" * 40)]
)
def test_a_publish_is_made_as_the_generic_command_would_be(channel: str, text: str) -> None:
    assert publish_command(channel, text) == command("PUBLISH", channel, text)


async def test_a_listen_cancelled_as_redis_confirms_it_is_cancelled() -> None:
    """A socket's task cancelled in the turn its subscription was confirmed stops there: Python
    3.11's ``asyncio.wait_for`` returned instead, dropping the cancellation, and the socket
    went on attaching (``asyncio.timeout`` keeps it)."""

    class Subscribed:
        is_open = True

        def send(self, *parts: str) -> None:
            pass

    bus = RedisBus("redis://127.0.0.1:1/0")  # never connected: the link is the stand-in
    bus._up, bus._sub = True, Subscribed()  # type: ignore[assignment]
    listening = asyncio.create_task(bus.listen("specbid:test:c", lambda text: None))
    await asyncio.sleep(0)  # one turn of the loop, not a wait: the listener asks to subscribe
    bus._confirming["specbid:test:c"].set_result(None)
    listening.cancel()
    with pytest.raises(asyncio.CancelledError):
        await listening


async def listening(bus: RedisBus) -> tuple[str, list[str]]:
    """A fresh channel ``bus`` listens on, and the list its messages go to."""
    channel = "specbid:test:" + secrets.token_hex(4)
    got: list[str] = []
    await bus.listen(channel, got.append)
    return channel, got


async def test_what_one_process_sends_another_reads_in_order(
    buses: tuple[RedisBus, RedisBus],
) -> None:
    sender, listener = buses
    channel, got = await listening(listener)
    # Sent at once after listen returned: none may be lost to a subscription not yet made.
    sent = [f'{{"n":{i},"text":"ünï \\r\\n {"x" * (i % 7) * 300}"}}' for i in range(2000)]
    for text in sent:
        sender.send(channel, text)
    await until(lambda: len(got) == len(sent))
    assert got == sent


async def test_a_channel_no_longer_listened_to_delivers_nothing(
    buses: tuple[RedisBus, RedisBus],
) -> None:
    sender, listener = buses
    channel, got = await listening(listener)
    sender.send(channel, "one")
    await until(lambda: got == ["one"])
    await listener.unlisten(channel)
    sender.send(channel, "two")
    marker, after = await listening(listener)
    sender.send(marker, "done")  # sent after "two" on the same connection: read after it too
    await until(lambda: after == ["done"])
    assert got == ["one"]


async def test_a_lost_connection_comes_back_subscribed_and_says_so(
    buses: tuple[RedisBus, RedisBus],
) -> None:
    sender, listener = buses
    reconnects: list[int] = []
    listener.on_reconnect(lambda: reconnects.append(1))
    channel, got = await listening(listener)
    sender.send(channel, "before")
    await until(lambda: got == ["before"])

    # Redis drops both of the listener's connections, as a restart would.
    admin = Redis.from_url(REDIS_URL)
    try:
        for link in (listener._pub, listener._sub):
            assert link is not None
            assert link._transport is not None
            host, port = link._transport.get_extra_info("sockname")[:2]
            await admin.client_kill(f"{host}:{port}")
    finally:
        await admin.aclose()
    await until(lambda: reconnects == [1] and listener.is_up)

    sender.send(channel, "after")
    await until(lambda: got == ["before", "after"])
