"""D7 in a real browser: while a player's first decision runs, that player is told how long is
left before the match is aborted, and the opponent that the player has that long; when it
runs out, both result cards say whose first decision never came and that nothing is rated. The
grace is shortened to 6 s and the match's delay to 1 s, so the first decision runs 7 s."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .server import BrowserServer, serve
from .ui import api_guest, eventually, press_start

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserServer]:
    flags = ("--first-decision-grace-ms", "6000", "--grace-ms", "60000")
    yield from serve(tmp_path_factory.mktemp("first-decision-server"), *flags)


def test_d7_both_players_see_the_first_decision_run_out_and_the_match_aborted(
    tabs: Tabs,
) -> None:
    ann, bob = tabs.open("ann"), tabs.open("bob")
    api_guest(ann, "Ann")
    api_guest(bob, "Bob")
    match_id: str = ann.api_post(
        "/api/matches", {"mode": "invite", "bank_ms": 60_000, "delay_ms": 1_000}
    )["id"]
    bob.api_post(f"/api/matches/{match_id}/join")
    players = {"first": ann, "second": bob}
    for tab in players.values():
        tab.page.goto(f"{tab.base_url}/m/{match_id}")
        expect(tab.page.locator("#match")).to_be_attached()
        press_start(tab)
    # Each Start is a command on its page's socket: the round is dealt once the server has both.
    view = eventually(
        ann,
        lambda: ann.snapshot(match_id)["match"],
        lambda view: view["first_decision_deadline_ms"] is not None,
        "both Starts never dealt a round with a first decision running (D7)",
    )
    deciding = view["to_act"]
    name = {"first": "Ann", "second": "Bob"}[deciding]
    waiting = "second" if deciding == "first" else "first"
    mine = players[deciding].page.locator("#first-decision")
    theirs = players[waiting].page.locator("#first-decision")
    expect(mine).to_have_text(
        re.compile(r"^Make your first move within \d s or the match is aborted\.$")
    )
    expect(theirs).to_have_text(
        re.compile(
            rf"^{name} has \d s to make a first move, or the match is aborted \(unrated\)\.$"
        )
    )
    players[deciding].shot("first-decision-countdown")
    for tab in players.values():
        result = tab.page.locator("#result")
        expect(result).to_contain_text("Match aborted")
        expect(result).to_contain_text(f"Aborted — {name} made no first decision · unrated")
        expect(tab.page.locator("#first-decision")).to_be_hidden()
    players[waiting].shot("first-decision-aborted")
    log = players[waiting].page.locator("#move-log-list")
    expect(log).to_contain_text(f"The match is aborted: {name} made no first decision (unrated).")
