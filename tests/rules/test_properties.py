"""Hypothesis properties of the rules engine (STYLE rule 6, second kind).

Every property drives complete random matches: each round is dealt from a fresh shuffle
(:class:`Deal`), every decision is a uniform pick from ``match.legal_actions()``, and in some
matches a :class:`Resign` by either seat is tried now and then (R5.2: always legal while the match
runs). Hypothesis draws the seed of the match's ``random.Random`` and how often to resign; a seed
keeps an example small for Hypothesis (a whole match of decisions would overrun its buffer) and a
failure is reproduced exactly from the seed it reports.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spectacular_bid.rules.actions import (
    Abort,
    AbortReason,
    Accept,
    Action,
    AuctionOpened,
    Bid,
    BidAccepted,
    BidMade,
    Deal,
    Decline,
    Declined,
    Draw,
    Event,
    Flag,
    MatchEnd,
    MatchEnded,
    OpenerChosen,
    Passed,
    Play,
    Played,
    Resign,
    RoundDealt,
    RoundEnd,
    RoundEnded,
    SeatAction,
    TransferReason,
    Transferred,
)
from spectacular_bid.rules.board import SIDES, Board, Joint, Place, Side
from spectacular_bid.rules.errors import RulesError
from spectacular_bid.rules.match import STARTING_BALANCE, TOTAL_POINTS, Match, Phase
from spectacular_bid.rules.seats import SEATS, BySeat, Seat
from spectacular_bid.rules.tiles import TILES, Tile
from spectacular_bid.rules.views import event_for, view_for

FIRST, SECOND = Seat.FIRST, Seat.SECOND
ACTIVE: Final = (Phase.AUCTION, Phase.OPENING, Phase.PLAYING)
MAX_ACTIONS: Final = 20_000
"""A generous bound: a random match takes about 150 actions on average, rarely over 1,000."""

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
RESIGN_RATES = st.sampled_from((0.0, 0.0, 0.001, 0.01))
"""Per decision; most matches never resign, so late-match states (low balances, forced declines
and accepts, R6.6) stay common. Hypothesis shrinks towards 0.0."""


# -- driving random matches -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One applied action. ``after`` is the live match: valid until the next step is taken."""

    before: Match
    action: Action
    events: list[Event]
    after: Match


def random_match(
    seed: int, resign_rate: float = 0.0, max_actions: int = MAX_ACTIONS
) -> Iterator[Step]:
    """Play one random match, yielding every step; stop when it is over or after
    ``max_actions`` actions."""
    rng = random.Random(seed)
    match = Match()
    deck = list(TILES)
    for _ in range(max_actions):
        if match.is_over:
            return
        action: Action
        if rng.random() < resign_rate:
            action = Resign(rng.choice(SEATS))
        elif match.phase is Phase.AWAITING_DEAL:
            rng.shuffle(deck)
            action = Deal(tuple(deck))
        else:
            legal = match.legal_actions()
            assert legal, f"{match!r}: the seat to act has no legal action"
            action = rng.choice(legal)
        before = match.copy()
        events = match.apply(action)
        yield Step(before, action, events, match)


def random_states(seed: int, resign_rate: float) -> Iterator[Match]:
    """The live match before the first action and after every action of a random match."""
    match: Match | None = None
    for step in random_match(seed, resign_rate):
        if match is None:
            yield step.before
        match = step.after
        yield match


def shuffled_deck(rng: random.Random) -> tuple[Tile, ...]:
    deck = list(TILES)
    rng.shuffle(deck)
    return tuple(deck)


# -- R1.2, R1.4: points ---------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_balances_sum_to_300_and_are_never_negative(seed: int, resign_rate: float) -> None:
    """R1.2, R1.4: after every apply the balances add up to 300 and neither is negative; every
    ``Transferred`` event reports the balances as they are and moves a positive amount."""
    assert Match().balances == [STARTING_BALANCE, STARTING_BALANCE]
    for step in random_match(seed, resign_rate):
        balances = step.after.balances
        assert sum(balances) == TOTAL_POINTS
        assert min(balances) >= 0
        for event in step.events:
            if isinstance(event, Transferred):
                assert event.amount > 0
                assert event.payer == event.payee.other
        transfers = [e for e in step.events if isinstance(e, Transferred)]
        if transfers:
            assert list(transfers[-1].balances) == balances


# -- R2.1: the 28 tiles ---------------------------------------------------------------------


def assert_tiles_partitioned(match: Match) -> None:
    rnd = match.round
    assert rnd is not None
    parts: list[Sequence[Tile]] = [
        rnd.hand(FIRST),
        rnd.hand(SECOND),
        rnd.board.tiles,
        rnd.boneyard_left(),
    ]
    every = [tile for part in parts for tile in part]
    assert sorted(every) == list(TILES), f"{match!r}: {parts}"
    assert len(rnd.boneyard_left()) == rnd.boneyard_count


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_hands_board_and_boneyard_are_the_28_tiles(seed: int, resign_rate: float) -> None:
    """R2.1: during a round both hands, the board and the undrawn boneyard are exactly the 28
    distinct tiles; a deal gives 7, 7 and 14 in deck order."""
    for step in random_match(seed, resign_rate):
        match = step.after
        if isinstance(step.action, Deal) and match.round is not None:
            deck = step.action.deck
            rnd = match.round
            assert rnd.hand(FIRST) == sorted(deck[:7])
            assert rnd.hand(SECOND) == sorted(deck[7:14])
            assert rnd.boneyard_left() == deck[14:]
        if match.phase in ACTIVE:
            assert_tiles_partitioned(match)


# -- every legal action applies -------------------------------------------------------------


def service_actions(match: Match, rng: random.Random) -> list[Action]:
    """The legal commands ``legal_actions`` does not list: Resign (R5.2) by either seat, Flag of
    the seat to act (R7.7), Abort (D3, D5), and Deal between rounds."""
    if match.is_over:
        return []
    actions: list[Action] = [Resign(FIRST), Resign(SECOND)]
    actions += [Abort(reason) for reason in AbortReason]
    if match.to_act is not None:
        actions.append(Flag(match.to_act))
    if match.phase is Phase.AWAITING_DEAL:
        actions.append(Deal(shuffled_deck(rng)))
    return actions


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_every_legal_action_applies(seed: int, resign_rate: float) -> None:
    """R8.3 and the engine's contract: in every state of a random match each action of
    ``legal_actions()`` (and each always-legal service command) applies to a copy without error,
    and applying to the copy leaves the original untouched. The seat to act always has a legal
    action, the other seat none."""
    rng = random.Random(seed ^ 0x5EED)
    for match in random_states(seed, resign_rate):
        snapshot = match.copy()
        assert snapshot == match
        legal: list[Action] = list(match.legal_actions())
        if match.phase in ACTIVE:
            assert match.to_act is not None
            assert legal
            assert match.legal_actions(match.to_act) == legal
            assert match.legal_actions(match.to_act.other) == []
        else:
            assert match.to_act is None
            assert legal == []
        for action in legal + service_actions(match, rng):
            trial = match.copy()
            trial.apply(action)
            assert match == snapshot, f"applying {action!r} to a copy changed the original"


# -- every illegal action is refused and changes nothing (R8.3) ------------------------------


def _perturbed(match: Match, rng: random.Random) -> dict[str, list[Action]]:
    """Candidate illegal actions by kind; some may turn out legal and are filtered by the
    caller."""
    kinds: dict[str, list[Action]] = {}
    phase = match.phase
    to_act = match.to_act
    legal = match.legal_actions()
    rnd = match.round

    wrong_seat: list[Action] = []
    for action in legal:
        wrong_seat.append(dataclasses.replace(action, seat=action.seat.other))
    if to_act is not None and rnd is not None:
        other = to_act.other
        wrong_seat += [Draw(other), Accept(other), Decline(other), Bid(other, 20)]
        wrong_seat += [Play(other, t, p) for t in rnd.hand(other) for p in rnd.board.places_for(t)]
        wrong_seat.append(Flag(other))
    kinds["wrong seat"] = wrong_seat

    if phase is not Phase.AWAITING_DEAL:
        kinds["deal mid-round or after the end"] = [Deal(shuffled_deck(rng))]
    else:
        deck = list(shuffled_deck(rng))
        kinds["malformed deck"] = [
            Deal(tuple(deck[:27])),
            Deal((*deck[:27], deck[0])),
            Deal((*deck, deck[0])),
            Deal(tuple(cast(Tile, int(t)) for t in deck)),
        ]
        kinds["flag with no clock running"] = [Flag(FIRST), Flag(SECOND)]

    if match.is_over:
        kinds["anything after the end"] = [
            Resign(FIRST),
            Resign(SECOND),
            Abort(AbortReason.JOIN_TIMEOUT),
            Flag(FIRST),
            Flag(SECOND),
        ]

    kinds["not a seat"] = [
        Resign(cast(Seat, 2)),
        Draw(cast(Seat, 2)),
        Accept(cast(Seat, -1)),
        Play(cast(Seat, 2), TILES[0]),
    ]

    seats: tuple[Seat, ...] = (to_act,) if to_act is not None else SEATS
    kinds["draw, accept or decline not legal now"] = [
        action(seat) for seat in seats for action in (Draw, Accept, Decline)
    ]

    bids: list[Action] = []
    for seat in seats:
        if phase is Phase.AUCTION and match.auction is not None:
            amounts = list(match.auction.legal_amounts(seat, match.balances[seat]))
            low = match.auction.min_amount()
            high = amounts[-1] if amounts else low
            for amount in (low - 5, low - 1, low + 1, high + 5, high + 3, 0, -15, 10, 7, 1000):
                bids.append(Bid(seat, amount))
            bids.append(Bid(seat, True))
        else:
            bids += [Bid(seat, 15), Bid(seat, 20)]
    kinds["bid not in the legal amounts"] = bids

    if rnd is not None:
        seat = to_act if to_act is not None else FIRST
        hand = set(rnd.hand(seat))
        board = rnd.board
        open_places = board.open_places()
        not_in_hand: list[Action] = []
        for place in open_places:
            for tile in TILES:
                if tile not in hand and (tile.low == place.value or tile.high == place.value):
                    not_in_hand.append(Play(seat, tile, place))
        if not board.tiles:
            not_in_hand += [Play(seat, t) for t in TILES if t not in hand]
        kinds["play of a tile not in hand"] = not_in_hand

        closed: list[Action] = []
        every_place = [Place(t, s) for t in TILES for s in SIDES]
        closed_places = [p for p in every_place if p not in open_places]
        for tile in hand:
            for place in rng.sample(closed_places, 4):
                closed.append(Play(seat, tile, place))
            if board.tiles:
                closed.append(Play(seat, tile))  # no place on a non-empty board
        kinds["play at a place not open"] = closed

        if phase is Phase.OPENING:
            opening: list[Action] = [Play(seat, t, Place(t, Side.LARGER)) for t in hand]
            if match.opening_tile is not None:
                opening += [Play(seat, t) for t in hand if t != match.opening_tile]
            kinds["wrong opening"] = opening
        if phase is Phase.PLAYING and rnd.must_play is not None:
            kinds["another tile than the drawn one (R4.2)"] = [
                Play(seat, t, p) for t in hand if t != rnd.must_play for p in open_places
            ]
            kinds["draw with a drawn tile to play (R4.2)"] = [Draw(seat)]
        if phase is Phase.PLAYING and rnd.playable_mask(seat):
            kinds["draw while holding a playable tile (R4.1)"] = [Draw(seat)]
        kinds["play of a non-tile"] = [Play(seat, cast(Tile, 3), p) for p in open_places[:1]]
    return kinds


def illegal_candidates(match: Match, rng: random.Random) -> dict[str, list[Action]]:
    """``_perturbed`` with every action that ``legal_actions`` lists removed; empty kinds
    dropped."""
    legal = match.legal_actions()
    kinds: dict[str, list[Action]] = {}
    for kind, actions in _perturbed(match, rng).items():
        kept = [a for a in actions if a not in legal]
        if kept:
            kinds[kind] = kept
    return kinds


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_every_illegal_action_is_refused_and_changes_nothing(seed: int, resign_rate: float) -> None:
    """R8.3: in every state of a random match, an illegal action of each kind (a tile not in
    hand, a place not open, the wrong seat, a draw while holding a playable tile (R4.1) or a
    drawn tile (R4.2), a bid outside the legal amounts (R6.1, R6.2, R6.5), an accept or decline
    not allowed (R6.3), a deal mid-round…) raises a ``RulesError`` and leaves the match equal to
    what it was."""
    rng = random.Random(seed ^ 0x1DEA)
    for match in random_states(seed, resign_rate):
        before = match.copy()
        for kind, actions in illegal_candidates(match, rng).items():
            for bad in rng.sample(actions, min(2, len(actions))):
                with pytest.raises(RulesError):
                    match.apply(bad)
                assert match == before, f"{kind}: {bad!r} changed the match"


def test_illegal_candidates_cover_every_kind() -> None:
    """The generator above is not vacuous: over a few matches every kind of illegal action is
    produced at least once."""
    seen: set[str] = set()
    rng = random.Random(0)
    for seed in range(40):
        for match in random_states(seed, 0.002):
            seen.update(illegal_candidates(match, rng))
    assert seen == {
        "wrong seat",
        "deal mid-round or after the end",
        "malformed deck",
        "flag with no clock running",
        "anything after the end",
        "not a seat",
        "draw, accept or decline not legal now",
        "bid not in the legal amounts",
        "play of a tile not in hand",
        "play at a place not open",
        "wrong opening",
        "another tile than the drawn one (R4.2)",
        "draw with a drawn tile to play (R4.2)",
        "draw while holding a playable tile (R4.1)",
        "play of a non-tile",
    }


# -- R5: every match ends ------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_every_random_match_ends(seed: int, resign_rate: float) -> None:
    """R1.5, R5.1, R5.2: a random match ends within 20,000 actions with a result, announced by
    its last event; a zero-balance win leaves the winner with all 300 points, a resignation gives
    the win to the other seat, and without resignations only a zero balance ends a match."""
    steps = 0
    last: Step | None = None
    for step in random_match(seed, resign_rate):
        steps += 1
        last = step
        ended = [e for e in step.events if isinstance(e, MatchEnded)]
        assert ended == ([step.after.result] if step.after.is_over else [])
        if ended:
            assert step.events[-1] == ended[0]
    assert last is not None
    match = last.after
    assert match.is_over, f"not over after {steps} actions"
    assert steps < MAX_ACTIONS
    result = match.result
    assert result is not None
    assert match.to_act is None
    assert match.legal_actions() == []
    if result.reason is MatchEnd.ZERO_BALANCE:
        assert result.winner is not None
        assert match.balances[result.winner] == TOTAL_POINTS
        assert match.balances[result.winner.other] == 0
    else:
        assert result.reason is MatchEnd.RESIGNATION
        assert isinstance(last.action, Resign)
        assert result.winner == last.action.seat.other
    if resign_rate == 0.0:
        assert result.reason is MatchEnd.ZERO_BALANCE


# -- R2.2, D4: views never leak -------------------------------------------------------------


def tiles_within(value: object) -> set[Tile]:
    """Every :class:`Tile` inside a view or event: dataclasses (``BySeat`` included), tuples
    (``Place`` and ``Joint`` included), lists and dicts, walked recursively."""
    found: set[Tile] = set()

    def walk(item: object) -> None:
        if isinstance(item, Tile):
            found.add(item)
        elif item is None or isinstance(item, str | int | float | Enum):
            return
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            for field in dataclasses.fields(item):
                walk(getattr(item, field.name))
        elif isinstance(item, tuple | list | set | frozenset):
            for element in item:
                walk(element)
        elif isinstance(item, dict):
            for key, element in item.items():
                walk(key)
                walk(element)
        else:
            raise AssertionError(f"cannot walk a {type(item).__name__}: {item!r}")

    walk(value)
    return found


def test_tiles_within_walks_every_container() -> None:
    """The walker finds tiles in dataclasses, BySeat, named tuples and nested tuples."""
    one, two, three = Tile.of(1, 1), Tile.of(2, 3), Tile.of(4, 6)
    found = tiles_within(
        (BySeat((one,), None), Joint(Place(two, Side.LARGER), Place(three, Side.SMALLER)))
    )
    assert found == {one, two, three}


def visible_tiles(match: Match, viewer: Seat | None) -> set[Tile]:
    """What ``viewer`` may know now: the board, its own hand during a round, and both hands of a
    finished round (D4). Never the undrawn boneyard."""
    rnd = match.round
    if rnd is None:
        return set()
    allowed = set(rnd.board.tiles)
    if match.phase in ACTIVE:
        if viewer is not None:
            allowed |= set(rnd.hand(viewer))
    else:
        allowed |= set(rnd.hand(FIRST)) | set(rnd.hand(SECOND))
    return allowed


def assert_view_hides(match: Match, viewer: Seat | None) -> None:
    view = view_for(match, viewer)
    assert view.viewer == viewer
    between = match.round is not None and match.phase not in ACTIVE
    assert (view.last_round is not None) == between
    leaked = tiles_within(view) - visible_tiles(match, viewer)
    assert not leaked, f"{viewer} sees {sorted(map(str, leaked))} in {match!r}"
    rnd = match.round
    if rnd is not None and match.phase in ACTIVE:
        assert view.hand == (tuple(rnd.hand(viewer)) if viewer is not None else None)


def assert_events_hide(step: Step, viewer: Seat | None) -> None:
    before, after = step.before, step.after
    known: set[Tile] = set()
    if before.round is not None and before.phase in ACTIVE:
        known |= set(before.round.board.tiles)
        if viewer is not None:
            known |= set(before.round.hand(viewer))
    if after.round is not None:
        known |= set(after.round.board.tiles)
        if viewer is not None:
            # The viewer's hand after a deal, or after drawing (in the same round).
            known |= set(after.round.hand(viewer))
    for event in step.events:
        if isinstance(event, RoundEnded):
            assert after.round is not None
            assert event.hands == BySeat(
                tuple(after.round.hand(FIRST)), tuple(after.round.hand(SECOND))
            )
            known |= set(event.hands.first) | set(event.hands.second)  # public from now (D4)
        seen = event_for(viewer, event)
        assert type(seen) is type(event)
        leaked = tiles_within(seen) - known
        assert not leaked, f"{viewer} sees {sorted(map(str, leaked))} in {seen!r}"
        if isinstance(event, RoundDealt) and viewer is not None:
            assert isinstance(seen, RoundDealt)
            assert seen.hands[viewer] == event.hands[viewer]


@settings(max_examples=80, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_seat_views_and_events_never_show_hidden_tiles(seed: int, resign_rate: float) -> None:
    """R2.2, D4: a seat's view holds no tile of the other hand or the undrawn boneyard while a
    round runs (both hands become public when it ends, the boneyard never in a view); every event
    filtered for the seat holds only its own hand (drawn tiles included), the board and the
    hands revealed by a ``RoundEnded``."""
    for seat in SEATS:
        assert_view_hides(Match(), seat)
    for step in random_match(seed, resign_rate):
        for seat in SEATS:
            assert_view_hides(step.after, seat)
            assert_events_hide(step, seat)


@settings(max_examples=80, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_spectator_view_and_events_never_show_hidden_tiles(seed: int, resign_rate: float) -> None:
    """R2.2, D4: a spectator sees neither hand and no boneyard tile while a round runs, in the
    view and in every filtered event; only the board and the hands of a finished round."""
    assert_view_hides(Match(), None)
    for step in random_match(seed, resign_rate):
        assert_view_hides(step.after, None)
        assert_events_hide(step, None)


# -- R3.4, R3.5: the ends sum and the award -------------------------------------------------


def model_open_places(board: Board) -> list[Place]:
    """The open places rebuilt from the tiles and joints alone (R3.2, R3.3): every side of a
    laid tile that no joint filled; the spinner (the first double) has branches only once both
    line sides are filled."""
    filled = {(j.old.tile, j.old.side) for j in board.joints()}
    filled |= {(j.new.tile, j.new.side) for j in board.joints()}
    spinner = next((t for t in board.tiles if t.is_double), None)
    places: list[Place] = []
    for tile in board.tiles:
        if tile.is_double:
            sides = [Side.LINE_A, Side.LINE_B]
            if tile == spinner and all((tile, s) in filled for s in sides):
                sides += [Side.BRANCH_A, Side.BRANCH_B]
        else:
            sides = [Side.LARGER, Side.SMALLER]
        places += [Place(tile, s) for s in sides if (tile, s) not in filled]
    return sorted(places)


def model_ends_sum(board: Board) -> int:
    """R3.4 on the model's open places: an end its pips, a double with an open line side both
    halves once, a branch nothing."""
    total = 0
    doubles_counted: set[Tile] = set()
    for place in model_open_places(board):
        if place.side in (Side.LARGER, Side.SMALLER):
            total += place.tile.high if place.side is Side.LARGER else place.tile.low
        elif place.side in (Side.LINE_A, Side.LINE_B) and place.tile not in doubles_counted:
            doubles_counted.add(place.tile)
            total += 2 * place.tile.low
    return total


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_ends_sum_and_award_follow_the_scoring_ends(seed: int, resign_rate: float) -> None:
    """R3.3–R3.5: after every placement the board's incremental ``ends_sum`` equals the sum of
    ``scoring_ends()`` and of a model rebuilt from the joints; ``Played.award`` is that sum when
    it is a positive multiple of 5, else 0, and a positive award is followed by its transfer to
    the placer, capped at the payer's balance (R1.4)."""
    for step in random_match(seed, resign_rate):
        played = [e for e in step.events if isinstance(e, Played)]
        if not played:
            continue
        assert len(played) == 1
        event = played[0]
        assert isinstance(step.action, Play)
        assert (event.seat, event.tile, event.at) == (
            step.action.seat,
            step.action.tile,
            step.action.at,
        )
        assert step.after.round is not None
        board = step.after.round.board
        assert board.tiles[-1] == event.tile
        if event.at is None:
            assert board.tiles == [event.tile]
        else:
            joint = board.joints()[-1]
            assert joint.old == event.at
            if event.tile.is_double:
                assert joint.new == Place(event.tile, Side.LINE_A)
            elif event.tile.low == event.at.value:
                assert joint.new == Place(event.tile, Side.SMALLER)
            else:
                assert joint.new == Place(event.tile, Side.LARGER)
        assert board.spinner == next((t for t in board.tiles if t.is_double), None)
        assert board.open_places() == model_open_places(board)
        ends_total = sum(value for _, value in board.scoring_ends())
        assert board.ends_sum == ends_total == model_ends_sum(board) == event.ends_sum
        assert board.describe().endswith(f" = {ends_total}. Award: {event.award}.")
        expected_award = ends_total if ends_total > 0 and ends_total % 5 == 0 else 0
        assert event.award == expected_award == board.award
        rebuilt = Board.from_moves(" ".join(board.moves()))
        assert rebuilt == board
        index = step.events.index(event)
        if event.award:
            transfer = step.events[index + 1]
            payer = event.seat.other
            amount = min(event.award, step.before.balances[payer])
            balances = step.before.balance.replace(payer, step.before.balances[payer] - amount)
            balances = balances.replace(event.seat, balances[event.seat] + amount)
            assert transfer == Transferred(
                payer, event.seat, amount, TransferReason.AWARD, balances
            )
        else:
            assert not any(
                isinstance(e, Transferred) and e.reason is TransferReason.AWARD for e in step.events
            )


# -- R4.3, R7.2, R7.3: decisions --------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_decision_counts_new_decisions_and_not_draws(seed: int, resign_rate: float) -> None:
    """R4.3, R7.2, R7.3: ``decision`` never decreases; it grows exactly when a seat gets a new
    decision (a turn, an opening, an auction decision) and never on a ``Draw`` that leaves the
    same seat to act with the drawn tile or more draws."""
    for step in random_match(seed, resign_rate):
        before, after = step.before, step.after
        assert after.decision >= before.decision
        same_turn = isinstance(step.action, Draw) and not any(
            isinstance(e, Passed) for e in step.events
        )
        if same_turn:
            assert after.decision == before.decision
            assert after.to_act == before.to_act
            assert after.round is not None
            legal = after.legal_actions()
            if after.round.must_play is not None:
                assert legal
                assert all(isinstance(a, Play) and a.tile == after.round.must_play for a in legal)
            else:
                assert after.to_act is not None
                assert legal == [Draw(after.to_act)]
        elif after.to_act is None:
            # Nobody is left to act (a round or the match ended): no clock runs (R7.5), so the
            # count is not read. The engine counts the forced passes (D2) of a block in it.
            pass
        else:
            assert after.decision > before.decision
        if isinstance(step.action, Bid):
            bids = [e for e in step.events if isinstance(e, BidMade)]
            assert bids
            assert bids[0].seat == step.action.seat


def test_random_match_driver_plays_whole_matches() -> None:
    """The driver deals, plays and ends: a seeded match reaches its end with several rounds."""
    steps = list(random_match(7))
    assert steps[-1].after.is_over
    assert sum(isinstance(s.action, Deal) for s in steps) >= 1
    seat_actions: list[SeatAction] = [
        s.action
        for s in steps
        if isinstance(s.action, Play | Draw | Bid | Accept | Decline | Resign)
    ]
    assert seat_actions


# -- R2.3, R2.4, R4.7: who opens -----------------------------------------------------------


def model_highest_opening(first: Sequence[Tile], second: Sequence[Tile]) -> tuple[Seat, Tile]:
    """R2.3: the highest double in either hand, else the largest pip sum, ties broken by the
    larger half."""
    held = [(tile, FIRST) for tile in first] + [(tile, SECOND) for tile in second]
    doubles = [(tile.low, seat, tile) for tile, seat in held if tile.is_double]
    if doubles:
        _, seat, tile = max(doubles)
        return seat, tile
    _, _, seat, tile = max((t.pips, t.high, s, t) for t, s in held)
    return seat, tile


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_opening_follows_highest_tile_or_auction(seed: int, resign_rate: float) -> None:
    """R2.3, R2.4, R4.7: the first round and every round after a block open with the highest
    tile, which is then the opener's only legal move; a round after a domino opens with an
    auction in which the non-jockey decides first (R6.1)."""
    for step in random_match(seed, resign_rate):
        if not isinstance(step.action, Deal):
            continue
        before, after, events = step.before, step.after, step.events
        assert isinstance(events[0], RoundDealt)
        assert after.round is not None
        if before.jockey is None:
            assert before.round_end in (None, RoundEnd.BLOCK)
            seat, tile = model_highest_opening(after.round.hand(FIRST), after.round.hand(SECOND))
            assert events[1:] == [OpenerChosen(seat, tile)]
            assert after.legal_actions() == [Play(seat, tile)]
        else:
            assert before.round_end is RoundEnd.DOMINO
            assert events[1] == AuctionOpened(before.jockey)
            first_decision = events[2:]
            if first_decision:  # a forced decline (R6.6)
                assert first_decision[0] == Declined(before.jockey.other, forced=True)
            else:
                assert after.phase is Phase.AUCTION
                assert after.to_act == before.jockey.other


# -- §6: the auction -----------------------------------------------------------------------


def model_cost(amount: int, *, by_jockey: bool) -> int:
    """R6.4: only the jockey's own bid is discounted by 15, never below zero."""
    return max(amount - 15, 0) if by_jockey else amount


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_auction_follows_section_6(seed: int, resign_rate: float) -> None:
    """R6.1–R6.6: the legal auction decisions are exactly a decline for the non-jockey's first
    decision, an accept when facing a bid, and every multiple of 5 from the minimum (15, or the
    standing bid plus 5) whose cost fits the balance; forced declines and accepts happen exactly
    when no bid is affordable; the accepted bidder pays its cost (the jockey 15 less) and opens
    with any tile, or loses at once when that is the whole balance."""
    jockey: Seat | None = None
    bids: list[tuple[Seat, int]] = []
    for step in random_match(seed, resign_rate):
        before, events = step.before, step.events
        if before.phase is Phase.AUCTION and before.to_act is not None:
            seat = before.to_act
            assert jockey is not None
            minimum = bids[-1][1] + 5 if bids else 15
            affordable = [
                amount
                for amount in range(minimum, TOTAL_POINTS + 20, 5)
                if model_cost(amount, by_jockey=seat == jockey) <= before.balances[seat]
            ]
            assert affordable, "a seat with no affordable bid must not be asked (R6.6, D2)"
            expected: list[SeatAction] = []
            if not bids and seat != jockey:
                expected.append(Decline(seat))
            if bids:
                assert bids[-1][0] == seat.other
                expected.append(Accept(seat))
            expected += [Bid(seat, amount) for amount in affordable]
            assert before.legal_actions() == expected
        balances = list(before.balances)
        for index, event in enumerate(events):
            following = events[index + 1 :]
            if isinstance(event, AuctionOpened):
                jockey, bids = event.jockey, []
            elif isinstance(event, BidMade):
                assert jockey is not None
                assert event.cost == model_cost(event.amount, by_jockey=event.seat == jockey)
                bids.append((event.seat, event.amount))
            elif isinstance(event, Declined):
                assert not bids
                assert event.seat == cast(Seat, jockey).other
                assert event.forced == (balances[event.seat] < 15)
                assert following[0] == OpenerChosen(cast(Seat, jockey), None)
            elif isinstance(event, BidAccepted):
                bidder, amount = bids[-1]
                assert (event.bidder, event.seat, event.amount) == (bidder, bidder.other, amount)
                payment = model_cost(amount, by_jockey=bidder == jockey)
                assert event.payment == payment
                min_raise_cost = model_cost(amount + 5, by_jockey=event.seat == jockey)
                assert event.forced == (min_raise_cost > balances[event.seat])
                if payment:
                    transfer = following.pop(0)
                    assert isinstance(transfer, Transferred)
                    assert (transfer.payer, transfer.payee, transfer.amount, transfer.reason) == (
                        bidder,
                        event.seat,
                        payment,
                        TransferReason.AUCTION,
                    )
                if payment == balances[bidder]:  # R6.5: the whole balance loses at once
                    assert step.after.result == MatchEnded(event.seat, MatchEnd.ZERO_BALANCE)
                else:
                    assert following[0] == OpenerChosen(bidder, None)
            elif isinstance(event, Transferred):
                balances[event.payer] -= event.amount
                balances[event.payee] += event.amount


# -- R4.4–R4.7: passes, domino and block ---------------------------------------------------


def model_round_to_five(points: int) -> int:
    """R4.6: remainders 1–2 round down, 3–4 up."""
    remainder = points % 5
    return points - remainder if remainder <= 2 else points + 5 - remainder


@settings(max_examples=300, deadline=None)
@given(seed=SEEDS, resign_rate=RESIGN_RATES)
def test_passes_dominoes_and_blocks_settle_by_the_rules(seed: int, resign_rate: float) -> None:
    """R4.4: a seat passes only when it can neither place nor draw. R4.5: laying the last tile
    ends the round with no award for the other hand and makes the layer the jockey. R4.6: a
    block pays the lighter hand the heavier hand's whole total rounded to five (capped, R1.4),
    equal totals nothing; R4.7: no jockey after a block."""
    for step in random_match(seed, resign_rate):
        after, events = step.after, step.events
        rnd = after.round
        balances = list(step.before.balances)
        for index, event in enumerate(events):
            if isinstance(event, Passed):
                assert rnd is not None
                assert rnd.boneyard_count == 0
                assert not rnd.playable_mask(event.seat)
            elif isinstance(event, RoundEnded) and event.reason is not RoundEnd.MATCH_OVER:
                assert rnd is not None
                totals = BySeat(*(sum(t.pips for t in hand) for hand in event.hands))
                assert event.pip_totals == totals
                block_transfers = [
                    e
                    for e in events[index + 1 :]
                    if isinstance(e, Transferred) and e.reason is TransferReason.BLOCK
                ]
                if event.reason is RoundEnd.DOMINO:
                    assert isinstance(step.action, Play)
                    assert event.jockey == step.action.seat
                    assert event.hands[step.action.seat] == ()
                    assert not block_transfers
                    assert after.jockey == step.action.seat
                else:
                    assert events[index - 2 : index] == [
                        Passed(SEATS[0]),
                        Passed(SEATS[1]),
                    ] or events[index - 2 : index] == [Passed(SEATS[1]), Passed(SEATS[0])]
                    assert event.jockey is None
                    assert after.jockey is None
                    expected: list[Transferred] = []
                    if totals.first != totals.second:
                        payee = FIRST if totals.first < totals.second else SECOND
                        payer = payee.other
                        amount = min(model_round_to_five(totals[payer]), balances[payer])
                        if amount:
                            balances[payer] -= amount
                            balances[payee] += amount
                            expected.append(
                                Transferred(
                                    payer,
                                    payee,
                                    amount,
                                    TransferReason.BLOCK,
                                    BySeat(balances[0], balances[1]),
                                )
                            )
                    assert block_transfers == expected
            elif isinstance(event, Transferred):
                balances[event.payer] -= event.amount
                balances[event.payee] += event.amount
