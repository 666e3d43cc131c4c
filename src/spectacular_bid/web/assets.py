"""The browser client's files as the server sends them: content-hashed, precompressed, bundled.

Built once from the static folder (and again when a file in it changes, :mod:`.client_files`):

- every file is served under its own path, revalidated on each use (``Cache-Control: no-cache``
  with an ``ETag``), and under a content-hashed name, ``css/base.3f9a1c2b7d4e.css``, cached for
  a year and never revalidated (``public, max-age=31536000, immutable``): a changed file has a
  new name, so a browser never keeps a stale one, and a second visit asks for none of them;
- the page (``index.html``, :mod:`.page_head`) is revalidated on each visit and names the
  current hashed names, so it is the one request a repeat visit makes for the client itself;
- with esbuild (:mod:`.bundler`) the page's module and everything it imports are one script,
  and its stylesheets one stylesheet, both hashed; without it the modules are served as they are,
  each preloaded from the page (``<link rel=modulepreload>``), so a first visit still fetches them
  all at once rather than one level of imports after another;
- every text file (HTML, JS, CSS, JSON, SVG) is gzipped once here, never per request.

docs/PROTOCOL.md ("Caching and compression") describes what a client gets.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import mimetypes
import re
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from spectacular_bid.web.bundler import Bundle, BundleError, bundle
from spectacular_bid.web.page_head import local_path, read_head, write_page

log = logging.getLogger(__name__)

IMMUTABLE = "public, max-age=31536000, immutable"
"""A hashed name's content never changes: a year, never revalidated."""
REVALIDATE = "no-cache"
"""Kept, but asked about (``If-None-Match``) on every use."""
PAGE = "index.html"
BUNDLE_FOLDER = "bundle"
"""Where the bundles are served: ``/bundle/main.<hash>.js`` and ``/bundle/main.<hash>.css``."""
HASH_LENGTH = 12
HASHED_NAME = re.compile(rf"^(?P<stem>.+)\.[0-9a-f]{{{HASH_LENGTH}}}(?P<suffix>\.[^./]+)$")
"""A content-hashed name; one this build does not know is served as its file is now."""
_MEDIA_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".txt": "text/plain; charset=utf-8",
}
"""Fixed here rather than read from the system's tables, which differ between machines."""
_COMPRESSIBLE = re.compile(r"^(text/|application/json|image/svg\+xml)")
_IMPORT = re.compile(
    r"""(?:\bimport\b|\bexport\b)[^;'"`]*?\bfrom\s*["']([^"']+)["']|\bimport\s*["']([^"']+)["']"""
)
"""The specifier of a static ``import … from "…"``, ``export … from "…"`` or ``import "…"``."""


@dataclass(frozen=True)
class Asset:
    """One response body, with its precompressed form when that is smaller."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    digest: str
    """The content hash: the hashed name's and the ``ETag``'s."""
    cache_control: str

    @classmethod
    def of(cls, body: bytes, media_type: str, cache_control: str, compress_level: int = 9) -> Asset:
        """``compress_level``: 9 (the smallest) for what is compressed once, at a build."""
        gzipped = None
        if _COMPRESSIBLE.match(media_type):
            packed = gzip.compress(body, compresslevel=compress_level, mtime=0)
            gzipped = packed if len(packed) < len(body) else None
        return cls(body, gzipped, media_type, _digest(body), cache_control)

    def revalidated(self) -> Asset:
        return Asset(self.body, self.gzipped, self.media_type, self.digest, REVALIDATE)


@dataclass(frozen=True)
class ClientBuild:
    """Everything the client's mount serves, by URL path (without the leading ``/``)."""

    files: Mapping[str, Asset]
    page: Asset | None
    """``index.html`` as served; ``None`` when the folder has none."""
    bundled_by: str | None
    """The bundler that made the script and stylesheet, or ``None``: served unbundled."""

    def find(self, path: str) -> Asset | None:
        """The asset at ``path``; a hashed name of an older build gets the file as it is now,
        revalidated (a page opened before a restart still loads what it fetches later)."""
        if path in ("", PAGE):
            return self.page
        found = self.files.get(path)
        if found is None and (old := HASHED_NAME.match(path)):
            current = self.files.get(old["stem"] + old["suffix"])
            found = current.revalidated() if current is not None else None
        return found


def build(static: Path, esbuild: Path | None) -> ClientBuild:
    """The client of ``static`` as it is now, bundled with ``esbuild`` when one is given."""
    started = time.perf_counter()
    sources = {
        path.relative_to(static).as_posix(): path.read_bytes()
        for path in sorted(static.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.parts)
    }
    files: dict[str, Asset] = {}
    hashed: dict[str, str] = {}
    for name, body in sources.items():
        if name == PAGE:
            continue
        hashed[name] = _add(files, name, body)
    html = sources[PAGE].decode() if PAGE in sources else None
    if html is None:
        return ClientBuild(files, None, None)
    head = read_head(html)
    made = _bundle(esbuild, static, head.entry, head.stylesheets)
    script = style = None
    if made is not None and head.entry is not None:
        script = "/" + _add(files, f"{BUNDLE_FOLDER}/main.js", made.script)
        if head.stylesheets:
            style = "/" + _add(files, f"{BUNDLE_FOLDER}/main.css", made.style)
    preloads = [] if made is not None else _imports_of(head.entry, sources)
    page = write_page(
        html,
        head,
        url_of=lambda path: "/" + hashed[path] if path in hashed else None,
        script=script,
        style=style,
        modulepreloads=["/" + path for path in preloads],
        asset_map={
            name: "/" + url
            for name, url in hashed.items()
            if PurePosixPath(name).parts[0] not in ("js", "css")
        },
    )
    page_asset = Asset.of(page.encode(), _MEDIA_TYPES[".html"], REVALIDATE)
    built = ClientBuild(files, page_asset, made.tool if made is not None else None)
    if head.entry is not None:
        _log_build(built, script, time.perf_counter() - started, len(preloads), esbuild)
    return built


def _add(files: dict[str, Asset], name: str, body: bytes) -> str:
    """Serve ``body`` as ``name`` (revalidated) and as its hashed name (immutable)."""
    pure = PurePosixPath(name)
    media_type = _MEDIA_TYPES.get(pure.suffix) or (
        mimetypes.guess_type(name)[0] or "application/octet-stream"
    )
    asset = Asset.of(body, media_type, IMMUTABLE)
    hashed_name = str(pure.with_name(f"{pure.stem}.{asset.digest}{pure.suffix}"))
    files[hashed_name] = asset
    files[name] = asset.revalidated()
    return hashed_name


def _bundle(
    esbuild: Path | None, static: Path, entry: str | None, stylesheets: tuple[str, ...]
) -> Bundle | None:
    if esbuild is None or entry is None:
        return None
    try:
        return bundle(esbuild, static, entry, stylesheets)
    except BundleError as error:
        log.warning("the client is served unbundled: %s", error)
        return None


def _imports_of(entry: str | None, sources: Mapping[str, bytes]) -> list[str]:
    """Every module ``entry`` imports, directly or not, in the order they are first met."""
    if entry is None or entry not in sources:
        return []
    seen = {entry}
    found: list[str] = []
    queue = deque([entry])
    while queue:
        module = queue.popleft()
        text = sources[module].decode(errors="replace")
        for match in _IMPORT.finditer(text):
            specifier = match.group(1) or match.group(2)
            target = _resolve(module, specifier)
            if target is not None and target in sources and target not in seen:
                seen.add(target)
                found.append(target)
                queue.append(target)
    return found


def _resolve(module: str, specifier: str) -> str | None:
    """A relative or root-relative specifier as a path in the static folder."""
    if specifier.startswith("/"):
        return local_path(specifier)
    if not specifier.startswith(("./", "../")):
        return None
    parts: list[str] = list(PurePosixPath(module).parent.parts)
    for part in specifier.split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return "/".join(parts)


def _digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()[:HASH_LENGTH]


def _log_build(
    built: ClientBuild, script: str | None, seconds: float, preloads: int, esbuild: Path | None
) -> None:
    if script is not None:
        asset = built.files[script[1:]]
        packed = len(asset.gzipped) if asset.gzipped else len(asset.body)
        log.info(
            "client bundled by %s in %.0f ms: %s, %d KB (%d KB gzipped)",
            built.bundled_by,
            seconds * 1000,
            script,
            len(asset.body) // 1024,
            packed // 1024,
        )
    else:
        log.warning(
            "the client's %d modules are served unbundled, each preloaded from the page (%s); "
            "first visits are slower",
            preloads + 1,
            "esbuild failed, see above" if esbuild else "no esbuild: `npm ci` installs it",
        )
