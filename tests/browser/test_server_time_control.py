"""The lobby's time controls are the server's (docs/PROTOCOL.md "GET /api/lobby",
``time_controls``): a server started with another bank and delay (R7.1, R7.2) is shown with
them — the standard choice, the custom fields' first values, the lobby's clock fact — and the
client sends that control as the server's own, keeping no number of its own."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Request, expect

from .conftest import Tabs
from .server import BrowserServer, serve
from .ui import enter_name

pytestmark = pytest.mark.browser

BANK_MS = 90_000
DELAY_MS = 5_000
MATCH_PAGE = re.compile(r"/m/([A-Za-z0-9_-]+)$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    folder = tmp_path_factory.mktemp("own-control-server")
    yield from serve(folder, "--bank-ms", str(BANK_MS), "--delay-ms", str(DELAY_MS))


def is_create(request: Request) -> bool:
    return request.method == "POST" and request.url.endswith("/api/matches")


def test_the_lobby_offers_the_servers_own_control(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    enter_name(ann, "Aino")
    page = ann.page
    expect(page.locator("#tc-standard")).to_be_checked()
    expect(page.locator("label[for=tc-standard]")).to_have_text(
        "1 min 30 s + 5 s · standard, rated"
    )
    expect(page.locator("#fact-clock")).to_have_text(
        "90 s of bank for the match, 5 s of delay per decision."
    )
    expect(page.locator("label[for=tc-5-10]")).to_have_text("5 min + 10 s · casual")

    page.locator("label[for=tc-custom]").click()
    expect(page.locator("#tc-bank-min")).to_have_value("1.5")
    expect(page.locator("#tc-delay-s")).to_have_value("5")
    with page.expect_request(is_create) as sent:
        page.locator("[data-action=create-invite]").click()
    assert sent.value.post_data_json == {"mode": "invite"}, "the server's own control"
    expect(page).to_have_url(MATCH_PAGE)
    expect(page.locator("[data-clock=first]")).to_contain_text("1:30")
