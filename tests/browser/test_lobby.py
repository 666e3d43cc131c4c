"""The lobby kept current without reloading (an open challenge appears, is accepted and
leaves the list), and the pages at a phone's width (390 × 844) without sideways scrolling.
An open challenge shows its creator's rating as the lobby sends it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Route, expect

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


def challenge(match_id: str, **fields: Any) -> dict[str, Any]:
    """An open challenge's lobby line, as ``GET /api/lobby`` sends one."""
    line = {
        "id": match_id,
        "mode": "open",
        "status": "waiting",
        "first": "Ann",
        "second": None,
        "round_number": 0,
        "spectators": 0,
        "created_at_ms": 1_796_046_218_000,
        "bank_ms": 120_000,
        "delay_ms": 10_000,
    }
    line.update(fields)
    return line


def test_an_open_challenge_shows_its_creators_rating_as_sent(tabs: Tabs) -> None:
    """No ``first_rating`` (a server that does not rate): nothing; null: a guest; a rating: its
    rounded value, with "?" while provisional. A line without a time control shows none."""
    tab = tabs.open("viewer")
    lines = [
        challenge("unrated"),
        challenge("guest", first_rating=None),
        challenge(
            "newcomer",
            first_rating={
                "value": 1499.6,
                "deviation": 350.0,
                "volatility": 0.06,
                "provisional": True,
            },
        ),
        challenge(
            "settled",
            first_rating={
                "value": 1712.4,
                "deviation": 61.2,
                "volatility": 0.06,
                "provisional": False,
            },
        ),
        {k: v for k, v in challenge("untimed").items() if k not in ("bank_ms", "delay_ms")},
    ]
    lobby = {"open_challenges": lines, "live": [], "finished": []}

    def answer(route: Route) -> None:
        route.fulfill(json=lobby)

    tab.page.route("**/api/lobby", answer)
    tab.page.goto(tab.base_url + "/")
    item = {
        m["id"]: tab.page.locator(f'#open-challenges [data-match-id="{m["id"]}"]') for m in lines
    }
    expect(item["unrated"].locator(".time-tag")).to_have_text("2 min + 10 s")
    expect(item["unrated"].locator(".rating-tag")).to_have_count(0)
    expect(item["guest"].locator(".item-name")).to_have_text("Ann guest")
    newcomer = item["newcomer"].locator(".rating-tag")
    expect(newcomer).to_have_attribute("data-rating", "1500?")
    expect(newcomer.locator("[aria-hidden=true]")).to_have_text("1500?")
    expect(newcomer.locator(".sr-only")).to_have_text("provisional rating 1500")
    expect(item["settled"].locator(".rating-tag")).to_have_attribute("data-rating", "1712")
    expect(item["untimed"].locator(".time-tag")).to_have_count(0)
    expect(item["untimed"].locator(".rating-tag")).to_have_count(0)


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
