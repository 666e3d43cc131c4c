"""The live-match cap a server takes when none is set (issue 10 item 1): measured on the machine
at start-up (``bench/capacity.py``), never in a server made in-process, and an explicit setting
always wins."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from spectacular_bid.bench.capacity import (
    MATCHES_PER_ROUND_PER_S,
    MIN_CAPACITY,
    live_match_capacity,
)
from spectacular_bid.cli.serve import with_capacity
from spectacular_bid.web.settings import WebSettings


def test_the_measured_capacity_scales_the_rules_engines_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import spectacular_bid.bench.capacity as capacity

    monkeypatch.setattr(capacity, "measure", lambda _s, _rng: {"rounds_per_s": 12_000.0})
    assert live_match_capacity() == round(12_000 * MATCHES_PER_ROUND_PER_S)
    # The fastest probe counts: whatever else ran during one only slowed it.
    speeds = iter([9_300.0, 10_400.0, 9_900.0])
    monkeypatch.setattr(capacity, "measure", lambda _s, _rng: {"rounds_per_s": next(speeds)})
    assert live_match_capacity() == round(10_400 * MATCHES_PER_ROUND_PER_S)
    # A machine too busy to measure well still takes a few matches.
    monkeypatch.setattr(capacity, "measure", lambda _s, _rng: {"rounds_per_s": 3.0})
    assert live_match_capacity() == MIN_CAPACITY


def test_a_real_measurement_gives_a_cap() -> None:
    cap = live_match_capacity(0.05)
    assert isinstance(cap, int)
    assert cap >= MIN_CAPACITY


def test_auto_becomes_a_number_in_specbid_serve_and_no_cap_in_process() -> None:
    auto = WebSettings(max_live_matches="auto")
    assert WebSettings.model_fields["max_live_matches"].default == "auto"
    assert auto.service_settings().capacity.max_live_matches is None
    served = with_capacity(auto)
    measured = served.max_live_matches
    assert isinstance(measured, int)
    assert measured >= MIN_CAPACITY
    assert served.service_settings().capacity.max_live_matches == measured
    assert with_capacity(WebSettings(max_live_matches=7)).max_live_matches == 7


@pytest.mark.parametrize("bad", [0, -3, "lots", 1.5])
def test_a_cap_is_a_whole_number_of_at_least_one_or_auto(bad: object) -> None:
    with pytest.raises(ValidationError):
        WebSettings(max_live_matches=bad)  # type: ignore[arg-type]


def test_the_cpu_signal_is_off_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPECBID_BUSY_CPU", raising=False)  # the suite's lenient value
    assert WebSettings().busy_cpu is None
    assert WebSettings(busy_cpu=0.8).service_settings().capacity.busy_cpu == 0.8
