"""Crash safety (D5): at start-up, end every match the previous process left unfinished.

A match found waiting or active in the store was running when the server stopped, so its clocks
were not measured for a while: a proven timing failure (R7.9). It ends *aborted — service timing
failure*, unrated. Nothing recorded is changed or dropped: one more version is appended, the one
the match actor itself records when it aborts a match for a timing failure — the engine's
``Abort`` command and the events the engine gives for it (the round in progress ends and both
hands are shown, then ``match_ended``), plus the round's ``deck_revealed`` — and the header is
updated. A player who comes back finds the match ended, and why.

The work is idempotent: a crash half-way (the version appended, the header not yet updated) is
finished by the next start without a second abort.
"""

from __future__ import annotations

import logging
from dataclasses import replace

from spectacular_bid.rules.actions import Abort, AbortReason
from spectacular_bid.rules.errors import RulesError
from spectacular_bid.service.codec import JSON, action_json
from spectacular_bid.service.ports import (
    EventRecord,
    MatchRecord,
    MatchStatus,
    MatchStore,
    StorageError,
)
from spectacular_bid.service.records import rounds_from_events
from spectacular_bid.service.replay import Replayer
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)

ABORT_COMMAND = action_json(Abort(AbortReason.TIMING_FAILURE))
"""``{"type": "abort", "reason": "timing_failure"}``."""
BARE_ABORT_EVENTS: list[JSON] = [
    {"type": "match_ended", "winner": None, "reason": "timing_failure"}
]
"""The final events of a match whose record the engine cannot replay (a damaged record)."""


async def abort_unfinished(store: MatchStore, now_ms: MsSource, wall_ms: MsSource) -> list[str]:
    """End every unfinished match in ``store`` as a timing failure; return their ids."""
    ended = []
    for header in await store.unfinished_matches():
        try:
            await abort_match(store, header, now_ms(), wall_ms())
        except StorageError as exc:
            log.error("match %s: could not be ended after the restart: %s", header.id, exc)
            continue
        ended.append(header.id)
    if ended:
        log.warning(
            "ended %d match(es) left unfinished by the previous run as timing failures (D5)",
            len(ended),
        )
    return ended


async def abort_match(
    store: MatchStore, header: MatchRecord, now_ms: int, wall_ms: int
) -> MatchRecord:
    """Append the aborting version (unless the record already ends the match) and save the
    ended header; return it."""
    records = await store.events(header.id)
    replayer = Replayer()
    final: EventRecord | None = None
    try:
        for record in records:
            replayer.step({"version": record.version, "command": record.command, "events": []})
        match = replayer.match
        if match.result is None:
            step = replayer.step({"version": len(records) + 1, "command": ABORT_COMMAND})
            final = _final_record(header, records, step.expected_events, now_ms, wall_ms)
    except (RulesError, ValueError, KeyError, TypeError) as exc:
        log.error("match %s: its record does not replay (%s); ending it anyway", header.id, exc)
        final = _final_record(header, records, BARE_ABORT_EVENTS, now_ms, wall_ms)
        match = None
    if final is not None:
        await store.append([final])
        records.append(final)
    for round_ in rounds_from_events(header.id, records):
        try:
            await store.save_round(
                header.id, round_.number, round_.commitment, round_.salt, round_.deck
            )
        except StorageError as exc:  # the event log holds them anyway
            log.warning("match %s: round %d not saved: %s", header.id, round_.number, exc)
    result = match.result if match is not None else None
    if result is None or final is not None:
        ended = replace(
            header,
            status=MatchStatus.ABORTED,
            winner=None,
            reason="timing_failure",
            rated=False,
            ended_at_ms=wall_ms,
        )
    else:  # the ending version was stored before the crash, the header was not
        ended = replace(
            header,
            status=MatchStatus.FINISHED if result.winner is not None else MatchStatus.ABORTED,
            winner=str(result.winner) if result.winner is not None else None,
            reason=result.reason.value,
            rated=result.is_rated,
            ended_at_ms=records[-1].wall_ms if records else wall_ms,
        )
    await store.save_match(ended)
    return ended


def _final_record(
    header: MatchRecord, records: list[EventRecord], events: list[JSON], now_ms: int, wall_ms: int
) -> EventRecord:
    """The aborting version: the clocks stand, with the banks of the last reading (the time the
    server was down is charged to nobody)."""
    last = records[-1] if records else None
    banks = (
        last.clock.get("bank_left_ms")
        if last is not None and isinstance(last.clock, dict)
        else None
    )
    if not isinstance(banks, dict):
        settings = header.settings if isinstance(header.settings, dict) else {}
        full = settings.get("bank_ms", 0)
        banks = {"first": full, "second": full}
    return EventRecord(
        match_id=header.id,
        version=(last.version if last is not None else 0) + 1,
        seat=None,
        command=dict(ABORT_COMMAND),
        events=events,
        wall_ms=wall_ms,
        mono_ms=now_ms,
        clock={
            "now_ms": now_ms,
            "running": None,
            "bank_left_ms": banks,
            "delay_left_ms": 0,
            "deadline_ms": None,
        },
    )
