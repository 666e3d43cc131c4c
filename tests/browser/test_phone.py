"""A phone in a real browser: on a 360×740 phone a whole match — four rounds, three
auctions, a draw — is played by taps from the first Start to the result, and at every decision
one's hand, one's clock and the buttons of the decision are on the screen without scrolling, and
every target one can tap measures at least 44×44 CSS px."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .policy import choices, simulate
from .server import DECK_SEED
from .ui import SCREENSHOTS, Tab, check_offer, click_choice, press_start, seated, wait_past

pytestmark = pytest.mark.browser

PHONE: dict[str, Any] = {
    "viewport": {"width": 360, "height": 740},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}
MIN_TARGET = 44
MOVE_SEED = 12
"""With :data:`DECK_SEED`, the policy's match ends after 50 decisions in four rounds."""
SEATS = ("first", "second")

TARGETS_JS = """() => {
  const out = [];
  const all = document.querySelectorAll(
    'button, a[href], input, select, summary, [data-place], #hand .tile');
  for (const el of all) {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
    if (el.closest('[hidden]') || el.closest('.sr-only')) continue;
    if (el.tagName === 'INPUT' && el.type === 'checkbox') {
      const label = el.closest('label');
      if (label) {
        const lb = label.getBoundingClientRect();
        const text = (label.textContent || '').trim().slice(0, 30);
        out.push({what: 'label:' + text, w: lb.width, h: lb.height});
        continue;
      }
    }
    const name = (el.getAttribute('data-action') || el.getAttribute('data-place')
      || el.getAttribute('data-tile') || el.getAttribute('aria-label')
      || el.textContent || el.tagName).trim().slice(0, 40);
    out.push({what: el.tagName.toLowerCase() + ':' + name, w: box.width, h: box.height});
  }
  return out;
}"""

BOX_JS = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const b = el.getBoundingClientRect();
  return {top: b.top, bottom: b.bottom, left: b.left, right: b.right};
}"""


COVERED_JS = """() => {
  const boxes = (sel) => [...document.querySelectorAll(sel)]
    .map((el) => el.getBoundingClientRect());
  const cross = (a, b) => a.left < b.right && b.left < a.right
    && a.top < b.bottom && b.top < a.bottom;
  const badges = boxes('#board .score-badge');
  return boxes('#board .target-box').filter((t) => badges.some((b) => cross(t, b))).length;
}"""


def screen_shot(tab: Tab, name: str) -> None:
    """What the phone's screen shows (not the whole page: the dock is pinned to the screen)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.page.evaluate("() => window.scrollTo(0, 0)")
    tab.page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


SETTLED_JS = """() => Promise.all(document.getAnimations()
  .filter(a => a.effect && a.effect.getTiming().iterations !== Infinity)
  .map(a => a.finished.catch(() => null)))"""
"""Waits for every finite animation: a drawn tile flies into the hand from scale 0.7 (motion.js),
and measured in flight it was 43×74 px. A target's size is its size at rest."""


def small_targets(tab: Tab) -> list[str]:
    tab.page.evaluate(SETTLED_JS)
    found = tab.page.evaluate(TARGETS_JS)
    return [
        f"{t['what']} {t['w']:.0f}×{t['h']:.0f}"
        for t in found
        if t["w"] < MIN_TARGET - 0.5 or t["h"] < MIN_TARGET - 0.5
    ]


def on_screen(tab: Tab, selector: str) -> None:
    """``selector`` lies wholly inside the viewport with the page at its top (no scrolling)."""
    box = tab.page.evaluate(BOX_JS, selector)
    assert box is not None, f"{tab.name}: no {selector}"
    height = PHONE["viewport"]["height"]
    width = PHONE["viewport"]["width"]
    inside = box["top"] >= 0 and box["bottom"] <= height and box["left"] >= 0
    if not (inside and box["right"] <= width):
        screen_shot(tab, "phone-off-screen")
        raise AssertionError(f"{tab.name}: {selector} is off the screen: {box}")


def check_decision(tab: Tab, match: dict[str, Any]) -> None:
    tab.page.evaluate("() => window.scrollTo(0, 0)")
    seat = match["viewer"]
    on_screen(tab, f".seat-bottom [data-clock={seat}]")
    legal = match["legal"]
    if match["phase"] == "auction":
        for action in ("decline", "accept"):
            if legal[f"can_{action}"]:
                on_screen(tab, f"#auction [data-action={action}]")
        if legal["bids"]:
            on_screen(tab, "#auction .bid-quick")
    else:
        on_screen(tab, "#hand")
        if legal["can_draw"]:
            on_screen(tab, "[data-action=draw]")
    small = small_targets(tab)
    assert not small, f"{tab.name}: targets under 44×44: {small}"


def test_a_whole_match_on_a_phone_needs_no_scrolling(tabs: Tabs) -> None:
    forecast = simulate(DECK_SEED, MOVE_SEED)
    assert (forecast.rounds, forecast.auctions, forecast.draws) == (4, 3, 1), forecast
    ann, bob = tabs.open("ann", **PHONE), tabs.open("bob", **PHONE)
    match_id, players = seated(ann, bob)
    rng = random.Random(MOVE_SEED)
    decisions = 0
    while True:
        views = {seat: tab.snapshot(match_id) for seat, tab in players.items()}
        version = views["first"]["version"]
        match = views["first"]["match"]
        for tab in players.values():
            tab.wait_version(version)
        if match["status"] != "active":
            break
        if match["phase"] == "awaiting_deal":
            seat = next(s for s in SEATS if not match["ready"][s])
            tab = players[seat]
            tab.page.evaluate("() => window.scrollTo(0, 0)")
            on_screen(tab, "[data-action=start]")
            if match["last_round"] and match["ready"] == {"first": False, "second": False}:
                screen_shot(tab, f"phone-settlement-{match['round_number']}")
            small = small_targets(tab)
            assert not small, f"{tab.name}: targets under 44×44: {small}"
            press_start(tab)
            wait_past(tab, version)
            continue
        seat = match["to_act"]
        tab = players[seat]
        own = views[seat]["match"]
        check_offer(tab, own)
        check_decision(tab, own)
        tiles = (own["board"] or {}).get("tiles") or []
        if len(tiles) == 1 and tiles[0][0] == tiles[0][2]:
            # An opening double is one end: its count shows once.
            badges = tab.page.locator("#board .score-badge")
            expect(badges).to_have_count(1)
            assert badges.text_content() == str(2 * int(tiles[0][0]))
            ends = [p for p in own["board"]["open_places"] if p.endswith(("lineA", "lineB"))]
            assert len(ends) == 2
            branches = len(own["board"]["open_places"]) - len(ends)
            expect(tab.page.locator("#board .open-dot")).to_have_count(branches)
        if decisions == 0:
            screen_shot(tab, "phone-opening")
        if own["phase"] == "auction" and own["legal"]["bids"]:
            screen_shot(tab, "phone-auction")
        choice = rng.choice(choices(own["legal"]))
        if choice[0] == "play" and choice[2]:
            tab.page.locator(f'#hand .tile[data-tile="{choice[1]}"]').click()
            places = next(p["places"] for p in own["legal"]["plays"] if p["tile"] == choice[1])
            if len(places) > 1:
                tab.page.evaluate("() => window.scrollTo(0, 0)")
                for place in places:
                    on_screen(tab, f'[data-place="{place}"]')
                small = small_targets(tab)
                assert not small, f"{tab.name}: place targets under 44×44: {small}"
                # No count covers a place target.
                assert tab.page.evaluate(COVERED_JS) == 0, f"{tab.name}: a badge covers a target"
                screen_shot(tab, "phone-places")
                tab.page.locator(f'[data-place="{choice[2]}"]').first.click()
            wait_past(tab, version)
        else:
            click_choice(tab, own, choice)
            wait_past(tab, version)
        decisions += 1
        if own["phase"] == "playing" and decisions > 6:
            screen_shot(tab, "phone-playing")
    assert match["status"] == "finished", match["status"]
    assert decisions == forecast.decisions
    for tab in players.values():
        expect(tab.page.locator("#result")).to_be_visible()
        assert tab.page.evaluate(BOX_JS, "#result")["top"] < PHONE["viewport"]["height"]
    screen_shot(ann, "phone-result")
