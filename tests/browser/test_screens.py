"""Screenshots for review: every screen at 360 px (a phone) and 1366 px (a laptop) in each of the
three languages, saved under ``test-artifacts/screenshots/screens/``, with no console error on
any page (the ``tabs`` fixture fails the test on one).

The screens: the lobby before and after a name, the rules overlay, an invitation waiting for its
opponent, the seated table before Start, the auction, the board in play with a tile's places
shown, a spectator's view, the in-page Resign confirmation, the result, the replay, the player's
profile, a shared device's start card and hand-over screen, and a match that does not exist.
Each shot also checks the page is in its language (``<html lang>``) and has no horizontal
scroll bar.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices
from .ui import (
    SCREENSHOTS,
    Tab,
    api_guest,
    click_choice,
    enter_name,
    press_start,
    session_player,
    shown_match_id,
    wait_past,
)

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-US", "uk": "uk-UA", "fi": "fi-FI"}
SIZES = {360: {"width": 360, "height": 740}, 1366: {"width": 1366, "height": 800}}
FOLDER = SCREENSHOTS / "screens"


class Shots:
    def __init__(self, lang: str, width: int) -> None:
        self.lang = lang
        self.width = width
        self.names: list[str] = []
        FOLDER.mkdir(parents=True, exist_ok=True)

    def take(self, tab: Tab, screen: str) -> None:
        expect(tab.page.locator("html")).to_have_attribute("lang", self.lang)
        overflow = tab.page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 1, f"{screen} at {self.width} px scrolls sideways by {overflow} px"
        name = f"{screen}-{self.lang}-{self.width}"
        tab.page.evaluate("() => window.scrollTo(0, 0)")
        tab.page.screenshot(path=str(FOLDER / f"{name}.png"), full_page=True)
        self.names.append(name)


def open_tab(tabs: Tabs, name: str, lang: str, width: int) -> Tab:
    extra: dict[str, Any] = {"is_mobile": True, "has_touch": True} if width < 600 else {}
    return tabs.open(name, locale=LOCALES[lang], viewport=SIZES[width], **extra)


def decide(tab: Tab, match_id: str) -> None:
    view = tab.snapshot(match_id)
    tab.wait_version(view["version"])
    click_choice(tab, view["match"], choices(view["match"]["legal"])[0])
    wait_past(tab, view["version"])


def play_to_the_board(players: dict[str, Tab], match_id: str, shots: Shots) -> None:
    """Decide (first choice) until three tiles are down; shoot the auction on the way."""
    auction_shot = False
    for _ in range(40):
        view = players["first"].snapshot(match_id)["match"]
        if view["board"] and len(view["board"]["tiles"]) >= 3:
            return
        tab = players[view["to_act"]]
        tab.wait_version(tab.snapshot(match_id)["version"])
        if view["phase"] == "auction" and not auction_shot:
            expect(tab.page.locator("#auction")).to_be_visible()
            shots.take(tab, "auction")
            auction_shot = True
        decide(tab, match_id)
    raise AssertionError("three tiles should be down within 40 decisions")


def show_places(tab: Tab, match_id: str) -> bool:
    """Select a hand tile that has several places, if one does: the targets are drawn."""
    match = tab.snapshot(match_id)["match"]
    tab.wait_version(tab.snapshot(match_id)["version"])
    for play in (match["legal"] or {}).get("plays") or []:
        if len(play["places"]) > 1:
            tab.page.locator(f'#hand .tile[data-tile="{play["tile"]}"]').click()
            expect(tab.page.locator("#board [data-place]").first).to_be_visible()
            return True
    return False


@pytest.mark.parametrize("width", sorted(SIZES))
@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_every_screen_in_every_language_and_size(tabs: Tabs, lang: str, width: int) -> None:
    shots = Shots(lang, width)
    ann = open_tab(tabs, "ann", lang, width)
    ann.page.goto(ann.base_url + "/")
    expect(ann.page.locator("#name-input")).to_be_visible()
    shots.take(ann, "lobby-new")
    enter_name(ann, "Ann")
    expect(ann.page.locator("[data-action=create-invite]")).to_be_visible()
    shots.take(ann, "lobby")

    ann.page.locator("[data-action=rules]").first.click()
    expect(ann.page.locator("#rules-overlay figure.worked .score-badge").first).to_be_attached()
    shots.take(ann, "rules")
    ann.page.keyboard.press("Escape")

    match_id: str = ann.api_post("/api/matches", {"mode": "invite"})["id"]
    ann.page.goto(f"{ann.base_url}/m/{match_id}")
    expect(ann.page.locator("#invite-panel")).to_be_visible()
    shots.take(ann, "invite")

    bob = open_tab(tabs, "bob", lang, width)
    api_guest(bob, "Bob")
    bob.api_post(f"/api/matches/{match_id}/join")
    bob.page.goto(f"{bob.base_url}/m/{match_id}")
    players = {"first": ann, "second": bob}
    version = ann.snapshot(match_id)["version"]
    for tab in players.values():
        tab.wait_version(version)
    expect(bob.page.locator("[data-action=start]").first).to_be_visible()
    shots.take(bob, "seated")
    for tab in players.values():
        version = tab.snapshot(match_id)["version"]
        tab.wait_version(version)
        press_start(tab)
        wait_past(tab, version)

    play_to_the_board(players, match_id, shots)
    seat = ann.snapshot(match_id)["match"]["to_act"]
    shots.take(players[seat], "playing")
    if show_places(players[seat], match_id):
        shots.take(players[seat], "places")
    carl = open_tab(tabs, "carl", lang, width)
    api_guest(carl, "Carl")
    carl.page.goto(f"{carl.base_url}/m/{match_id}")
    expect(carl.page.locator("#match")).to_have_attribute("data-audience", "spectator")
    expect(carl.page.locator("#board .board-tile").first).to_be_attached()
    shots.take(carl, "spectator")

    ann.page.locator("[data-action=resign]").click()
    expect(ann.page.locator("#confirm-box")).to_be_visible()
    shots.take(ann, "resign-confirm")
    ann.page.locator("#confirm-box [data-action=confirm-yes]").click()
    for tab, who in ((ann, "result-lost"), (bob, "result-won")):
        expect(tab.page.locator("#result")).to_be_visible()
        shots.take(tab, who)

    ann.page.goto(f"{ann.base_url}/replay/{match_id}")
    expect(ann.page.locator("#replay.replay")).to_be_visible()
    shots.take(ann, "replay")
    profile = session_player(ann)
    assert profile is not None
    ann.page.goto(f"{ann.base_url}/@/{profile['id']}")
    expect(ann.page.locator(f'.profile-matches a[href="/replay/{match_id}"]')).to_be_attached()
    shots.take(ann, "profile")

    ann.page.goto(ann.base_url + "/")
    ann.page.locator("[data-action=create-shared]").click()
    expect(ann.page.locator("#shared-form")).to_be_visible()
    shots.take(ann, "shared-names")
    ann.page.locator("#shared-first").fill("")
    ann.page.locator("[data-action=start-shared]").click()
    expect(ann.page.locator("#match")).to_have_attribute("data-audience", "device")
    expect(ann.page.locator("[data-action=start]").first).to_be_visible()
    shots.take(ann, "shared-start")
    shared = shown_match_id(ann, "Ann", "shared")
    version = ann.snapshot(shared)["version"]
    press_start(ann)
    wait_past(ann, version)
    expect(ann.page.locator("#handover")).to_be_visible()
    shots.take(ann, "shared-handover")

    ann.allow_refusal(404, "/api/matches/nosuchmatch")
    ann.page.goto(f"{ann.base_url}/m/nosuchmatch")
    expect(ann.page.locator(".problem-card")).to_be_visible()
    shots.take(ann, "not-found")
    assert len(shots.names) >= 15, shots.names
