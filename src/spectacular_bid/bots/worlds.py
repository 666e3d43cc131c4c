"""Sampling worlds: the hidden tiles placed one way consistent with what a seat saw.

A world is a full :class:`~spectacular_bid.rules.match.Match` at the seat's decision, built by
:func:`~spectacular_bid.rules.position.match_at`: the seat's own hand, the board, the balances,
the counts of the other hand and the boneyard exactly as seen; the other hand and the boneyard's
order drawn at random from the unseen tiles (R2.2), subject to the inferences of
:mod:`.knowledge`.

The other seat's tiles came to it in *slots*: its seven dealt tiles, then each hidden draw. A
tile of a slot shows no value open at any of the seat's no-match moments from that slot's on
(R4.1, R4.2, R4.4), and a dealt tile none that R2.3 excludes. Which slots the tiles it still
holds came from is unknown; the sampler takes the latest ones (the tiles it laid came from the
earliest), which is the most permissive reading. A slot with no candidate left takes any unseen
tile, so sampling never fails.
"""

from __future__ import annotations

import random

from spectacular_bid.bots.knowledge import Knowledge
from spectacular_bid.rules.auction import Auction
from spectacular_bid.rules.match import Match
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.position import match_at, round_at
from spectacular_bid.rules.round import HAND_SIZE
from spectacular_bid.rules.seats import Seat
from spectacular_bid.rules.tiles import ALL_MASK, VALUE_MASK, Tile, tiles_in


def _showing(values: int) -> int:
    mask = 0
    for value, tiles in enumerate(VALUE_MASK):
        if values >> value & 1:
            mask |= tiles
    return mask


_SHOWING: tuple[int, ...] = tuple(_showing(values) for values in range(128))
"""For a bit mask of values, the tiles that show at least one of them (R3.1)."""


def slot_allowances(k: Knowledge) -> list[int]:
    """For each slot of the other seat's held tiles, most constrained first, the tiles it may
    be: the dealt slots first, then hidden draws from the earliest moment."""
    moments = k.moments
    suffix = [0] * (len(moments) + 1)
    for i in range(len(moments) - 1, -1, -1):
        suffix[i] = suffix[i + 1] | moments[i]
    slots = [(0, True)] * HAND_SIZE + [(moment, False) for moment in k.hidden_draws]
    held = slots[len(slots) - k.other_count :] if k.other_count else []
    allowances = []
    for start, dealt in held:
        allowed = ALL_MASK & ~_SHOWING[suffix[start]]
        if dealt:
            allowed &= ~k.opening_excluded
        allowances.append(allowed)
    return allowances


def _pick(mask: int, rng: random.Random) -> Tile:
    choices = tiles_in(mask)
    return choices[int(rng.random() * len(choices))]


def sample_hidden(k: Knowledge, rng: random.Random) -> tuple[list[Tile], list[Tile]]:
    """The other hand and the boneyard in draw order, for one world."""
    pool = k.unseen
    other: list[Tile] = []
    for allowed in slot_allowances(k):
        candidates = pool & allowed or pool
        tile = _pick(candidates, rng)
        other.append(tile)
        pool &= ~(1 << tile)
    boneyard = tiles_in(pool)
    rng.shuffle(boneyard)
    return other, boneyard


def _hands(k: Knowledge, other: list[Tile]) -> list[list[Tile]]:
    mine = tiles_in(k.hand)
    return [mine, other] if k.seat is Seat.FIRST else [other, mine]


def sample_world(k: Knowledge, rng: random.Random) -> Match:
    """One world at the seat's current decision (an opening or a turn, or the auction)."""
    other, boneyard = sample_hidden(k, rng)
    rnd = round_at(
        k.round_number,
        _hands(k, other),
        boneyard,
        k.board,
        must_play=k.must_play,
        passes=k.passes,
    )
    auction = None
    if k.phase is Phase.AUCTION:
        assert k.jockey is not None
        auction = Auction(k.jockey)
        auction.bids = list(k.auction_bids)
    return match_at(
        rnd,
        balances=k.balances,
        phase=k.phase,
        to_act=k.seat,
        jockey=k.jockey,
        auction=auction,
        opening_tile=k.opening_tile,
    )


def sample_opening(k: Knowledge, opener: Seat, hidden: tuple[list[Tile], list[Tile]]) -> Match:
    """A world of the auction's outcome from the hidden tiles of :func:`sample_hidden`:
    ``opener`` lays any tile and nothing is paid yet (R6.3)."""
    other, boneyard = hidden
    rnd = round_at(k.round_number, _hands(k, other), boneyard, k.board)
    return match_at(rnd, balances=k.balances, phase=Phase.OPENING, to_act=opener, jockey=k.jockey)


__all__ = ["sample_hidden", "sample_opening", "sample_world", "slot_allowances"]
