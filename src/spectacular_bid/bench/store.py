"""``specbid bench store``: event appends through the storage port, durability order included.

``matches`` simulated matches run at once, each like a match actor: it appends one version at a
time through :meth:`SqlStore.append <spectacular_bid.store.repository.SqlStore.append>` and waits
until that version is committed before making the next, so the figures measure the rate at which
events become durable and how long a player's move waits for its commit (append-to-durable).
The records are real: commands and events of random matches played through the rules engine,
encoded as the service encodes them, with a clock reading.

SQLite runs on a scratch file (a temporary one unless ``sqlite_path`` is given) with the store's
own settings (WAL, ``synchronous=FULL``). PostgreSQL runs in a scratch schema made in the database
at ``database_url`` and dropped afterwards. Each repeat uses new matches; the report gives medians.
"""

from __future__ import annotations

import asyncio
import gc
import random
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from spectacular_bid.clock import MatchClock
from spectacular_bid.rules.actions import Deal
from spectacular_bid.rules.match import Match, Phase
from spectacular_bid.rules.tiles import TILES
from spectacular_bid.service.codec import clock_json, command_json, event_json
from spectacular_bid.service.commands import SaltedDeal
from spectacular_bid.service.ports import (
    JSON,
    EventRecord,
    MatchMode,
    MatchRecord,
    MatchStatus,
    PlayerRecord,
)
from spectacular_bid.store.engine import SQLITE_SYNCHRONOUS, create_engine, sqlite_url
from spectacular_bid.store.leases import Lease
from spectacular_bid.store.migrate import upgrade_to_head
from spectacular_bid.store.repository import SqlStore

MATCHES = 500
"""Simulated matches appending without pause: the store's capacity."""
TARGET_MATCHES = 2_000
"""Simulated matches that together offer the target rate, pausing between their appends."""
TARGET_EVENTS_PER_S = 10_000
TARGET_P99_COMMIT_MS = 20.0

Payload = tuple[str | None, JSON, JSON]
"""(seat, command, events) of one version."""


def sample_payloads(rng: random.Random, count: int = 500) -> list[Payload]:
    """Commands and their events from random matches, encoded as the match record holds them."""
    payloads: list[Payload] = []
    deck = list(TILES)
    while len(payloads) < count:
        match = Match()
        while not match.is_over and len(payloads) < count:
            if match.phase is Phase.AWAITING_DEAL:
                rng.shuffle(deck)
                action: Any = Deal(tuple(deck))
            else:
                legal = match.legal_actions()
                action = legal[rng.randrange(len(legal))]
            events = match.apply(action)
            seat = getattr(action, "seat", None)
            recorded = SaltedDeal(action.deck, "0" * 32) if isinstance(action, Deal) else action
            payloads.append(
                (
                    None if seat is None else str(seat),
                    command_json(recorded),
                    [event_json(e) for e in events],
                )
            )
    return payloads


async def _set_up(store: SqlStore, tag: str, matches: int) -> list[str]:
    now_ms = time.time_ns() // 1_000_000
    ids = [f"{tag}-{i}" for i in range(matches)]
    await asyncio.gather(
        *(
            store.add_player(PlayerRecord(f"{match_id}-{seat}", seat, f"{match_id}-{seat}", now_ms))
            for match_id in ids
            for seat in ("a", "b")
        )
    )
    await asyncio.gather(
        *(
            store.save_match(
                MatchRecord(
                    id=match_id,
                    mode=MatchMode.INVITE,
                    settings={"bank_ms": 300_000, "delay_ms": 5_000},
                    first_player=f"{match_id}-a",
                    second_player=f"{match_id}-b",
                    status=MatchStatus.ACTIVE,
                    winner=None,
                    reason=None,
                    rated=False,
                    created_at_ms=now_ms,
                    ended_at_ms=None,
                )
            )
            for match_id in ids
        )
    )
    return ids


@dataclass(frozen=True, slots=True)
class Load:
    """How the simulated matches append: ``matches`` actors, each waiting for its append to be
    durable before the next; with ``events_per_s`` None they never pause (saturation), else each
    pauses a random (exponential) time so that together they offer ``events_per_s``."""

    matches: int
    events_per_s: float | None = None


async def _repeat(
    store: SqlStore, payloads: list[Payload], load: Load, seconds: float, rng: random.Random
) -> dict[str, float]:
    ids = await _set_up(store, uuid.uuid4().hex[:12], load.matches)
    clock = clock_json(MatchClock.new().reading(0))
    # What exists now lives through the run: keep the collector from scanning it again and
    # again, so its pauses over the simulation's own objects stay out of the store's figures.
    gc.collect()
    gc.freeze()
    latencies: list[float] = []
    commits_before = store.writer.batches
    perf = time.perf_counter
    start = perf()
    deadline = start + seconds
    mean_gap_s = None if load.events_per_s is None else load.matches / load.events_per_s

    async def play(index: int, match_id: str) -> None:
        version = 0
        next_at = start if mean_gap_s is None else start + rng.uniform(0, mean_gap_s)
        while True:
            if mean_gap_s is not None:
                wait = min(next_at, deadline) - perf()
                if wait > 0:
                    await asyncio.sleep(wait)
                next_at += rng.expovariate(1 / mean_gap_s)
            if perf() >= deadline:
                return
            version += 1
            seat, command, events = payloads[(index + version) % len(payloads)]
            record = EventRecord(
                match_id,
                version,
                seat,
                command,
                events,
                time.time_ns() // 1_000_000,
                time.monotonic_ns() // 1_000_000,
                clock,
            )
            began = perf()
            await store.append([record])
            latencies.append(perf() - began)

    try:
        await asyncio.gather(*(play(i, match_id) for i, match_id in enumerate(ids)))
    finally:
        gc.unfreeze()
    elapsed = perf() - start
    commits = store.writer.batches - commits_before
    cuts = statistics.quantiles(latencies, n=100, method="inclusive")
    return {
        "events_per_s": len(latencies) / elapsed,
        "p50_commit_ms": cuts[49] * 1000,
        "p99_commit_ms": cuts[98] * 1000,
        "max_commit_ms": max(latencies) * 1000,
        "events_per_commit": len(latencies) / max(commits, 1),
    }


def _medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in runs), 2) for key in runs[0]}


async def _measure(
    store: SqlStore,
    payloads: list[Payload],
    loads: tuple[Load, Load],
    seconds: float,
    repeats: int,
) -> dict[str, object]:
    saturated, paced = loads
    rng = random.Random(5)
    async with store:
        full = [await _repeat(store, payloads, saturated, seconds, rng) for _ in range(repeats)]
        at_rate = [await _repeat(store, payloads, paced, seconds, rng) for _ in range(repeats)]
    capacity = _medians(full)
    target = _medians(at_rate)
    meets = (
        capacity["events_per_s"] >= TARGET_EVENTS_PER_S
        and target["events_per_s"] >= 0.98 * (paced.events_per_s or 0)
        and target["p99_commit_ms"] <= TARGET_P99_COMMIT_MS
    )
    return {
        "events_per_s": capacity["events_per_s"],
        "p50_commit_ms": target["p50_commit_ms"],
        "p99_commit_ms": target["p99_commit_ms"],
        "meets_target": meets,
        "saturated": {
            "matches": saturated.matches,
            **capacity,
            "events_per_s_min": round(min(r["events_per_s"] for r in full), 1),
        },
        "at_target_rate": {
            "matches": paced.matches,
            "offered_events_per_s": paced.events_per_s,
            **target,
            "p99_commit_ms_max": round(max(r["p99_commit_ms"] for r in at_rate), 2),
        },
    }


def _served(engine: AsyncEngine) -> SqlStore:
    """The store as a server has it: every commit fenced by its lease (PROTOCOL.md "Several servers
    on one database")."""
    return SqlStore(engine, lease=Lease.new())


async def _bench_sqlite(
    path: Path, payloads: list[Payload], loads: tuple[Load, Load], seconds: float, repeats: int
) -> dict[str, object]:
    engine = create_engine(sqlite_url(path))
    try:
        await upgrade_to_head(engine)
        result = await _measure(_served(engine), payloads, loads, seconds, repeats)
    finally:
        await engine.dispose()
    return {"synchronous": SQLITE_SYNCHRONOUS, **result}


async def _bench_postgresql(
    url: str, payloads: list[Payload], loads: tuple[Load, Load], seconds: float, repeats: int
) -> dict[str, object]:
    schema = f"specbid_bench_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url)
    try:
        async with admin.begin() as conn:
            await conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        engine = create_engine(url, connect_args={"server_settings": {"search_path": schema}})
        try:
            await upgrade_to_head(engine)
            return await _measure(_served(engine), payloads, loads, seconds, repeats)
        finally:
            await engine.dispose()
            async with admin.begin() as conn:
                await conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        await admin.dispose()


async def _run(
    seconds: float,
    repeats: int,
    sqlite_path: str | Path | None,
    database_url: str | None,
    loads: tuple[Load, Load],
) -> dict[str, object]:
    payloads = sample_payloads(random.Random(4))
    saturated, paced = loads
    result: dict[str, object] = {
        "benchmark": "store",
        "repeats": repeats,
        "seconds_per_repeat": seconds,
        "saturated_matches": saturated.matches,
        "paced_matches": paced.matches,
        "target_events_per_s": TARGET_EVENTS_PER_S,
        "target_p99_commit_ms": TARGET_P99_COMMIT_MS,
    }
    if sqlite_path is not None:
        path = Path(sqlite_path)
        result["sqlite"] = await _bench_sqlite(path, payloads, loads, seconds, repeats)
    else:
        with tempfile.TemporaryDirectory(prefix="specbid-bench-") as folder:
            path = Path(folder) / "bench.sqlite3"
            result["sqlite"] = await _bench_sqlite(path, payloads, loads, seconds, repeats)
    if database_url:
        result["postgresql"] = await _bench_postgresql(
            database_url, payloads, loads, seconds, repeats
        )
    return result


def run(
    seconds: float = 3.0,
    repeats: int = 5,
    sqlite_path: str | Path | None = None,
    database_url: str | None = None,
    matches: int = MATCHES,
    target_matches: int = TARGET_MATCHES,
) -> dict[str, object]:
    """Measure SQLite, and PostgreSQL when ``database_url`` is given; medians over ``repeats``.

    For each database, two loads run ``repeats`` times for ``seconds`` each:

    - *saturated*: ``matches`` actors append without pause; their rate is the store's capacity,
      reported as ``events_per_s``;
    - *at the target rate*: ``target_matches`` actors pause between appends so that together they
      offer :data:`TARGET_EVENTS_PER_S`; the time from ``append`` to durable is reported as
      ``p50_commit_ms`` and ``p99_commit_ms``.

    Under saturation every actor waits for one whole group commit per append, so its latency is
    the number of actors divided by the rate (Little's law) and says how many actors were chosen
    more than how fast the store is; both loads' full figures are in the report.

    ``sqlite_path`` names a scratch SQLite file (created if missing; the benchmark's rows stay in
    it); by default a temporary file is used and removed.
    """
    if seconds <= 0 or repeats < 1 or matches < 1 or target_matches < 1:
        raise ValueError(
            f"need seconds > 0, repeats >= 1 and matches >= 1, got "
            f"{seconds!r}, {repeats!r}, {matches!r}, {target_matches!r}"
        )
    loads = (Load(matches), Load(target_matches, float(TARGET_EVENTS_PER_S)))
    return asyncio.run(_run(seconds, repeats, sqlite_path, database_url, loads))
