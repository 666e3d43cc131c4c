"""docs/RULES.md, Appendix B in a real browser: the rules overlay draws the worked positions of the
rules' Appendix B with the board renderer, in each of the three languages: every tile of each
position is laid, each counted end carries its number (as the engine counts it), the tiles they are
on are outlined, and the sum and award are written beside it."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs
from .ui import SCREENSHOTS, Tab, enter_name

pytestmark = pytest.mark.browser

SHOW_PICTURES_JS = """() => document.querySelector('#rules-overlay .worked-positions')
  .scrollIntoView({ block: 'start' })"""

FIGURES_JS = """() => [...document.querySelectorAll('#rules-overlay figure.worked')].map((f) => ({
  moves: f.dataset.moves,
  tiles: [...f.querySelectorAll('svg .board-tile')].map((g) => g.dataset.tile),
  counted: [...f.querySelectorAll('svg .board-tile.is-counted')].map((g) => g.dataset.tile),
  badges: [...f.querySelectorAll('svg .score-badge text')].map((t) => Number(t.textContent)),
  caption: f.querySelector('figcaption').textContent,
  ends: f.querySelector('.worked-ends').textContent,
}))"""


def figures(tab: Tab) -> list[dict[str, Any]]:
    tab.page.locator("[data-action=rules]").first.click()
    overlay = tab.page.locator("#rules-overlay")
    expect(overlay).to_be_visible()
    expect(overlay.locator("figure.worked .score-badge").first).to_be_attached()
    expect(overlay.locator("figure.worked .worked-ends:empty")).to_have_count(0)
    return list(tab.page.evaluate(FIGURES_JS))


def test_the_rules_draw_their_worked_positions_in_three_languages(tabs: Tabs) -> None:
    tab = tabs.open("reader")
    enter_name(tab, "Reader")
    captions: dict[str, list[str]] = {}
    for lang, sum_word in (("en", "Scoring ends"), ("uk", None), ("fi", None)):
        if lang != "en":
            tab.page.keyboard.press("Escape")
            tab.page.locator("#lang").select_option(lang)
            expect(tab.page.locator("html")).to_have_attribute("lang", lang)
        shown = figures(tab)
        assert len(shown) == 12, shown
        for figure in shown:
            moves = figure["moves"]
            engine = tab.api(f"/api/board?moves={moves.replace(' ', '%20')}")
            assert figure["tiles"] == engine["tiles"] == [m.split("@")[0] for m in moves.split()]
            values = [value for _, value in engine["scoring_ends"]]
            assert Counter(figure["badges"]) == Counter(values), figure
            assert set(figure["counted"]) == {t for t, _ in engine["scoring_ends"]}
            assert f"= {engine['ends_sum']}" in figure["ends"] or engine["ends_sum"] == 0
            assert re.search(r"\d", figure["caption"])
            if sum_word:
                assert sum_word in figure["ends"]
        captions[lang] = [f["caption"] for f in shown]
        tab.page.evaluate(SHOW_PICTURES_JS)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        tab.page.screenshot(path=str(SCREENSHOTS / f"rules-pictures-{lang}.png"))
    assert captions["en"] != captions["uk"] != captions["fi"] != captions["en"]
    assert all(re.search("[\u0400-\u04ff]", c) for c in captions["uk"])
