"""Issue 5: the lobby kept current without reloading (an open challenge appears, is accepted and
leaves the list), and the pages at a phone's width (390 × 844) without sideways scrolling."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .ui import Tab, api_guest, enter_name, shown_match_id

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def test_an_open_challenge_is_listed_and_accepted_live(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    bob = tabs.open("bob")
    enter_name(ann, "Annikki")
    enter_name(bob, "Bohdan")

    ann.page.locator("[data-action=create-open]").click()
    match_id = shown_match_id(ann, "Annikki", "open")
    expect(ann.page.locator("#match")).to_have_attribute("data-audience", "first")

    challenge = bob.page.locator(f'#open-challenges [data-match-id="{match_id}"]')
    expect(challenge).to_have_count(1)
    challenge.locator("[data-action=accept-challenge]").click()
    expect(bob.page.locator("#match")).to_have_attribute("data-audience", "second")
    expect(ann.page.locator("#match")).to_have_attribute("data-status", "active")
    assert bob.snapshot(match_id)["match"]["players"]["second"]["name"] == "Bohdan"


WIDER_THAN_VIEWPORT_JS = """() => {
  const width = document.documentElement.clientWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.classList.length ? '.' + [...el.classList].join('.') : '');
  return [...document.querySelectorAll('body *')]
    .filter((el) => el.getBoundingClientRect().right > width + 0.5)
    .filter((el) => !el.parentElement
      || el.parentElement.getBoundingClientRect().right <= width + 0.5)
    .slice(0, 8)
    .map((el) => `${name(el)} (right edge ${Math.round(el.getBoundingClientRect().right)} px)`);
}"""


def fits_the_width(tab: Tab, shot: str) -> None:
    """No sideways scrolling; the screenshot is taken first so that it shows any problem."""
    tab.shot(shot)
    overflow = tab.page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    wide = tab.page.evaluate(WIDER_THAN_VIEWPORT_JS)
    assert overflow <= 0, (
        f"{tab.page.url} scrolls sideways by {overflow} px at phone width; too wide: {wide}"
    )


def test_the_pages_fit_a_phone(tabs: Tabs) -> None:
    phone = tabs.open("phone", viewport=PHONE, is_mobile=True, has_touch=True)
    friend = tabs.open("friend")
    enter_name(phone, "Mykola")
    fits_the_width(phone, "phone-lobby")

    api_guest(friend, "Aino")
    match_id = friend.api_post("/api/matches", {"mode": "invite"})["id"]
    phone.page.goto(f"{phone.base_url}/m/{match_id}")
    phone.page.locator("[data-action=join]").tap()
    expect(phone.page.locator("#match")).to_have_attribute("data-audience", "second")
    friend.page.goto(f"{friend.base_url}/m/{match_id}")
    for tab in (friend, phone):
        version = tab.snapshot(match_id)["version"]
        tab.wait_version(version)
        start = tab.visible("[data-action=start]").first
        if tab is phone:
            start.tap()
        else:
            start.click()
        tab.wait_version(version + 1)
    view = phone.snapshot(match_id)
    phone.wait_version(view["version"])
    expect(phone.page.locator("#hand .tile").first).to_be_visible()
    board = phone.page.locator("#board")
    expect(board).to_be_visible()
    box = board.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= PHONE["width"] + 1, f"#board is {box['width']} px wide"
    if view["match"]["to_act"] == "second":
        # The phone's player opens with a tap.
        tile = view["match"]["legal"]["plays"][0]["tile"]
        phone.page.locator(f'#hand .tile[data-tile="{tile}"]').tap()
        phone.wait_version(view["version"] + 1)
        expect(board.locator(f'[data-tile="{tile}"]')).to_have_count(1)
    fits_the_width(phone, "phone-match")
