"""Serving the browser client's files (:mod:`.assets`): the page, its scripts, styles and data.

Mounted at ``/`` after every API route (``app.py``), so it can never shadow the API; the client's
own routes (``/m/{id}``, …) get the same page from ``routes/pages.py``. It answers GET and HEAD:
the precompressed body when the request accepts gzip (``Vary: Accept-Encoding``), ``304`` to an
``If-None-Match`` that names the current ``ETag``, and a ``404`` in the API's error shape for a
path it does not have.

The build follows the folder: at most once a second (``recheck_s``) a request looks at the
files' sizes and modification times, and if any changed the client is built again before it is
answered (in a worker thread, the event loop free meanwhile). A server in production, whose files
do not change, pays one look at some sixty files a second; a developer who edits a module gets
it on the next reload, never a stale bundle.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import anyio
import anyio.to_thread
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from spectacular_bid.web.assets import Asset, ClientBuild, build

PRIVATE_PAGE = "private, no-cache"
"""A page with a browser's own answers in it: no shared cache keeps it."""

RECHECK_S = 1.0
"""How often, at most, the folder is looked at for changed files."""
_Fingerprint = tuple[tuple[str, int, int], ...]


class ClientFiles:
    """The client of one static folder, built on first use and rebuilt when its files change."""

    def __init__(self, static: Path, esbuild: Path | None, recheck_s: float = RECHECK_S) -> None:
        self.static = static
        self.esbuild = esbuild
        self.recheck_s = recheck_s
        self._built: ClientBuild | None = None
        self._fingerprint: _Fingerprint = ()
        self._checked_at = float("-inf")
        self._lock = anyio.Lock()

    async def current(self) -> ClientBuild:
        """The build of the files as they are (looked at no more than once per ``recheck_s``)."""
        now = time.monotonic()
        if self._built is not None and now - self._checked_at < self.recheck_s:
            return self._built
        async with self._lock:
            if self._built is not None and time.monotonic() - self._checked_at < self.recheck_s:
                return self._built
            fingerprint = _fingerprint(self.static)
            if self._built is None or fingerprint != self._fingerprint:
                self._built = await anyio.to_thread.run_sync(build, self.static, self.esbuild)
                self._fingerprint = fingerprint
            self._checked_at = time.monotonic()
            return self._built

    async def page(self, headers: Headers, head_extra: str = "") -> Response:
        """The client's page, for each of its routes, with ``head_extra`` (the API's answers
        for this browser, ``page_answers.py``) before its ``</head>``: such a page is this
        browser's alone, kept only by it (``private``)."""
        built = await self.current()
        if built.page is None:
            raise HTTPException(404, "there is no client page")
        page = built.page
        if head_extra and b"</head>" in page.body:
            body = page.body.replace(b"</head>", head_extra.encode() + b"</head>", 1)
            page = Asset.of(body, page.media_type, PRIVATE_PAGE, compress_level=6)
        return respond(page, headers)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI app of the mount."""
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(405, "the client's files answer GET and HEAD")
        path = str(scope["path"]).removeprefix(str(scope.get("root_path", ""))).lstrip("/")
        asset = (await self.current()).find(path)
        if asset is None:
            raise HTTPException(404, f"no such file: /{path}")
        await respond(asset, Headers(scope=scope))(scope, receive, send)


def respond(asset: Asset, headers: Headers) -> Response:
    """``asset`` as the request's headers ask for it: gzipped or not, or ``304``."""
    packed = asset.gzipped is not None and _accepts_gzip(headers.get("accept-encoding", ""))
    etag = f'"{asset.digest}{"-gz" if packed else ""}"'
    common = {"Cache-Control": asset.cache_control, "ETag": etag}
    if asset.gzipped is not None:
        common["Vary"] = "Accept-Encoding"
    if _matches(headers.get("if-none-match", ""), asset.digest):
        return Response(status_code=304, headers=common)
    if packed:
        assert asset.gzipped is not None
        return Response(
            asset.gzipped,
            headers={**common, "Content-Encoding": "gzip"},
            media_type=asset.media_type,
        )
    return Response(asset.body, headers=common, media_type=asset.media_type)


def _accepts_gzip(accept_encoding: str) -> bool:
    for part in accept_encoding.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            q = params.strip().removeprefix("q=").strip() if "q=" in params else "1"
            try:
                return float(q) > 0
            except ValueError:
                return False
    return False


def _matches(if_none_match: str, digest: str) -> bool:
    """Whether ``If-None-Match`` names either form of this content (plain or gzipped)."""
    for tag in if_none_match.split(","):
        tag = tag.strip().removeprefix("W/")
        if tag == "*" or tag in (f'"{digest}"', f'"{digest}-gz"'):
            return True
    return False


def _fingerprint(static: Path) -> _Fingerprint:
    """Every file's path, size and modification time: a change to any of them is a new build."""
    found = []
    for folder, _dirs, names in os.walk(static):
        for name in names:
            stat = os.stat(os.path.join(folder, name))
            found.append((os.path.join(folder, name), stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(found))
