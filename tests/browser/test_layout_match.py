"""A whole match by clicks with the whole table on the screen: in each language,
one player on a 1366×768 laptop and the other on a 360×740 phone play a match from the first
Start to the result, and the layout checker (:mod:`.layoutcheck`) measures both screens at every
decision — the board, the hand, both clocks and names, the banner and the controls of that
decision, a selected tile's places included — and at every Start and Continue and at the end.

The choices follow :mod:`.policy` with a seed whose match, on the server's fixed deck, has two
rounds, an auction with a raise and a draw (checked against the engine first, as in
``test_phone.py``). Each check's screenshot is saved under ``test-artifacts/screenshots/layout/``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .layoutcheck import check
from .policy import Choice, choices, simulate
from .scripted import sign_in
from .server import DECK_SEED
from .ui import (
    Tab,
    api_guest,
    check_offer,
    click_choice,
    eventually,
    press_start,
    resign,
    seated,
    wait_past,
)

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-US", "uk": "uk-UA", "fi": "fi-FI"}
# Reduced motion: the layout is measured at rest either way, and without motion the rest comes
# at once instead of after each score label's 2.6 s float.
LAPTOP: dict[str, Any] = {"viewport": {"width": 1366, "height": 768}, "reduced_motion": "reduce"}
PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "is_mobile": True,
    "has_touch": True,
    "reduced_motion": "reduce",
}
MOVE_SEED = 165
"""With :data:`DECK_SEED`, the uniform policy's match ends after 17 decisions in two rounds."""
NAMES = {"first": "Annabella-Maria Virtanen", "second": "Богдана Коваленко"}
SEATS = ("first", "second")


def needed(match: dict[str, Any]) -> list[str]:
    """The controls a decision needs on the screen, from the server's ``legal``."""
    legal = match["legal"] or {}
    if match["phase"] == "auction":
        found = [f"#auction [data-action={a}]" for a in ("decline", "accept") if legal[f"can_{a}"]]
        if legal["bids"]:
            found.append("#auction .bid-quick [data-action=bid]")
        return found
    found = ['#hand .tile[data-legal="true"]'] if legal.get("plays") else []
    if legal.get("can_draw"):
        found.append("[data-action=draw]")
    return found


class Screens:
    """The two players' pages and every failure the checker found on them."""

    def __init__(self, lang: str, players: dict[str, Tab]) -> None:
        self.lang = lang
        self.players = players
        self.failures: list[str] = []
        self.checks = 0

    def check(self, seat: str, what: str, required: list[str] | None = None) -> None:
        page = self.players[seat].page
        size = page.viewport_size or {"width": 0, "height": 0}
        case = f"{size['width']}×{size['height']} {self.lang} match {what} {seat}"
        self.failures += check(page, case, required or [])
        self.checks += 1


def play(screens: Screens, match_id: str) -> dict[str, Any]:
    """Play the seeded match by clicks, checking both screens at every step; its last view."""
    players = screens.players
    rng = random.Random(MOVE_SEED)
    step = 0
    while True:
        views = {seat: tab.snapshot(match_id) for seat, tab in players.items()}
        version = views["first"]["version"]
        match: dict[str, Any] = views["first"]["match"]
        for tab in players.values():
            tab.wait_version(version)
        if match["status"] != "active":
            return match
        step += 1
        if match["phase"] == "awaiting_deal":
            seat = next(s for s in SEATS if not match["ready"][s])
            screens.check(seat, f"{step:02d}-start", ["[data-action=start]"])
            press_start(players[seat])
            wait_past(players[seat], version)
            continue
        seat = match["to_act"]
        tab = players[seat]
        own = views[seat]["match"]
        check_offer(tab, own)
        screens.check(seat, f"{step:02d}-{own['phase']}", needed(own))
        screens.check("second" if seat == "first" else "first", f"{step:02d}-waits")
        choice: Choice = rng.choice(choices(own["legal"]))
        kind, tile, place = choice
        plays = own["legal"]["plays"]
        places: list[str] = next((p["places"] for p in plays if p["tile"] == tile), [])
        if kind == "play" and len(places) > 1:
            tab.page.locator(f'#hand .tile[data-tile="{tile}"]').click()
            expect(tab.page.locator(f'#board [data-place="{place}"]')).to_be_attached()
            screens.check(seat, f"{step:02d}-places", ["#board [data-place]"])
            tab.page.locator(f'#board [data-place="{place}"]').click()
        else:
            click_choice(tab, own, choice)
        wait_past(tab, version)


@pytest.mark.slow
@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_a_whole_match_fits_a_laptop_and_a_phone(tabs: Tabs, lang: str) -> None:
    forecast = simulate(DECK_SEED, MOVE_SEED)
    assert (forecast.rounds, forecast.auctions, forecast.draws) == (2, 1, 1), forecast
    ann = tabs.open("ann", locale=LOCALES[lang], **LAPTOP)
    bob = tabs.open("bob", locale=LOCALES[lang], **PHONE)
    players = {"first": ann, "second": bob}
    for seat, tab in players.items():
        api_guest(tab, NAMES[seat])
    match_id: str = ann.api_post("/api/matches", {"mode": "invite"})["id"]
    bob.api_post(f"/api/matches/{match_id}/join")
    for tab in players.values():
        tab.page.goto(f"{tab.base_url}/m/{match_id}")
        expect(tab.page.locator("html")).to_have_attribute("lang", lang)
    screens = Screens(lang, players)
    final = play(screens, match_id)
    assert final["status"] == "finished", final["status"]
    for seat, tab in players.items():
        expect(tab.page.locator("#result")).to_be_visible()
        screens.check(seat, "end", ["#result .result-actions a", "#rematch [data-action]"])
    assert screens.checks > 2 * forecast.decisions
    assert not screens.failures, (
        f"{len(screens.failures)} layout failures in {screens.checks} checks:\n"
        + "\n".join(screens.failures)
    )


def test_a_phone_keeps_the_chat_in_a_drawer_that_counts_new_lines(tabs: Tabs) -> None:
    """On a laptop the chat is beside the table; on a phone it is in a drawer opened from the
    match bar, whose button counts the lines said while it was closed."""
    ann = tabs.open("ann", **LAPTOP)
    bob = tabs.open("bob", **PHONE)
    seated(ann, bob)
    toggle = bob.page.locator("[data-action=side]")
    expect(ann.page.locator("#chat")).to_be_visible()
    expect(ann.page.locator("[data-action=side]")).to_be_hidden()
    expect(toggle).to_be_visible()
    expect(bob.page.locator("#chat")).to_be_hidden()
    ann.page.locator("#chat-input").fill("hello from the laptop")
    ann.page.locator("#chat-input").press("Enter")
    expect(toggle.locator(".side-unread")).to_have_text("1")
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(bob.page.locator("#chat .chat-line")).to_contain_text("hello from the laptop")
    expect(toggle.locator(".side-unread")).to_be_hidden()
    bob.page.locator("[data-action=side-close]").click()
    expect(bob.page.locator("#chat")).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")


def test_a_match_against_the_computer_fits_a_laptop_and_a_phone(tabs: Tabs) -> None:
    """Against the computer the side column has no chat to show: the table fits all the same,
    before Start and at the player's first decision, on both screens of one player."""
    laptop = tabs.open("laptop", **LAPTOP)
    token = laptop.api_post("/api/session", {"name": NAMES["first"]})["token"]
    phone = tabs.open("phone", **PHONE)
    sign_in(phone.context, phone.base_url, token)
    match_id: str = laptop.api_post("/api/matches", {"mode": "bot", "level": 1})["id"]
    for tab in (laptop, phone):
        tab.page.goto(f"{tab.base_url}/m/{match_id}")
        expect(tab.page.locator("[data-action=start]")).to_be_visible()
    screens = Screens("en", {"first": laptop, "second": phone})
    for seat in SEATS:
        screens.check(seat, "computer-start", ["[data-action=start]"])
    version = laptop.snapshot(match_id)["version"]
    press_start(laptop)
    wait_past(laptop, version)
    view = eventually(
        laptop,
        lambda: laptop.snapshot(match_id),
        lambda body: body["match"]["legal"] is not None,
        "the player's first decision never came",
    )
    for tab in (laptop, phone):
        tab.wait_version(view["version"])
    for seat in SEATS:
        screens.check(seat, "computer-decision", needed(view["match"]))
    resign(laptop)
    assert not screens.failures, "\n".join(screens.failures)
