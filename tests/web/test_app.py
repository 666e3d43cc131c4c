"""``create_app``: the browser client's folder is served after, and never over, the API."""

from __future__ import annotations

from pathlib import Path

import httpx

from spectacular_bid.web.app import create_app
from spectacular_bid.web.settings import WebSettings


async def test_the_static_folder_is_served_behind_the_api(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<h1>Spectacular Bid</h1>", encoding="utf-8")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "lobby").write_text("shadow", encoding="utf-8")
    app = create_app(WebSettings(static_dir=tmp_path, data_dir=tmp_path))
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://testserver") as client,
    ):
        assert (await client.get("/")).text == "<h1>Spectacular Bid</h1>"
        assert (await client.get("/m/abc123")).text == "<h1>Spectacular Bid</h1>"
        assert (await client.get("/api/lobby")).json()["live"] == []
        assert (await client.get("/docs")).status_code == 200
        missing = await client.get("/nothing.js")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"


async def test_without_a_static_folder_there_are_no_pages(tmp_path: Path) -> None:
    app = create_app(WebSettings(static_dir=tmp_path / "absent", data_dir=tmp_path))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/m/abc123")).status_code == 404
        assert (await client.get("/")).status_code == 404
