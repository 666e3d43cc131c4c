"""The match: its state, what may be done next, and one entry point for every command (§1–§6).

``Match.apply`` checks a command completely before it changes anything (R8.3), so an illegal
command raises a :class:`~spectacular_bid.rules.errors.RulesError` and leaves the match equal to
what it was. Forced passes, declines and accepts happen inside ``apply`` (D2) and come back as
events like any other.

The phases' logic lives in modules named for them, as functions of the match that ``apply`` calls
directly: :mod:`~spectacular_bid.rules.auction_phase` (§6), :mod:`~spectacular_bid.rules.turns`
(§3, §4) and :mod:`~spectacular_bid.rules.settlement` (§1, §5, round and match ends). This module
keeps the state, starting a round (R2.1–R2.3, R4.5) and ``legal_actions``, the hot path: it works
on tile ids, hand masks and place codes, and hands out the actions interned in
:mod:`~spectacular_bid.rules.interned`, so a random-play benchmark measures the rules, not
object construction.
"""

from __future__ import annotations

from spectacular_bid.rules.actions import (
    Abort,
    Accept,
    Action,
    AuctionOpened,
    Bid,
    Deal,
    Decline,
    Draw,
    Event,
    Flag,
    MatchEnded,
    Play,
    Resign,
    RoundDealt,
    RoundEnd,
    SeatAction,
)
from spectacular_bid.rules.auction import MIN_BID, Auction
from spectacular_bid.rules.auction_phase import apply_accept, apply_bid, apply_decline, auction_turn
from spectacular_bid.rules.board import CODE_MATCHES
from spectacular_bid.rules.errors import IllegalActionError, RulesError, WrongPhaseError
from spectacular_bid.rules.interned import (
    ACCEPTS,
    BIDS,
    CODES_PLUS_OPEN,
    DECLINES,
    DRAWS,
    PLAYS,
    SEAT_STRIDE,
    play_action,
)
from spectacular_bid.rules.phase import Phase
from spectacular_bid.rules.round import HAND_SIZE, Round, highest_opening
from spectacular_bid.rules.seats import BySeat, Seat
from spectacular_bid.rules.settlement import (
    STARTING_BALANCE,
    TOTAL_POINTS,
    apply_abort,
    apply_flag,
    apply_resign,
)
from spectacular_bid.rules.tiles import Tile
from spectacular_bid.rules.turns import apply_draw, apply_play, start_opening


class Match:
    """A whole match between two seats. Mutable, with a cheap :meth:`copy`."""

    __slots__ = (
        "auction",
        "balances",
        "decision",
        "jockey",
        "opening_tile",
        "phase",
        "result",
        "round",
        "round_end",
        "to_act",
    )

    def __init__(self) -> None:
        self.balances: list[int] = [STARTING_BALANCE, STARTING_BALANCE]
        self.phase = Phase.AWAITING_DEAL
        self.to_act: Seat | None = None
        """The seat whose decision it is; None while nobody's clock may run (R7.5)."""
        self.decision = 0
        """Counts genuinely new decisions (R7.2): a turn, an opening, an auction decision. Draws
        inside a turn leave it as it is (R7.3), so a clock restarts its delay exactly when this
        changes."""
        self.round: Round | None = None
        """The current round, or the last one while awaiting the next deal (its hands are then
        public, D4)."""
        self.jockey: Seat | None = None
        """Who laid the last tile of the previous round (R4.5); None after a block (R4.7)."""
        self.auction: Auction | None = None
        self.opening_tile: Tile | None = None
        """The tile the opener must lay under R2.3, or None for any tile (R6.3)."""
        self.result: MatchEnded | None = None
        self.round_end: RoundEnd | None = None
        """Why the last round ended, while awaiting the next deal or after the match."""

    # -- value semantics ------------------------------------------------------------------

    def copy(self) -> Match:
        other = Match.__new__(Match)
        other.balances = self.balances.copy()
        other.phase = self.phase
        other.to_act = self.to_act
        other.decision = self.decision
        other.round = self.round.copy() if self.round is not None else None
        other.jockey = self.jockey
        other.auction = self.auction.copy() if self.auction is not None else None
        other.opening_tile = self.opening_tile
        other.result = self.result
        other.round_end = self.round_end
        return other

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Match):
            return NotImplemented
        return (
            self.balances == other.balances
            and self.phase == other.phase
            and self.to_act == other.to_act
            and self.decision == other.decision
            and self.round == other.round
            and self.jockey == other.jockey
            and self.auction == other.auction
            and self.opening_tile == other.opening_tile
            and self.result == other.result
            and self.round_end == other.round_end
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Match {self.phase.value} round={self.round_number} to_act={self.to_act} "
            f"balances={self.balances}>"
        )

    # -- reading --------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def round_number(self) -> int:
        return self.round.number if self.round is not None else 0

    @property
    def balance(self) -> BySeat[int]:
        return BySeat(self.balances[0], self.balances[1])

    @property
    def is_round_over(self) -> bool:
        """True between a round's end and the next deal: the settlement (R7.5, D4)."""
        return self.phase is Phase.AWAITING_DEAL and self.round is not None

    def legal_actions(self, seat: Seat | None = None) -> list[SeatAction]:
        """The moves ``seat`` (by default the seat to act) may make now. :class:`Resign` is
        always legal for a seat while the match runs (R5.2) and is not listed."""
        to_act = self.to_act
        if to_act is None or (seat is not None and seat != to_act):
            return []
        phase = self.phase
        rnd = self.round
        assert rnd is not None
        if phase is Phase.PLAYING:
            must = rnd.must_play
            hand = rnd.hands[to_act] if must is None else 1 << must
            plays: list[SeatAction] = []
            base = to_act * SEAT_STRIDE + 1
            interned = PLAYS
            for code in rnd.board.open_codes:
                matches = hand & CODE_MATCHES[code]
                while matches:
                    low_bit = matches & -matches
                    matches ^= low_bit
                    plays.append(
                        interned[base + (low_bit.bit_length() - 1) * CODES_PLUS_OPEN + code]  # type: ignore[arg-type]
                    )
            if not plays:
                plays.append(DRAWS[to_act])
            return plays
        if phase is Phase.OPENING:
            if self.opening_tile is not None:
                return [play_action(to_act, self.opening_tile, -1)]
            return [play_action(to_act, t, -1) for t in rnd.hand(to_act)]
        auction = self.auction
        assert auction is not None
        options: list[SeatAction] = []
        if auction.can_decline(to_act):
            options.append(DECLINES[to_act])
        if auction.can_accept(to_act):
            options.append(ACCEPTS[to_act])
        amounts = auction.legal_amounts(to_act, self.balances[to_act])
        options.extend(BIDS[to_act][amounts.start : amounts.stop : amounts.step])
        return options

    def is_legal(self, action: Action) -> bool:
        """True when ``apply(action)`` would succeed, without changing anything."""
        try:
            self.copy().apply(action)
        except RulesError:
            return False
        return True

    # -- changing -------------------------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Apply one command and return the events it caused, in order."""
        kind = type(action)
        if kind is Play:
            return apply_play(self, action)  # type: ignore[arg-type]
        if kind is Draw:
            return apply_draw(self, action)  # type: ignore[arg-type]
        if kind is Bid:
            return apply_bid(self, action)  # type: ignore[arg-type]
        if kind is Accept:
            return apply_accept(self, action.seat)  # type: ignore[union-attr]
        if kind is Decline:
            return apply_decline(self, action.seat)  # type: ignore[union-attr]
        if kind is Deal:
            return self._deal(action)  # type: ignore[arg-type]
        if kind is Resign:
            return apply_resign(self, action)  # type: ignore[arg-type]
        if kind is Flag:
            return apply_flag(self, action)  # type: ignore[arg-type]
        if kind is Abort:
            return apply_abort(self, action)  # type: ignore[arg-type]
        raise IllegalActionError(f"not a command: {action!r}")

    def _deal(self, action: Deal) -> list[Event]:
        """Deal the next round from the given deck (R2.1); after a domino the jockey's auction
        comes first (R4.5, §6), otherwise the highest double or tile opens (R2.3)."""
        if self.phase is not Phase.AWAITING_DEAL:
            raise WrongPhaseError(f"cannot deal in the {self.phase.value} phase")
        rnd = Round(self.round_number + 1, action.deck)
        self.round = rnd
        self.round_end = None
        ev: list[Event] = [
            RoundDealt(
                rnd.number,
                BySeat(tuple(sorted(rnd.deck[:HAND_SIZE])), tuple(sorted(rnd.deck[HAND_SIZE:14]))),
                rnd.deck[2 * HAND_SIZE :],
                rnd.boneyard_size,
            )
        ]
        jockey = self.jockey
        if jockey is not None:
            self.auction = Auction(jockey)
            ev.append(AuctionOpened(jockey))
            auction_turn(self, jockey.other, ev)
        else:
            opener, tile = highest_opening(rnd.hands)
            start_opening(self, opener, tile, ev)
        return ev


__all__ = ["MIN_BID", "STARTING_BALANCE", "TOTAL_POINTS", "Match", "Phase"]
