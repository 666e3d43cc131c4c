"""§1 Points and chips (R1.1–R1.5) on hand-built rounds."""

from __future__ import annotations

from spectacular_bid.rules.actions import (
    Deal,
    MatchEnd,
    MatchEnded,
    Play,
    Played,
    RoundEnd,
    RoundEnded,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.board import Place, Side
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.tiles import Tile

from .decks import (
    BLOCK_DECK,
    BLOCK_DRAWS,
    BLOCK_PLACEMENTS,
    action,
    after_block_round,
    dealt,
    deck,
    play,
    tiles,
)

FIRST, SECOND = Seat.FIRST, Seat.SECOND

CAP_DECK = deck(
    first="4-6 5-6 1-6 0-1 0-2 0-3 2-3",
    second="6-6 4-4 5-5 1-2 0-4 0-5 3-4",
)
"""Round 2 after the block (25–275): the second seat holds [6|6] and opens it (R2.3, R4.7)."""

CAP_MOVES = (
    "6-6 4-6@6-6:lineA 4-4@4-6:smaller 5-6@6-6:lineB 5-5@5-6:smaller 1-6@6-6:branchA "
    "1-2@1-6:smaller"
)
"""Sums: 12; 12 + 4 = 16; 12 + 8 = 20 (second seat +20, first seat 25 → 5); lines filled, so the
spinner counts nothing: 8 + 5 = 13; 8 + 10 = 18; branch [1|6]: 8 + 10 + 1 = 19; then [1|2] on its
smaller end: 8 + 10 + 2 = 20 against a payer holding 5."""


def test_r1_1_each_player_starts_with_150_points() -> None:
    match = Match()
    assert match.balances == [150, 150]
    assert match.balance == BySeat(150, 150)
    assert match.balances[0] // 5 == 30  # thirty 5-point chips
    match.apply(Deal(deck()))
    assert match.balances == [150, 150]


def test_r1_2_an_award_is_a_transfer_from_the_opponent() -> None:
    match = dealt(deck(first="5-5", second="1-2"))
    events = play(match, "5-5")
    assert events == [
        Played(FIRST, Tile.of(5, 5), None, 10, 10),
        Transferred(SECOND, FIRST, 10, TransferReason.AWARD, BySeat(160, 140)),
    ]
    assert match.balances == [160, 140]


def test_r1_2_balances_always_add_up_to_300() -> None:
    """Through a blocked round (awards and a 120-point settlement) and the next round until the
    match ends, every command keeps the total at 300 and every transfer moves exactly its amount
    from the payer to the payee."""
    match = dealt(BLOCK_DECK)
    moves = f"{BLOCK_PLACEMENTS} {BLOCK_DRAWS}".split()
    transfers: list[Transferred] = []
    for move in moves:
        before = list(match.balances)
        events = match.apply(action(match, move))
        moved = [e for e in events if isinstance(e, Transferred)]
        for t in moved:
            assert t.payer != t.payee
            assert before[t.payer] - t.amount == t.balances[t.payer]
            assert before[t.payee] + t.amount == t.balances[t.payee]
            before = list(t.balances)
        transfers.extend(moved)
        assert sum(match.balances) == 300
    assert [(t.payee, t.amount) for t in transfers] == [(SECOND, 5), (SECOND, 120)]
    match.apply(Deal(CAP_DECK))
    for move in CAP_MOVES.split():
        match.apply(action(match, move))
        assert sum(match.balances) == 300
    assert match.balances == [0, 300]


def test_r1_3_awards_are_not_divided_by_five() -> None:
    """An end sum of 15 transfers 15 points: from 150–150 that gives 165–135."""
    match = dealt(deck(first="3-6 0-1", second="6-6 0-2"))
    events = play(match, "6-6 3-6@6-6:lineA")
    assert events[-2:] == [
        Played(FIRST, Tile.of(3, 6), Place(Tile.of(6, 6), Side.LINE_A), 15, 15),
        Transferred(SECOND, FIRST, 15, TransferReason.AWARD, BySeat(165, 135)),
    ]
    assert match.balances == [165, 135]


def test_r1_4_r1_5_award_of_20_against_payer_holding_5_transfers_5_and_ends_match() -> None:
    """R1.4: a transfer is capped at the payer's balance (never negative); R1.5: the payer
    whose balance reaches 0 loses at once, mid-round included."""
    match = after_block_round()
    assert match.balances == [25, 275]
    match.apply(Deal(CAP_DECK))
    moves = CAP_MOVES.split()
    events = play(match, " ".join(moves[:3]))
    assert events[-1] == Transferred(FIRST, SECOND, 20, TransferReason.AWARD, BySeat(5, 295))
    play(match, " ".join(moves[3:6]))
    assert match.balances == [5, 295]
    assert match.to_act is SECOND

    events = match.apply(action(match, moves[6]))

    assert events == [
        Played(SECOND, Tile.of(1, 2), Place(Tile.of(1, 6), Side.SMALLER), 20, 20),
        Transferred(FIRST, SECOND, 5, TransferReason.AWARD, BySeat(0, 300)),
        RoundEnded(
            2,
            RoundEnd.MATCH_OVER,
            BySeat(tiles("0-1 0-2 0-3 2-3"), tiles("0-4 0-5 3-4")),
            BySeat(11, 16),
            None,
        ),
        MatchEnded(SECOND, MatchEnd.ZERO_BALANCE),
    ]
    assert match.balances == [0, 300]
    assert match.phase is Phase.OVER
    assert match.result == MatchEnded(SECOND, MatchEnd.ZERO_BALANCE)
    assert match.to_act is None
    assert match.legal_actions(FIRST) == []
    assert match.legal_actions(SECOND) == []
    # The round does not go on: the first seat still holds playable tiles.
    assert not match.is_legal(Play(FIRST, Tile.of(0, 2), Place(Tile.of(1, 2), Side.LARGER)))
