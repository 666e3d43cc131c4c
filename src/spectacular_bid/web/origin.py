"""Which browser origins may open a match socket or change anything (a foreign
``Origin`` is refused), and which requests another site's page sent (:func:`foreign_page`).

Cookies ride along on a cross-site WebSocket handshake — browsers apply no same-origin rule to
WebSockets — so without this check any page a player visits could act for their seat. A
handshake without ``Origin`` comes from a non-browser client, which holds its own token.

An origin is its scheme, host and port together (RFC 6454): ``https://host:port`` is not the
origin of a plain-http server on ``host:port``, whatever serves it. The server's own origin has
the scheme of the request (``ws`` is served to ``http`` pages, ``wss`` to ``https`` ones); behind
a proxy that ends TLS, the proxy says so (``X-Forwarded-Proto``, which uvicorn applies for a
trusted proxy) or the public origin goes in ``SPECBID_ALLOWED_ORIGINS``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final
from urllib.parse import urlsplit

OTHER_SITES: Final = frozenset({"cross-site", "same-site"})
"""``Sec-Fetch-Site`` values of a request a page of another origin made. ``same-site`` too: a
sibling host (another subdomain of the same site, possibly someone else's) is exactly where a
SameSite=Lax cookie still rides along, so the cookie does not stop it and this must."""

_DEFAULT_PORTS = {"http": 80, "https": 443}
_PAGE_SCHEME = {"ws": "http", "wss": "https", "http": "http", "https": "https"}
"""The scheme of the pages a request's scheme serves (uvicorn gives ``ws``/``wss``)."""


def _host_port(host: str, scheme: str) -> str | None:
    """``host[:port]`` lowercased with the scheme's default port dropped; None if malformed."""
    try:
        parts = urlsplit(f"//{host}")
        hostname, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not hostname:
        return None
    if port is None or port == _DEFAULT_PORTS.get(scheme):
        return hostname
    return f"{hostname}:{port}"


def is_allowed_origin(
    origin: str | None, host: str | None, scheme: str, allowed: Collection[str]
) -> bool:
    """True when ``origin`` is absent, is the server's own origin (the request's scheme as a
    page's, with the host and port of its ``Host`` header), or is listed in ``allowed``
    (normalized origins)."""
    if origin is None:
        return True
    normalized = origin.strip().rstrip("/").lower()
    if normalized in allowed:
        return True
    own_scheme = _PAGE_SCHEME.get(scheme.lower())
    if own_scheme is None or host is None:
        return False
    try:
        parts = urlsplit(normalized)
    except ValueError:
        return False
    if parts.scheme != own_scheme or not parts.netloc or "@" in parts.netloc:
        return False
    if parts.path or parts.query or parts.fragment:
        return False  # a browser's Origin is scheme://host[:port], nothing more
    own = _host_port(host.lower(), own_scheme)
    return own is not None and _host_port(parts.netloc, own_scheme) == own


def foreign_page(headers: Mapping[str, str], scheme: str, allowed: Collection[str]) -> str | None:
    """What shows that another site's page sent the request, or None when nothing does.

    Three signs, any one enough (docs/PROTOCOL.md, Security): an ``Origin`` that is not allowed
    (:func:`is_allowed_origin`); a ``Sec-Fetch-Site`` of ``cross-site`` or ``same-site`` from a
    page whose ``Origin`` is not listed in ``allowed`` (the browser itself says the page is not
    this server's); or, with no ``Origin``, a ``Referer`` whose origin is not allowed (a browser
    that sends no ``Origin`` still names the page). ``same-origin``, ``none`` (the user typed or
    chose the address) and no such header at all (a program, which carries its own token) show
    nothing."""
    host = headers.get("host")
    origin = headers.get("origin")
    if origin is not None and not is_allowed_origin(origin, host, scheme, allowed):
        return f"Origin {origin}"
    site = headers.get("sec-fetch-site", "").strip().lower()
    if site in OTHER_SITES and (
        origin is None or origin.strip().rstrip("/").lower() not in allowed
    ):
        return f"Sec-Fetch-Site: {site}"
    referer = headers.get("referer")
    if origin is None and referer is not None:
        page = referer_origin(referer)
        if page is None or not is_allowed_origin(page, host, scheme, allowed):
            return f"Referer {page or referer[:100]}"
    return None


def referer_origin(referer: str) -> str | None:
    """The origin (``scheme://host[:port]``) of the page a ``Referer`` names; None when it is not
    an absolute http(s) URL."""
    try:
        parts = urlsplit(referer.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.netloc or "@" in parts.netloc:
        return None
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"
