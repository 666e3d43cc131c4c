"""Which browser origins may open a match socket (issue 3 §8: a foreign ``Origin`` is refused).

Cookies ride along on a cross-site WebSocket handshake — browsers apply no same-origin rule to
WebSockets — so without this check any page a player visits could act for their seat. A
handshake without ``Origin`` comes from a non-browser client, which holds its own token.
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


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
    """True when ``origin`` is absent, names the server's own host and port (as the request's
    ``Host`` header gives them), or is listed in ``allowed`` (normalized origins)."""
    if origin is None:
        return True
    normalized = origin.strip().rstrip("/").lower()
    if normalized in allowed:
        return True
    try:
        parts = urlsplit(normalized)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.netloc or host is None:
        return False
    own = _host_port(host.lower(), scheme)
    return own is not None and _host_port(parts.netloc, parts.scheme) == own
