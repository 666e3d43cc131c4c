"""Ratings where people look, in the browser: both players' ratings beside their names (with
"?" while provisional) and a "rated" mark in the match's bar; at a rated end the result card
shows each player's change ("+162" / "−162"), the one stored; the profile lists each match's
change, and its chart of a single match is a line from the rating it started from, with its
values labelled."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .ui import Tab, resign

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
CHART_JS = """() => {
  const svg = document.querySelector('.profile-chart');
  if (!svg) return null;
  const line = svg.querySelector('polyline');
  return {
    points: line ? line.getAttribute('points').trim().split(/\\s+/).length : 0,
    labels: Array.from(svg.querySelectorAll('text')).map((t) => t.textContent),
  };
}"""


def account(tab: Tab, name: str) -> None:
    tab.api_post("/api/session", {"name": name})
    tab.api_post("/api/account", {"password": PASSWORD})


def signed(change: float) -> str:
    """As the page writes a change: a sign, then the whole points (a minus sign, U+2212)."""
    rounded = round(change)
    return f"+{rounded}" if rounded > 0 else f"\u2212{-rounded}" if rounded < 0 else "±0"


def test_ratings_show_in_the_header_the_result_and_the_profile(tabs: Tabs) -> None:
    ann, bob = tabs.open("ann"), tabs.open("bob")
    account(ann, "Annele")
    account(bob, "Bobbie")
    match_id = ann.api_post("/api/matches", {"mode": "invite"})["id"]
    bob.api_post(f"/api/matches/{match_id}/join")
    for tab in (ann, bob):
        tab.page.goto(f"{tab.base_url}/m/{match_id}")
        expect(tab.page.locator("#match")).to_have_attribute("data-status", "active")
        for seat in ("top", "bottom"):
            expect(tab.page.locator(f".seat-{seat} .seat-who .seat-rating")).to_have_text("1500?")
        expect(tab.page.locator(".match-bar .rated-badge")).to_be_visible()
        expect(tab.page.locator(".match-bar .rated-badge")).to_have_text("Rated")

    resign(bob)
    points = {name: ann.api(f"/api/players/{name}")["ratings"][-1] for name in ("Annele", "Bobbie")}
    ann_change = signed(points["Annele"]["value"] - points["Annele"]["before"])
    bob_change = signed(points["Bobbie"]["value"] - points["Bobbie"]["before"])
    assert ann_change.startswith("+")
    assert bob_change.startswith("\u2212")
    for tab in (ann, bob):
        card = tab.page.locator("#result")
        expect(card).to_be_visible()
        expect(card.locator('.rating-change[data-seat="first"]')).to_have_text(ann_change)
        expect(card.locator('.rating-change[data-seat="second"]')).to_have_text(bob_change)
        expect(card.locator(".result-ratings")).to_contain_text("Annele")
    ann.shot("rated-result")

    ann.page.goto(f"{ann.base_url}/@/Annele")
    line = ann.page.locator(f'.profile-matches [data-match-id="{match_id}"]')
    expect(line.locator(".rating-change")).to_have_text(ann_change)
    chart = ann.page.evaluate(CHART_JS)
    assert chart is not None
    assert chart["points"] == 2, "one match draws a line from the rating it started from"
    labels = " ".join(chart["labels"])
    assert "1500" in labels
    assert str(round(points["Annele"]["value"])) in labels
    ann.shot("profile-one-match")
