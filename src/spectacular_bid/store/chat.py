"""Chat lines between the service's records and the ``chat_line`` table (PROTOCOL.md "chat")."""

from __future__ import annotations

from typing import Any

from spectacular_bid.service.ports import ChatRecord
from spectacular_bid.store.models import ChatLine, datetime_from_ms, ms_from_datetime


def chat_row(line: ChatRecord) -> dict[str, Any]:
    return {
        "match_id": line.match_id,
        "number": line.number,
        "channel": line.channel,
        "player_id": line.player_id,
        "name": line.name,
        "seat": line.seat,
        "text": line.text,
        "phrase": line.phrase,
        "said_at": datetime_from_ms(line.wall_ms),
    }


def chat_record(row: ChatLine) -> ChatRecord:
    return ChatRecord(
        row.match_id,
        row.number,
        row.channel,
        row.player_id,
        row.name,
        row.seat,
        row.text,
        row.phrase,
        ms_from_datetime(row.said_at),
    )
