"""The pairing replayed against arrival streams (bench/pool.py): with about 20 players waiting the
median wait is at most 15 s and the 90th-percentile rating gap at most 150; in every stream no
blocked pair is ever made and abandoners meet others only after sitting out a wave.

The figures are printed (``pytest -s`` shows them). Simulated time only: the whole module runs
in about a second."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from spectacular_bid.bench.pool import STREAMS, Stream, run, simulate
from spectacular_bid.service.pairing import PairingParameters

STEADY, BURSTY, SPARSE = STREAMS


@cache
def figures_of(stream: Stream, seed: int, abandoner_apart_waves: int = 1) -> dict[str, Any]:
    """One simulation's figures, run once for every test that reads them."""
    parameters = PairingParameters(abandoner_apart_waves=abandoner_apart_waves)
    figures = simulate(stream, seed, parameters)
    print(json.dumps({**figures, "abandoner_apart_waves": abandoner_apart_waves}))
    return figures


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_twenty_waiting_are_paired_within_15_s_and_150_points(seed: int) -> None:
    figures = figures_of(STEADY, seed)
    assert 15 <= figures["mean_waiting"] <= 25  # the scenario is the one the bounds are about
    assert figures["median_wait_s"] <= 15
    assert figures["p90_gap"] <= 150
    # The median is not bought by sending players to the computer.
    assert figures["left_for_computer"] <= 0.01 * figures["settled"]


@pytest.mark.parametrize("stream", STREAMS, ids=lambda stream: stream.name)
def test_no_stream_ever_pairs_a_block_or_an_abandoner_early(stream: Stream) -> None:
    figures = figures_of(stream, 1)
    assert figures["blocks"] > 0  # blocks were made, so none paired means something
    assert figures["blocked_pairs"] == 0
    assert figures["abandoners_mixed_early"] == 0
    assert figures["pairs"] > 0


def test_abandoners_are_paired_together_far_above_chance() -> None:
    """One arrival in 20 abandoned their last match: paired at random, about 5% of the pairs an
    abandoner is in would have another in them. The pairing makes them each other's partners
    first, so it is many times that."""
    for stream in (STEADY, BURSTY):  # sparse has too few abandoners to measure
        figures = figures_of(stream, 1)
        together, mixed = figures["abandoner_pairs_together"], figures["abandoner_pairs_mixed"]
        assert together + mixed > 20
        assert together / (together + mixed) >= 0.3


def test_holding_abandoners_apart_longer_pairs_more_of_them_together() -> None:
    """The parameter does what it says: three waves apart instead of one."""
    loose, strict = figures_of(STEADY, 1), figures_of(STEADY, 1, abandoner_apart_waves=3)
    share = [
        f["abandoner_pairs_together"] / (f["abandoner_pairs_together"] + f["abandoner_pairs_mixed"])
        for f in (loose, strict)
    ]
    assert share[1] > share[0]
    assert strict["abandoners_mixed_early"] == 0


def test_a_simulation_replays_exactly_from_its_seed() -> None:
    first = figures_of(BURSTY, 1)
    assert simulate(BURSTY, 1) == first  # run again, not read from the cache
    assert simulate(BURSTY, 2) != first
    assert [stream.name for stream in STREAMS] == ["steady", "bursty", "sparse"]


def test_the_bench_report_names_its_parameters_and_streams() -> None:
    report = run(1)
    assert report["parameters"]["enough_players"] == 20
    assert [figures["stream"] for figures in report["streams"]] == ["steady", "bursty", "sparse"]
    assert report["streams"][0] == figures_of(STEADY, 1)
