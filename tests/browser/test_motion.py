"""Motion in a real browser: the opponent's tile slides in from their side of the table,
and with ``prefers-reduced-motion: reduce`` nothing at the table moves at all.

Every tab records each Web Animation the page starts and, on each frame, every running
animation (CSS ones included) longer than a millisecond: under reduced motion the stylesheet cuts
CSS animations to 0.01 ms, and the scripts start none.
"""

from __future__ import annotations

import pytest

from .conftest import Tabs
from .policy import Choice, choices
from .ui import Tab, click_choice, eventually, press_start, seated, wait_past

pytestmark = pytest.mark.browser

RECORD_MOTION_JS = """
(() => {
  const started = [];
  const running = [];
  window.__motion = { started, running };
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (...args) {
    const animation = animate.apply(this, args);
    started.push(animation);
    return animation;
  };
  const sample = () => {
    for (const a of document.getAnimations()) {
      const timing = a.effect && a.effect.getComputedTiming();
      if (a.playState === 'running' && timing && timing.duration > 1) {
        const el = a.effect.target;
        const tile = el && el.dataset ? el.dataset.tile || '' : '';
        running.push({ id: a.id || a.animationName || '', tile });
      }
    }
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
})();
"""

SLIDES_JS = """() => window.__motion.started
  .filter((a) => a.id === 'slide')
  .map((a) => ({ tile: a.effect.target.dataset.tile,
                 ms: a.effect.getComputedTiming().duration }))"""


def decide(tab: Tab, match_id: str) -> Choice:
    """The first of the seat's choices, given by clicks."""
    view = tab.snapshot(match_id)
    tab.wait_version(view["version"])
    choice = choices(view["match"]["legal"])[0]
    click_choice(tab, view["match"], choice)
    wait_past(tab, view["version"])
    return choice


def play_until_placements(
    players: dict[str, Tab], match_id: str, each: int
) -> list[tuple[str, str]]:
    """Whoever is to act decides until each seat has laid ``each`` tiles; (seat, tile) laid."""
    laid: list[tuple[str, str]] = []
    for _ in range(60):
        if all(sum(1 for s, _ in laid if s == seat) >= each for seat in players):
            return laid
        view = players["first"].snapshot(match_id)["match"]
        seat = view["to_act"]
        choice = decide(players[seat], match_id)
        if choice[0] == "play":
            laid.append((seat, choice[1]))
    raise AssertionError(f"each seat should have laid {each} tiles, laid {laid}")


def start(players: dict[str, Tab], match_id: str) -> None:
    for tab in players.values():
        version = tab.snapshot(match_id)["version"]
        tab.wait_version(version)
        press_start(tab)
        wait_past(tab, version)


def test_the_opponents_tile_slides_in_and_ones_own_does_not(tabs: Tabs) -> None:
    ann, bob = tabs.open("ann"), tabs.open("bob")
    for tab in (ann, bob):
        tab.context.add_init_script(RECORD_MOTION_JS)
    match_id, players = seated(ann, bob)
    start(players, match_id)
    laid = play_until_placements(players, match_id, 1)
    bobs = [tile for seat, tile in laid if seat == "second"]
    anns = [tile for seat, tile in laid if seat == "first"]
    slides = eventually(
        ann,
        lambda: ann.page.evaluate(SLIDES_JS),
        lambda got: {s["tile"] for s in got} >= set(bobs),
        f"Bob's placements {bobs} sliding in on Ann's page",
    )
    assert all(s["ms"] >= 200 for s in slides), slides
    assert not {s["tile"] for s in slides} & set(anns), "Ann's own tiles should not slide in"
    on_bob = {s["tile"] for s in bob.page.evaluate(SLIDES_JS)}
    assert on_bob >= set(anns), on_bob
    assert not on_bob & set(bobs), on_bob
    ran = ann.page.evaluate("window.__motion.running")
    assert any(r["id"] == "slide" and r["tile"] in bobs for r in ran), (
        "the slide should be seen running"
    )


def test_reduced_motion_moves_nothing(tabs: Tabs) -> None:
    ann = tabs.open("ann", reduced_motion="reduce")
    bob = tabs.open("bob", reduced_motion="reduce")
    for tab in (ann, bob):
        tab.context.add_init_script(RECORD_MOTION_JS)
    match_id, players = seated(ann, bob)
    start(players, match_id)
    laid = play_until_placements(players, match_id, 2)
    assert {seat for seat, _ in laid} == {"first", "second"}
    for tab in (ann, bob):
        assert tab.page.evaluate("window.matchMedia('(prefers-reduced-motion: reduce)').matches")
        assert tab.page.evaluate("window.__motion.started.length") == 0, "no script animation"
        assert tab.page.evaluate("window.__motion.running") == [], "no animation ran"
