"""The WebSocket origin check (issue 3 §8): the server's own host, listed origins, or none."""

from __future__ import annotations

import pytest

from spectacular_bid.web.origin import is_allowed_origin

ALLOWED = ("https://play.example",)


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        (None, "localhost:8000", "ws"),  # not a browser
        ("http://localhost:8000", "localhost:8000", "ws"),
        ("http://LOCALHOST:8000/", "localhost:8000", "ws"),
        ("http://example.com", "example.com", "ws"),
        ("http://example.com:80", "example.com", "ws"),
        ("https://example.com", "example.com:443", "wss"),
        ("https://example.com:443", "example.com", "wss"),
        ("HTTPS://Example.COM:8443", "example.com:8443", "WSS"),
        ("http://[::1]:8000", "[::1]:8000", "ws"),
        ("https://play.example", "localhost:8000", "ws"),
    ],
)
def test_allowed(origin: str | None, host: str, scheme: str) -> None:
    assert is_allowed_origin(origin, host, scheme, ALLOWED)


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        ("http://evil.example", "localhost:8000", "ws"),
        ("http://localhost:8001", "localhost:8000", "ws"),
        ("http://localhost", "localhost:8000", "ws"),
        ("http://localhost.evil:8000", "localhost:8000", "ws"),
        ("null", "localhost:8000", "ws"),
        ("file://", "localhost:8000", "ws"),
        ("http://localhost:99999", "localhost:8000", "ws"),
        ("http://localhost:8000", None, "ws"),
        ("https://play.example.evil", "localhost:8000", "ws"),
        # Another scheme is another origin (issue 10 item 5), on the same host and port.
        ("https://localhost:8000", "localhost:8000", "ws"),
        ("http://example.com", "example.com", "wss"),
        ("http://example.com:443", "example.com:443", "wss"),
        ("ws://localhost:8000", "localhost:8000", "ws"),
        ("https://example.com", "example.com", "ftp"),
        # An Origin is scheme://host[:port]: nothing hides in a user or a path.
        ("http://evil.example@localhost:8000", "localhost:8000", "ws"),
        ("http://localhost:8000/evil", "localhost:8000", "ws"),
    ],
)
def test_refused(origin: str, host: str | None, scheme: str) -> None:
    assert not is_allowed_origin(origin, host, scheme, ALLOWED)
