"""The computer opponent in the browser: a match against the computer is started from the lobby — a
level and the lobby's time control — and played by clicks to its end; the computer's seat, the
lobby's lines and the profile pages name it by its level and show nothing of a rating for it.

The person bids all-in whenever it may bid and otherwise chooses at random among what the server
allows (checking that the page offers exactly that, R8.1). Round 1 has no auction, so
tiles are always played; from round 2 the all-in bids end the match soon against uniformly
random play, as level 1's (checked on the engine first). The server runs its computer with a
short minimum delay.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Request, Route, expect

from .conftest import Tabs
from .policy import all_in_or_uniform, choices, simulate, uniform
from .server import DECK_SEED, BrowserServer, serve
from .ui import (
    Tab,
    api_guest,
    check_offer,
    click_choice,
    enter_name,
    eventually,
    press_start,
    resign,
    wait_past,
)

pytestmark = pytest.mark.browser

BOT_DELAY_MS = 50
MOVE_SEED = 14
MAX_DECISIONS = 200
"""The person's decisions allowed before the test gives up."""
FORECASTS = 100
MATCH_PAGE = re.compile(r"/m/([A-Za-z0-9_-]+)$")
COMPUTER = "Computer · level 1"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    yield from serve(tmp_path_factory.mktemp("bot-server"), "--bot-delay-ms", str(BOT_DELAY_MS))


def is_create(request: Request) -> bool:
    return request.method == "POST" and request.url.endswith("/api/matches")


def test_all_in_bids_end_a_match_against_random_play_soon() -> None:
    """The precondition of the browser test, from the engine alone (no browser needed): from
    the server's fixed decks, with the computer's random choices sampled."""
    forecasts = [
        simulate(DECK_SEED, seed, policies=(all_in_or_uniform, uniform))
        for seed in range(FORECASTS)
    ]
    assert all(f.placements > 0 for f in forecasts)
    assert max(f.decisions for f in forecasts) <= MAX_DECISIONS
    assert all(0 in f.balances.values() for f in forecasts)


def waits_for_start(match: dict[str, Any]) -> bool:
    """The round waits for the first seat's Start (D3)."""
    return bool(
        match["status"] == "active"
        and match["phase"] == "awaiting_deal"
        and not match["ready"]["first"]
    )


def play_the_computer(tab: Tab, match_id: str, rng: random.Random) -> int:
    """The first seat's clicks until the match ends: Start when the round waits for it (D3), a
    choice on its decision, else the computer's next version. Returns the tiles it played."""
    placements = decisions = 0
    while True:
        view = tab.snapshot(match_id)
        version, match = view["version"], view["match"]
        tab.wait_version(version)
        if match["status"] != "active":
            return placements
        if waits_for_start(match):
            press_start(tab)
            # The computer's own Start may be the next version, before ours is applied: wait
            # for ours, or a second press would look for a button the deal has taken away.
            eventually(
                tab,
                lambda: tab.snapshot(match_id)["match"],
                lambda now: not waits_for_start(now),
                "the server should apply the person's Start",
            )
            continue
        if match["legal"] is not None:
            decisions += 1
            assert decisions <= MAX_DECISIONS, "the match went on longer than forecast"
            check_offer(tab, match)
            choice = all_in_or_uniform(choices(match["legal"]), rng)
            placements += choice[0] == "play"
            click_choice(tab, match, choice)
        wait_past(tab, version)


def test_a_match_against_the_computer_from_the_lobby_to_its_end(tabs: Tabs) -> None:
    ann = tabs.open("ann")
    watcher = tabs.open("watcher")
    enter_name(ann, "Ann")
    page = ann.page
    page.locator("label[for=tc-5-10]").click()
    page.locator("label[for=bot-level-1]").click()
    expect(page.locator("#bot-level-1")).to_be_checked()
    expect(page.locator("#bot-hint")).to_have_text("Plays any legal move: a gentle start.")
    play = page.locator("[data-action=create-bot]")
    expect(play).to_have_text("Play level 1")
    ann.shot("bot-lobby")
    with page.expect_request(is_create) as sent:
        play.click()
    assert sent.value.post_data_json == {
        "mode": "bot",
        "level": 1,
        "bank_ms": 300_000,
        "delay_ms": 10_000,
    }
    expect(page).to_have_url(MATCH_PAGE)
    found = MATCH_PAGE.search(page.url)
    assert found is not None
    match_id = found.group(1)

    # No invitation and no waiting: the computer sits in the second seat at once.
    match = page.locator("#match")
    expect(match).to_have_attribute("data-audience", "first")
    expect(match).to_have_attribute("data-mode", "bot")
    expect(match).to_have_attribute("data-status", "active")
    expect(page.locator("#invite-panel")).to_be_hidden()
    expect(page.locator("#chat")).to_be_hidden()  # the computer reads no chat
    assert ann.snapshot(match_id)["match"]["bot_level"] == 1
    computer = page.locator('.seat-top[data-seat="second"]')
    expect(computer.locator(".seat-name")).to_have_text(COMPUTER)
    expect(computer.locator(".presence")).to_have_text("Random")
    expect(page.locator(".match-sub")).to_have_text(f"Ann – {COMPUTER} · against the computer")

    watcher.page.goto(watcher.base_url + "/")
    live = watcher.page.locator(f'#live-matches [data-match-id="{match_id}"]')
    expect(live.locator(".item-title")).to_have_text(f"Ann vs {COMPUTER}")
    expect(live.locator(".item-meta")).to_contain_text("against the computer")
    watcher.page.goto("about:blank")

    placements = play_the_computer(ann, match_id, random.Random(MOVE_SEED))
    assert placements > 0

    final = ann.snapshot(match_id)["match"]
    assert final["status"] == "finished"
    assert final["bot_level"] == 1
    expect(match).to_have_attribute("data-status", "finished")
    result = page.locator("#result")
    expect(result).to_be_visible()
    won = final["result"]["winner"] == "first"
    expect(result.locator(".card-title")).to_have_text("You won!" if won else "You lost")
    loser = COMPUTER if won else "Ann"
    expect(result).to_contain_text(loser)
    expect(result.locator(".result-balances")).to_contain_text(COMPUTER)
    expect(computer.locator(".seat-name")).to_have_text(COMPUTER)
    expect(page.locator("[data-action=offer-rematch]")).to_have_count(0)
    expect(page.locator("#chat")).to_be_visible()  # ended: the spectators' lines are public
    ann.shot("bot-result")

    page.goto(ann.base_url + "/")
    finished = page.locator(f'#finished-matches [data-match-id="{match_id}"]')
    expect(finished.locator(".item-title")).to_have_text(f"Ann vs {COMPUTER}")

    # Ann's archive names the computer by its level, and nothing says rated or casual.
    me = ann.api("/api/session")["player"]
    page.goto(ann.base_url + ann.api(f"/api/players/{me['id']}")["profile_url"])
    line = page.locator(f'.profile-matches [data-match-id="{match_id}"]')
    expect(line.locator(".item-title")).to_have_text(f"against {COMPUTER}")
    expect(line.locator(".item-meta")).not_to_contain_text("casual")
    expect(line.locator(".item-meta")).not_to_contain_text("rated")
    expect(line.locator("[data-action=rematch]")).to_have_count(0)

    # The computer's own page: its level, no rating.
    line.locator(".item-title a").click()
    profile = page.locator(".profile")
    expect(profile).to_have_attribute("data-bot-level", "1")
    expect(profile.locator(".profile-name")).to_contain_text(COMPUTER)
    expect(profile.locator(".profile-badge")).to_have_text("computer")
    expect(profile.locator("[data-stat=rating]")).to_have_count(0)
    expect(profile.locator(".profile-chart")).to_have_count(0)
    expect(profile.locator(f'[data-match-id="{match_id}"] .item-title')).to_have_text("against Ann")


PHONE = {"width": 360, "height": 740}
MIN_TARGET = 44


def test_the_level_is_chosen_by_keyboard_and_fits_a_phone(tabs: Tabs) -> None:
    tab = tabs.open("phone", viewport=PHONE, is_mobile=True, has_touch=True)
    page = tab.page
    page.goto(tab.base_url + "/")
    page.locator("#bot-level-3").focus()
    page.keyboard.press("ArrowDown")
    expect(page.locator("#bot-level-4")).to_be_checked()
    expect(page.locator("#bot-hint")).to_have_text("Searches more of the hands it cannot see.")
    expect(page.locator("[data-action=create-bot]")).to_have_text("Play level 4")
    page.keyboard.press("Tab")
    expect(page.locator("[data-action=create-bot]")).to_be_focused()
    for target in [*page.locator(".bot-choice").all(), page.locator("[data-action=create-bot]")]:
        box = target.bounding_box()
        assert box is not None
        assert min(box["height"], box["width"]) >= MIN_TARGET, box
        assert 0 <= box["x"] <= box["x"] + box["width"] <= PHONE["width"], box

    # The level chosen is kept for the next visit, in another language.
    page.locator("#lang").select_option("fi")
    expect(page.locator("html")).to_have_attribute("lang", "fi")
    page.reload()
    expect(page.locator("#bot-level-4")).to_be_checked()
    expect(page.locator("label[for=bot-level-4] .bot-level-name")).to_have_text("Syvempi haku")
    expect(page.locator("[data-action=create-bot]")).to_have_text("Pelaa tasoa 4 vastaan")

    # A phone's seat is one line: the computer's shows its level, without the word.
    api_guest(tab, "Mykola")
    match_id = tab.api_post("/api/matches", {"mode": "bot", "level": 4})["id"]
    page.goto(f"{tab.base_url}/m/{match_id}")
    name = page.locator(".seat-top .seat-name")
    expect(name).to_have_text("Tietokone · taso 4")
    expect(name.locator(".computer-kind")).to_be_hidden()
    expect(name.locator(".computer-level")).to_be_visible()
    assert name.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "the level is cut off"
    resign(tab)


def test_a_busy_server_is_told_in_the_page(tabs: Tabs) -> None:
    """All the computer opponents busy (503 with Retry-After): the lobby says so in the page,
    counting down to its next try, and stays."""
    tab = tabs.open("ann")
    enter_name(tab, "Ann")
    tab.allow_refusal(503, "/api/matches")

    def busy(route: Route) -> None:
        body = {"error": {"code": "server_busy", "message": "the computer opponents are busy"}}
        route.fulfill(status=503, json=body, headers={"Retry-After": "7"})

    tab.page.route("**/api/matches", busy)
    tab.page.locator("label[for=bot-level-2]").click()
    tab.page.locator("[data-action=create-bot]").click()
    expect(tab.page.locator(".busy-notice")).to_contain_text(
        "The computer opponents are all busy — trying again in 7 s…"
    )
    expect(tab.page).to_have_url(tab.base_url + "/")
