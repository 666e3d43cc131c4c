"""Cues in a real browser: sound is on by default, from a page's first interaction on (a browser
plays nothing before one), behind a toggle that says "Sound on" or "Sound off" in words and is
remembered; the opponent's placement and one's turn sound; with the tab hidden, "your turn"
reaches its title and, once allowed, a browser notification."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices
from .ui import Tab, click_choice, eventually, press_start, seated, wait_past

pytestmark = pytest.mark.browser

NOTIFICATIONS_JS = """() => {
  window.__notes = [];
  class Recorded {
    static permission = 'granted';
    static requestPermission() { return Promise.resolve('granted'); }
    constructor(title, options) { window.__notes.push(title); }
    close() {}
  }
  window.Notification = Recorded;
}"""


def cues_of(tab: Tab) -> str:
    return tab.page.locator("#match").get_attribute("data-cues") or ""


def test_sounds_and_a_hidden_tab_hear_of_the_turn(tabs: Tabs) -> None:
    ann, bob, cleo = tabs.open("ann"), tabs.open("bob"), tabs.open("cleo")
    ann.context.add_init_script(script=f"({NOTIFICATIONS_JS})()")  # before any page loads
    match_id, players = seated(ann, bob)
    cleo.page.goto(f"{cleo.base_url}/m/{match_id}")  # a spectator who touches nothing yet
    for tab in (ann, bob, cleo):
        sound = tab.page.locator("[data-action=sound]")
        expect(sound).to_have_attribute("aria-pressed", "true")  # on by default
        expect(sound).to_have_text("Sound on")  # in words, not an icon alone
    ann.page.locator("[data-action=notify]").click()
    expect(ann.page.locator("[data-action=notify]")).to_have_attribute("aria-pressed", "true")
    for tab in players.values():
        version = tab.snapshot(match_id)["version"]
        tab.wait_version(version)
        press_start(tab)
        wait_past(tab, version)

    # Ann's tab goes to the background (headless Chromium keeps every tab visible, so the page
    # is told it is hidden, as a browser tells it); Bob decides until it is Ann's decision.
    ann.page.evaluate(
        """() => {
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
          Object.defineProperty(document, 'visibilityState', {
            configurable: true, get: () => 'hidden' });
          document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    bob_moves = 0
    for _ in range(6):
        view = bob.snapshot(match_id)
        if view["match"]["to_act"] == "first":
            break
        bob.wait_version(view["version"])
        legal = view["match"]["legal"]
        if legal["can_decline"]:
            bob.page.locator("#auction [data-action=decline]").click()
        elif legal["plays"]:
            bob.page.locator(f'#hand .tile[data-tile="{legal["plays"][0]["tile"]}"]').click()
            bob_moves += 1
        elif legal["can_accept"]:
            bob.page.locator("#auction [data-action=accept]").click()
        wait_past(bob, view["version"])
    assert bob_moves, "Bob should have laid a tile before Ann's turn"
    assert ann.snapshot(match_id)["match"]["to_act"] == "first"
    expect(ann.page).to_have_title(re.compile(r"^● Your turn · "))
    eventually(ann, lambda: ann.page.evaluate("window.__notes"), bool, "a notification")
    eventually(ann, lambda: cues_of(ann), lambda c: "turn" in c and "place" in c, "cues")
    # Cleo saw Bob's placement, but her page has had no interaction: a browser plays nothing.
    cleo.wait_version(ann.snapshot(match_id)["version"])
    assert cues_of(cleo) == ""

    # Ann turns sound off; her page says so, and remembers it.
    ann.page.locator("[data-action=sound]").click()
    for _ in range(2):
        sound = ann.page.locator("[data-action=sound]")
        expect(sound).to_have_attribute("aria-pressed", "false")
        expect(sound).to_have_text("Sound off")
        ann.page.reload()
        ann.wait_version(ann.snapshot(match_id)["version"])
    cleo.page.locator("#match").click(position={"x": 5, "y": 5})  # her first interaction
    assert cues_of(ann) == ""
    for _ in range(8):  # until a placement by Bob, which both Ann and Cleo would hear
        view = ann.snapshot(match_id)
        tab = players[view["match"]["to_act"]]
        mine = tab.snapshot(match_id)
        tab.wait_version(mine["version"])
        choice = choices(mine["match"]["legal"])[0]
        click_choice(tab, mine["match"], choice)
        wait_past(tab, mine["version"])
        if tab is bob and choice[0] == "play":
            break
    else:
        pytest.fail("Bob laid no tile in eight decisions")
    eventually(cleo, lambda: cues_of(cleo), lambda c: "place" in c, "a cue after her click")
    ann.wait_version(ann.snapshot(match_id)["version"])
    assert cues_of(ann) == "", "Ann's reloaded page, with sound off, plays nothing"
