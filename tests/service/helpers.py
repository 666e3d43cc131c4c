"""Drivers for the service tests: a hand-moved time source, hand-built decks, a table that
submits intents for a seat, a random-legal-move player, and a scanner for the tiles a message
names (D4).

The tests are the referee: they read hands from ``actor.match.round`` to decide what a message
may contain, and they move a :class:`FakeTime` instead of sleeping wherever the actor's timers
are not the subject of the test.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass

import pytest

from spectacular_bid.rules.actions import Accept, Bid, Decline, Draw, Play, SeatAction
from spectacular_bid.rules.board import Place
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.round import HAND_SIZE
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import TILES, Tile, parse_tile
from spectacular_bid.service.actor import MatchActor, Subscriber
from spectacular_bid.service.codec import JSON
from spectacular_bid.service.decks import DeckSource
from spectacular_bid.service.guests import Player
from spectacular_bid.service.intents import Intent, IntentKind, Rejection
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import MatchMode
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.timesource import MsSource, monotonic_ms

FIRST, SECOND = Seat.FIRST, Seat.SECOND
ANN = Player("player-ann", "Ann")
BO = Player("player-bo", "Bo")
CY = Player("player-cy", "Cy")
"""Never seated: a spectator with an identity."""

T0 = 1_000_000
NEVER_MS = 10**9
"""A grace period, join timeout or lag threshold that no test reaches."""


class FakeTime:
    """A monotonic millisecond source that only moves when the test moves it."""

    def __init__(self, start_ms: int = T0) -> None:
        self.now_ms = start_ms

    def __call__(self) -> int:
        return self.now_ms

    def advance(self, ms: int) -> int:
        self.now_ms += ms
        return self.now_ms

    def set(self, ms: int) -> int:
        assert ms >= self.now_ms, f"time only moves forward: {ms} < {self.now_ms}"
        self.now_ms = ms
        return ms


def fake_time_settings(**overrides: object) -> ServiceSettings:
    """Settings for a test that moves time by hand: no timer of the actor fires on its own during
    the test, and the lag monitor (whose own clock is the fake one) never sees a stall."""
    fields: dict[str, object] = {
        "grace_ms": NEVER_MS,
        "join_timeout_ms": NEVER_MS,
        "lag_threshold_ms": NEVER_MS,
    }
    fields.update(overrides)
    return ServiceSettings(**fields)  # type: ignore[arg-type]


# -- decks ------------------------------------------------------------------------------------


def tiles(spec: str) -> tuple[Tile, ...]:
    return tuple(parse_tile(text) for text in spec.split())


def deck(first: str, second: str, boneyard: str = "") -> tuple[Tile, ...]:
    """Two full hands and the start of the boneyard's draw order; the rest of the boneyard is the
    unused tiles in Appendix A order."""
    named = tiles(first) + tiles(second) + tiles(boneyard)
    assert len(tiles(first)) == len(tiles(second)) == HAND_SIZE, "spell out both hands"
    assert len(set(named)) == len(named), "a tile is named twice"
    return named + tuple(t for t in TILES if t not in named)


DRAW_DECK = deck(
    first="6-6 0-0 0-1 0-2 0-3 0-4 0-5",
    second="1-1 1-2 1-3 1-4 1-5 2-2 2-3",
    boneyard="2-4 2-5 3-3 0-6",
)
"""The first seat holds the highest double and must open [6|6] (R2.3). The second seat holds no
6, so it must draw [2|4], [2|5] and [3|3] (none fits a 6) and then [0|6], which it must play
(R4.1, R4.2): four commands inside one turn (R4.3, R7.3)."""


def repeat(*decks: tuple[Tile, ...]) -> Callable[[str], DeckSource]:
    """A ``deck_source_for`` that deals ``decks`` in order, then the last one again."""

    def source_for(_match_id: str) -> DeckSource:
        dealt = iter(decks)

        def next_deck() -> tuple[Tile, ...]:
            return next(dealt, decks[-1])

        return next_deck

    return source_for


# -- a table: one match and the means to drive it ------------------------------------------


def intent_for(action: SeatAction, version: int) -> Intent:
    if isinstance(action, Play):
        return Intent(IntentKind.PLAY, version, tile=action.tile, at=action.at)
    if isinstance(action, Bid):
        return Intent(IntentKind.BID, version, amount=action.amount)
    if isinstance(action, Draw):
        return Intent(IntentKind.DRAW, version)
    if isinstance(action, Accept):
        return Intent(IntentKind.ACCEPT, version)
    if isinstance(action, Decline):
        return Intent(IntentKind.DECLINE, version)
    raise AssertionError(f"no intent for {action!r}")


@dataclass
class Table:
    service: MatchService
    store: InMemoryStore
    actor: MatchActor
    time: FakeTime | None
    """None when the match runs on real monotonic time."""

    def now(self) -> int:
        return self.service.now_ms()

    def advance(self, ms: int) -> int:
        assert self.time is not None
        return self.time.advance(ms)

    def player(self, seat: Seat) -> Player:
        player = self.actor.seats[seat]
        assert player is not None, f"the {seat} seat is empty"
        return player

    async def submit(
        self,
        player: Player | None,
        kind: IntentKind,
        *,
        received_ms: int | None = None,
        version: int | None = None,
        tile: Tile | None = None,
        at: Place | None = None,
        amount: int | None = None,
        seat: Seat | None = None,
    ) -> int:
        intent = Intent(
            kind,
            self.actor.version if version is None else version,
            tile=tile,
            at=at,
            amount=amount,
            seat=seat,
        )
        return await self.actor.submit(
            player, intent, self.now() if received_ms is None else received_ms
        )

    async def act(self, by: Seat, kind: IntentKind, /, **fields: object) -> int:
        """``kind`` sent by the player holding seat ``by``, at the current version and time
        unless ``fields`` say otherwise."""
        return await self.submit(self.player(by), kind, **fields)  # type: ignore[arg-type]

    async def do(self, action: SeatAction, *, received_ms: int | None = None) -> int:
        """An engine action sent as an intent by the player holding its seat."""
        intent = intent_for(action, self.actor.version)
        return await self.actor.submit(
            self.player(action.seat), intent, self.now() if received_ms is None else received_ms
        )

    async def start_round(self) -> int:
        """Start/Continue pressed by every seat that has not pressed yet (D3)."""
        version = self.actor.version
        if self.actor.mode is MatchMode.SHARED:
            return await self.act(FIRST, IntentKind.START)
        for seat in SEATS:
            if seat not in self.actor.ready:
                version = await self.act(seat, IntentKind.START)
        return version

    async def play_randomly(
        self,
        rng: random.Random,
        *,
        until: Callable[[MatchActor], bool],
        step_ms: int = 500,
        after_each: Callable[[], None] | None = None,
        max_commands: int = 20_000,
    ) -> int:
        """Uniform random legal moves (START between rounds, REVEAL on a shared device) until
        ``until(actor)`` holds or the match is over; return how many commands were sent."""
        actor = self.actor
        for count in range(max_commands):
            if until(actor) or actor.match.is_over:
                return count
            if self.time is not None:
                self.time.advance(step_ms)
            if actor.match.phase is Phase.AWAITING_DEAL:
                pressing = next(s for s in SEATS if s not in actor.ready)
                await self.act(pressing, IntentKind.START)
            elif actor.handover is not None:
                await self.act(actor.handover, IntentKind.REVEAL)
            else:
                await self.do(rng.choice(actor.match.legal_actions()))
            if after_each is not None:
                after_each()
        raise AssertionError(f"the match did not get there in {max_commands} commands")


class Tables:
    """Opens matches on fresh services and stops every service at the end of the test."""

    def __init__(self) -> None:
        self._services: list[MatchService] = []

    async def open(
        self,
        settings: ServiceSettings,
        *,
        time_source: MsSource | None = None,
        mode: MatchMode = MatchMode.INVITE,
        deck_source_for: Callable[[str], DeckSource] | None = None,
        join: bool = True,
        start_monitor: bool = False,
    ) -> Table:
        """A new match created by Ann (and joined by Bo unless ``join`` is false or the match is
        on a shared device) on its own service, timed by ``time_source`` (real monotonic time
        if None)."""
        store = InMemoryStore()
        service = MatchService(
            store, settings, now_ms=time_source or monotonic_ms, deck_source_for=deck_source_for
        )
        self._services.append(service)
        if start_monitor:
            await service.start()
        actor = await service.create_match(ANN, mode)
        if join and mode is not MatchMode.SHARED:
            assert await service.join(actor.id, BO) is SECOND
        fake = time_source if isinstance(time_source, FakeTime) else None
        return Table(service, store, actor, fake)

    async def close(self) -> None:
        for service in self._services:
            await service.stop()


# -- messages ---------------------------------------------------------------------------------


def drain(sub: Subscriber) -> list[str | None]:
    """Everything waiting in a subscriber's queue (None marks a dropped socket)."""
    out: list[str | None] = []
    while not sub.queue.empty():
        out.append(sub.queue.get_nowait())
    return out


def messages(sub: Subscriber) -> list[JSON]:
    out = []
    for text in drain(sub):
        assert text is not None, "this subscriber was dropped"
        out.append(json.loads(text))
    return out


_TILE_TEXT = re.compile(r"([0-6]-[0-6])(?::[A-Za-z]+)?")


def _strings(value: JSON) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def tiles_named(message: JSON) -> set[Tile]:
    """Every tile a decoded message names anywhere: a tile (``"1-4"``) or an open place on one
    (``"1-4:smaller"``), in hands, events, the board, legal moves or anything else."""
    found: set[Tile] = set()
    for text in _strings(message):
        matched = _TILE_TEXT.fullmatch(text)
        if matched:
            found.add(parse_tile(matched.group(1)))
    return found


# -- waiting and refusals --------------------------------------------------------------------


async def wait_until(condition: Callable[[], bool], timeout_s: float = 3.0) -> float:
    """Let the loop run until ``condition()`` holds; return the seconds it took."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout_s:
            raise AssertionError(f"still false after {timeout_s} s")
        await asyncio.sleep(0.002)
    return time.monotonic() - started


async def refused(request: Awaitable[object]) -> Rejection:
    """The :class:`Rejection` a request raises (it must raise one)."""
    with pytest.raises(Rejection) as info:
        await request
    return info.value


def split_reveals(message: JSON) -> tuple[JSON, list[JSON]]:
    """``message`` without its deck reveals (the ``deck_revealed`` events and the snapshot's
    ``deck_reveal``), and those reveals: a finished round's whole deck, published on purpose
    (issue 4 §5) and checked on its own terms."""
    reveals: list[JSON] = []

    def strip(value: JSON) -> JSON:
        if isinstance(value, list):
            kept = []
            for item in value:
                if isinstance(item, dict) and item.get("type") == "deck_revealed":
                    reveals.append(item)
                else:
                    kept.append(strip(item))
            return kept
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key == "deck_reveal":
                    if item is not None:
                        reveals.append(item)
                else:
                    out[key] = strip(item)
            return out
        return value

    return strip(message), reveals
