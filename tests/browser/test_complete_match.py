"""A complete online match played by clicks in two browsers, watched from a third, then
replayed.

Ann creates an invitation in the lobby, Bob opens the link and joins, a spectator opens the match
from the lobby's live list. The two players then play the whole match from the fixed deck by
clicks only, choosing with :mod:`.policy` among what the server allows (the test is the
referee: it reads the truth from ``GET /api/matches/{id}`` with each player's cookie, and checks
that the page offers exactly that). After every change the spectator's DOM — and each player's —
is searched for a hidden tile outside the board and the settlement. Last, the replay viewer is
stepped from the start to the end and must show the same final balances.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices, simulate
from .server import DECK_SEED, BrowserServer
from .ui import (
    ALL_TILES,
    IN_ROUND,
    Tab,
    check_offer,
    click_choice,
    enter_name,
    expect_number,
    invite_link,
    match_id_of,
    press_start,
    wait_past,
)

pytestmark = pytest.mark.browser

MOVE_SEED = 100
"""With :data:`DECK_SEED`, the policy's match: round 1 ends by domino, an auction with raises
opens round 2, which is blocked and ends the match; draws and placements throughout."""
MAX_DECISIONS = 80
SEATS = ("first", "second")


def test_the_seeds_cover_every_event_quickly() -> None:
    """The precondition of the browser test, from the engine alone (no browser needed)."""
    forecast = simulate(DECK_SEED, MOVE_SEED)
    assert forecast.placements > 0
    assert forecast.draws > 0
    assert forecast.auctions > 0
    assert forecast.raises > 0
    assert forecast.blocked_rounds > 0
    assert forecast.rounds >= 2, "a settlement between rounds is needed"
    assert forecast.decisions <= MAX_DECISIONS
    assert sorted(forecast.balances.values()) == [0, 300]


@dataclass
class Seen:
    """What the match showed, counted by the referee."""

    decisions: int = 0
    placements: int = 0
    draws: int = 0
    raises: int = 0
    auctions: int = 0
    blocked_rounds: int = 0
    settlements: int = 0
    transfer_lines: int = 0
    all_in_asked: int = 0
    bids_sent: int = 0
    shots: set[str] = field(default_factory=set)


YOUR_TURN = re.compile(r"^● Your turn · ")


class Referee:
    def __init__(self, match_id: str, players: dict[str, Tab], watcher: Tab) -> None:
        self.match_id = match_id
        self.players = players
        self.watcher = watcher
        self.everyone = [*players.values(), watcher]
        self.rng = random.Random(MOVE_SEED)
        self.seen = Seen()
        self.settled_rounds: set[int] = set()
        self.hidden_at: dict[str, dict[int, frozenset[str]]] = {}
        """Per audience and version, the tiles hidden from it."""

    def sync(self) -> tuple[int, dict[str, dict[str, Any]]]:
        """The current version and each seat's view, once every page shows that version."""
        while True:
            views = {seat: tab.snapshot(self.match_id) for seat, tab in self.players.items()}
            versions = {view["version"] for view in views.values()}
            if len(versions) == 1:
                break
        version = versions.pop()
        for tab in self.everyone:
            tab.wait_version(version)
        return version, {seat: view["match"] for seat, view in views.items()}

    def check_sight(self, version: int, views: dict[str, dict[str, Any]]) -> None:
        """No page shows a hidden tile outside the board and the settlement (R2.2, D4): for the
        spectator every tile not on the board is hidden during a round; for a player, every
        tile not on the board and not in their own hand.

        Both what the page holds now and every tile that appeared since the last check (the
        pages' ``MutationObserver``) are checked. A tile that appeared is a leak when it was
        hidden both at the version the page showed then and now — so neither a page that
        re-renders an older position nor one that updates ``data-version`` a moment after its
        content can mislead the check."""
        match = views["first"]
        hidden: frozenset[str] = frozenset()
        if match["phase"] in IN_ROUND:
            board = match["board"]["tiles"] if match["board"] else []
            hidden = ALL_TILES - set(board)
        hands = {seat: frozenset(views[seat]["hand"] or []) for seat in SEATS}
        audiences: list[tuple[str, Tab, frozenset[str]]] = [
            ("spectator", self.watcher, hidden),
            *((seat, self.players[seat], hidden - hands[seat]) for seat in SEATS),
        ]
        for audience, tab, hidden_now in audiences:
            past = self.hidden_at.setdefault(audience, {})
            past[version] = hidden_now
            leaked = tab.scan_tiles() & hidden_now
            for tile, shown_at in tab.take_sightings_tagged():
                if tile in hidden_now and tile in past.get(shown_at, hidden_now):
                    leaked.add(tile)
            assert not leaked, (
                f"the {audience}'s page shows hidden tiles {sorted(leaked)} outside "
                f"#board/#settlement at version {version} (hands: {dict(hands)})"
            )
        assert self.watcher.page.locator("#hand .tile").count() == 0, "a spectator has a #hand"

    def check_public(self, match: dict[str, Any]) -> None:
        """Balances everywhere; the counts on the players' pages."""
        for tab in self.everyone:
            for seat in SEATS:
                expect_number(tab, f"[data-balance={seat}]", match["balances"][seat])
        if match["phase"] not in IN_ROUND:
            return
        for seat, tab in self.players.items():
            other = "second" if seat == "first" else "first"
            expect_number(tab, "#boneyard-count", match["boneyard_count"])
            expect_number(tab, "#opponent-count", match["hand_counts"][other])

    def check_settlement(self, match: dict[str, Any]) -> None:
        """Between rounds: both hands, the verified deck commitment, Continue (D3, D4)."""
        last = match["last_round"]
        if last is None or last["number"] in self.settled_rounds:
            return
        self.settled_rounds.add(last["number"])
        self.seen.blocked_rounds += last["reason"] == "block"
        if match["phase"] != "awaiting_deal":
            return
        self.seen.settlements += 1
        for tab in self.everyone:
            settlement = tab.page.locator("#settlement")
            expect(settlement).to_be_visible()
            expect(tab.page.locator("#commitment")).to_have_attribute("data-verified", "true")
            shown = {t.get_attribute("data-tile") for t in settlement.locator("[data-tile]").all()}
            both = set(last["hands"]["first"]) | set(last["hands"]["second"])
            assert both <= shown, f"{tab.name}: #settlement lacks the hands' {both - shown}"
            # Each transfer says who gained, and an award the tile.
            names = "|".join(re.escape(p["name"]) for p in match["players"].values())
            why = r"award for \[\d\|\d\]|block, from .+|auction payment from .+"
            gained = re.compile(rf"^({names}) \+\d+ \(({why})\)$")
            for line in settlement.locator(".settle-transfers li > span:last-child").all():
                text = line.text_content() or ""
                assert gained.match(text), f"{tab.name}: a settlement line reads {text!r}"
                self.seen.transfer_lines += 1
        if "settlement" not in self.seen.shots:
            self.watcher.shot("settlement")
            self.seen.shots.add("settlement")

    def step(self) -> bool:
        """Check the current position, then give one command by clicks; False at the end."""
        version, views = self.sync()
        match = views["first"]
        self.check_sight(version, views)
        self.check_public(match)
        self.check_settlement(match)
        if match["status"] != "active":
            return False
        if match["phase"] == "awaiting_deal":
            seat = next(s for s in SEATS if not match["ready"][s])
            press_start(self.players[seat])
            wait_past(self.players[seat], version)
            return True
        seat = match["to_act"]
        tab = self.players[seat]
        own = views[seat]
        check_offer(tab, own)
        # Whose turn it is shows in the tab's title, for a player in another tab.
        other = self.players["second" if seat == "first" else "first"]
        expect(tab.page).to_have_title(YOUR_TURN)
        expect(other.page).not_to_have_title(YOUR_TURN)
        if own["phase"] == "auction" and "auction" not in self.seen.shots:
            tab.shot("auction")
            self.seen.shots.add("auction")
        if (
            own["phase"] == "playing"
            and self.seen.placements >= 6
            and "match" not in self.seen.shots
        ):
            tab.shot("match")
            self.watcher.shot("watching")
            self.seen.shots.add("match")
        choice = self.rng.choice(choices(own["legal"]))
        self.seen.decisions += 1
        assert self.seen.decisions <= MAX_DECISIONS, "the match went on longer than forecast"
        kind = choice[0]
        self.seen.placements += kind == "play"
        self.seen.draws += kind == "draw"
        if own["phase"] == "auction" and self.seen.auctions == 0:
            self.seen.auctions = 1
        if kind == "bid" and own["auction"]["bids"]:
            self.seen.raises += 1
        if own["phase"] == "auction" and own["legal"]["bids"] and not self.seen.all_in_asked:
            self.check_all_in(tab, own, version)
        click_choice(tab, own, choice)
        wait_past(tab, version)
        after = tab.snapshot(self.match_id)["match"]["auction"]
        if kind == "bid" and after is not None:  # the button pressed sent its own amount
            assert after["bids"][-1]["amount"] == int(choice[1])
            self.seen.bids_sent += 1  # (a bid accepted by force at once ends the auction)
        return True

    def check_all_in(self, tab: Tab, own: dict[str, Any], version: int) -> None:
        """The highest bid costs the whole balance (R6.5): it asks in the page, and Cancel sends
        nothing."""
        top = own["legal"]["bids"][-1]
        assert top["loses_match"], f"the top bid {top} should cost the whole balance"
        assert not any(b["loses_match"] for b in own["legal"]["bids"][:-1])
        quick = tab.page.locator(f'#auction .bid-quick [data-amount="{top["amount"]}"]')
        if quick.count():
            quick.click()
        else:
            chosen = tab.page.locator("#auction .bid-chosen [data-action=bid]")
            for _ in range(80):
                if chosen.get_attribute("data-amount") == str(top["amount"]):
                    break
                tab.page.locator("#auction [data-action=bid-more]").click()
            chosen.click()
        question = tab.page.locator("#confirm-box")
        expect(question).to_contain_text("you lose the match at once")
        question.locator("[data-action=confirm-no]").click()
        expect(question).to_be_hidden()
        assert tab.snapshot(self.match_id)["version"] == version  # nothing was sent
        self.seen.all_in_asked += 1


def test_a_complete_match_by_clicks(tabs: Tabs, server: BrowserServer) -> None:
    ann = tabs.open("ann")
    bob = tabs.open("bob")
    watcher = tabs.open("spectator")

    enter_name(ann, "Ann")
    enter_name(bob, "Bob")
    watcher.page.goto(server.url + "/")
    ann.shot("lobby")

    ann.page.locator("[data-action=create-invite]").click()
    url = invite_link(ann)
    assert url.startswith(server.url + "/m/"), f"#invite-link is not a full URL: {url!r}"
    match_id = match_id_of(url)
    expect(ann.page.locator("#match")).to_have_attribute("data-audience", "first")

    bob.page.goto(url)
    bob.page.locator("[data-action=join]").click()
    expect(bob.page.locator("#match")).to_have_attribute("data-audience", "second")

    # The spectator's lobby lists the match as live without a reload.
    watch = watcher.page.locator(f'#live-matches a[href$="/m/{match_id}"]')
    expect(watcher.page.locator(f'#live-matches [data-match-id="{match_id}"]')).to_have_count(1)
    watch.first.click()
    expect(watcher.page.locator("#match")).to_have_attribute("data-audience", "spectator")
    expect(watcher.page.locator("[data-join=full]")).to_have_text(
        "Both seats are taken — you are watching."
    )
    expect(watcher.page.locator("[data-action=join]")).to_have_count(0)
    expect_number(ann, "#spectators", 1, "#spectators should count the one spectator")

    referee = Referee(match_id, {"first": ann, "second": bob}, watcher)
    while referee.step():
        pass

    seen = referee.seen
    # Who opens is told before the opening, in other words than the opening itself.
    log = watcher.page.locator("#move-log-list")
    expect(log).to_contain_text("Bob is to open.")
    expect(log).to_contain_text("Bob opens with [4|4].")
    assert seen.placements > 0
    assert seen.draws > 0
    assert seen.raises > 0, "no raise in the auction"
    assert seen.blocked_rounds > 0, "no blocked round"
    assert seen.settlements >= 1
    assert seen.transfer_lines > 0
    assert seen.all_in_asked == 1
    assert seen.bids_sent > 0

    final = ann.snapshot(match_id)["match"]
    assert final["status"] == "finished"
    assert sorted(final["balances"].values()) == [0, 300]
    for tab in (ann, bob, watcher):
        expect(tab.page.locator("#result")).to_be_visible()
        expect(tab.page.locator("#match")).to_have_attribute("data-status", "finished")

    # The replay, opened from the lobby's finished list, stepped back to the start and forward to
    # the end.
    ann.page.goto(server.url + "/")
    ann.page.locator(f'#finished-matches a[href$="/replay/{match_id}"]').first.click()
    ann.page.wait_for_url(f"**/replay/{match_id}")
    moves = ann.page.locator("#replay-moves [data-version]")
    expect(moves.first).to_be_attached()
    count = moves.count()
    assert count >= seen.decisions, f"#replay-moves lists {count} moves for {seen.decisions}"
    back = ann.page.locator("[data-action=step-back]").first
    forward = ann.page.locator("[data-action=step-forward]").first
    for _ in range(count + 2):
        if back.is_disabled():
            break
        back.click()
    for seat in SEATS:
        expect_number(
            ann, f"[data-balance={seat}]", 150, f"the replay's first frame: [data-balance={seat}]"
        )
    for _ in range(count + 2):
        if forward.is_disabled():
            break
        forward.click()
    for seat in SEATS:
        want = final["balances"][seat]
        expect_number(
            ann, f"[data-balance={seat}]", want, f"the replay's last frame: [data-balance={seat}]"
        )
    ann.shot("replay")
