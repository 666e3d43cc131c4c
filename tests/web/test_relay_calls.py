"""The relay's calls between server processes (issue 13 item 2), over a bus held in memory: a
reply is matched to its call by number, an owner's refusal is raised as the same
:class:`Rejection`, and a call nobody answers fails as ``server_busy`` after
``CALL_TIMEOUT_S``, leaving nothing behind."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web import relay as relay_module
from spectacular_bid.web.relay import RETRY_AFTER_S, SERVER_CHANNEL, Relay, Request


class MemoryBus:
    """Every process's bus at once: a message goes to the channel's handler in a later turn
    of the loop, as Redis delivers it; ``deaf`` drops everything sent to a channel."""

    is_up = True

    def __init__(self) -> None:
        self.handlers: dict[str, Callable[[str], None]] = {}
        self.deaf: set[str] = set()

    def send(self, channel: str, text: str) -> None:
        handler = self.handlers.get(channel)
        if handler is not None and channel not in self.deaf:
            asyncio.get_running_loop().call_soon(handler, text)

    async def listen(self, channel: str, handler: Callable[[str], None]) -> None:
        self.handlers[channel] = handler

    async def unlisten(self, channel: str) -> None:
        self.handlers.pop(channel, None)


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
    monkeypatch.setattr(relay_module, "_expire", fired.append)
    call = asyncio.create_task(asker.call("owner", "submit", {}))
    await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await asyncio.sleep(0.1)
    assert not asker._calls
    assert not fired, "the timer of a cancelled call is cancelled with it"
