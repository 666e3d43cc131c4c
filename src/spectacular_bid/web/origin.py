"""Which browser origins may open a match socket (issue 3 §8: a foreign ``Origin`` is refused).

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

from collections.abc import Collection
from urllib.parse import urlsplit

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
