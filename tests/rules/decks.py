"""Hand-built decks and drivers for the rules scenarios.

A deck is written as two hands and the boneyard's draw order in tile notation (``"1-4 6-6"``).
Anything left unspecified is filled deterministically with the unused tiles in Appendix A order
(``[0|0]``, ``[0|1]``, …): the first hand first, then the second, then the boneyard. Tests whose
opening depends on which doubles are held spell out both hands in full.

Moves are written in Appendix A placement notation, plus ``draw``; each move is given by the seat
to act, so a whole round reads as one line.

The scenario rounds below are shared by several test files; each is traced by hand in its
docstring so that the numbers asserted elsewhere come from the rules, not from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from spectacular_bid.rules.actions import Action, Deal, Draw, Event, Play
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.notation import parse_placement, parse_tile
from spectacular_bid.rules.round import HAND_SIZE
from spectacular_bid.rules.tiles import TILES, Tile

BONEYARD_SIZE = len(TILES) - 2 * HAND_SIZE

TileSpec = str | Sequence[Tile]


def tiles(spec: TileSpec) -> tuple[Tile, ...]:
    """``"1-4 6-6"`` (or a sequence of tiles) as a tuple of tiles, in the order given."""
    if isinstance(spec, str):
        return tuple(parse_tile(text) for text in spec.split())
    return tuple(spec)


def deck(first: TileSpec = "", second: TileSpec = "", boneyard: TileSpec = "") -> tuple[Tile, ...]:
    """A full 28-tile deck: positions 0–6 the first seat's hand, 7–13 the second's, 14–27 the
    boneyard in draw order. Unspecified places are filled with the unused tiles in Appendix A
    order (first hand, then second hand, then the end of the boneyard)."""
    first_t, second_t, bone_t = tiles(first), tiles(second), tiles(boneyard)
    named = first_t + second_t + bone_t
    if len(set(named)) != len(named):
        raise ValueError(f"a tile is named twice: {[str(t) for t in named]}")
    if len(first_t) > HAND_SIZE or len(second_t) > HAND_SIZE or len(bone_t) > BONEYARD_SIZE:
        raise ValueError("a hand holds 7 tiles and the boneyard 14")
    rest = [t for t in TILES if t not in named]
    fill_first = HAND_SIZE - len(first_t)
    fill_second = HAND_SIZE - len(second_t)
    first_t += tuple(rest[:fill_first])
    second_t += tuple(rest[fill_first : fill_first + fill_second])
    bone_t += tuple(rest[fill_first + fill_second :])
    return first_t + second_t + bone_t


def action(match: Match, move: str) -> Action:
    """The command for one move by the seat to act: ``draw``, an opening ``1-4``, or a placement
    ``1-1@1-4:smaller``."""
    seat = match.to_act
    if seat is None:
        raise AssertionError(f"nobody is to act for {move!r}: {match!r}")
    if move == "draw":
        return Draw(seat)
    tile, place = parse_placement(move)
    return Play(seat, tile, place)


def play(match: Match, moves: str) -> list[Event]:
    """Apply ``moves`` (space-separated) in turn; return all their events in order."""
    events: list[Event] = []
    for move in moves.split():
        events.extend(match.apply(action(match, move)))
    return events


def dealt(cards: tuple[Tile, ...], match: Match | None = None) -> Match:
    """``match`` (a fresh one by default) after dealing ``cards``."""
    match = Match() if match is None else match
    match.apply(Deal(cards))
    return match


# -- a blocked round (R4.4, R4.6, D2) ---------------------------------------------------------

BLOCK_DECK = deck(
    first="0-0 1-4 0-2 0-5 3-6 5-6 4-6",
    second="0-1 0-4 2-5 0-3 0-6 1-2 1-3",
)
"""No double but [0|0] is held, so the first seat opens [0|0] (R2.3). The boneyard (filled in
Appendix A order) is the six other doubles and eight non-doubles, none with a 0."""

BLOCK_PLACEMENTS = (
    "0-0 0-1@0-0:lineA 1-4@0-1:larger 0-4@1-4:larger 0-2@0-4:smaller 2-5@0-2:larger "
    "0-5@2-5:larger 0-3@0-5:smaller 3-6@0-3:larger 0-6@3-6:larger"
)
"""All seven 0-tiles end on the board and both open places show 0 ([0|0] line B and the smaller
end of [0|6]). The spinner's open line side counts 0, so each sum is the one exposed end:
0, 1, 4, 0, 2, 5, 0, 3, 6, 0 — only the second seat's [2|5] scores (5: 145–155)."""

BLOCK_DRAWS = " ".join(["draw"] * BONEYARD_SIZE)
"""The first seat holds [5|6] and [4|6] and no 0: it draws all 14 tiles, none playable; the last
draw empties the boneyard, so it passes and the second seat ([1|2], [1|3]) passes too (R4.6).
First seat: 168 pips − 42 on the board − 7 = 119 → 120 to the second seat: 25–275."""


def after_block_round() -> Match:
    """A match awaiting round 2 after :data:`BLOCK_DECK`'s blocked round: 25–275, no jockey."""
    match = dealt(BLOCK_DECK)
    play(match, BLOCK_PLACEMENTS)
    play(match, BLOCK_DRAWS)
    return match


# -- a domino round (R4.5): the second seat becomes the jockey ---------------------------------


def domino_deck(last: str = "3-5") -> tuple[Tile, ...]:
    """The second seat holds [6|6] and opens (R2.3); it lays its seventh tile ``last`` on the
    13th placement. The first seat keeps [5|5] (10 pips) to the end."""
    return deck(
        first="4-6 1-4 0-2 1-6 2-4 0-5 5-5",
        second=f"6-6 4-4 1-2 0-1 2-6 0-4 {last}",
    )


def domino_moves(last: str = "3-5") -> str:
    """The spinner [6|6] keeps line B open (12) while one arm grows from line A; the sums are the
    spinner's 12 plus the arm's end: 12, 16, 20 ([4|4] counts 8: second seat +20), 13, 14, 12,
    13, 18, 14, 16, 12, 17, then 12 + 3 = 15 for [3|5] (+15) or 12 + 1 = 13 for [1|5]."""
    return (
        "6-6 4-6@6-6:lineA 4-4@4-6:smaller 1-4@4-4:lineB 1-2@1-4:smaller 0-2@1-2:larger "
        "0-1@0-2:smaller 1-6@0-1:larger 2-6@1-6:larger 2-4@2-6:smaller 0-4@2-4:larger "
        f"0-5@0-4:smaller {last}@0-5:larger"
    )


def after_domino_round() -> Match:
    """A fresh match after the domino round: 115–185, the second seat is the jockey."""
    match = dealt(domino_deck())
    play(match, domino_moves())
    return match


NEXT_DECK = deck()
"""The deck in Appendix A order: first seat [0|0]…[0|6], second seat [1|1]…[2|3]."""


def in_auction(cards: tuple[Tile, ...] = NEXT_DECK) -> Match:
    """Round 2 dealt after the domino round: the auction, first seat (non-jockey) to act,
    balances 115–185."""
    return dealt(cards, after_domino_round())
