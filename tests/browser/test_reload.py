"""Reloading in the middle of a turn brings the page back to the same position, and the
clock kept running meanwhile (R7.6: nothing stops it)."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices
from .ui import api_guest, check_offer, click_choice, press_start, wait_past

pytestmark = pytest.mark.browser

AWAY_MS = 2_500


def test_a_reload_mid_turn_keeps_the_position_and_the_clock_runs(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    bob = tabs.open("bob")
    api_guest(ann, "Ann")
    api_guest(bob, "Bob")
    # No delay, so the bank itself runs from the first moment of each decision (R7.1, R7.2).
    created = ann.api_post("/api/matches", {"mode": "invite", "bank_ms": 120_000, "delay_ms": 0})
    match_id = created["id"]
    bob.api_post(f"/api/matches/{match_id}/join")
    players = {"first": ann, "second": bob}
    for tab in players.values():
        tab.page.goto(f"{tab.base_url}/m/{match_id}")
        expect(tab.page.locator("#match")).to_be_attached()
    for tab in players.values():
        version = tab.snapshot(match_id)["version"]
        tab.wait_version(version)
        press_start(tab)
        wait_past(tab, version)

    # The opening, by click, so that the turn reloaded is an ordinary one with open places.
    rng = random.Random(3)
    view = ann.snapshot(match_id)
    opener = players[view["match"]["to_act"]]
    view = opener.snapshot(match_id)
    opener.wait_version(view["version"])
    check_offer(opener, view["match"])
    click_choice(opener, view["match"], rng.choice(choices(view["match"]["legal"])))
    wait_past(opener, view["version"])

    seat = ann.snapshot(match_id)["match"]["to_act"]
    tab = players[seat]
    view = tab.snapshot(match_id)
    version, match = view["version"], view["match"]
    tab.wait_version(version)
    check_offer(tab, match)
    # Mid-turn: a tile with several open places is selected, not yet played.
    several = [p["tile"] for p in match["legal"]["plays"] if len(p["places"]) > 1]
    if several:
        tab.page.locator(f'#hand .tile[data-tile="{several[0]}"]').click()
    clock = tab.page.locator(f"[data-clock={seat}]").first
    expect(clock).to_have_attribute("data-running", "true")
    hand_before = tab.hand()
    shown_before = tab.clock_seconds(seat)
    bank_before = match["clock"]["bank_left_ms"][seat]

    tab.page.wait_for_timeout(AWAY_MS)  # the time under test: away, while the clock runs
    tab.page.reload()

    tab.wait_version(version)
    assert tab.version() == version, "the reload changed the match"
    expect(tab.page.locator("#connection")).to_have_attribute("data-state", "online")
    assert tab.hand() == hand_before
    check_offer(tab, match)
    expect(clock).to_have_attribute("data-running", "true")
    shown_after = tab.clock_seconds(seat)
    assert shown_after < shown_before, (
        f"[data-clock={seat}] showed {shown_before} s before the reload and {shown_after} s after"
    )
    bank_after = tab.snapshot(match_id)["match"]["clock"]["bank_left_ms"][seat]
    assert bank_after <= bank_before - AWAY_MS

    # And the turn can be finished after it.
    click_choice(tab, match, rng.choice(choices(match["legal"])))
    wait_past(tab, version)
