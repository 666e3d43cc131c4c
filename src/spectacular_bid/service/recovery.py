"""Crash safety (D5): end every match that no live server runs any more.

Such a match was left waiting or active by a server that stopped — this process's previous run,
or a peer on the same database whose lease ran out (``store.leases``
says how each is claimed by exactly one server) — so its clocks were not measured for a while:
a proven timing failure (R7.9). Each server ends them at its start and then, within a second or
so, whenever a peer dies (``service.failover``). Its stored versions are re-run
through the match machine and the machine's :class:`~spectacular_bid.service.commands.Restarted`
input ends it *aborted — service timing failure*, unrated: one more version (the round in progress
ends and both hands are shown, its deck is revealed, ``match_ended``), written in the same commit
as its round row and the ended header. Nothing recorded is changed or dropped; nobody is charged
for the time the server was down (the abort is charged at the last measured time).

A record the machine cannot re-run (a damaged one) still ends, with a bare ``match_ended``. A
match whose ending version was stored but whose header was not (a crash between the two writes of
the first release) gets its header only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from spectacular_bid.rules.actions import Abort, AbortReason
from spectacular_bid.service.codec import command_json
from spectacular_bid.service.commands import Restarted
from spectacular_bid.service.discrepancy import RecordMismatchError
from spectacular_bid.service.entries import event_record, header_of, round_records
from spectacular_bid.service.machine import step
from spectacular_bid.service.ports import (
    JSON,
    EventRecord,
    LeaseLostError,
    MatchRecord,
    MatchStatus,
    MatchStore,
)
from spectacular_bid.service.record_document import version_of
from spectacular_bid.service.replay import Replay
from spectacular_bid.service.state import Transition
from spectacular_bid.service.timesource import MsSource

log = logging.getLogger(__name__)

BARE_ABORT_EVENTS: list[JSON] = [
    {"type": "match_ended", "winner": None, "reason": "timing_failure"}
]
"""The final events of a match whose record the machine cannot re-run (a damaged record)."""


async def abort_orphans(
    store: MatchStore,
    now_ms: MsSource,
    wall_ms: MsSource,
    *,
    own: bool = False,
    on_failure: Callable[[str, Exception], None] | None = None,
) -> list[str]:
    """Claim the matches no live server runs (``MatchStore.claim_orphans``) and end each as a
    timing failure; return their ids. One that cannot be ended is logged (or told to
    ``on_failure``) with its id, and the others are ended all the same; a lost lease raises."""
    ended = []
    for header in await store.claim_orphans(own=own):
        try:
            await abort_match(store, header, now_ms(), wall_ms())
        except LeaseLostError:
            raise
        except Exception as exc:  # a driver's own error too: the next match is still ended
            if on_failure is not None:
                on_failure(header.id, exc)
            else:
                log.error("match %s: could not be ended after the restart: %s", header.id, exc)
            continue
        ended.append(header.id)
    if ended:
        log.warning(
            "ended %d match(es) that no live server runs any more as timing failures (D5)",
            len(ended),
        )
    return ended


async def abort_match(
    store: MatchStore, header: MatchRecord, now_ms: int, wall_ms: int
) -> MatchRecord:
    """Append the aborting version (unless the record already ends the match) with the ended
    header, in one write; return the header."""
    records = await store.events(header.id)
    try:
        replayer = _replayed(header, records)
    except RecordMismatchError as exc:
        log.error("match %s: its record does not replay (%s); ending it anyway", header.id, exc)
        return await _end_damaged(store, header, records, now_ms, wall_ms)
    state = replayer.state
    if not state.is_live:  # the ending version was stored before the crash, the header was not
        last_wall = records[-1].wall_ms if records else wall_ms
        ended = _as_stored(header, header_of(header.id, state, header.created_at_ms, last_wall))
        await store.save_match(ended)
        return ended
    last_ms = records[-1].mono_ms if records else state.clock.decision_started_ms
    outcome = step(state, Restarted(last_ms), now_ms)
    assert isinstance(outcome, Transition), outcome  # a live match can always be aborted
    assert outcome.entry is not None
    entry = outcome.entry
    ended = _as_stored(header, header_of(header.id, outcome.state, header.created_at_ms, wall_ms))
    await store.append(
        [event_record(header.id, entry, wall_ms)],
        rounds=round_records(header.id, entry),
        match=ended,
    )
    return ended


def _as_stored(stored: MatchRecord, ended: MatchRecord) -> MatchRecord:
    """The ended header with the stored players: the replay knew them only by seat."""
    return replace(
        ended,
        first_player=stored.first_player,
        second_player=stored.second_player,
        first_account=stored.first_account,
        second_account=stored.second_account,
    )


def _replayed(header: MatchRecord, records: list[EventRecord]) -> Replay:
    settings = header.settings if isinstance(header.settings, dict) else {}
    first = version_of(records[0]) if records else None
    try:
        accounts = {"first": header.first_account, "second": header.second_account}
        replayer = Replay.of(header.mode, settings, {}, first, accounts)
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordMismatchError.of(
            "match", "settings", "a valid time control", str(exc)
        ) from None
    for record in records:
        replayer.step(version_of(record))
    return replayer


async def _end_damaged(
    store: MatchStore, header: MatchRecord, records: list[EventRecord], now_ms: int, wall_ms: int
) -> MatchRecord:
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
    final = EventRecord(
        match_id=header.id,
        version=(last.version if last is not None else 0) + 1,
        seat=None,
        command=command_json(Abort(AbortReason.TIMING_FAILURE)),
        events=BARE_ABORT_EVENTS,
        wall_ms=wall_ms,
        mono_ms=now_ms,
        clock={
            "now_ms": now_ms,
            "running": None,
            "bank_left_ms": banks,
            "delay_left_ms": 0,
            "deadline_ms": None,
        },
        received_ms=now_ms,
    )
    ended = replace(
        header,
        status=MatchStatus.ABORTED,
        winner=None,
        reason="timing_failure",
        rated=False,
        ended_at_ms=wall_ms,
    )
    await store.append([final], match=ended)
    return ended
