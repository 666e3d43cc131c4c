"""What the machine's output becomes in the store: a version's row, its round rows, the header.

The live actor and start-up recovery write through these, so a version is stored the same way
whoever made it (the round rows and the header go in the version's own commit).
"""

from __future__ import annotations

from spectacular_bid.rules.notation import tile_text
from spectacular_bid.service.codec import clock_json, command_json, event_json
from spectacular_bid.service.ports import EventRecord, MatchRecord, RatedResult, RoundRecord
from spectacular_bid.service.rated import is_rated
from spectacular_bid.service.record_document import FIRST_DECISION_GRACE
from spectacular_bid.service.seat_names import names_setting
from spectacular_bid.service.state import Entry, MatchState


def event_record(
    match_id: str, entry: Entry, wall_ms: int, relayed_ms: int | None = None
) -> EventRecord:
    """``relayed_ms``: the relay's delay of the command that made ``entry`` (the clock audit)."""
    return EventRecord(
        match_id=match_id,
        version=entry.version,
        seat=str(entry.seat) if entry.seat is not None else None,
        command=command_json(entry.command),
        events=[event_json(e) for e in entry.events],
        wall_ms=wall_ms,
        mono_ms=entry.now_ms,
        clock=clock_json(entry.clock),
        received_ms=entry.received_ms,
        relayed_ms=relayed_ms,
    )


def round_records(match_id: str, entry: Entry) -> list[RoundRecord]:
    return [
        RoundRecord(
            match_id,
            row.number,
            row.commitment,
            row.salt,
            None if row.deck is None else [tile_text(t) for t in row.deck],
        )
        for row in entry.rounds
    ]


def header_of(
    match_id: str, state: MatchState, created_at_ms: int, ended_at_ms: int | None
) -> MatchRecord:
    """The match's header as the state has it; ``ended_at_ms`` is kept only once it ended."""
    result = state.match.result
    settings = state.settings
    first, second = state.seats
    return MatchRecord(
        id=match_id,
        mode=state.mode,
        settings={
            "bank_ms": settings.clock.bank_ms,
            "delay_ms": settings.clock.delay_ms,
            "grace_ms": settings.grace_ms,
            "join_timeout_ms": settings.join_timeout_ms,
            **names_setting(state.seat_names),
            FIRST_DECISION_GRACE: settings.first_decision_grace_ms,
        },
        first_player=first.id if first else None,
        second_player=second.id if second else None,
        status=state.status,
        winner=str(result.winner) if result is not None and result.winner is not None else None,
        reason=result.reason.value if result is not None else None,
        rated=is_rated(state.mode, state.seats, settings.clock, result),
        created_at_ms=created_at_ms,
        ended_at_ms=None if state.is_live else ended_at_ms,
        first_account=first is not None and first.account,
        second_account=second is not None and second.account,
    )


def rated_result(header: MatchRecord) -> RatedResult | None:
    """What the store rates with the match's ending (PROTOCOL.md "Players: profiles, ratings and
    archives"), for a rated header."""
    if not header.rated or header.first_player is None or header.second_player is None:
        return None
    return RatedResult(
        match_id=header.id,
        first_player=header.first_player,
        second_player=header.second_player,
        first_won=header.winner == "first",
        at_ms=header.ended_at_ms if header.ended_at_ms is not None else header.created_at_ms,
    )
