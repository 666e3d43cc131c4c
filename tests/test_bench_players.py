"""The benchmark's seats act again after any refusal of their command: a seat that gave up after
a ``rate_limited`` reply let its clock run out, and one played match of a run ended on ``time``
though no think time comes near the delay (R7.7), which read as the server's fault."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any, cast

import orjson
import pytest

from spectacular_bid.bench.lean_socket import LeanSocket
from spectacular_bid.bench.server_players import RATE_LIMITED_PAUSE_S, Player, Stats
from waiting import until


class Socket:
    """What a seat uses of its :class:`LeanSocket`: it sends, and is handed each message."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.on_message: Callable[[bytes], None] | None = None

    def send(self, text: str) -> None:
        self.sent.append(text)


def _state(version: int) -> bytes:
    legal = {"plays": [], "can_draw": True}
    match = {"status": "playing", "legal": legal, "board": {"spinner": None}}
    return orjson.dumps({"type": "state", "version": version, "match": match, "log": []})


def _error(code: str, **more: Any) -> bytes:
    return orjson.dumps({"type": "error", "code": code, "message": "no", **more})


@pytest.mark.parametrize("code", ["stale_version", "not_your_turn"])
def test_a_refused_command_is_decided_again(code: str) -> None:
    async def play() -> list[str]:
        socket = Socket()
        player = Player(cast(LeanSocket, socket), "m1", Stats(), (0, 0), random.Random(1))
        player.on_text(_state(7))
        await until(lambda: len(socket.sent) == 1, what="the first decision")
        player.on_text(_error(code, version=7))
        await until(lambda: len(socket.sent) == 2, what="the decision again")
        return socket.sent

    sent = asyncio.run(play())
    assert len(sent) == 2
    assert all('"type":"draw"' in text and '"version":7' in text for text in sent)


def test_a_rate_limited_seat_waits_before_it_decides_again() -> None:
    """At think 0 a seat that sent again at once after ``rate_limited`` was refused
    ``rate_burst`` times in a row and closed for policy: a run of 20 matches counted no
    command at all."""

    async def play() -> tuple[list[str], list[str]]:
        socket = Socket()
        player = Player(cast(LeanSocket, socket), "m1", Stats(), (0, 0), random.Random(1))
        player.on_text(_state(7))
        await until(lambda: len(socket.sent) == 1, what="the first decision")
        player.on_text(_error("rate_limited", version=7))
        await asyncio.sleep(RATE_LIMITED_PAUSE_S / 2)  # the time under test: half the pause
        early = list(socket.sent)
        await until(lambda: len(socket.sent) == 2, what="the decision after the pause")
        return early, socket.sent

    early, sent = asyncio.run(play())
    assert len(early) == 1
    assert len(sent) == 2
    assert '"type":"draw"' in sent[1]
    assert '"version":7' in sent[1]


def test_a_refusal_before_any_state_sends_nothing() -> None:
    async def play() -> list[str]:
        socket = Socket()
        player = Player(cast(LeanSocket, socket), "m1", Stats(), (0, 0), random.Random(1))
        player.on_text(_error("rate_limited"))
        await asyncio.sleep(0.05)  # a window for a wrong send: nothing may come in it
        return socket.sent

    assert asyncio.run(play()) == []


@pytest.mark.parametrize("think_ms", [(0, 0), (20, 20)])
def test_only_the_newest_decision_is_sent(think_ms: tuple[int, int]) -> None:
    """A message that comes while a seat still thinks replaces its decision, as a person who
    sees the board change decides again: two commands for one turn would be one refused."""

    async def play() -> list[str]:
        socket = Socket()
        player = Player(cast(LeanSocket, socket), "m1", Stats(), think_ms, random.Random(1))
        player.on_text(_state(7))
        player.on_text(_state(8))
        await until(lambda: socket.sent, what="a decision")
        await asyncio.sleep(0.05)  # a window for a second, wrong send: nothing may come in it
        return socket.sent

    sent = asyncio.run(play())
    assert len(sent) == 1
    assert '"version":8' in sent[0]


def _update(version: int, legal: dict[str, Any] | None, deadline_ms: int = 5_000) -> bytes:
    clock = {"now_ms": 1_000, "deadline_ms": deadline_ms}
    match = {"status": "active", "phase": "playing", "legal": legal, "clock": clock}
    return orjson.dumps({"type": "update", "version": version, "events": [], "match": match})


def test_a_passive_seat_decides_once_and_then_lets_its_clock_run_out() -> None:
    """A time-out match measures how late the server flags a seat (R7.7). A seat that never
    decided would not be flagged but aborted for its missing first decision (D7), at a deadline
    of its own: so each passive seat makes one decision, at once, and none after it."""

    async def play() -> list[str]:
        socket = Socket()
        seat = Player(
            cast(LeanSocket, socket), "m1", Stats(), (5_000, 8_000), random.Random(1), passive=True
        )
        legal = {"plays": [], "can_draw": False, "can_decline": True, "bids": [{"amount": 15}]}
        seat.on_text(_update(7, legal))
        seat.on_text(_update(7, legal))  # the same view again (a resync): still one decision
        # Not after a think time: its clock may be short.
        await until(lambda: socket.sent, what="the one decision")
        seat.on_text(_update(8, None))  # the opponent's turn
        seat.on_text(_update(9, legal, deadline_ms=9_000))  # its own again: it lets it run out
        await asyncio.sleep(0.05)  # a window for a second, wrong send: nothing may come in it
        return socket.sent

    sent = asyncio.run(play())
    assert len(sent) == 1
    assert '"version":7' in sent[0]
    assert any(kind in sent[0] for kind in ('"type":"decline"', '"type":"bid"'))
