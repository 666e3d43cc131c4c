"""``GET /api/board``: the board a sequence of placements builds, as a match's ``board`` shows it.

The rules overlay draws the worked positions of the rules' Appendix B with the same renderer as
a live board (docs/RULES.md, Appendix B). The client holds no rules, so the open places, the scoring
ends and the sum (R3.3–R3.5) come from the engine here, as they do for a match.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from spectacular_bid.rules.errors import IllegalActionError, NotationError
from spectacular_bid.rules.notation import parse_moves
from spectacular_bid.rules.views import board_view_of
from spectacular_bid.service.refusals import ErrorCode, Rejection
from spectacular_bid.web.errors import responses
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.snapshot import BoardSnapshot
from spectacular_bid.web.view_json import to_json

router = APIRouter(prefix="/api/board", tags=["rules"], route_class=StrictJsonRoute)

MOVES_MAX = 1000
"""Room for all 28 tiles in the longest notation (``6-6@6-5:branchA`` is 15 characters)."""

Moves = Annotated[
    str,
    Query(
        min_length=1,
        max_length=MOVES_MAX,
        description="Placements in Appendix A notation separated by spaces, from an empty board.",
        examples=["1-4 1-1@1-4:smaller"],
    ),
]


@router.get(
    "",
    response_model=BoardSnapshot,
    responses=responses(ErrorCode.BAD_MESSAGE, ErrorCode.ILLEGAL),
)
async def read_board(moves: Moves) -> BoardSnapshot:
    """The board after ``moves``; malformed notation is ``bad_message``, a placement the board
    refuses (R3.1) ``illegal``, and either names the move."""
    try:
        board = parse_moves(moves)
    except NotationError as error:
        raise Rejection(ErrorCode.BAD_MESSAGE, str(error)) from error
    except IllegalActionError as error:
        raise Rejection(ErrorCode.ILLEGAL, str(error)) from error
    return BoardSnapshot.model_validate(to_json(board_view_of(board)))
