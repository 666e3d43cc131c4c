"""The client's page carries the API's first answers for the browser that asked
(``page_answers.py``): exactly what the API answers that browser, nothing for anyone else."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from spectacular_bid.web.app import create_app
from spectacular_bid.web.page_answers import answers_block
from spectacular_bid.web.settings import REPO_STATIC, WebSettings

from .guests import bearer, guest, joined_match

_BLOCK = re.compile(r'<script type="application/json" id="client-answers">(.*?)</script>', re.S)


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


def timeless(value: Any) -> Any:
    """``value`` without the server's clock readings (``now_ms``), which differ by the time
    between two reads."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k != "now_ms"}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def answers_in(page: httpx.Response) -> dict[str, Any]:
    found = _BLOCK.search(page.text)
    return {} if found is None else dict(json.loads(found[1]))


async def test_a_player_s_match_page_holds_what_the_api_tells_that_player(
    client: httpx.AsyncClient,
) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    for token in (ann, bob):
        page = await client.get(f"/m/{match_id}", headers=bearer(token))
        assert page.headers["cache-control"] == "private, no-cache"
        assert "cookie" in page.headers["vary"].lower()
        answers = answers_in(page)
        assert set(answers) == {"/api/session", f"/api/matches/{match_id}"}
        for path, answer in answers.items():
            asked = (await client.get(path, headers=bearer(token))).json()
            assert timeless(answer) == timeless(asked), path
    ann_view = answers_in(await client.get(f"/m/{match_id}", headers=bearer(ann)))
    bob_view = answers_in(await client.get(f"/m/{match_id}", headers=bearer(bob)))
    assert ann_view != bob_view  # each its own seat's view, never the other's


async def test_a_stranger_gets_the_public_answers_only(client: httpx.AsyncClient) -> None:
    ann, bob = await guest(client, "Ann"), await guest(client, "Bob")
    match_id = await joined_match(client, ann, bob)
    answers = answers_in(await client.get(f"/m/{match_id}"))
    assert set(answers) == {f"/api/matches/{match_id}"}  # no session: its 401 is left out
    asked = (await client.get(f"/api/matches/{match_id}")).json()
    assert timeless(answers[f"/api/matches/{match_id}"]) == timeless(asked)
    assert answers_in(await client.get("/m/nosuchmatch")) == {}  # a 404 is the client's to ask
    lobby = answers_in(await client.get("/", headers=bearer(ann)))
    assert set(lobby) == {"/api/session", "/api/lobby"}


async def test_a_page_with_answers_is_revalidated_and_304_while_they_hold(
    client: httpx.AsyncClient,
) -> None:
    ann = await guest(client, "Ann")
    first = await client.get("/", headers={**bearer(ann), "Accept-Encoding": "gzip"})
    assert first.headers["content-encoding"] == "gzip"
    again = await client.get(
        "/",
        headers={**bearer(ann), "Accept-Encoding": "gzip", "If-None-Match": first.headers["etag"]},
    )
    assert again.status_code == 304


def test_no_answer_can_end_its_block() -> None:
    block = answers_block({"/api/session": {"player": {"name": "</script><b>&"}}})
    inside = block.split(">", 1)[1].rsplit("</script>", 1)[0]
    assert "<" not in inside
    assert ">" not in inside
    assert "&" not in inside
    assert json.loads(inside)["/api/session"]["player"]["name"] == "</script><b>&"
    assert answers_block({}) == ""
