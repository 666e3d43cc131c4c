"""The live-match cap a server takes when none is set (OPERATIONS.md, "Under load and abuse"):
estimated from the machine's speed in CPU time (``bench/capacity.py``) at start-up and again
while the server runs (``service.live_cap``), never in a server made in-process; an explicit
setting always wins and never changes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from spectacular_bid.bench.capacity import (
    MATCHES_PER_ROUND_PER_S,
    MIN_CAPACITY,
    PROBE_S,
    REVISION_PROBE_S,
    live_match_capacity,
    revised_live_match_capacity,
)
from spectacular_bid.service.live_cap import ESTIMATES_KEPT, LiveMatchCap
from spectacular_bid.service.matches import MatchService
from spectacular_bid.service.memory import InMemoryStore
from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings


def test_the_measured_capacity_scales_the_rules_engines_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import spectacular_bid.bench.capacity as capacity

    monkeypatch.setattr(capacity, "measure", lambda _s, _rng, _clock: {"rounds_per_s": 12_000.0})
    assert live_match_capacity() == round(12_000 * MATCHES_PER_ROUND_PER_S)
    # The fastest probe counts: whatever else ran during one only slowed it.
    speeds = iter([9_300.0, 10_400.0, 9_900.0])
    monkeypatch.setattr(
        capacity, "measure", lambda _s, _rng, _clock: {"rounds_per_s": next(speeds)}
    )
    assert live_match_capacity() == round(10_400 * MATCHES_PER_ROUND_PER_S)
    # A machine too busy to measure well still takes a few matches.
    monkeypatch.setattr(capacity, "measure", lambda _s, _rng, _clock: {"rounds_per_s": 3.0})
    assert live_match_capacity() == MIN_CAPACITY


def test_a_real_measurement_gives_a_cap() -> None:
    cap = live_match_capacity(0.05)
    assert isinstance(cap, int)
    assert cap >= MIN_CAPACITY


def test_auto_is_estimated_in_specbid_serve_and_no_cap_in_process(tmp_path: Path) -> None:
    auto = WebSettings(max_live_matches="auto", data_dir=tmp_path)
    assert WebSettings.model_fields["max_live_matches"].default == "auto"
    assert auto.service_settings().capacity.max_live_matches is None
    assert _admission_cap(create_app(auto)).value is None  # in-process: no estimator, no cap
    estimates = iter([900, 1_800])
    served = _admission_cap(create_app(auto, estimate_cap=lambda: next(estimates)))
    assert (served.value, served.source, served.is_estimated) == (900, "estimate", True)
    fixed = WebSettings(max_live_matches=7, data_dir=tmp_path)
    operator = _admission_cap(create_app(fixed, estimate_cap=_never))
    assert (operator.value, operator.source, operator.is_estimated) == (7, "operator", False)


def _admission_cap(app: FastAPI) -> LiveMatchCap:
    service = app.state.service
    assert isinstance(service, MatchService)
    return service.admission.cap


def _never() -> int:
    raise AssertionError("an operator's cap is never estimated")


def test_a_start_up_estimate_only_seeds_the_cap() -> None:
    # Seeded while a neighbour slowed the machine, then estimated again running free.
    estimates = iter([948])
    cap = LiveMatchCap(estimate=lambda: next(estimates))
    assert cap.seed() == 948
    cap.estimates.append(1_900)
    assert cap.value == 1_900  # the best of the latest: a slowed probe is outvoted
    for _ in range(ESTIMATES_KEPT):
        cap.estimates.append(1_850)
    assert cap.value == 1_850  # a machine that really became slower lowers it in time


async def test_a_running_service_revises_an_estimated_cap() -> None:
    estimates = iter(range(100, 10_000, 100))
    service = MatchService(InMemoryStore())
    service.admission.cap = LiveMatchCap(estimate=lambda: next(estimates), every_s=0.01)
    service.admission.cap.seed()
    await service.start()
    try:
        async with asyncio.timeout(10):
            while len(service.admission.cap.estimates) < 3:
                await asyncio.sleep(0.01)
    finally:
        await service.stop()
    assert service.admission.cap.value is not None
    assert service.admission.cap.value >= 300
    assert service.tasks.failures == {}


@pytest.mark.parametrize("explicit", [0, -1])
def test_an_explicit_cap_is_at_least_one(explicit: int) -> None:
    with pytest.raises(ValueError, match="live-match cap"):
        LiveMatchCap(explicit)


@pytest.mark.parametrize("bad", [0, -3, "lots", 1.5])
def test_a_cap_is_a_whole_number_of_at_least_one_or_auto(bad: object) -> None:
    with pytest.raises(ValidationError):
        WebSettings(max_live_matches=bad)  # type: ignore[arg-type]


def test_the_cpu_signal_is_off_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPECBID_BUSY_CPU", raising=False)  # the suite's lenient value
    assert WebSettings().busy_cpu is None
    assert WebSettings(busy_cpu=0.8).service_settings().capacity.busy_cpu == 0.8


async def test_a_running_service_revises_with_the_cheaper_estimate_where_given() -> None:
    # The seed's estimate runs once, before the server listens; the revisions run every
    # ``every_s`` for the process's life, so they may be given a cheaper one.
    seeds, revisions = iter([900]), iter(range(1_000, 10_000, 100))
    cap = LiveMatchCap(estimate=lambda: next(seeds), revise_with=lambda: next(revisions))
    assert cap.seed() == 900
    await cap.revise()
    await cap.revise()
    assert list(cap.estimates) == [900, 1_000, 1_100]
    assert cap.value == 1_100


def test_a_revision_is_one_short_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    import spectacular_bid.bench.capacity as capacity

    calls: list[float] = []

    def measured(seconds: float, _rng: object, _clock: object) -> dict[str, float]:
        calls.append(seconds)
        return {"rounds_per_s": 10_000.0}

    monkeypatch.setattr(capacity, "measure", measured)
    assert revised_live_match_capacity() == round(10_000 * MATCHES_PER_ROUND_PER_S)
    assert calls == [REVISION_PROBE_S]
    assert REVISION_PROBE_S < PROBE_S
