"""The relay's calls between server processes (PROTOCOL.md "Several servers on one database"), over
a bus held in memory: a reply is matched to its call by number, an owner's refusal is raised as the
same :class:`Rejection`, a request lost is sent again by the asking process and run once, and a call
nobody answers fails as ``server_busy`` after ``CALL_TIMEOUT_S``, leaving nothing behind. A relayed
command's receipt is read against the owner's clock within ``RELAY_BOUND_MS``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web import relay as relay_module
from spectacular_bid.web.relay import (
    ANSWERED_KEEP_MS,
    RELAY_BOUND_MS,
    RETRY_AFTER_S,
    SERVER_CHANNEL,
    Relay,
    Request,
    relayed_ms,
)


class MemoryBus:
    """Every process's bus at once: a message goes to the channel's handler in a later turn
    of the loop, as Redis delivers it; ``deaf`` drops everything sent to a channel."""

    is_up = True
    """Set on an instance to take its bus down (a subclass may make it a property)."""

    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[str], None]] = {}
        self.deaf: set[str] = set()
        self.reconnected: list[Callable[[], None]] = []
        self.sent: list[str] = []

    def send(self, channel: str, text: str) -> None:
        self.sent.append(text)
        handler = self.handlers.get(channel)
        if handler is not None and channel not in self.deaf:
            asyncio.get_running_loop().call_soon(handler, text)

    async def listen(self, channel: str, handler: Callable[[str], None]) -> None:
        self.handlers[channel] = handler

    async def unlisten(self, channel: str) -> None:
        self.handlers.pop(channel, None)

    def on_reconnect(self, callback: Callable[[], None]) -> None:
        self.reconnected.append(callback)

    def back(self) -> None:
        self.is_up = True
        for callback in self.reconnected:
            callback()


async def pair() -> tuple[MemoryBus, Relay, Relay]:
    bus = MemoryBus()
    asker = Relay(bus, "asker", lambda: 1_000)  # type: ignore[arg-type]
    owner = Relay(bus, "owner", lambda: 2_000)  # type: ignore[arg-type]
    await asker.start()
    await owner.start()
    return bus, asker, owner


async def test_each_reply_goes_to_its_own_call() -> None:
    _, asker, owner = await pair()
    seen: list[Request] = []

    async def echo(request: Request) -> dict[str, object]:
        seen.append(request)
        await asyncio.sleep(0.01 * int(str(request["n"])))  # answered in reverse order
        return {"n": request["n"]}

    owner.serve("echo", echo)
    answers = await asyncio.gather(*(asker.call("owner", "echo", {"n": n}) for n in (3, 2, 1)))

    assert [answer["n"] for answer in answers] == [3, 2, 1]
    assert {request["at"] for request in seen} == {2_000}, "timed at the owner's receipt (R7.7)"
    assert not asker._calls


async def test_an_owners_refusal_is_raised_as_it_was() -> None:
    _, asker, owner = await pair()

    async def refuse(request: Request) -> dict[str, object]:
        raise Rejection(ErrorCode.SEAT_TAKEN, "both seats are taken", retry_after_s=7)

    owner.serve("join", refuse)
    with pytest.raises(Rejection) as raised:
        await asker.call("owner", "join", {})
    assert (raised.value.code, raised.value.message, raised.value.retry_after_s) == (
        ErrorCode.SEAT_TAKEN,
        "both seats are taken",
        7,
    )
    with pytest.raises(Rejection) as unknown:
        await asker.call("owner", "nothing", {})
    assert unknown.value.code is ErrorCode.UNKNOWN_TYPE


@pytest.fixture
async def unheard(monkeypatch: pytest.MonkeyPatch) -> Relay:
    """An asker whose owner hears nothing, with calls that time out after 50 ms."""
    monkeypatch.setattr(relay_module, "CALL_TIMEOUT_S", 0.05)
    bus, asker, _ = await pair()
    bus.deaf.add(SERVER_CHANNEL + "owner")
    return asker


async def test_a_call_nobody_answers_is_busy_after_the_timeout(unheard: Relay) -> None:
    asker = unheard
    loop = asyncio.get_running_loop()
    started = loop.time()

    with pytest.raises(Rejection) as raised:
        await asker.call("owner", "submit", {"m": "m1"})

    assert raised.value.code is ErrorCode.SERVER_BUSY
    assert raised.value.retry_after_s == RETRY_AFTER_S
    assert 0.04 <= loop.time() - started < 1.0
    assert not asker._calls


async def test_an_answer_after_the_timeout_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(relay_module, "CALL_TIMEOUT_S", 0.02)
    _, asker, owner = await pair()

    async def late(request: Request) -> dict[str, object]:
        await asyncio.sleep(0.1)
        return {"late": True}

    owner.serve("view", late)
    with pytest.raises(Rejection):
        await asker.call("owner", "view", {})
    await asyncio.sleep(0.15)  # the late answer arrives to no call, and changes nothing
    assert not asker._calls


async def test_a_cancelled_call_leaves_no_call_and_no_timer(
    unheard: Relay, monkeypatch: pytest.MonkeyPatch
) -> None:
    asker = unheard
    fired: list[object] = []
    monkeypatch.setattr(Relay, "_again", lambda self, number: fired.append(number))
    call = asyncio.create_task(asker.call("owner", "submit", {}))
    await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await asyncio.sleep(0.1)
    assert not asker._calls
    assert not fired, "the timer of a cancelled call is cancelled with it"


@pytest.fixture
async def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Attempts every 20 ms, calls that give up after a second."""
    monkeypatch.setattr(relay_module, "ATTEMPT_S", 0.02)
    monkeypatch.setattr(relay_module, "CALL_TIMEOUT_S", 1.0)


@pytest.mark.usefixtures("quick")
async def test_a_reply_lost_is_asked_again_and_the_command_runs_once() -> None:
    bus, asker, owner = await pair()
    ran: list[Request] = []
    replied = asyncio.Event()

    async def submit(request: Request) -> dict[str, object]:
        ran.append(request)
        replied.set()
        return {"v": 7}

    owner.serve("submit", submit)
    bus.deaf.add(SERVER_CHANNEL + "asker")  # the owner's reply is lost (Redis restarting)
    call = asyncio.create_task(asker.call("owner", "submit", {"m": "m1"}))
    await replied.wait()
    requests = len([t for t in bus.sent if '"op":"submit"' in t])
    while len([t for t in bus.sent if '"op":"submit"' in t]) == requests:
        await asyncio.sleep(0.005)  # until the asker sends it again
    bus.deaf.clear()

    assert (await call)["v"] == 7
    assert len(ran) == 1, "a retry is answered with the first reply, never run again"
    assert not asker._calls


@pytest.mark.usefixtures("quick")
async def test_a_call_while_the_bus_is_down_goes_when_it_is_back() -> None:
    bus, asker, owner = await pair()

    async def view(request: Request) -> dict[str, object]:
        return {"text": "seen"}

    owner.serve("view", view)
    bus.is_up = False
    call = asyncio.create_task(asker.call("owner", "view", {}))
    await asyncio.sleep(0.1)  # five attempts' worth of time with the bus down
    assert not call.done()
    assert bus.sent == [], "nothing is sent into a bus that is down"
    bus.back()

    assert (await call)["text"] == "seen"


@pytest.mark.parametrize(
    ("before_ms", "expected_ms"),
    [(0, 0), (1_500, 1_500), (-3_000, 0), (RELAY_BOUND_MS + 60_000, RELAY_BOUND_MS)],
    ids=["at once", "held by a restart", "from the future", "older than the bound"],
)
async def test_a_relayed_command_s_receipt_is_read_within_the_bound(
    monkeypatch: pytest.MonkeyPatch, before_ms: int, expected_ms: int
) -> None:
    """``rw`` is the asking process's wall time of the receipt; the owner takes the command as
    that much older than its own receipt, never newer and never more than the bound."""
    monkeypatch.setattr(relay_module, "wall_ms", lambda: 50_000_000)
    _, asker, owner = await pair()
    seen: list[Request] = []

    async def submit(request: Request) -> dict[str, object]:
        seen.append(request)
        return {"v": 1}

    owner.serve("submit", submit)
    await asker.call("owner", "submit", {"rw": 50_000_000 - before_ms})

    assert relayed_ms(seen[0]) == expected_ms
    assert seen[0]["at"] == 2_000


async def test_an_owner_forgets_its_answers_after_a_retry_could_come() -> None:
    """Each request's reply is kept for a retry :data:`ANSWERED_KEEP_MS` at least and twice that
    at most: an owner's memory of them does not grow with its uptime."""
    bus = MemoryBus()
    now = [0]
    asker = Relay(bus, "asker", lambda: now[0])  # type: ignore[arg-type]
    owner = Relay(bus, "owner", lambda: now[0])  # type: ignore[arg-type]
    await asker.start()
    await owner.start()

    async def view(request: Request) -> dict[str, object]:
        return {"text": "seen"}

    owner.serve("view", view)
    await asker.call("owner", "view", {})  # request 1, at 0
    first = ("asker", 1)
    kept_until = 0
    for step in range(1, 9):
        now[0] = step * ANSWERED_KEEP_MS // 2
        await asker.call("owner", "view", {})
        if first in owner._answers or first in owner._older:
            kept_until = now[0]
    assert ANSWERED_KEEP_MS <= kept_until < 2 * ANSWERED_KEEP_MS
    assert len(owner._answers) + len(owner._older) <= 4, "only the last two generations"
