"""What one seat knows of the match: read from its own filtered events, and nothing else.

A bot is given only the events of the match as its seat sees them (each through
:func:`~spectacular_bid.rules.views.event_for`): its hand, its draws, the board, the balances, the
counts of the other hand and the boneyard (R2.2, D4). :func:`read` folds them into a
:class:`Knowledge`, including the inferences the rules allow about the hidden tiles:

- a seat that draws or passes holds no tile matching an open place at that moment (R4.1, R4.4),
  and a tile it draws without laying it at once matched none either (R4.2);
- a tile laid straight after a draw is the drawn tile (R4.2);
- after an opening by R2.3 nobody held a higher double (or, with no double, a higher tile).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from spectacular_bid.rules.actions import (
    AuctionOpened,
    BidAccepted,
    BidMade,
    Declined,
    Drew,
    Event,
    MatchEnded,
    OpenerChosen,
    Passed,
    Played,
    RoundDealt,
    RoundEnded,
    Transferred,
)
from spectacular_bid.rules.board import CODE_MATCHES, PLACE_VALUE, Board
from spectacular_bid.rules.match import STARTING_BALANCE
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import ALL_MASK, DOUBLES, HIGH, PIPS, TILES, Tile


@dataclass
class Knowledge:
    """One seat's picture of the running round. ``hand`` and ``unseen`` are tile masks."""

    seat: Seat
    round_number: int = 0
    hand: int = 0
    board: Board = field(default_factory=Board)
    balances: tuple[int, int] = (STARTING_BALANCE, STARTING_BALANCE)
    jockey: Seat | None = None
    """Who laid the last tile of the previous round (R4.5): the auction's jockey."""
    phase: Phase = Phase.AWAITING_DEAL
    auction_bids: list[tuple[Seat, int]] = field(default_factory=list)
    opening_tile: Tile | None = None
    must_play: Tile | None = None
    passes: int = 0
    other_count: int = 0
    boneyard_count: int = 0
    moments: list[int] = field(default_factory=list)
    """For each moment the other seat drew or passed, the open places' values as a bit mask over
    0–6: it held no tile showing one of them then (R4.1, R4.4)."""
    moment_boards: list[int] = field(default_factory=list)
    """How many tiles the board held at each moment: draws and a pass in one turn share one."""
    hidden_draws: list[int] = field(default_factory=list)
    """For each draw of the other seat whose tile stayed hidden, the index of its moment."""
    turn_draws: int = 0
    """The other seat's draws in its current turn; a placement after them is the last one."""
    opening_excluded: int = 0
    """Tiles the other seat's dealt hand cannot have held, by an R2.3 opening."""
    r23_opening: bool = False
    """True while the round's opening follows R2.3 (no auction), so its tile says something."""

    @property
    def unseen(self) -> int:
        """Tiles in the other hand or the boneyard: all but this seat's hand and the board."""
        board = 0
        for tile in self.board.tiles:
            board |= 1 << tile
        return ALL_MASK & ~self.hand & ~board

    def open_values(self) -> int:
        mask = 0
        for code in self.board.open_codes:
            mask |= 1 << PLACE_VALUE[code]
        return mask


def _opening_excluded(tile: Tile) -> int:
    """R2.3: the tiles that would have opened instead of ``tile``."""
    if tile in DOUBLES:
        return sum(1 << d for d in DOUBLES if d > tile)
    key = (PIPS[tile], HIGH[tile])
    beats = [t for t in TILES if t in DOUBLES or (PIPS[t], HIGH[t]) > key]
    return sum(1 << t for t in beats)


def _note_moment(k: Knowledge) -> int:
    """The index of the other seat's no-match moment at the current board (R4.1, R4.4)."""
    version = len(k.board.tiles)
    if not k.moment_boards or k.moment_boards[-1] != version:
        k.moments.append(k.open_values())
        k.moment_boards.append(version)
    return len(k.moments) - 1


def _deal(k: Knowledge, event: RoundDealt) -> None:
    own = event.hands[k.seat]
    if own is None:
        raise ValueError(f"a dealt round without {k.seat}'s own hand: {event!r}")
    fresh = Knowledge(k.seat, event.number, balances=k.balances, jockey=k.jockey)
    fresh.hand = sum(1 << t for t in own)
    fresh.other_count = len(own)
    fresh.boneyard_count = event.boneyard_count
    fresh.r23_opening = True
    k.__dict__.update(fresh.__dict__)


def _played(k: Knowledge, event: Played) -> None:
    code = -1 if event.at is None else event.at.tile * 8 + event.at.side
    if code < 0 and k.r23_opening:
        k.opening_excluded = _opening_excluded(event.tile)
    k.board.lay(event.tile, code)
    if event.seat == k.seat:
        k.hand &= ~(1 << event.tile)
        k.must_play = None
    else:
        k.other_count -= 1
        if k.turn_draws:
            k.hidden_draws.pop()  # R4.2: the last draw was this very tile
    k.turn_draws = 0
    k.passes = 0
    k.phase = Phase.PLAYING
    k.opening_tile = None


def _drew(k: Knowledge, event: Drew) -> None:
    k.boneyard_count = event.boneyard_count
    if event.seat == k.seat:
        assert event.tile is not None
        k.hand |= 1 << event.tile
        fits = any(CODE_MATCHES[c] >> event.tile & 1 for c in k.board.open_codes)
        k.must_play = event.tile if fits else None
        return
    k.other_count += 1
    k.hidden_draws.append(_note_moment(k))
    k.turn_draws += 1


def _passed(k: Knowledge, event: Passed) -> None:
    k.passes += 1
    if event.seat != k.seat:
        _note_moment(k)
        k.turn_draws = 0


def _step(k: Knowledge, event: Event) -> None:
    if isinstance(event, Played):
        _played(k, event)
    elif isinstance(event, Drew):
        _drew(k, event)
    elif isinstance(event, Passed):
        _passed(k, event)
    elif isinstance(event, Transferred):
        k.balances = (event.balances.first, event.balances.second)
    elif isinstance(event, RoundDealt):
        _deal(k, event)
    elif isinstance(event, AuctionOpened):
        k.phase, k.jockey, k.r23_opening = Phase.AUCTION, event.jockey, False
    elif isinstance(event, BidMade):
        k.auction_bids.append((event.seat, event.amount))
    elif isinstance(event, Declined | BidAccepted):
        k.auction_bids = []
    elif isinstance(event, OpenerChosen):
        k.phase = Phase.OPENING
        k.opening_tile = event.tile if event.seat == k.seat else None
    elif isinstance(event, RoundEnded):
        k.phase, k.jockey = Phase.AWAITING_DEAL, event.jockey
    elif isinstance(event, MatchEnded):
        k.phase = Phase.OVER


def read(seat: Seat, seen: Sequence[Event]) -> Knowledge:
    """Fold ``seat``'s filtered events, from the match's first deal on, into what it knows.

    Only the running round is folded event by event; of the earlier ones only the balances
    (the last transfer) and the jockey (the last round's end) matter, so a long match costs no
    more per decision than a short one."""
    k = Knowledge(seat)
    start = len(seen)
    while start > 0 and not isinstance(seen[start - 1], RoundDealt):
        start -= 1
    start = max(start - 1, 0)
    before = range(start - 1, -1, -1)
    for i in before:
        event = seen[i]
        if isinstance(event, Transferred):
            _step(k, event)
            break
    for i in before:
        event = seen[i]
        if isinstance(event, RoundEnded):
            _step(k, event)
            break
    for event in seen[start:]:
        _step(k, event)
    return k


__all__ = ["Knowledge", "read"]
