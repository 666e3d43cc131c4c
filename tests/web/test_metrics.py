"""``/metrics`` (PROTOCOL.md "Probes and metrics"): the Prometheus text of one app — its gauges read
the app's own counts at each scrape, its histograms the readings of the service and the store."""

from __future__ import annotations

import httpx
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families

from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings
from waiting import until

from .asgi_socket import AsgiSocket
from .guests import guest, joined_match

HISTOGRAMS = (
    "specbid_command_latency_seconds",
    "specbid_flag_lateness_seconds",
    "specbid_loop_lag_seconds",
    "specbid_commit_seconds",
    "specbid_relay_seconds",
)


async def scrape(client: httpx.AsyncClient) -> dict[str, float]:
    """Every sample of ``/metrics`` by its name (and labels, for the histograms' buckets)."""
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    samples: dict[str, float] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


async def test_every_metric_is_exposed(client: httpx.AsyncClient) -> None:
    samples = await scrape(client)
    for gauge in ("specbid_open_sockets", "specbid_live_matches", "specbid_draining"):
        assert samples[gauge] == 0
    for histogram in HISTOGRAMS:
        assert f"{histogram}_count" in samples
    assert samples["specbid_relay_seconds_count"] == 0  # no relay yet


async def test_the_gauges_and_histograms_follow_the_server(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    path = f"/ws/matches/{match_id}"
    async with AsgiSocket(app, path, query={"token": ann}) as ws:
        await ws.receive_until("state")
        samples = await scrape(client)
        assert (samples["specbid_open_sockets"], samples["specbid_live_matches"]) == (1, 1)
        before = samples["specbid_command_latency_seconds_count"]
        await ws.send_json({"type": "start", "version": 1, "id": "s1"})
        assert await ws.receive_until("ack") == {"type": "ack", "version": 2, "id": "s1"}
    samples = await scrape(client)
    assert samples["specbid_open_sockets"] == 0
    assert samples["specbid_command_latency_seconds_count"] == before + 1
    # The match's header and versions went through the group-commit writer of the SQLite store.
    assert samples["specbid_commit_seconds_count"] >= 2
    service = app.state.service
    assert isinstance(service, MatchService)
    service.admission.start_draining()
    assert (await scrape(client))["specbid_draining"] == 1


async def test_the_loop_lag_is_read_at_every_tick(client: httpx.AsyncClient) -> None:
    first = (await scrape(client))["specbid_loop_lag_seconds_count"]

    async def ticked_twice() -> bool:  # the lag monitor ticks every 100 ms
        return (await scrape(client))["specbid_loop_lag_seconds_count"] >= first + 2

    await until(ticked_twice, what="two ticks of the lag monitor")


async def test_each_app_counts_for_itself(settings: WebSettings) -> None:
    # A registry per app: a second app registers the same names without a clash, and a match in
    # one is not counted by the other.
    first, second = create_app(settings, InMemoryStore()), create_app(settings, InMemoryStore())
    async with first.router.lifespan_context(first), second.router.lifespan_context(second):
        one = httpx.AsyncClient(transport=httpx.ASGITransport(app=first), base_url="http://t")
        other = httpx.AsyncClient(transport=httpx.ASGITransport(app=second), base_url="http://t")
        async with one, other:
            await joined_match(one, await guest(one, "Ann"), await guest(one, "Bob"))
            assert (await scrape(one))["specbid_live_matches"] == 1
            assert (await scrape(other))["specbid_live_matches"] == 0
