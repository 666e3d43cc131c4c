"""The origin checks (PROTOCOL.md "Limits and close codes"): the server's own host, listed origins,
or none; and the signs of a request made by another site's page (`Sec-Fetch-Site`, a foreign
`Referer`)."""

from __future__ import annotations

import pytest

from spectacular_bid.web.origin import foreign_page, is_allowed_origin

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
        # Another scheme is another origin (PROTOCOL.md "Limits and close codes"), on the same host
        # and port.
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


# -- another site's page, by any of its signs --------------------------------------------------

OWN = {"host": "localhost:8000"}


@pytest.mark.parametrize(
    ("headers", "sign"),
    [
        ({"origin": "http://evil.example"}, "Origin http://evil.example"),
        ({"sec-fetch-site": "cross-site"}, "Sec-Fetch-Site: cross-site"),
        ({"sec-fetch-site": "Same-Site"}, "Sec-Fetch-Site: same-site"),
        # A browser's own page never says cross-site: the headers contradict each other.
        (
            {"sec-fetch-site": "cross-site", "origin": "http://localhost:8000"},
            "Sec-Fetch-Site: cross-site",
        ),
        ({"referer": "https://evil.example/a?b"}, "Referer https://evil.example"),
        ({"referer": "http://localhost:8000.evil/"}, "Referer http://localhost:8000.evil"),
        ({"referer": "android-app://x"}, "Referer android-app://x"),
        ({"referer": "/relative"}, "Referer /relative"),
    ],
)
def test_a_page_of_another_site_shows(headers: dict[str, str], sign: str) -> None:
    assert foreign_page({**OWN, **headers}, "http", ALLOWED) == sign


@pytest.mark.parametrize(
    "headers",
    [
        {},  # a program
        {"sec-fetch-site": "none"},  # the user typed the address
        {"sec-fetch-site": "same-origin", "origin": "http://localhost:8000"},
        {"sec-fetch-site": "same-origin"},
        {"referer": "http://localhost:8000/m/abc"},
        {"referer": "http://localhost:8000/m/abc", "sec-fetch-site": "same-origin"},
        # A listed origin is another site by design (a front end of its own).
        {"sec-fetch-site": "cross-site", "origin": "https://play.example"},
        {"sec-fetch-site": "same-site", "origin": "https://play.example/"},
        # With an Origin, the Referer is not read (the Origin is the page's own word).
        {"origin": "http://localhost:8000", "referer": "https://evil.example/"},
        {"sec-fetch-site": "something-new"},
    ],
)
def test_nothing_shows_another_sites_page(headers: dict[str, str]) -> None:
    assert foreign_page({**OWN, **headers}, "http", ALLOWED) is None
