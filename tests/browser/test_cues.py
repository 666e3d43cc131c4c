"""Issue 12 items 4 and 5 in a real browser: sounds are off until turned on, then the
opponent's placement and one's turn sound; with the tab hidden, "your turn" reaches its title
and, once allowed, a browser notification."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .ui import eventually, press_start, seated, wait_past

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


def test_sounds_and_a_hidden_tab_hear_of_the_turn(tabs: Tabs) -> None:
    ann, bob = tabs.open("ann"), tabs.open("bob")
    ann.context.add_init_script(script=f"({NOTIFICATIONS_JS})()")  # before any page loads
    match_id, players = seated(ann, bob)
    sound = ann.page.locator("[data-action=sound]")
    expect(sound).to_have_attribute("aria-pressed", "false")  # off by default
    sound.click()
    expect(sound).to_have_attribute("aria-pressed", "true")
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
        elif legal["can_accept"]:
            bob.page.locator("#auction [data-action=accept]").click()
        wait_past(bob, view["version"])
    assert ann.snapshot(match_id)["match"]["to_act"] == "first"
    expect(ann.page).to_have_title(re.compile(r"^● Your turn · "))
    eventually(ann, lambda: ann.page.evaluate("window.__notes"), bool, "a notification")
    cues = ann.page.locator("#match")
    eventually(ann, lambda: cues.get_attribute("data-cues") or "", lambda c: "turn" in c, "cue")
    # Bob never turned sounds on: his page played none.
    assert (bob.page.locator("#match").get_attribute("data-cues") or "") == ""
