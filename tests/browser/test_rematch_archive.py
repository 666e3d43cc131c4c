"""A rematch from the archive, by clicks: after a match has long left the server's memory (here
after one second, as after a day), a player finds it in the history on its profile page and asks
for a rematch; the opponent, in the lobby, sees the offer and accepts it; both are taken to the
new match, the seats swapped."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .server import BrowserServer, serve
from .test_rematch_profile import register
from .ui import invite_link, match_id_of, resign

pytestmark = pytest.mark.browser

TTL_MS = 1000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    """A server that keeps an ended match in memory for only a second."""
    yield from serve(tmp_path_factory.mktemp("archive-server"), "--finished-ttl-ms", str(TTL_MS))


def test_a_rematch_asked_for_from_the_history_is_accepted_from_the_lobby(tabs: Tabs) -> None:
    ann, bob = tabs.open("ann"), tabs.open("bob")
    register(ann, "Annikki")
    register(bob, "Bobby")
    ann.page.locator("[data-action=create-invite]").click()
    url = invite_link(ann)
    match_id = match_id_of(url)
    bob.page.goto(url)
    bob.page.locator("[data-action=join]").click()
    expect(bob.page.locator("#match")).to_have_attribute("data-audience", "second")
    resign(bob)
    expect(ann.page.locator("#result")).to_contain_text("You won")

    bob.page.goto(bob.base_url + "/")
    # The time under test: the match leaves memory, and only the store has it.
    ann.page.wait_for_timeout(3 * TTL_MS)
    ann.page.goto(ann.base_url + "/@/Annikki")
    line = ann.page.locator(f'.profile-matches [data-match-id="{match_id}"]')
    expect(line).to_contain_text("Bobby")
    line.locator("[data-action=rematch]").click()
    expect(ann.page).to_have_url(re.compile(f"/m/{match_id}$"))
    expect(ann.page.locator("[data-rematch=waiting]")).to_contain_text("Bobby")

    offer = bob.page.locator(f'#rematch-offers [data-match-id="{match_id}"]')
    expect(offer.locator(".item-title")).to_contain_text("Annikki")
    expect(offer.locator(".item-title")).to_contain_text("offers a rematch")
    expect(offer.locator("[data-rating]")).to_contain_text("1662?")  # the winner's rating now
    expect(offer.locator(".time-tag")).to_have_attribute("data-bank-ms", "120000")
    offer.locator("[data-action=accept-rematch]").click()
    for tab in (ann, bob):
        expect(tab.page).not_to_have_url(re.compile(f"/m/{match_id}$"))
        expect(tab.page).to_have_url(re.compile(r"/m/[A-Za-z0-9_-]+$"))
    assert match_id_of(ann.page.url) == match_id_of(bob.page.url)
    expect(bob.page.locator("#match")).to_have_attribute("data-audience", "first")  # swapped
    expect(ann.page.locator("#match")).to_have_attribute("data-audience", "second")
    assert bob.api("/api/lobby")["rematch_offers"] == []
