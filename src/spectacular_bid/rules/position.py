"""A match built at an explicit position rather than from a deal: what a searching bot needs.

A bot does not know the other hand or the boneyard's order (R2.2), so it searches over *worlds*
it samples: its own hand and everything public as they are, the hidden tiles placed one way
consistent with what it saw. Each world is a position (hands, the undrawn boneyard in a chosen
order, the board, balances, whose decision it is) that :func:`match_at` turns into an ordinary
:class:`~spectacular_bid.rules.match.Match`, so the search runs the real rules on it.

A position's round has no deal record: its ``deck`` is empty and its boneyard is only the
undrawn tiles, drawn from the front like a dealt one (R2.1, R4.1). Nothing here touches the hot
path of a dealt match.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from spectacular_bid.rules.auction import Auction
from spectacular_bid.rules.base_match import TOTAL_POINTS
from spectacular_bid.rules.board import Board
from spectacular_bid.rules.errors import IllegalActionError
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.round import Round
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import ALL_MASK, Tile, tiles_in


def _mask(tiles: Iterable[Tile], what: str, seen: int) -> int:
    mask = 0
    for tile in tiles:
        if not isinstance(tile, Tile):
            raise IllegalActionError(f"not a tile in {what}: {tile!r}")
        bit = 1 << tile
        if (seen | mask) & bit:
            raise IllegalActionError(f"{tile} appears twice in the position ({what})")
        mask |= bit
    return mask


def round_at(
    number: int,
    hands: Sequence[Iterable[Tile]],
    boneyard: Sequence[Tile],
    board: Board,
    *,
    must_play: Tile | None = None,
    passes: int = 0,
) -> Round:
    """A round at a position: ``hands`` by seat, ``boneyard`` the undrawn tiles in draw order,
    ``board`` the layout (copied). Every one of the 28 tiles must be in exactly one of them
    (R2.1); ``must_play`` is a drawn tile to be laid at once (R4.2), ``passes`` the passes in
    succession so far (R4.6)."""
    if len(hands) != 2:
        raise IllegalActionError(f"a position has two hands, not {len(hands)}")
    placed = _mask(board.tiles, "the board", 0)
    first = _mask(hands[0], "the first hand", placed)
    second = _mask(hands[1], "the second hand", placed | first)
    rest = _mask(boneyard, "the boneyard", placed | first | second)
    covered = placed | first | second | rest
    if covered != ALL_MASK:
        missing = ", ".join(str(t) for t in tiles_in(ALL_MASK & ~covered))
        raise IllegalActionError(f"the position lacks {missing}")
    if must_play is not None and not (first | second) >> must_play & 1:
        raise IllegalActionError(f"the tile to play at once, {must_play}, is in no hand")
    if passes not in (0, 1):
        raise IllegalActionError(f"a running round has 0 or 1 passes in succession, not {passes}")
    rnd = Round.__new__(Round)
    rnd.number = number
    rnd.deck = ()
    rnd.hands = [first, second]
    rnd.boneyard = list(boneyard)
    rnd.boneyard_size = len(rnd.boneyard)
    rnd.drawn = 0
    rnd.board = board.copy()
    rnd.must_play = must_play
    rnd.passes = passes
    return rnd


def match_at(
    rnd: Round,
    *,
    balances: tuple[int, int],
    phase: Phase,
    to_act: Seat,
    jockey: Seat | None = None,
    auction: Auction | None = None,
    opening_tile: Tile | None = None,
) -> Match:
    """A running match at ``rnd``: ``to_act`` decides in ``phase`` (auction, opening or
    playing). ``jockey`` is who laid the last tile of the previous round (R4.5); ``auction`` the
    bids so far in an auction phase (§6); ``opening_tile`` the tile R2.3 obliges the opener to
    lay, None for any tile (R6.3)."""
    if sum(balances) != TOTAL_POINTS or min(balances) <= 0:
        raise IllegalActionError(
            f"balances of a running match are positive and add up to 300 (R1.2): {balances!r}"
        )
    if phase not in (Phase.AUCTION, Phase.OPENING, Phase.PLAYING):
        raise IllegalActionError(f"a position is a running phase, not {phase.value!r}")
    if (phase is Phase.AUCTION) != (auction is not None):
        raise IllegalActionError(f"an auction position needs its bids and only it: {phase.value}")
    if (phase is not Phase.PLAYING) != rnd.board.is_empty:
        raise IllegalActionError(
            f"the board is empty exactly before the opening tile, not in {phase.value}"
        )
    match = Match()
    match.balances = list(balances)
    match.phase = phase
    match.to_act = to_act
    match.decision = 1
    match.round = rnd
    match.jockey = jockey
    match.auction = auction
    match.opening_tile = opening_tile
    return match


__all__ = ["match_at", "round_at"]
