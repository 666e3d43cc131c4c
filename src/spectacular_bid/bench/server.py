"""``specbid bench server``: many live matches against a real server over loopback WebSockets.

The server runs in its own process (``specbid serve``); this process plays every seat with
random legal moves, like people would: each decision comes after a think time drawn from
``think_ms`` (``0`` saturates the server). One spectator watches every match. A few extra
matches, started one after another over the window, are deliberately left to time out, to
measure how late the server flags (R7.7: never early). Figures: ``commands_per_s``; latency from
a command's send to the opponent's receipt of the resulting update (p50, p99); flag lateness;
the server's CPU and peak RSS; and, for admission control (OPERATIONS.md "Under load and abuse"),
the matches ``admitted`` and the creations and joins ``refused`` (a refused slot tries again after
``Retry-After``), the longest event-loop stall in the window (``max_pause_ms``, from the server's
``/api/health``), the longest few with the loop thread's CPU and preemptions through each
(``longest_pauses``: worked, preempted by the load generator on the shared cores, or blocked), the
server's garbage collections over 50 ms in the window as its log describes them
(``long_collections``,
``longest_collections``) and the server's memory per open socket.

The run is three parts, each in its own module: the server process under test
(:mod:`~spectacular_bid.bench.server_process`), the load that drives it
(:mod:`~spectacular_bid.bench.server_driver`) and the seats that play and count
(:mod:`~spectacular_bid.bench.server_players`); this module runs them and writes the report.
"""

from __future__ import annotations

from typing import Final

import uvloop

from spectacular_bid.bench.server_driver import (
    WARMUP_S,
    Load,
    Placement,
    drive,
    longest_run_s,
)
from spectacular_bid.bench.server_players import Stats
from spectacular_bid.bench.server_process import (
    long_collection_lines,
    peak_rss_mb,
    serving_several,
)
from spectacular_bid.web.collector import LONG_COLLECTION_LOG


def run(
    matches: int = 100,
    seconds: float = 20.0,
    think_ms: tuple[int, int] = (1000, 5000),
    timeout_matches: int = 20,
    seed: int = 1,
    warmup_s: float = WARMUP_S,
    processes: int = 1,
    placement: Placement = Placement.APART,
) -> dict[str, object]:
    """Start the server processes, drive them, and report the figures of BENCHMARKS.md "bench server
    and bench store" (with ``processes`` above 1, on ``$DATABASE_URL`` relaying through
    ``$REDIS_URL``, the sockets placed on them as ``placement`` says)."""
    if matches < 1 or seconds <= 0 or timeout_matches < 0 or warmup_s < 0 or processes < 1:
        raise ValueError(
            f"bad benchmark size: {matches=} {seconds=} {timeout_matches=} {warmup_s=} {processes=}"
        )
    load = Load(matches, seconds, think_ms, timeout_matches, seed, warmup_s, placement)
    # The time-out matches wait for their moment in the window to press Start; the players of
    # the others press at once, so a grace this long changes nothing for them (D3).
    with serving_several(processes, grace_s=longest_run_s(load)) as servers:
        pids = [server.pid for server in servers]
        # The load generator shares the cores with the servers under test, so it runs on the
        # loop the server runs on too: what it spends on its own loop they cannot have.
        stats = uvloop.run(drive([server.base for server in servers], load, pids))
        rss_mb = sum(peak_rss_mb(pid) for pid in pids)
    stalls = [line for server in servers for line in server.stalls]
    collections = [
        line
        for server in servers
        for line in window_collections(server.log, stats.window_log_bytes.get(server.pid))
    ]
    return _report(load, stats, rss_mb, stalls, processes, collections)


def _report(
    load: Load,
    stats: Stats,
    rss_mb: float,
    stalls: list[str],
    processes: int,
    long_collections: list[str],
) -> dict[str, object]:
    seconds = load.seconds
    lateness = stats.flag_lateness_ms
    return {
        "benchmark": "server",
        "processes": processes,
        # With one process every socket is on its match's owner: there is nothing to place.
        "placement": load.placement.value if processes > 1 else None,
        "matches": load.matches,
        "seconds": seconds,
        "warmup_s": load.warmup_s,
        "think_ms": list(load.think_ms),
        "commands": stats.commands,
        "commands_per_s": round(stats.commands / seconds, 1),
        "p50_latency_ms": _percentile(stats.latencies_ms, 0.50),
        "p99_latency_ms": _percentile(stats.latencies_ms, 0.99),
        "latency_samples": len(stats.latencies_ms),
        "timeout_matches": load.timeout_matches,
        "flags_measured": len(lateness),
        "p99_flag_lateness_ms": _percentile([float(x) for x in lateness], 0.99),
        "max_flag_lateness_ms": max(lateness) if lateness else None,
        "early_flags": sum(1 for x in lateness if x < 0),
        "server_cpu_percent": round(100 * stats.server_cpu_s / seconds, 1),
        "client_cpu_percent": round(100 * stats.client_cpu_s / seconds, 1),
        # Per command, the servers' CPU does not depend on what else shares the cores: two runs'
        # ratio of it is what one costs the servers more (OPERATIONS.md "Running it for real"), even
        # where their commands/s are bound by the cores the load generator and the databases take
        # too.
        "server_cpu_us_per_command": (
            round(1e6 * stats.server_cpu_s / stats.commands, 1) if stats.commands else None
        ),
        "server_peak_rss_mb": round(rss_mb, 1),
        "matches_finished": stats.matches_finished,
        "errors": stats.errors,
        "ended": stats.ended,
        "server_closes": stats.server_closes,
        "server_loop_stalls": len(stalls),
        "first_stall": stalls[0] if stalls else None,
        "disconnects": stats.disconnects,
        "server_max_live_matches": stats.window_end.get("max_live_matches"),
        "admitted": stats.admitted,
        "refused": stats.refused,
        "refused_slots": len(stats.refused_slots),
        "never_admitted_slots": len(stats.refused_slots - stats.connected_slots),
        "max_pause_ms": _max_pause_ms(stats),
        "longest_pauses": longest_pauses(stats),
        "long_collections": len(long_collections),
        "longest_collections": longest_collections(long_collections),
        "server_open_sockets": stats.window_end.get("open_sockets"),
        "server_rss_per_socket_kb": _rss_per_socket_kb(stats),
        "server_rss_growth_percent": _growth_percent(
            stats.window_start_rss_kb, stats.window_end_rss_kb
        ),
        "relay_p99_ms": stats.relay_p99_ms,
        "relay_within_percent": stats.relay_within_percent,
    }


def window_collections(log: bytes, window: tuple[int, int] | None) -> list[str]:
    """The long-collection warnings a server logged within the measured window, given as its
    log's sizes when the window opened and closed (the whole log without one). Those of the
    warm-up and of the server's stop are not the window's: at the end of an hour at the live
    match cap, two rounds of 56 and 64 ms while 5,940 sockets closed were counted, though the
    window's longest pause had been 27 ms."""
    text = log if window is None else log[window[0] : window[1]]
    return long_collection_lines(text.decode(errors="replace"))


def longest_collections(lines: list[str]) -> list[str]:
    """The servers' :data:`LONGEST_COLLECTIONS` longest garbage collections in the window,
    longest first, as their logs describe them: a pause in ``longest_pauses`` that a
    collection caused is explained here."""
    return sorted(lines, key=_collection_ms, reverse=True)[:LONGEST_COLLECTIONS]


def _collection_ms(line: str) -> float:
    return float(line.removeprefix(LONG_COLLECTION_LOG).split()[0])


def _growth_percent(start_kb: int, end_kb: int) -> float | None:
    """How much the server's memory grew over the measured window (a soak's leak check)."""
    if start_kb <= 0 or end_kb <= 0:
        return None
    return round(100 * (end_kb - start_kb) / start_kb, 2)


def window_pauses(stats: Stats) -> list[tuple[int, int, tuple[int | None, int | None]]]:
    """``(lag_ms, at_ms, (cpu_ms, preempted))`` of each stall that ended within the measured
    window: after its first reading of the server's health, and no later than its last."""
    start_ms = stats.window_start.get("now_ms", 0)
    end_ms = stats.window_end.get("now_ms")
    return [
        (lag, at, usage)
        for (at, lag), usage in stats.pauses.items()
        if at >= start_ms and (end_ms is None or at <= end_ms)
    ]


def _max_pause_ms(stats: Stats) -> int:
    """The server's longest loop stall within the measured window (OPERATIONS.md "Under load and
    abuse")."""
    return max((lag for lag, _, _ in window_pauses(stats)), default=0)


LONGEST_PAUSES: Final = 5
LONGEST_COLLECTIONS: Final = 5


def longest_pauses(stats: Stats) -> list[dict[str, int | None]]:
    """The window's longest stalls with what the loop's thread did through each (its CPU ms
    over the tick's interval, and its preemptions), to tell the server's own work from a
    machine whose cores the load generator shares."""
    within = window_pauses(stats)
    within.sort(key=lambda pause: (-pause[0], pause[1]))
    return [
        {"lag_ms": lag, "cpu_ms": cpu, "preempted": preempted}
        for lag, _, (cpu, preempted) in within[:LONGEST_PAUSES]
    ]


def _rss_per_socket_kb(stats: Stats) -> float | None:
    """The server's memory growth from idle to the window's end, per socket then open."""
    sockets = stats.window_end.get("open_sockets") or 0
    if sockets <= 0 or stats.window_end_rss_kb <= 0:
        return None
    return round((stats.window_end_rss_kb - stats.idle_rss_kb) / sockets, 1)


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)
