"""``/metrics`` in the Prometheus text format (PROTOCOL.md "Probes and metrics"): the service's
telemetry made histograms, and the server's gauges.

Each app has its own :class:`~prometheus_client.CollectorRegistry`, not the library's global
one: the tests make many apps in one process, and two apps registering the same names in one
registry would fail (and would mix their readings). The gauges are read at scrape time from the
app's own counts, so a socket or a match costs nothing to count; each histogram reading is one
``observe`` (a bucket search and an addition under a lock), cheap enough for every command.

Times are in seconds, as Prometheus names them (``…_seconds``), though the service measures in
whole milliseconds (the store's commit time excepted): the first bucket, up to 1 ms, holds the
readings of 0 and 1 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from fastapi import APIRouter, Request, Response
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import generate_latest

LATENCY_BUCKETS_S: Final = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
)
"""From a millisecond (a command on an idle server) to the D5 stall threshold's order (2 s) and
past it."""

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
"""The classic text format that ``generate_latest`` writes, which every Prometheus reads (the
library's own "latest" names a newer version that older servers do not know)."""

router = APIRouter(tags=["health"])


class Metrics:
    """The :class:`~spectacular_bid.service.telemetry.Telemetry` of one app, and its gauges."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        registry = self.registry
        self._sockets = Gauge(
            "specbid_open_sockets",
            "Open match WebSockets (players and spectators).",
            registry=registry,
        )
        self._live = Gauge(
            "specbid_live_matches",
            "Matches in memory that are waiting or being played.",
            registry=registry,
        )
        self._cap = Gauge(
            "specbid_live_match_cap",
            "The live matches admitted at most now: the operator's cap, or the server's "
            "estimate, revised while it runs (0: no cap).",
            registry=registry,
        )
        self._draining = Gauge(
            "specbid_draining",
            "1 while the server drains before it stops, else 0.",
            registry=registry,
        )
        self._command = Histogram(
            "specbid_command_latency_seconds",
            "From a command's arrival to its version stored and installed (R7.7).",
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self._flag = Histogram(
            "specbid_flag_lateness_seconds",
            "From a seat's deadline to its flag stored and installed.",
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self._lag = Histogram(
            "specbid_loop_lag_seconds",
            "How late the event loop's lag monitor woke, at every 100 ms tick.",
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self._commit = Histogram(
            "specbid_commit_seconds",
            "One group commit of the store's writer (all the writes queued meanwhile).",
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )
        self.relay = Histogram(
            "specbid_relay_seconds",
            "From a version's publication by the replica that runs its match to its arrival "
            "at another replica with sockets of that match (wall clocks of both).",
            buckets=LATENCY_BUCKETS_S,
            registry=registry,
        )

        self._task_failures = Counter(
            "specbid_task_failures",
            "Runs of a periodic task that raised (each logged; the task runs again at its next "
            "tick, service/periodic.py).",
            ["task"],
            registry=registry,
        )

    def read_gauges(
        self,
        open_sockets: Callable[[], int],
        live_matches: Callable[[], int],
        draining: Callable[[], bool],
        live_match_cap: Callable[[], int | None] = lambda: None,
    ) -> None:
        """Have the gauges read these counts at each scrape (``web/app.py`` wires them)."""
        self._sockets.set_function(lambda: float(open_sockets()))
        self._live.set_function(lambda: float(live_matches()))
        self._draining.set_function(lambda: 1.0 if draining() else 0.0)
        self._cap.set_function(lambda: float(live_match_cap() or 0))

    # -- Telemetry --------------------------------------------------------------------------

    def command_applied(self, latency_ms: int) -> None:
        self._command.observe(latency_ms / 1000)

    def flag_fell(self, lateness_ms: int) -> None:
        self._flag.observe(lateness_ms / 1000)

    def loop_ticked(self, lag_ms: int) -> None:
        self._lag.observe(lag_ms / 1000)

    def batch_committed(self, seconds: float, writes: int) -> None:
        self._commit.observe(seconds)

    def task_failed(self, task: str) -> None:
        self._task_failures.labels(task=task).inc()

    def relayed(self, delay_ms: int) -> None:
        """A version arrived from another replica ``delay_ms`` after it was published there."""
        self.relay.observe(max(0, delay_ms) / 1000)

    def exposition(self) -> bytes:
        """Every metric in the Prometheus text format."""
        return generate_latest(self.registry)


@router.get("/metrics", include_in_schema=False)
async def read_metrics(request: Request) -> Response:
    metrics = request.app.state.metrics
    assert isinstance(metrics, Metrics), "create_app() puts the Metrics on app.state"
    return Response(metrics.exposition(), media_type=CONTENT_TYPE)
