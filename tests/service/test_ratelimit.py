"""The per-socket token bucket (floods get an error or a close)."""

from __future__ import annotations

import pytest

from spectacular_bid.service.ratelimit import TokenBucket


def test_a_burst_then_the_rate() -> None:
    bucket = TokenBucket(rate_per_s=10, burst=3, now_ms=0)
    assert [bucket.take(0) for _ in range(4)] == [True, True, True, False]
    assert not bucket.take(99)  # 0.99 of a token
    assert bucket.take(100)
    assert not bucket.take(100)


def test_tokens_never_exceed_the_burst() -> None:
    bucket = TokenBucket(rate_per_s=10, burst=2, now_ms=0)
    assert [bucket.take(60_000) for _ in range(3)] == [True, True, False]


def test_time_going_back_adds_nothing() -> None:
    bucket = TokenBucket(rate_per_s=1, burst=1, now_ms=1_000)
    assert bucket.take(1_000)
    assert not bucket.take(0)
    assert not bucket.take(1_999)
    assert bucket.take(2_000)


@pytest.mark.parametrize(("rate", "burst"), [(0, 1), (-1, 1), (1, 0)])
def test_bad_parameters(rate: float, burst: int) -> None:
    with pytest.raises(ValueError, match="need rate_per_s > 0 and burst >= 1"):
        TokenBucket(rate, burst, 0)
