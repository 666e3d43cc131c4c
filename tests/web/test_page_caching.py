"""What a browser gets for the client's page and files: content-hashed names cached for good,
a page revalidated on every visit, gzip for text, and the API's JSON compressed above a small
size (docs/PROTOCOL.md, "Caching and compression").

Only HTTP is looked at here, the way a browser sees it; how the names are made is
``test_client_assets.py``'s.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import REPO_STATIC, WebSettings

IMMUTABLE = "public, max-age=31536000, immutable"
GZIP = {"Accept-Encoding": "gzip"}


class _Loads(HTMLParser):
    """The URLs a page loads from its own origin, and the JSON blocks it carries."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.blocks: dict[str, str] = {}
        self._block: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        url = found.get("src") if tag == "script" else found.get("href") if tag == "link" else None
        if url and url.startswith("/"):
            self.urls.append(url)
        if tag == "script" and found.get("type") == "application/json":
            self._block = found.get("id") or ""

    def handle_data(self, data: str) -> None:
        if self._block is not None:
            self.blocks[self._block] = self.blocks.get(self._block, "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._block = None


def loads(html: str) -> _Loads:
    parser = _Loads()
    parser.feed(html)
    return parser


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[FastAPI]:
    app = create_app(WebSettings(static_dir=REPO_STATIC, fixed_deck_seed=7, data_dir=tmp_path))
    async with app.router.lifespan_context(app):
        yield app


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


async def test_the_page_names_files_a_browser_keeps_for_good(client: httpx.AsyncClient) -> None:
    page = await client.get("/m/abc123", headers=GZIP)
    assert page.status_code == 200
    assert "no-cache" in page.headers["cache-control"]
    assert page.headers["content-encoding"] == "gzip"
    found = loads(page.text)
    scripts = [url for url in found.urls if url.endswith(".js")]
    styles = [url for url in found.urls if url.endswith(".css")]
    assert scripts
    assert styles
    assert len(found.urls) < 20, found.urls  # not one request per module any more
    for url in found.urls:
        response = await client.get(url, headers=GZIP)
        assert response.status_code == 200, url
        if url in scripts and "modulepreload" not in page.text:
            assert response.headers["cache-control"] == IMMUTABLE, url
        if url in styles or url.endswith((".svg", ".json")):
            assert response.headers["cache-control"] == IMMUTABLE, url
        if url.endswith((".js", ".css", ".json")):
            assert response.headers["content-encoding"] == "gzip", url
            assert "accept-encoding" in response.headers["vary"].lower(), url


async def test_the_files_the_client_fetches_itself_are_named_by_hash(
    client: httpx.AsyncClient,
) -> None:
    names = json.loads(loads((await client.get("/")).text).blocks["client-assets"])
    for path in ("i18n/en.json", "i18n/uk.json", "i18n/fi.json", "rules/en.html"):
        url = names[path]
        assert re.fullmatch(rf"/{path.rsplit('.', 1)[0]}\.[0-9a-f]{{12}}\.\w+", url), url
        response = await client.get(url, headers=GZIP)
        assert response.headers["cache-control"] == IMMUTABLE
        assert response.content == (REPO_STATIC / path).read_bytes()  # httpx un-gzips


async def test_a_revisited_page_costs_a_304(client: httpx.AsyncClient) -> None:
    first = await client.get("/", headers=GZIP)
    again = await client.get("/", headers={**GZIP, "If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    assert again.content == b""


async def test_plain_paths_are_still_served_and_revalidated(client: httpx.AsyncClient) -> None:
    response = await client.get("/js/layout.js")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["content-type"].startswith("text/javascript")
    tagged = await client.get("/js/layout.js", headers={"If-None-Match": response.headers["etag"]})
    assert tagged.status_code == 304


async def test_text_is_sent_plain_to_a_client_that_does_not_accept_gzip(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/css/base.css", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in response.headers
    assert response.content == (REPO_STATIC / "css" / "base.css").read_bytes()


async def test_the_api_s_json_is_compressed_above_a_small_size(client: httpx.AsyncClient) -> None:
    big = await client.get("/openapi.json", headers=GZIP)
    assert big.headers["content-encoding"] == "gzip"
    raw = await client.get("/openapi.json", headers={"Accept-Encoding": "identity"})
    assert int(big.headers["content-length"]) < len(raw.content) / 3
    small = await client.get("/api/lobby", headers=GZIP)
    assert len(small.content) < 1024
    assert "content-encoding" not in small.headers


async def test_a_gzipped_body_is_the_file_in_gzip(client: httpx.AsyncClient) -> None:
    async with client.stream("GET", "/css/base.css", headers=GZIP) as response:
        raw = b"".join([chunk async for chunk in response.aiter_raw()])
    assert response.headers["content-encoding"] == "gzip"
    assert gzip.decompress(raw) == (REPO_STATIC / "css" / "base.css").read_bytes()
