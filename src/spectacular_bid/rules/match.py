"""The match: its state, what may be done next, and one entry point for every command (§1–§6).

``Match.apply`` checks a command completely before it changes anything (R8.3), so an illegal
command raises a :class:`~spectacular_bid.rules.errors.RulesError` and leaves the match equal to
what it was. Forced passes, declines and accepts happen inside ``apply`` (D2) and come back as
events like any other.

The phases' logic lives in modules named for them, as functions of the match that ``apply`` calls
directly: :mod:`~spectacular_bid.rules.auction_phase` (§6), :mod:`~spectacular_bid.rules.turns`
(§3, §4) and :mod:`~spectacular_bid.rules.settlement` (§1, §5, round and match ends). The state
itself is :class:`~spectacular_bid.rules.base_match.BaseMatch`, below the phases; this module adds
starting a round (R2.1–R2.3, R4.5) and ``legal_actions``, the hot path: it works
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
    Play,
    Resign,
    RoundDealt,
    SeatAction,
)
from spectacular_bid.rules.auction import MIN_BID, Auction
from spectacular_bid.rules.auction_phase import apply_accept, apply_bid, apply_decline, auction_turn
from spectacular_bid.rules.base_match import STARTING_BALANCE, TOTAL_POINTS, BaseMatch
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
from spectacular_bid.rules.settlement import apply_abort, apply_flag, apply_resign
from spectacular_bid.rules.turns import apply_draw, apply_play, start_opening


class Match(BaseMatch):
    """A whole match between two seats: its state, what may be done next, and :meth:`apply`."""

    __slots__ = ()

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
