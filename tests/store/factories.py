"""Records for storage tests, with values that exercise the columns (unicode, nesting, big ms)."""

from __future__ import annotations

from spectacular_bid.service.ports import (
    JSON,
    EventRecord,
    MatchMode,
    MatchRecord,
    MatchStatus,
    MatchStore,
    PlayerRecord,
)

WALL_MS = 1_796_000_000_123
"""A wall time in 2026 with milliseconds, to prove timestamps round-trip exactly."""


def player(name: str, *, at_ms: int = WALL_MS) -> PlayerRecord:
    return PlayerRecord(f"p-{name}", name, f"hash-{name}".ljust(64, "0"), at_ms)


def match(
    match_id: str = "m1",
    *,
    first: str | None = "p-ann",
    second: str | None = "p-bob",
    status: MatchStatus = MatchStatus.ACTIVE,
) -> MatchRecord:
    return MatchRecord(
        id=match_id,
        mode=MatchMode.INVITE,
        settings={"bank_ms": 300_000, "delay_ms": 5_000, "grace_ms": 20_000},
        first_player=first,
        second_player=second,
        status=status,
        winner=None,
        reason=None,
        rated=False,
        created_at_ms=WALL_MS,
        ended_at_ms=None,
    )


def event(
    match_id: str, version: int, *, command: JSON = None, received_ms: int | None = None
) -> EventRecord:
    return EventRecord(
        match_id=match_id,
        version=version,
        seat="first" if version % 2 else None,
        command=command if command is not None else {"type": "play", "tile": "3-4", "at": None},
        events=[
            {"type": "played", "seat": "first", "tile": "3-4", "scores": [5, 10]},
            {"type": "note", "text": "Fünf – ✓", "flags": [True, False, None], "n": 2**40},
        ],
        wall_ms=WALL_MS + version,
        mono_ms=9_000_000_000 + version,
        clock={"running": "second", "bank_ms": {"first": 299_000, "second": 300_000}},
        received_ms=received_ms,
    )


async def seed(store: MatchStore, *match_ids: str) -> None:
    """Two players and one active match per id."""
    await store.add_player(player("ann"))
    await store.add_player(player("bob"))
    for match_id in match_ids:
        await store.save_match(match(match_id))
