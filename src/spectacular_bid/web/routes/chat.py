"""``GET /api/matches/{id}/chat``: what was said at a match's table (PROTOCOL.md "chat").

While the match is live, the caller reads the channel they are shown (a seat the players', a
spectator the spectators'); once it has ended, anyone reads both, as part of its replay. Lines
are said over the match's socket only (``chat_messages.py``).
"""

from __future__ import annotations

from fastapi import APIRouter

from spectacular_bid.service.chat import shown_channels
from spectacular_bid.service.refusals import ErrorCode
from spectacular_bid.web.appstate import Service
from spectacular_bid.web.chat_messages import ChatHistory, ChatLineModel, line_json
from spectacular_bid.web.errors import responses
from spectacular_bid.web.identity import Caller
from spectacular_bid.web.json_body import StrictJsonRoute
from spectacular_bid.web.room import audience_for

router = APIRouter(prefix="/api/matches", tags=["matches"], route_class=StrictJsonRoute)


@router.get(
    "/{match_id}/chat", response_model=ChatHistory, responses=responses(ErrorCode.NOT_FOUND)
)
async def read_chat(match_id: str, caller: Caller, service: Service) -> ChatHistory:
    """The match's chat lines the caller is shown, oldest first."""
    match = await service.find(match_id)
    audience = audience_for(match.state, caller, None)
    shown = shown_channels(match.state, caller.id if caller else None, audience)
    lines = await service.chat.lines(match_id, shown)
    return ChatHistory(lines=[ChatLineModel.model_validate(line_json(x)) for x in lines])
