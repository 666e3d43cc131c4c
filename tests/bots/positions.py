"""Real matches for the bot tests: played by random legal moves to a decision, with every event
as each seat saw it (through ``event_for``), so a bot gets exactly what the service would give.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from spectacular_bid.rules.actions import Action, Deal, Event
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.tiles import TILES
from spectacular_bid.rules.views import event_for


class StepClock:
    """A stand-in for ``time.perf_counter``: each reading is ``step`` seconds after the last, so
    a search's deadline comes after a known number of readings, never by the machine's speed."""

    def __init__(self, step: float = 1.0) -> None:
        self.now = 0.0
        self.step = step
        self.readings = 0

    def __call__(self) -> float:
        self.now += self.step
        self.readings += 1
        return self.now


@dataclass
class Game:
    """A real match and each seat's filtered events so far."""

    match: Match = field(default_factory=Match)
    seen: tuple[list[Event], list[Event]] = field(default_factory=lambda: ([], []))
    raw: list[Event] = field(default_factory=list)

    def apply(self, action: Action) -> list[Event]:
        events = self.match.apply(action)
        self.raw.extend(events)
        for viewer in SEATS:
            self.seen[viewer].extend(event_for(viewer, e) for e in events)
        return events

    def deal(self, deck: tuple[int, ...] | None = None, rng: random.Random | None = None) -> None:
        if deck is None:
            cards = list(TILES)
            (rng or random.Random(0)).shuffle(cards)
            deck = tuple(cards)
        self.apply(Deal(tuple(TILES[t] for t in deck)))

    @property
    def to_act(self) -> Seat:
        seat = self.match.to_act
        assert seat is not None, self.match
        return seat


def random_position(seed: int, steps: int) -> Game:
    """A match after about ``steps`` random legal decisions (new rounds dealt as needed), stopped
    at a decision of the seat to act; a match that ends first is replayed from the next seed."""
    rng = random.Random(seed)
    while True:
        played = Game()
        for _ in range(steps):
            if played.match.phase is Phase.AWAITING_DEAL:
                played.deal(rng=rng)
            if played.match.is_over:
                break
            legal = played.match.legal_actions()
            played.apply(legal[int(rng.random() * len(legal))])
        if played.match.phase is Phase.AWAITING_DEAL:
            played.deal(rng=rng)
        if not played.match.is_over:
            return played


def playing_position(seed: int, steps: int) -> Game:
    """Like :func:`random_position`, moved on to a turn of the play (not an auction or opening)."""
    offset = 0
    while True:
        game = random_position(seed + offset, steps)
        if game.match.phase is Phase.PLAYING:
            return game
        offset += 1000
