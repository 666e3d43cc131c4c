"""The interface in English, Ukrainian and Finnish, switched at any time and remembered;
the rules overlay from every screen; a turn played with the keyboard alone (Tab and arrows,
Enter, D to draw)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices
from .ui import (
    Tab,
    check_offer,
    click_choice,
    enter_name,
    focus_hand_tile,
    focus_place,
    press_start,
    seated,
    wait_past,
)

pytestmark = pytest.mark.browser

CYRILLIC = re.compile("[\u0400-\u04ff]")
MAX_DECISIONS = 60


def rules_label(tab: Tab) -> str:
    return (tab.page.locator("[data-action=rules]").first.inner_text() or "").strip()


def rules_text(tab: Tab) -> str:
    """Open the rules overlay, read it, and close it with Escape."""
    tab.page.locator("[data-action=rules]").first.click()
    overlay = tab.page.locator("#rules-overlay")
    expect(overlay).to_be_visible()
    text = overlay.inner_text()
    tab.page.keyboard.press("Escape")
    expect(overlay).to_be_hidden()
    return text


def test_the_interface_speaks_english_ukrainian_and_finnish(tabs: Tabs) -> None:
    tab = tabs.open("polyglot")
    enter_name(tab, "Oksana")
    html = tab.page.locator("html")
    expect(html).to_have_attribute("lang", "en")
    english = rules_label(tab)
    english_rules = rules_text(tab)
    assert len(english_rules) > 1000, "the rules overlay should hold the full rules"

    tab.page.locator("#lang").select_option("uk")
    expect(html).to_have_attribute("lang", "uk")
    expect(tab.page.locator("[data-action=rules]").first).not_to_have_text(english)
    ukrainian = rules_label(tab)
    assert CYRILLIC.search(ukrainian), f"the Ukrainian rules button reads {ukrainian!r}"
    assert CYRILLIC.search(rules_text(tab)), "the rules overlay is not in Ukrainian"
    tab.shot("lobby-uk")

    tab.page.locator("#lang").select_option("fi")
    expect(html).to_have_attribute("lang", "fi")
    expect(tab.page.locator("[data-action=rules]").first).not_to_have_text(ukrainian)
    finnish = rules_label(tab)
    assert finnish not in (english, ukrainian)
    finnish_rules = rules_text(tab)
    assert finnish_rules != english_rules
    assert not CYRILLIC.search(finnish_rules)

    tab.page.reload()
    expect(html).to_have_attribute("lang", "fi")
    expect(tab.page.locator("#lang")).to_have_value("fi")
    expect(tab.page.locator("[data-action=rules]").first).to_have_text(finnish)

    # The close button as well as Escape, and back to English for the other tests' eyes.
    tab.page.locator("[data-action=rules]").first.click()
    tab.page.locator("[data-action=close-rules]").first.click()
    expect(tab.page.locator("#rules-overlay")).to_be_hidden()
    tab.page.locator("#lang").select_option("en")
    expect(html).to_have_attribute("lang", "en")
    expect(tab.page.locator("[data-action=rules]").first).to_have_text(english)


def _view(tab: Tab, match_id: str) -> tuple[int, dict[str, Any]]:
    view = tab.snapshot(match_id)
    tab.wait_version(view["version"])
    return view["version"], view["match"]


def test_a_turn_by_keyboard_alone(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    bob = tabs.open("bob")
    match_id, players = seated(ann, bob)
    for tab in players.values():
        version, _ = _view(tab, match_id)
        press_start(tab)
        wait_past(tab, version)

    # The opening: Tab into the hand, arrows to the tile, Enter.
    seat = ann.snapshot(match_id)["match"]["to_act"]
    tab = players[seat]
    version, match = _view(tab, match_id)
    check_offer(tab, match)
    tile = match["legal"]["plays"][0]["tile"]
    focus_hand_tile(tab, tile)
    tab.page.keyboard.press("Enter")
    wait_past(tab, version)
    assert tile in tab.snapshot(match_id)["match"]["board"]["tiles"]

    # The reply: a tile with several open places if there is one, Enter, Tab to a place, Enter.
    seat = ann.snapshot(match_id)["match"]["to_act"]
    tab = players[seat]
    version, match = _view(tab, match_id)
    check_offer(tab, match)
    plays = sorted(match["legal"]["plays"], key=lambda p: -len(p["places"]))
    if plays:
        play = plays[0]
        focus_hand_tile(tab, play["tile"])
        tab.page.keyboard.press("Enter")
        if len(play["places"]) > 1:
            focus_place(tab, play["places"])
            tab.page.keyboard.press("Enter")
        wait_past(tab, version)
        assert play["tile"] in tab.snapshot(match_id)["match"]["board"]["tiles"]

    # Play on by clicks until someone must draw; then D.
    rng = random.Random(9)
    for _ in range(MAX_DECISIONS):
        seat = ann.snapshot(match_id)["match"]["to_act"]
        assert seat is not None, "the round ended before anyone had to draw"
        tab = players[seat]
        version, match = _view(tab, match_id)
        check_offer(tab, match)
        if match["legal"]["can_draw"]:
            break
        click_choice(tab, match, rng.choice(choices(match["legal"])))
        wait_past(tab, version)
    else:
        pytest.fail(f"nobody had to draw in {MAX_DECISIONS} decisions")
    boneyard = match["boneyard_count"]
    tab.page.keyboard.press("d")
    wait_past(tab, version)
    after = tab.snapshot(match_id)["match"]
    assert after["boneyard_count"] == boneyard - 1
    assert len(after["hand"]) == len(match["hand"]) + 1
