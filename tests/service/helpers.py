"""Drivers for the service tests: a hand-moved time source, hand-built decks, a table that
submits a player's commands for a seat, a random-legal-move player, and a scanner for the tiles
a message names (D4).

The tests are the referee: they read hands from ``actor.state.match.round`` to decide what a
message may contain, and they move a :class:`FakeTime` instead of sleeping wherever the actor's
timers are not the subject of the test. A socket's subscription lives in the web layer's room
(``web/room.py``), so a table opens one :class:`~spectacular_bid.web.room.Rooms` for its match.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace

import pytest

from spectacular_bid.rules.actions import SeatAction
from spectacular_bid.rules.match import Phase
from spectacular_bid.rules.notation import parse_tile
from spectacular_bid.rules.round import HAND_SIZE
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import TILES, Tile
from spectacular_bid.service.actor import MatchActor
from spectacular_bid.service.audience import Audience
from spectacular_bid.service.commands import PlayerCommand, Reveal, Start, move_of
from spectacular_bid.service.decks import DeckSource
from spectacular_bid.service.guests import token_hash
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.service.ports import JSON, MatchMode, Player, PlayerRecord
from spectacular_bid.service.refusals import Rejection
from spectacular_bid.service.settings import ServiceSettings
from spectacular_bid.service.state import MatchState
from spectacular_bid.service.telemetry import NO_TELEMETRY, Telemetry
from spectacular_bid.service.timesource import MsSource, monotonic_ms
from spectacular_bid.web.room import Room, Rooms, RoomSettings
from spectacular_bid.web.subscriber import Subscriber

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
        "shared_abandon_ms": NEVER_MS,
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


@dataclass
class Table:
    service: MatchService
    store: InMemoryStore
    actor: MatchActor
    time: FakeTime | None
    """None when the match runs on real monotonic time."""
    rooms: Rooms
    """The web layer's rooms: where a socket's subscription lives."""
    created_ms: tuple[int, int]
    """The service's monotonic time just before and just after the match was created."""

    @property
    def state(self) -> MatchState:
        """The match's last stored state (the actor installs a state only once it is stored)."""
        return self.actor.state

    def now(self) -> int:
        return self.service.now_ms()

    def advance(self, ms: int) -> int:
        assert self.time is not None
        return self.time.advance(ms)

    def player(self, seat: Seat) -> Player:
        player = self.state.seats[seat]
        assert player is not None, f"the {seat} seat is empty"
        return player

    async def submit(
        self,
        player: Player | None,
        command: PlayerCommand,
        *,
        received_ms: int | None = None,
        version: int | None = None,
        seat: Seat | None = None,
    ) -> int:
        """``command`` from ``player``, made against the current version (unless ``version``
        says otherwise) and received now (unless ``received_ms`` does)."""
        return await self.actor.submit(
            player.id if player is not None else None,
            command,
            self.actor.version if version is None else version,
            self.now() if received_ms is None else received_ms,
            seat,
        )

    async def act(
        self,
        by: Seat,
        command: PlayerCommand,
        /,
        *,
        received_ms: int | None = None,
        version: int | None = None,
        seat: Seat | None = None,
    ) -> int:
        """``command`` sent by the player holding seat ``by``."""
        return await self.submit(
            self.player(by), command, received_ms=received_ms, version=version, seat=seat
        )

    async def do(self, action: SeatAction, *, received_ms: int | None = None) -> int:
        """An engine action sent as its player's command by the player holding its seat."""
        return await self.act(action.seat, move_of(action), received_ms=received_ms)

    async def start_round(self) -> int:
        """Start/Continue pressed by every seat that has not pressed yet (D3)."""
        version = self.actor.version
        if self.state.mode is MatchMode.SHARED:
            return await self.act(FIRST, Start())
        for seat in SEATS:
            if seat not in self.state.ready:
                version = await self.act(seat, Start())
        return version

    async def play_randomly(
        self,
        rng: random.Random,
        *,
        until: Callable[[MatchState], bool],
        step_ms: int = 500,
        after_each: Callable[[], None] | None = None,
        max_commands: int = 20_000,
    ) -> int:
        """Uniform random legal moves (Start between rounds, Reveal on a shared device) until
        ``until(state)`` holds or the match is over; return how many commands were sent."""
        for count in range(max_commands):
            state = self.state
            if until(state) or state.match.is_over:
                return count
            if self.time is not None:
                self.time.advance(step_ms)
            if state.match.phase is Phase.AWAITING_DEAL:
                pressing = next(s for s in SEATS if s not in state.ready)
                await self.act(pressing, Start())
            elif state.handover is not None:
                await self.act(state.handover, Reveal())
            else:
                await self.do(rng.choice(state.match.legal_actions()))
            if after_each is not None:
                after_each()
        raise AssertionError(f"the match did not get there in {max_commands} commands")

    # -- the web layer's side: sockets, views, presence --------------------------------------

    @property
    def room(self) -> Room:
        return self.rooms.room(self.actor)

    def subscribe(
        self, player: Player | None, since: int | None = None, audience: Audience | None = None
    ) -> Subscriber:
        """A socket of ``player`` on this match (a spectator's for None)."""
        return self.room.subscribe(player, since, audience)

    def view(self, audience: Audience) -> JSON:
        """The ``match`` object ``audience`` is shown now (a ``state`` message's)."""
        return self.state_message(audience)["match"]

    def state_message(self, audience: Audience) -> JSON:
        """The whole ``state`` message ``audience`` would be sent now."""
        message = json.loads(self.rooms.state_text(self.actor, audience))
        assert message["type"] == "state"
        return message


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
        accounts: bool = False,
        telemetry: Telemetry = NO_TELEMETRY,
    ) -> Table:
        """A new match created by Ann (and joined by Bo unless ``join`` is false or the match is
        on a shared device) on its own service, timed by ``time_source`` (real monotonic time
        if None); with ``accounts``, both seated as accounts (so that the match is rated)."""
        store = InMemoryStore()
        for player in (ANN, BO, CY):  # guests, as the web layer makes them
            await store.add_player(PlayerRecord(player.id, player.name, token_hash(player.id), 0))
        now_ms = time_source or monotonic_ms
        service = MatchService(
            store, settings, now_ms=now_ms, deck_source_for=deck_source_for, telemetry=telemetry
        )
        self._services.append(service)
        if start_monitor:
            await service.start()
        before = now_ms()
        ann, bo = (replace(ANN, account=True), replace(BO, account=True)) if accounts else (ANN, BO)
        actor = await service.create_match(ann, mode)
        created = (before, now_ms())
        rooms = Rooms(now_ms, RoomSettings(settings.resend_limit, settings.subscriber_queue))
        rooms.room(actor)  # as the creator's socket would: the resend window starts at once
        if join and mode is not MatchMode.SHARED:
            assert await service.join(actor.id, bo) is SECOND
        fake = time_source if isinstance(time_source, FakeTime) else None
        return Table(service, store, actor, fake, rooms, created)

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


async def refused(request: Awaitable[object]) -> Rejection:
    """The :class:`Rejection` a request raises (it must raise one)."""
    with pytest.raises(Rejection) as info:
        await request
    return info.value


def refused_now(request: Callable[[], object]) -> Rejection:
    """The :class:`Rejection` a synchronous call raises (it must raise one)."""
    with pytest.raises(Rejection) as info:
        request()
    return info.value


def split_reveals(message: JSON) -> tuple[JSON, list[JSON]]:
    """``message`` without its deck reveals (the ``deck_revealed`` events and the snapshot's
    ``deck_reveal``), and those reveals: a finished round's whole deck, published on purpose
    (PROTOCOL.md "Events") and checked on its own terms."""
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
