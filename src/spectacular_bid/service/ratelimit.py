"""A token bucket: the flood limit of a socket (PROTOCOL.md "The WebSocket"), of HTTP requests and
of chat.

``rate_per_s`` tokens flow in per second up to ``burst``; each message takes one. Time is passed
in (the service's monotonic ms), like the clock's, so tests need no sleeping.
"""

from __future__ import annotations


class TokenBucket:
    def __init__(self, rate_per_s: float, burst: int, now_ms: int) -> None:
        if rate_per_s <= 0 or burst < 1:
            raise ValueError(f"need rate_per_s > 0 and burst >= 1, got {rate_per_s!r}, {burst!r}")
        self.rate_per_ms = rate_per_s / 1000
        self.burst = burst
        self.tokens = float(burst)
        self.last_ms = now_ms

    def take(self, now_ms: int) -> bool:
        """Spend one token if there is one; False means the message is over the limit."""
        elapsed_ms = max(0, now_ms - self.last_ms)
        self.last_ms = max(self.last_ms, now_ms)
        self.tokens = min(self.burst, self.tokens + elapsed_ms * self.rate_per_ms)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def __repr__(self) -> str:
        return f"TokenBucket({self.rate_per_ms * 1000!r}, {self.burst!r}, {self.last_ms!r})"
