"""The move log survives a reload (issue 9): a ``state`` message carries every event of the match
so far, and the page draws ``#move-log-list`` from it through the same narration as the updates,
so the list after a reload — or on the page of a spectator arriving late — reads exactly as the
one built move by move. Each entry is ``<li data-version=V data-event=TYPE>`` with the event's
sentence."""

from __future__ import annotations

import random

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
    expect(ann.page.locator(".move-log summary")).to_contain_text(str(len(before["ann"])))

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
