"""R7.5: a shared-device match hides every tile behind the hand-over screen until the
next player presses Reveal, after each turn that passes the device."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices
from .ui import (
    ALL_TILES,
    Tab,
    check_offer,
    click_choice,
    enter_name,
    press_start,
    shown_match_id,
    wait_past,
)

pytestmark = pytest.mark.browser

TURNS = 8


def assert_nothing_hidden_shows(tab: Tab, version: int, board: list[str]) -> None:
    """During a hand-over: no hand in the DOM, and no tile but the board's anywhere, since the
    page showed the version that began it."""
    assert tab.page.locator("#hand .tile").count() == 0, "#hand .tile present during a hand-over"
    shown = tab.scan_tiles() | tab.take_sightings(since_version=version)
    leaked = shown & (ALL_TILES - set(board))
    assert not leaked, f"tiles {sorted(leaked)} shown during the hand-over"


def test_the_hand_over_hides_every_tile_until_reveal(tabs: Tabs) -> None:
    device = tabs.open("device")
    enter_name(device, "Dana")
    device.page.locator("[data-action=create-shared]").click()
    device.page.locator("#shared-first").fill("")  # no names: Player 1 and Player 2
    device.page.locator("[data-action=start-shared]").click()
    root = device.page.locator("#match")
    expect(root).to_have_attribute("data-audience", "device")
    match_id = shown_match_id(device, "Dana", "shared")
    version = device.snapshot(match_id)["version"]
    # One press starts a shared-device match, and its card says so.
    expect(root).to_contain_text("One press of Start begins the match for both players")
    press_start(device)
    wait_past(device, version)

    rng = random.Random(5)
    handovers = 0
    for _ in range(TURNS):
        view = device.snapshot(match_id)
        version, match = view["version"], view["match"]
        device.wait_version(version)
        assert match["status"] == "active"
        board = match["board"]["tiles"] if match["board"] else []
        if match["handover"] is not None:
            handovers += 1
            expect(device.page.locator("#handover")).to_be_visible()
            assert match["hand"] is None
            assert_nothing_hidden_shows(device, version, board)
            if handovers == 1:
                device.shot("shared-handover")
            device.page.locator("#handover [data-action=reveal]").click()
            wait_past(device, version)
            view = device.snapshot(match_id)
            version, match = view["version"], view["match"]
            device.wait_version(version)
            expect(device.page.locator("#handover")).to_be_hidden()
        assert match["hand"], "after Reveal the hand is shown"
        check_offer(device, match)
        click_choice(device, match, rng.choice(choices(match["legal"])))
        wait_past(device, version)
    assert handovers >= TURNS // 2, f"only {handovers} hand-overs in {TURNS} decisions"


def test_the_typed_names_are_the_seats_names(tabs: Tabs) -> None:
    """The creator types both players' names: the seats, the match header, the hand-over
    screen, the result and the replay call the two players so."""
    device = tabs.open("device")
    enter_name(device, "Dana")
    page = device.page
    page.locator("[data-action=create-shared]").click()
    expect(page.locator("#shared-first")).to_have_value("Dana")  # one's own name to start from
    page.locator("#shared-first").fill("Ann")
    page.locator("#shared-second").fill("Bob")
    page.locator("[data-action=start-shared]").click()
    expect(page.locator("#match")).to_have_attribute("data-audience", "device")
    match_id = shown_match_id(device, "Ann", "shared")
    expect(page.locator(".match-sub")).to_contain_text("Ann – Bob")
    version = device.snapshot(match_id)["version"]
    press_start(device)
    wait_past(device, version)
    view = device.snapshot(match_id)["match"]
    names = {"first": "Ann", "second": "Bob"}
    turn = names[view["handover"]]
    handover = page.locator("#handover")
    expect(handover).to_be_visible()
    expect(page.locator("#handover-title")).to_contain_text(turn)
    page.locator("#handover [data-action=reveal]").click()
    expect(handover).to_be_hidden()
    expect(page.locator(".seat-bottom .seat-name")).to_have_text(turn)
    expect(page.locator(".seat-top .seat-name")).to_have_text(names[other(view["handover"])])
    expect(page.locator(".hand-title")).to_contain_text(turn)
    page.locator("[data-action=resign]").click()
    expect(page.locator("#confirm-box")).to_contain_text(turn)
    page.locator("#confirm-box [data-action=confirm-yes]").click()
    expect(page.locator("#result")).to_contain_text(f"{names[other(view['handover'])]} wins")

    page.locator('#result a[href^="/replay/"]').click()
    expect(page.locator("#replay-title")).to_have_text("Replay · Ann – Bob")
    expect(page.locator('.replay-seat[data-seat="second"] .seat-name')).to_have_text("Bob")


def other(seat: str) -> str:
    return "second" if seat == "first" else "first"
