"""The lobby remembers (docs/PROTOCOL.md "GET /api/lobby"): its finished list shows the matches
the server's store holds, newest first, each with its players (linking their profiles), how it
ended, the ratings it moved and its replay; "More" pages on, and a match ending afterwards joins
the top of the list without losing what "More" showed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .lobby_server import Api
from .server import BrowserServer, serve
from .test_lobby import fits_the_width

pytestmark = pytest.mark.browser

JOIN_TIMEOUT_MS = 300
ABORTED = 11
"""Invitations nobody takes: with the rated match, more than the lobby's first page."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    folder = tmp_path_factory.mktemp("lobby-finished")
    yield from serve(folder, "--join-timeout-ms", str(JOIN_TIMEOUT_MS))


def test_the_finished_list_shows_the_store_and_pages(tabs: Tabs, server: BrowserServer) -> None:
    with Api(server) as api:
        check_the_finished_list(tabs, api)


def check_the_finished_list(tabs: Tabs, api: Api) -> None:
    cy = api.guest("Cyril")
    aborted = [api.invitation(cy) for _ in range(ABORTED)]
    api.until(
        "/api/matches?limit=100",
        lambda page: {m["id"] for m in page["matches"]} >= set(aborted),
        "the invitations nobody joined did not end (D3)",
    )
    ann, bo = api.account("Annikki"), api.account("Bohdan")
    rated = api.invitation(ann, bo)
    api.resign(rated, bo)  # Annikki wins a rated match
    lobby = api.get("/api/lobby")
    page = len(lobby["finished"])
    assert lobby["finished"][0]["id"] == rated
    moved = lobby["finished"][0]["first_rating_change"]["change"]
    assert moved > 0

    tab = tabs.open("viewer", viewport={"width": 1366, "height": 800})
    tab.page.goto(tab.base_url + "/")
    items = tab.page.locator("#finished-matches .match-item")
    expect(items).to_have_count(page)
    expect(items.first).to_have_attribute("data-match-id", rated)
    line = tab.page.locator(f'#finished-matches [data-match-id="{rated}"]')
    expect(line.locator('a.player-link[href="/@/Annikki"]')).to_have_text("Annikki")
    expect(line.locator('a.player-link[href="/@/Bohdan"]')).to_have_text("Bohdan")
    expect(line.locator("[data-seat=first] .rating-move [aria-hidden=true]")).to_have_text(
        f"+{moved}"
    )
    expect(line.locator("[data-seat=second] .rating-move [aria-hidden=true]")).to_have_text(
        f"\u2212{moved}"
    )
    expect(line.locator(".item-meta")).to_contain_text("Annikki won · by resignation · rated")
    expect(line.locator("[data-action=replay]")).to_have_attribute("href", f"/replay/{rated}")
    gone = items.nth(1)
    expect(gone.locator(".item-meta")).to_contain_text(
        "Aborted · the second player did not join in time"
    )
    expect(gone.locator(".rating-move")).to_have_count(0)
    tab.shot("lobby-finished-1366x800")

    more = tab.page.locator("[data-action=more-finished]")
    more.click()
    expect(items).to_have_count(ABORTED + 1)
    expect(more).to_be_hidden()  # the last page

    # A match ending now joins the top; the lines "More" showed stay, none twice.
    later = api.invitation(cy)
    expect(items.first).to_have_attribute("data-match-id", later, timeout=15_000)
    expect(items).to_have_count(ABORTED + 2)
    shown = items.evaluate_all("(els) => els.map((el) => el.dataset.matchId)")
    stored = api.get("/api/lobby/finished?limit=100")["matches"]
    assert shown == [m["id"] for m in stored]  # the store's order: by the time each ended
    assert shown[:2] == [later, rated]
    assert set(shown[2:]) == set(aborted)

    tab.page.select_option("#lang", "fi")
    expect(line.locator(".item-meta")).to_contain_text("Voittaja: Annikki")
    expect(tab.page.locator("#finished-matches-title")).to_have_text("Päättyneet ottelut")

    line.locator("[data-action=replay]").click()
    expect(tab.page).to_have_url(f"{tab.base_url}/replay/{rated}")

    phone = tabs.open("phone", viewport={"width": 360, "height": 740}, is_mobile=True)
    phone.page.goto(phone.base_url + "/")
    expect(phone.page.locator("#finished-matches .match-item")).to_have_count(page)
    fits_the_width(phone, "lobby-finished-360x740")
