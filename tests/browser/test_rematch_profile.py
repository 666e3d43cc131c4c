"""Accounts, ratings and rematches in the browser, by clicks: two players register from the lobby,
play a match to its end (a resignation), see the new ratings on their profile pages, and rematch:
one offers, the other accepts, and both (and a spectator) are taken to the new match, seats
swapped."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .ui import (
    Tab,
    account_form,
    enter_name,
    expect_account,
    fill_form,
    invite_link,
    match_id_of,
    resign,
)

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


def register(tab: Tab, name: str) -> None:
    enter_name(tab, name)
    claim = account_form(tab, "claim")
    fill_form(claim, "submit-claim", {"claim-password": PASSWORD, "claim-confirm": PASSWORD})
    expect_account(tab, name)


def test_register_play_see_the_rating_and_rematch_by_clicks(tabs: Tabs) -> None:
    ann, bob, watcher = tabs.open("ann"), tabs.open("bob"), tabs.open("spectator")
    register(ann, "Annikki")
    register(bob, "Bobby")

    ann.page.locator("[data-action=create-invite]").click()
    url = invite_link(ann)
    match_id = match_id_of(url)
    expect(ann.page.locator("#turn-banner")).to_have_text("Waiting for your opponent to join…")
    bob.page.goto(url)
    # A visitor who has not joined is not told it waits for "your opponent".
    expect(bob.page.locator("#turn-banner")).to_have_text("Waiting for a second player to join…")
    bob.page.locator("[data-action=join]").click()
    expect(bob.page.locator("#match")).to_have_attribute("data-audience", "second")
    expect(bob.page.locator(".match-title")).to_have_text("Round 1")  # not "Between rounds"
    watcher.page.goto(url)
    expect(watcher.page.locator("#match")).to_have_attribute("data-audience", "spectator")

    # Resign asks in the page: Cancel and Escape leave the match as it was.
    bob.page.locator("[data-action=resign]").click()
    expect(bob.page.locator("#confirm-box")).to_contain_text(
        "Resign the match? Your opponent wins."
    )
    bob.page.locator("[data-action=confirm-no]").click()
    expect(bob.page.locator("#confirm-box")).to_be_hidden()
    bob.page.locator("[data-action=resign]").click()
    bob.page.keyboard.press("Escape")
    expect(bob.page.locator("#confirm-box")).to_be_hidden()
    expect(bob.page.locator("#match")).to_have_attribute("data-status", "active")
    resign(bob)
    for tab in (ann, bob, watcher):
        expect(tab.page.locator("#result")).to_be_visible()
    expect(ann.page.locator("#result")).to_contain_text("You won")
    expect(ann.page.locator("#result [data-icon=trophy]")).to_have_count(1)
    expect(bob.page.locator("#result")).to_contain_text("You lost")
    expect(bob.page.locator("#result [data-icon=trophy]")).to_have_count(0)  # no trophy
    expect(bob.page.locator("#result [data-icon=flag]")).to_have_count(1)
    expect(watcher.page.locator("#result [data-icon=trophy]")).to_have_count(1)

    # The lobby's finished list counts from the end, and links each player's profile.
    ann.page.goto(ann.base_url + "/")
    finished = ann.page.locator(f'#finished-matches [data-match-id="{match_id}"]')
    expect(finished.locator('a[href="/@/Bobby"]')).to_have_count(1)
    ended_at = ann.api("/api/lobby")["finished"][0]["ended_at_ms"]
    assert isinstance(ended_at, int)

    # The profile: reached from the lobby's own link, the rating moved and charted.
    ann.page.locator("[data-action=my-profile]").click()
    expect(ann.page).to_have_url(re.compile(r"/@/Annikki$"))
    expect(ann.page.locator("[data-stat=rating]")).to_contain_text("1662?")
    expect(ann.page.locator("[data-stat=wins]")).to_have_text("1")
    # One match: a line from the rating it started from to the one it left.
    expect(ann.page.locator(".profile-chart .chart-point")).to_have_count(2)
    line = ann.page.locator(f'.profile-matches [data-match-id="{match_id}"]')
    expect(line).to_contain_text("Bobby")
    line.get_by_role("link", name=re.compile("Bobby")).click()
    expect(ann.page).to_have_url(re.compile(r"/@/Bobby$"))
    expect(ann.page.locator("[data-stat=rating]")).to_contain_text("1338?")
    expect(ann.page.locator("[data-stat=losses]")).to_have_text("1")

    # The rematch: Ann offers from the ended match, Bob accepts; everyone goes there.
    ann.page.goto(url)
    offer = ann.page.locator("[data-action=offer-rematch]")
    expect(offer).to_be_visible()
    expect(watcher.page.locator("[data-action=offer-rematch]")).to_have_count(0)
    offer.click()
    expect(ann.page.locator("[data-rematch=waiting]")).to_be_visible()
    expect(bob.page.locator("[data-rematch=offered]")).to_contain_text("Annikki")
    expect(watcher.page.locator("#rematch")).to_contain_text("Annikki")
    bob.page.locator("[data-action=accept-rematch]").click()
    for tab in (ann, bob, watcher):
        expect(tab.page).not_to_have_url(re.compile(f"/m/{match_id}$"))
        expect(tab.page).to_have_url(re.compile(r"/m/[A-Za-z0-9_-]+$"))
    rematch_id = match_id_of(ann.page.url)
    assert match_id_of(bob.page.url) == match_id_of(watcher.page.url) == rematch_id
    expect(bob.page.locator("#match")).to_have_attribute("data-audience", "first")  # swapped
    expect(ann.page.locator("#match")).to_have_attribute("data-audience", "second")
    expect(watcher.page.locator("#match")).to_have_attribute("data-audience", "spectator")
