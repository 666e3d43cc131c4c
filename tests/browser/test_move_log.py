"""The move log survives a reload (PROTOCOL.md "The version rule"): a ``state`` message carries
every event of the match so far, and the page draws ``#move-log-list`` from it through the same
narration as the updates, so the list after a reload — or on the page of a spectator arriving late —
reads exactly as the one built move by move. Each entry is ``<li data-version=V data-event=TYPE>``
with the event's sentence."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices
from .ui import Tab, api_guest, check_offer, click_choice, press_start, wait_past

pytestmark = pytest.mark.browser

DECISIONS = 14
"""Moves by click before the reload: round 1's opening, plays with awards, and draws (on the
browser server's fixed deck with :data:`MOVE_SEED`)."""
MOVE_SEED = 9

RECORD = Path(__file__).resolve().parents[1] / "golden" / "records" / "v2_zero_balance.json"
"""Six rounds with auctions, draws and forced passes: 223 events, 121 decisions."""
DECISIONS_TYPES = ("bid_made", "bid_accepted", "declined", "played", "passed")
"""The events that end a decision (R7.2): a bid, an accept, a decline, a placement (its draws
are part of it, R4.3) or a pass; the rest is narration or the service's own."""

NUMBERS_JS = """(selector) => {
  const list = document.querySelector(selector);
  const box = list.getBoundingClientRect();
  return Array.from(list.querySelectorAll('li')).map((li) => {
    const n = li.querySelector('.move-n');
    const b = n ? n.getBoundingClientRect() : null;
    return {
      event: li.dataset.event || '', version: li.dataset.version || '', move: li.dataset.move || '',
      number: n ? n.textContent : null,
      whole: n === null || (n.scrollWidth <= n.clientWidth + 0.5 && b.left >= box.left - 0.5),
    };
  });
}"""

LOG_JS = """() => Array.from(document.querySelectorAll('#move-log-list li'))
  .map((li) => [li.dataset.version || '', li.dataset.event || '', li.textContent || ''])"""

Entry = tuple[str, str, str]
"""``(version, event type, sentence)``."""


def move_log(tab: Tab) -> list[Entry]:
    """Each entry of ``#move-log-list``, top to bottom."""
    return [(version, kind, text) for version, kind, text in tab.page.evaluate(LOG_JS)]


def draws(entries: list[Entry]) -> list[str]:
    return [text for _, kind, text in entries if kind == "drew"]


def open_match(tab: Tab, match_id: str) -> None:
    tab.page.goto(f"{tab.base_url}/m/{match_id}")
    expect(tab.page.locator("#match")).to_be_attached()


def play(players: dict[str, Tab], match_id: str, rng: random.Random, decisions: int) -> int:
    """``decisions`` moves by click, each by the seat to act; returns the version after them."""
    for _ in range(decisions):
        seat = players["first"].snapshot(match_id)["match"]["to_act"]
        tab = players[seat]
        view = tab.snapshot(match_id)
        tab.wait_version(view["version"])
        check_offer(tab, view["match"])
        click_choice(tab, view["match"], rng.choice(choices(view["match"]["legal"])))
        wait_past(tab, view["version"])
    version: int = players["first"].snapshot(match_id)["version"]
    return version


def test_a_reload_draws_the_same_move_log(tabs: Tabs) -> None:
    ann, bob, early, late = (tabs.open(name) for name in ("ann", "bob", "early", "late"))
    api_guest(ann, "Ann")
    api_guest(bob, "Bob")
    match_id = ann.api_post("/api/matches", {"mode": "invite"})["id"]
    bob.api_post(f"/api/matches/{match_id}/join")
    players = {"first": ann, "second": bob}
    for tab in (ann, bob, early):
        open_match(tab, match_id)
    for tab in players.values():
        version = tab.snapshot(match_id)["version"]
        tab.wait_version(version)
        press_start(tab)
        wait_past(tab, version)

    rng = random.Random(MOVE_SEED)
    version = play(players, match_id, rng, DECISIONS)
    for tab in (ann, bob, early):
        tab.wait_version(version)
    before = {tab.name: move_log(tab) for tab in (ann, bob, early)}
    for name, entries in before.items():
        versions = [int(v) for v, _, _ in entries]
        assert versions == sorted(versions), f"{name}: #move-log-list out of order: {entries}"
        assert versions[-1] == version, f"{name}: #move-log-list stops before {version}"
        assert len(entries) > DECISIONS, f"{name}: #move-log-list: {entries}"
        assert [e[:2] for e in entries] == [e[:2] for e in before["early"]], name
    # Each viewer's own list (R2.2): the drawer reads its tiles, the others only "a tile".
    assert draws(before["early"]), "the seeds should give draws before the reload"
    assert not any("[" in text for text in draws(before["early"])), before["early"]
    assert any("[" in text for name in ("ann", "bob") for text in draws(before[name]))

    for tab in players.values():
        tab.page.reload()
    open_match(late, match_id)
    for tab in (ann, bob, late):
        tab.wait_version(version)
        expect(tab.page.locator("#connection")).to_have_attribute("data-state", "online")
    assert move_log(ann) == before["ann"]
    assert move_log(bob) == before["bob"]
    assert move_log(late) == before["early"], "a late spectator reads the list another watched"
    decided = sum(kind in DECISIONS_TYPES for _, kind, _ in before["ann"])
    expect(ann.page.locator(".move-log summary")).to_have_text(f"Moves ({decided})")

    # Updates after the reload add to the list drawn from the log.
    after = play(players, match_id, rng, 1)
    for tab in (ann, bob, early, late):
        tab.wait_version(after)
    grown = move_log(ann)
    assert grown[: len(before["ann"])] == before["ann"]
    assert len(grown) > len(before["ann"]), grown
    assert grown[-1][0] == str(after), grown
    assert move_log(bob)[: len(before["bob"])] == before["bob"]
    assert move_log(late) == move_log(early)


def decisions_in(events: list[dict[str, object]]) -> int:
    return sum(e["type"] in DECISIONS_TYPES for e in events)


def test_the_whole_move_list_is_numbered_by_decisions(tabs: Tabs) -> None:
    viewer = tabs.open("viewer")
    api_guest(viewer, "Vera")
    match_id = viewer.api_post("/api/records", json.loads(RECORD.read_text()))["id"]
    log = viewer.api(f"/api/matches/{match_id}")["log"]
    logged = [e for e in log if e["type"] != "deck_committed"]
    decisions = decisions_in(log)
    assert len(logged) > 200
    assert decisions > 100

    open_match(viewer, match_id)
    viewer.page.locator(".move-log summary").click()
    items = viewer.page.evaluate(NUMBERS_JS, "#move-log-list")
    # Every event, from the first: not only the last 120.
    assert [(i["version"], i["event"]) for i in items] == [
        (str(e["version"]), e["type"]) for e in logged
    ]
    numbered = [i for i in items if i["number"]]
    assert [i["number"] for i in numbered] == [f"{n}." for n in range(1, decisions + 1)]
    for item in items:
        if item["event"] in (*DECISIONS_TYPES, "drew"):
            assert item["move"], item  # each belongs to its decision
        else:
            assert not item["move"], f"narration numbered: {item}"
            assert not item["number"], f"narration numbered: {item}"
    # A placement after draws shares their number (R4.3).
    draws = [i for i, item in enumerate(items) if item["event"] == "drew"]
    after = next(items[i + 1] for i in draws if items[i + 1]["event"] == "played")
    assert after["move"] == items[items.index(after) - 1]["move"]
    assert after["number"] == ""
    clipped = [i["number"] for i in items if not i["whole"]]
    assert clipped == [], "numbers cut off"
    expect(viewer.page.locator(".move-log summary")).to_have_text(f"Moves ({decisions})")

    # The replay numbers its moves the same way, never by version ("v25").
    viewer.page.goto(f"{viewer.base_url}/replay/{match_id}")
    expect(viewer.page.locator("#replay-moves li.move").first).to_be_attached()
    moves = viewer.page.evaluate(NUMBERS_JS, "#replay-moves")
    shown: list[int] = []
    for move in moves:  # "12." or, for a placement and the pass it forced (D2), "12–13."
        if move["number"]:
            first, _, last = move["number"].rstrip(".").partition("–")
            shown.extend(range(int(first), int(last or first) + 1))
    assert shown == list(range(1, decisions + 1))
    assert [m["number"] for m in moves if not m["whole"]] == []
    placed = [e["version"] for e in log if e["type"] == "played"][30]
    viewer.page.goto(f"{viewer.base_url}/replay/{match_id}#v={placed}")
    label = viewer.page.locator("#frame-label")
    expect(label).not_to_have_text(re.compile(r"^v\d"))
    expect(label).to_have_text(re.compile(r"^\d+\. "))
