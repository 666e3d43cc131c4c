"""A phone has no keyboard: a touch screen shows no keyboard hints — no "D" on the Draw button,
no "Keys: arrows, Enter" line under the hand, no keyboard paragraph in the rules — while a
computer with a mouse and keys still shows them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .ui import Tab, api_guest, press_start, wait_past

pytestmark = pytest.mark.browser

PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "is_mobile": True,
    "has_touch": True,
}
KEY_HINT = re.compile(r"\bKeys\b|\(D\)|\bD to draw\b")
VISIBLE_KBD_JS = """() => [...document.querySelectorAll('kbd')]
  .filter((el) => el.getClientRects().length > 0 && !el.closest('[hidden]'))
  .map((el) => el.textContent)"""


def to_first_play(tab: Tab) -> str:
    """A shared-device match of this tab's guest, moved on past its opening to the next
    player's turn of play (revealed), where the hand's hint line speaks; returns its id."""
    match_id: str = tab.api_post("/api/matches", {"mode": "shared"})["id"]
    tab.page.goto(f"{tab.base_url}/m/{match_id}")
    version = tab.snapshot(match_id)["version"]
    tab.wait_version(version)
    press_start(tab)
    wait_past(tab, version)
    for _ in range(4):
        view = tab.snapshot(match_id)
        match = view["match"]
        tab.wait_version(view["version"])
        if match["handover"] is not None:
            tab.page.locator("#handover [data-action=reveal]").click()
        elif match["phase"] == "opening":
            tab.page.locator(f'#hand .tile[data-tile="{match["legal"]["plays"][0]["tile"]}"]').tap()
        else:
            return match_id
        wait_past(tab, view["version"])
    pytest.fail("no turn of play after the opening")


def hints(tab: Tab) -> tuple[str, list[str], int]:
    """The hand's hint line, the keys shown anywhere, and the Draw button's key (drawn into the
    button whether or not it is shown now)."""
    hint = tab.page.locator(".hand-hint")
    expect(hint).not_to_be_empty()
    draw_keys = tab.page.locator("[data-action=draw] kbd").count()
    return hint.text_content() or "", tab.page.evaluate(VISIBLE_KBD_JS), draw_keys


def test_a_touch_screen_shows_no_keyboard_hints(tabs: Tabs) -> None:
    phone = tabs.open("phone", **PHONE)
    api_guest(phone, "Pia")
    match_id = to_first_play(phone)
    text, kbds, draw_keys = hints(phone)
    assert not KEY_HINT.search(text), text
    assert kbds == []
    assert draw_keys == 0
    assert phone.page.locator("[data-action=draw]").get_attribute("aria-keyshortcuts") is None
    phone.page.locator("[data-action=rules]").first.tap()
    keyboard = phone.page.locator("#rules-overlay .keyboard-only")
    expect(keyboard).to_have_count(1)
    expect(keyboard).to_be_hidden()

    # The same seat on a computer: its hints are there.
    desk = tabs.open("desk")
    cookies = phone.context.cookies()
    desk.context.add_cookies(
        [{"name": c["name"], "value": c["value"], "url": desk.base_url} for c in cookies]
    )
    desk.page.goto(f"{desk.base_url}/m/{match_id}")
    desk.wait_version(desk.snapshot(match_id)["version"])
    text, _, draw_keys = hints(desk)
    assert KEY_HINT.search(text), text
    assert draw_keys == 1
    desk.page.locator("[data-action=rules]").first.click()
    expect(desk.page.locator("#rules-overlay .keyboard-only")).to_be_visible()
