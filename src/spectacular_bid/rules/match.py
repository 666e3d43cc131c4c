"""The match: balances, the phases of each round, the jockey, and the result (§1, §2, §4–§6).

``Match.apply`` checks a command completely before it changes anything (R8.3), so an illegal
command raises a :class:`~spectacular_bid.rules.errors.RulesError` and leaves the match equal to
what it was. Forced passes, declines and accepts happen inside ``apply`` (D2) and come back as
events like any other.

The hot path (legal plays and placements) works on tile ids, hand masks and place codes; the
action objects it hands out are interned, so a random-play benchmark measures the rules, not
object construction.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

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
    Drew,
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
from spectacular_bid.rules.auction import JOCKEY_DISCOUNT, MIN_BID, Auction
from spectacular_bid.rules.board import CODE_MATCHES, PLACE_CODES, PLACES, Place
from spectacular_bid.rules.errors import (
    IllegalActionError,
    NotYourTurnError,
    RulesError,
    WrongPhaseError,
)
from spectacular_bid.rules.round import HAND_SIZE, Round, highest_opening, round_to_five
from spectacular_bid.rules.seats import SEATS, BySeat, Seat
from spectacular_bid.rules.tiles import TILES, Tile

STARTING_BALANCE: Final = 150
"""R1.1."""
TOTAL_POINTS: Final = 2 * STARTING_BALANCE
"""R1.2: the two balances always add up to this."""


class Phase(Enum):
    AWAITING_DEAL = "awaiting_deal"
    """Before the first round and between rounds (the settlement, R7.5)."""
    AUCTION = "auction"
    OPENING = "opening"
    PLAYING = "playing"
    OVER = "over"


_ACTIVE: Final = (Phase.AUCTION, Phase.OPENING, Phase.PLAYING)
_PLAYING: Final = Phase.PLAYING
_AWARD: Final = TransferReason.AWARD

_CODES_PLUS_OPEN: Final = PLACE_CODES + 1
_SEAT_STRIDE: Final = len(TILES) * _CODES_PLUS_OPEN


def _intern_plays() -> list[Play | None]:
    """Every possible :class:`Play`, made once: legal-move lists then cost a lookup per move."""
    plays: list[Play | None] = [None] * (2 * _SEAT_STRIDE)
    for seat in SEATS:
        for tile in TILES:
            plays[seat * _SEAT_STRIDE + tile * _CODES_PLUS_OPEN] = Play(seat, tile, None)
            for code, place in enumerate(PLACES):
                if place is not None and CODE_MATCHES[code] >> tile & 1:
                    index = seat * _SEAT_STRIDE + tile * _CODES_PLUS_OPEN + code + 1
                    plays[index] = Play(seat, tile, place)
    return plays


_PLAYS: Final = _intern_plays()
_DRAWS: Final = (Draw(Seat.FIRST), Draw(Seat.SECOND))
_ACCEPTS: Final = (Accept(Seat.FIRST), Accept(Seat.SECOND))
_DECLINES: Final = (Decline(Seat.FIRST), Decline(Seat.SECOND))
_BIDS: Final = tuple(
    tuple(Bid(seat, amount) for amount in range(TOTAL_POINTS + JOCKEY_DISCOUNT + 1))
    for seat in SEATS
)
"""Interned bids by seat and amount: an auction decision lists up to sixty of them."""


def _play_action(seat: int, tile: int, code: int) -> Play:
    """The interned :class:`Play` for a seat, tile and place code (-1: the opening)."""
    action = _PLAYS[seat * _SEAT_STRIDE + tile * _CODES_PLUS_OPEN + code + 1]
    assert action is not None, (seat, tile, code)
    return action


_ABORT_ENDS: Final = {
    AbortReason.JOIN_TIMEOUT: MatchEnd.JOIN_TIMEOUT,
    AbortReason.TIMING_FAILURE: MatchEnd.TIMING_FAILURE,
}


def _seat_text(seat: object) -> str:
    return str(SEATS[seat]) if isinstance(seat, int) and seat in (0, 1) else repr(seat)


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
            base = to_act * _SEAT_STRIDE + 1
            interned = _PLAYS
            for code in rnd.board.open_codes:
                matches = hand & CODE_MATCHES[code]
                while matches:
                    low_bit = matches & -matches
                    matches ^= low_bit
                    plays.append(
                        interned[base + (low_bit.bit_length() - 1) * _CODES_PLUS_OPEN + code]  # type: ignore[arg-type]
                    )
            if not plays:
                plays.append(_DRAWS[to_act])
            return plays
        if phase is Phase.OPENING:
            if self.opening_tile is not None:
                return [_play_action(to_act, self.opening_tile, -1)]
            return [_play_action(to_act, t, -1) for t in rnd.hand(to_act)]
        auction = self.auction
        assert auction is not None
        options: list[SeatAction] = []
        if auction.can_decline(to_act):
            options.append(_DECLINES[to_act])
        if auction.can_accept(to_act):
            options.append(_ACCEPTS[to_act])
        amounts = auction.legal_amounts(to_act, self.balances[to_act])
        options.extend(_BIDS[to_act][amounts.start : amounts.stop : amounts.step])
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
            return self._play(action)  # type: ignore[arg-type]
        if kind is Draw:
            return self._draw(action)  # type: ignore[arg-type]
        if kind is Bid:
            return self._bid(action)  # type: ignore[arg-type]
        if kind is Accept:
            return self._accept(action.seat)  # type: ignore[union-attr]
        if kind is Decline:
            return self._decline(action.seat)  # type: ignore[union-attr]
        if kind is Deal:
            return self._deal(action)  # type: ignore[arg-type]
        if kind is Resign:
            return self._resign(action)  # type: ignore[arg-type]
        if kind is Flag:
            return self._flag(action)  # type: ignore[arg-type]
        if kind is Abort:
            return self._abort(action)  # type: ignore[arg-type]
        raise IllegalActionError(f"not a command: {action!r}")

    def _require_turn(self, seat: object, phase: Phase) -> Seat:
        if self.phase is not phase:
            raise WrongPhaseError(
                f"the match is in its {self.phase.value} phase, not {phase.value}"
            )
        to_act = self.to_act
        if seat != to_act or not isinstance(seat, int) or isinstance(seat, bool):
            who = str(to_act) if to_act is not None else "nobody"
            raise NotYourTurnError(f"it is not {_seat_text(seat)}'s turn: {who} is to act")
        assert to_act is not None
        return to_act

    def _deal(self, action: Deal) -> list[Event]:
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
            self._auction_turn(jockey.other, ev)
        else:
            opener, tile = highest_opening(rnd.hands)
            self._start_opening(opener, tile, ev)
        return ev

    # -- the auction (§6) -----------------------------------------------------------------

    def _auction_turn(self, seat: Seat, ev: list[Event]) -> None:
        self.phase = Phase.AUCTION
        self.to_act = seat
        self.decision += 1
        auction = self.auction
        assert auction is not None
        if auction.legal_amounts(seat, self.balances[seat]):
            return
        # R6.6, D2: a seat that cannot afford the minimum bid or raise has one choice.
        if auction.can_decline(seat):
            self._decline_now(seat, ev, forced=True)
        else:
            self._accept_now(seat, ev, forced=True)

    def _bid(self, action: Bid) -> list[Event]:
        seat = self._require_turn(action.seat, Phase.AUCTION)
        auction = self.auction
        assert auction is not None
        amount = action.amount
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalActionError(f"a bid is a whole number of points, not {amount!r}")
        legal = auction.legal_amounts(seat, self.balances[seat])
        if amount not in legal:
            if amount % 5:
                reason = "every bid is a multiple of 5 (R6.2)"
            elif amount < auction.min_amount():
                reason = f"the lowest bid now is {auction.min_amount()} (R6.1, R6.2)"
            else:
                reason = (
                    f"its cost {auction.cost(seat, amount)} exceeds your balance "
                    f"{self.balances[seat]} (R6.5)"
                )
            raise IllegalActionError(f"illegal bid {amount!r}: {reason}")
        auction.bids.append((seat, amount))
        ev: list[Event] = [BidMade(seat, amount, auction.cost(seat, amount))]
        self._auction_turn(seat.other, ev)
        return ev

    def _accept(self, seat: object) -> list[Event]:
        to_act = self._require_turn(seat, Phase.AUCTION)
        assert self.auction is not None
        if not self.auction.can_accept(to_act):
            raise IllegalActionError("there is no bid to accept: bid at least 15 or decline")
        ev: list[Event] = []
        self._accept_now(to_act, ev, forced=False)
        return ev

    def _accept_now(self, seat: Seat, ev: list[Event], *, forced: bool) -> None:
        auction = self.auction
        assert auction is not None
        bidder = seat.other
        amount = auction.bids[-1][1]
        payment = auction.cost(bidder, amount)
        ev.append(BidAccepted(seat, bidder, amount, payment, forced))
        self.auction = None
        if self._transfer(bidder, seat, payment, TransferReason.AUCTION, ev):
            return
        self._start_opening(bidder, None, ev)

    def _decline(self, seat: object) -> list[Event]:
        to_act = self._require_turn(seat, Phase.AUCTION)
        assert self.auction is not None
        if not self.auction.can_decline(to_act):
            raise IllegalActionError(
                "only the non-jockey's first decision can be a decline (R6.3): accept or raise"
            )
        ev: list[Event] = []
        self._decline_now(to_act, ev, forced=False)
        return ev

    def _decline_now(self, seat: Seat, ev: list[Event], *, forced: bool) -> None:
        ev.append(Declined(seat, forced))
        self.auction = None
        self._start_opening(seat.other, None, ev)

    # -- placing, drawing, passing (§3, §4) -----------------------------------------------

    def _start_opening(self, seat: Seat, tile: Tile | None, ev: list[Event]) -> None:
        self.phase = Phase.OPENING
        self.to_act = seat
        self.opening_tile = tile
        self.decision += 1
        ev.append(OpenerChosen(seat, tile))

    def _play(self, action: Play) -> list[Event]:
        phase = self.phase
        if phase is not Phase.PLAYING and phase is not Phase.OPENING:
            raise WrongPhaseError(f"no tile can be laid in the {phase.value} phase")
        seat = self.to_act
        if action.seat is not seat:
            seat = self._require_turn(action.seat, phase)
        tile = action.tile
        if type(tile) is not Tile:
            raise IllegalActionError(f"not a tile: {tile!r}")
        rnd: Round = self.round  # type: ignore[assignment]
        hand = rnd.hands[seat]
        if not hand >> tile & 1:
            raise IllegalActionError(f"{tile} is not in your hand")
        at = action.at
        board = rnd.board
        if phase is Phase.OPENING:
            if at is not None:
                raise IllegalActionError(f"{tile} opens the board: it takes no place")
            if self.opening_tile is not None and tile != self.opening_tile:
                raise IllegalActionError(
                    f"the opening tile must be {self.opening_tile} (R2.3), not {tile}"
                )
            code = -1
            self.opening_tile = None
        else:
            if not isinstance(at, Place):
                raise IllegalActionError(f"{tile} needs an open place on the board, got {at!r}")
            code = at.tile * 8 + at.side
            if code not in board.open_codes:
                raise IllegalActionError(f"{at.tile} ({at.side.text}) is not an open place")
            if not CODE_MATCHES[code] >> tile & 1:
                raise IllegalActionError(f"{tile} does not match {at} (R3.1)")
            must = rnd.must_play
            if must is not None and tile != must:
                raise IllegalActionError(f"the drawn tile {must} must be played at once (R4.2)")
        ends_sum = board.lay(tile, code)
        hand ^= 1 << tile
        rnd.hands[seat] = hand
        rnd.must_play = None
        rnd.passes = 0
        award = ends_sum if ends_sum > 0 and ends_sum % 5 == 0 else 0
        ev: list[Event] = [Played(seat, tile, at, ends_sum, award)]
        other = SEATS[1 - seat]
        if award and self._transfer(other, seat, award, _AWARD, ev):
            return ev
        if not hand:
            self._end_round(RoundEnd.DOMINO, seat, ev)
            return ev
        # The next turn (R3.6); a forced pass needs an empty boneyard (R4.4, D2).
        self.phase = _PLAYING
        self.to_act = other
        self.decision += 1
        if rnd.drawn == rnd.boneyard_size and not rnd.playable_mask(other):
            self._pass(other, ev)
        return ev

    def _begin_turn(self, seat: Seat, ev: list[Event]) -> None:
        self.phase = Phase.PLAYING
        self.to_act = seat
        self.decision += 1
        rnd = self.round
        assert rnd is not None
        if rnd.drawn == rnd.boneyard_size and not rnd.playable_mask(seat):
            self._pass(seat, ev)

    def _pass(self, seat: Seat, ev: list[Event]) -> None:
        """R4.4, D2: neither a placement nor a draw is possible."""
        rnd = self.round
        assert rnd is not None
        ev.append(Passed(seat))
        rnd.passes += 1
        if rnd.passes >= 2:
            self._end_round(RoundEnd.BLOCK, None, ev)
        else:
            self._begin_turn(seat.other, ev)

    def _draw(self, action: Draw) -> list[Event]:
        seat = self._require_turn(action.seat, Phase.PLAYING)
        rnd = self.round
        assert rnd is not None
        if rnd.must_play is not None:
            raise IllegalActionError(f"the drawn tile {rnd.must_play} must be played (R4.2)")
        if rnd.playable_mask(seat):
            raise IllegalActionError("you hold a playable tile: drawing is illegal (R4.1)")
        if rnd.drawn == len(rnd.boneyard):
            raise IllegalActionError("the boneyard is empty")
        tile = rnd.draw(seat)
        ev: list[Event] = [Drew(seat, tile, len(rnd.boneyard) - rnd.drawn)]
        if rnd.plays_for(tile):
            rnd.must_play = tile
        elif rnd.drawn == len(rnd.boneyard):
            self._pass(seat, ev)
        return ev

    # -- settling (§1, §4, §5) ------------------------------------------------------------

    def _transfer(
        self, payer: Seat, payee: Seat, amount: int, reason: TransferReason, ev: list[Event]
    ) -> bool:
        """Move points, capped at the payer's balance (R1.4); True when that ends the match
        (R1.5)."""
        balances = self.balances
        if amount > balances[payer]:
            amount = balances[payer]
        if amount <= 0:
            return False
        balances[payer] -= amount
        balances[payee] += amount
        ev.append(Transferred(payer, payee, amount, reason, BySeat(balances[0], balances[1])))
        if balances[payer] == 0:
            self._end_match(payee, MatchEnd.ZERO_BALANCE, ev)
            return True
        return False

    def _end_round(self, reason: RoundEnd, domino_by: Seat | None, ev: list[Event]) -> None:
        rnd = self.round
        assert rnd is not None
        self.phase = Phase.AWAITING_DEAL
        self.to_act = None
        self.auction = None
        self.opening_tile = None
        self.jockey = domino_by
        self.round_end = reason
        totals = BySeat(rnd.pip_total(Seat.FIRST), rnd.pip_total(Seat.SECOND))
        ev.append(
            RoundEnded(
                rnd.number,
                reason,
                BySeat(tuple(rnd.hand(Seat.FIRST)), tuple(rnd.hand(Seat.SECOND))),
                totals,
                domino_by,
            )
        )
        if reason is RoundEnd.BLOCK and totals.first != totals.second:
            # R4.6: the lighter hand receives the other's whole total rounded to five.
            payee = Seat.FIRST if totals.first < totals.second else Seat.SECOND
            amount = round_to_five(totals[payee.other])
            self._transfer(payee.other, payee, amount, TransferReason.BLOCK, ev)

    def _end_match(self, winner: Seat | None, reason: MatchEnd, ev: list[Event]) -> None:
        if self.phase in _ACTIVE:
            rnd = self.round
            assert rnd is not None
            ev.append(
                RoundEnded(
                    rnd.number,
                    RoundEnd.MATCH_OVER,
                    BySeat(tuple(rnd.hand(Seat.FIRST)), tuple(rnd.hand(Seat.SECOND))),
                    BySeat(rnd.pip_total(Seat.FIRST), rnd.pip_total(Seat.SECOND)),
                    None,
                )
            )
            self.round_end = RoundEnd.MATCH_OVER
        self.phase = Phase.OVER
        self.to_act = None
        self.auction = None
        self.opening_tile = None
        self.result = MatchEnded(winner, reason)
        ev.append(self.result)

    def _resign(self, action: Resign) -> list[Event]:
        if self.phase is Phase.OVER:
            raise WrongPhaseError("the match is over")
        seat = action.seat
        if seat not in SEATS or isinstance(seat, bool):
            raise IllegalActionError(f"not a seat: {seat!r}")
        ev: list[Event] = []
        self._end_match(SEATS[1 - seat], MatchEnd.RESIGNATION, ev)
        return ev

    def _flag(self, action: Flag) -> list[Event]:
        if self.phase not in _ACTIVE:
            raise WrongPhaseError(f"no clock runs in the {self.phase.value} phase (R7.5)")
        if action.seat != self.to_act:
            raise NotYourTurnError(f"only the seat to act can lose on time, not {action.seat!r}")
        ev: list[Event] = []
        self._end_match(SEATS[1 - action.seat], MatchEnd.TIME, ev)
        return ev

    def _abort(self, action: Abort) -> list[Event]:
        if self.phase is Phase.OVER:
            raise WrongPhaseError("the match is over")
        reason = _ABORT_ENDS.get(action.reason)
        if reason is None:
            raise IllegalActionError(f"not an abort reason: {action.reason!r}")
        ev: list[Event] = []
        self._end_match(None, reason, ev)
        return ev


__all__ = ["MIN_BID", "STARTING_BALANCE", "TOTAL_POINTS", "Match", "Phase"]
