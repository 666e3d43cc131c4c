"""The client's page as served: ``static/index.html`` with its head naming what the server built.

``index.html`` stays a plain page that names the client's files by their own paths
(``/css/base.css``, ``/js/main.js``, ``/favicon.svg``), so adding a stylesheet or a module needs
nothing but the file and, for a stylesheet, its ``<link>``. The server reads those tags and
writes the page it serves (:mod:`.assets`): the stylesheets become the one bundled stylesheet,
the module script the bundled script (or, without a bundler, the same module with every module it
imports preloaded), every other file the page names its content-hashed name, and a JSON block
before ``</head>`` names the hashed names of the files the client fetches itself (its
dictionaries, the rules). A JSON block is data, not script: a strict Content-Security-Policy
lets it be (``security_headers.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from html.parser import HTMLParser

ASSET_MAP_ID = "client-assets"
"""The id of the JSON block naming the hashed files (read by ``static/js/assets.js``)."""


@dataclass(frozen=True)
class _Tag:
    name: str
    attrs: dict[str, str | None]
    start: int
    end: int


@dataclass(frozen=True)
class PageHead:
    """What the page loads, as paths relative to the static folder."""

    stylesheets: tuple[str, ...]
    """Every ``<link rel=stylesheet>`` of this origin, in the page's order."""
    entry: str | None
    """The ``<script type=module>`` the client starts from, if any."""
    tags: tuple[_Tag, ...] = field(repr=False)


def local_path(url: str | None) -> str | None:
    """``/css/base.css`` → ``css/base.css``; ``None`` for another origin, a query or a fragment."""
    if not url or not url.startswith("/") or url.startswith("//") or any(c in url for c in "?#"):
        return None
    return url[1:]


def read_head(html: str) -> PageHead:
    tags = _Tags.of(html)
    stylesheets = tuple(
        path
        for tag in tags
        if tag.name == "link"
        and "stylesheet" in (tag.attrs.get("rel") or "").split()
        and (path := local_path(tag.attrs.get("href")))
    )
    entries = [
        path
        for tag in tags
        if tag.name == "script"
        and tag.attrs.get("type") == "module"
        and (path := local_path(tag.attrs.get("src")))
    ]
    return PageHead(stylesheets, entries[0] if entries else None, tuple(tags))


def write_page(
    html: str,
    head: PageHead,
    *,
    url_of: Callable[[str], str | None],
    script: str | None,
    style: str | None,
    modulepreloads: Sequence[str],
    asset_map: Mapping[str, str],
) -> str:
    """The page as served.

    ``url_of`` names a file's hashed URL (``None``: leave it); ``script`` and ``style`` are the
    bundles' URLs (``None``: no bundle, each tag kept, its file hashed if ``url_of`` knows it);
    ``modulepreloads`` are URLs preloaded before the entry script; ``asset_map`` goes into the
    JSON block.
    """
    edits: list[tuple[int, int, str]] = []
    first_style = True
    for tag in head.tags:
        path = local_path(tag.attrs.get("href") if tag.name == "link" else tag.attrs.get("src"))
        if path is None:
            continue
        if style is not None and path in head.stylesheets and tag.name == "link":
            replacement = _tag("link", {**tag.attrs, "href": style}) if first_style else ""
            first_style = False
        elif script is not None and path == head.entry and tag.name == "script":
            replacement = _tag("script", {**tag.attrs, "src": script})
        elif path == head.entry and tag.name == "script":
            preloads = "".join(
                _tag("link", {"rel": "modulepreload", "href": u}) for u in modulepreloads
            )
            replacement = preloads + _tag("script", tag.attrs)
        elif (url := url_of(path)) is not None:
            replacement = _tag(
                tag.name, {**tag.attrs, "src" if "src" in tag.attrs else "href": url}
            )
        else:
            continue
        edits.append((tag.start, tag.end, replacement))
    block = json.dumps(dict(sorted(asset_map.items())), separators=(",", ":")).replace("</", "<\\/")
    data = f'  <script type="application/json" id="{ASSET_MAP_ID}">{block}</script>\n'
    closing = html.find("</head>")
    if closing >= 0:
        edits.append((closing, closing, data))
    out = html
    for start, end, replacement in sorted(edits, reverse=True):
        if not replacement:
            start, end = _whole_line(out, start, end)
        out = out[:start] + replacement + out[end:]
    return out


def _tag(name: str, attrs: Mapping[str, str | None]) -> str:
    parts = "".join(
        f" {key}" if value is None else f' {key}="{escape(value, quote=True)}"'
        for key, value in attrs.items()
    )
    return f"<{name}{parts}>"


def _whole_line(html: str, start: int, end: int) -> tuple[int, int]:
    """A removed tag's line too, when the tag stands alone on it."""
    line_start = html.rfind("\n", 0, start) + 1
    line_end = html.find("\n", end)
    line_end = len(html) if line_end < 0 else line_end + 1
    if html[line_start:start].strip() or html[end:line_end].strip():
        return start, end
    return line_start, line_end


class _Tags(HTMLParser):
    """The ``<link>`` and ``<script>`` start tags of a page, with where each stands in the text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", html))]
        self.found: list[_Tag] = []

    @classmethod
    def of(cls, html: str) -> list[_Tag]:
        parser = cls(html)
        parser.feed(html)
        parser.close()
        return parser.found

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("link", "script"):
            return
        line, column = self.getpos()
        start = self._line_starts[line - 1] + column
        text = self.get_starttag_text() or ""
        self.found.append(_Tag(tag, dict(attrs), start, start + len(text)))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
