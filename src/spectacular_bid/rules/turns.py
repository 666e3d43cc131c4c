"""Laying, drawing and passing: the opening and the turns of a round (R2.3, §3, §4).

The hot path of a match: :func:`apply_play` and :func:`apply_draw` take a match's state
(:class:`~spectacular_bid.rules.base_match.BaseMatch`) and change it in place, checking the
command completely first (R8.3). A forced pass is never a command (D2): it happens here as soon
as a seat can neither lay nor draw (R4.4), and two in a row block the round (R4.6).
"""

from __future__ import annotations

from typing import Final

from spectacular_bid.rules.actions import (
    Draw,
    Drew,
    Event,
    OpenerChosen,
    Passed,
    Play,
    Played,
    RoundEnd,
    TransferReason,
)
from spectacular_bid.rules.base_match import BaseMatch
from spectacular_bid.rules.board import CODE_MATCHES, Place, award_for
from spectacular_bid.rules.errors import IllegalActionError, WrongPhaseError
from spectacular_bid.rules.phase import Phase, require_turn
from spectacular_bid.rules.round import Round
from spectacular_bid.rules.seats import SEATS, Seat
from spectacular_bid.rules.settlement import end_round, transfer
from spectacular_bid.rules.tiles import Tile

_PLAYING: Final = Phase.PLAYING
_AWARD: Final = TransferReason.AWARD


def start_opening(match: BaseMatch, seat: Seat, tile: Tile | None, ev: list[Event]) -> None:
    """``seat`` opens the board: with ``tile`` (R2.3), or with any tile after an auction (R6.3)."""
    match.phase = Phase.OPENING
    match.to_act = seat
    match.opening_tile = tile
    match.decision += 1
    ev.append(OpenerChosen(seat, tile))


def apply_play(match: BaseMatch, action: Play) -> list[Event]:
    """Lay a tile: the opening, or at an open place it matches (R3.1); score its award (R3.5)."""
    phase = match.phase
    if phase is not Phase.PLAYING and phase is not Phase.OPENING:
        raise WrongPhaseError(f"no tile can be laid in the {phase.value} phase")
    seat = match.to_act
    if action.seat is not seat:
        seat = require_turn(match, action.seat, phase)
    tile = action.tile
    if type(tile) is not Tile:
        raise IllegalActionError(f"not a tile: {tile!r}")
    rnd: Round = match.round  # type: ignore[assignment]
    hand = rnd.hands[seat]
    if not hand >> tile & 1:
        raise IllegalActionError(f"{tile} is not in your hand")
    at = action.at
    board = rnd.board
    if phase is Phase.OPENING:
        if at is not None:
            raise IllegalActionError(f"{tile} opens the board: it takes no place")
        if match.opening_tile is not None and tile != match.opening_tile:
            raise IllegalActionError(
                f"the opening tile must be {match.opening_tile} (R2.3), not {tile}"
            )
        code = -1
        match.opening_tile = None
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
    award = award_for(ends_sum)
    ev: list[Event] = [Played(seat, tile, at, ends_sum, award)]
    other = SEATS[1 - seat]
    if award and transfer(match, other, seat, award, _AWARD, ev):
        return ev
    if not hand:
        end_round(match, RoundEnd.DOMINO, seat, ev)
        return ev
    # The next turn (R3.6); a forced pass needs an empty boneyard (R4.4, D2).
    match.phase = _PLAYING
    match.to_act = other
    match.decision += 1
    if rnd.drawn == rnd.boneyard_size and not rnd.playable_mask(other):
        pass_turn(match, other, ev)
    return ev


def begin_turn(match: BaseMatch, seat: Seat, ev: list[Event]) -> None:
    """``seat``'s turn starts (R3.6): a new decision, or at once a forced pass (R4.4, D2)."""
    match.phase = Phase.PLAYING
    match.to_act = seat
    match.decision += 1
    rnd = match.round
    assert rnd is not None
    if rnd.drawn == rnd.boneyard_size and not rnd.playable_mask(seat):
        pass_turn(match, seat, ev)


def pass_turn(match: BaseMatch, seat: Seat, ev: list[Event]) -> None:
    """R4.4, D2: neither a placement nor a draw is possible."""
    rnd = match.round
    assert rnd is not None
    ev.append(Passed(seat))
    rnd.passes += 1
    if rnd.passes >= 2:
        end_round(match, RoundEnd.BLOCK, None, ev)
    else:
        begin_turn(match, seat.other, ev)


def apply_draw(match: BaseMatch, action: Draw) -> list[Event]:
    """Draw only when nothing in hand plays (R4.1); a drawn tile that plays must be laid (R4.2)."""
    seat = require_turn(match, action.seat, Phase.PLAYING)
    rnd = match.round
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
        pass_turn(match, seat, ev)
    return ev
