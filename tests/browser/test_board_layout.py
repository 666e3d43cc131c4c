"""The board's layout in a real browser: the board is laid out around its centre. An arm that grows
while the other stays short goes on along the opening row instead of turning with half the table
empty, the two arms together never take more than the row's width, and the view is centred on
what is laid, not on the opening tile. Measured on the client's own layout and renderer."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from .conftest import Tabs

pytestmark = pytest.mark.browser

# One arm only: [0|1] opens and every later tile joins at its larger end's side.
ONE_ARM = [
    ("0-1", None),
    ("1-2", ("0-1:larger", "1-2:smaller")),
    ("2-3", ("1-2:larger", "2-3:smaller")),
    ("3-4", ("2-3:larger", "3-4:smaller")),
    ("4-5", ("3-4:larger", "4-5:smaller")),
    ("5-6", ("4-5:larger", "5-6:smaller")),
    ("0-6", ("5-6:larger", "0-6:larger")),
    ("0-2", ("0-6:smaller", "0-2:smaller")),
    ("2-4", ("0-2:larger", "2-4:smaller")),
    ("4-6", ("2-4:larger", "4-6:smaller")),
    ("1-6", ("4-6:larger", "1-6:larger")),
    ("1-3", ("1-6:smaller", "1-3:smaller")),
]
# Then the other arm grows from [0|1]'s smaller end.
OTHER_ARM = [
    ("0-0", ("0-1:smaller", "0-0:lineA")),
    ("0-3", ("0-0:lineB", "0-3:smaller")),
    ("3-3", ("0-3:larger", "3-3:lineA")),
    ("3-5", ("3-3:lineB", "3-5:smaller")),
    ("5-5", ("3-5:larger", "5-5:lineA")),
    ("0-5", ("5-5:lineB", "0-5:larger")),
]

LAYOUT_JS = """async ([seq, bx]) => {
  const { layoutBoard } = await import('/js/layout.js');
  const { renderBoard } = await import('/js/board.js');
  const board = { tiles: seq.map((s) => s[0]), spinner: null, open_places: [], scoring_ends: [],
    joints: seq.filter((s) => s[1]).map((s) => ({ old: s[1][0], new: s[1][1] })) };
  const bounds = { bx, by: 5, branch: 4 };
  const { items } = layoutBoard(board, bounds);
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  document.body.append(svg);
  renderBoard(svg, board, { bounds });
  const [x, y, w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
  svg.remove();
  return { items: items.map((i) => ({ tile: i.tile, rect: i.rect })), view: { x, y, w, h } };
}"""

BX = 12


def lay(tabs: Tabs, seq: list[tuple[str, Any]]) -> dict[str, Any]:
    tab = tabs.open("layout")
    tab.page.goto(tab.base_url + "/")
    expect(tab.page.locator("#main")).to_be_attached()
    result: dict[str, Any] = tab.page.evaluate(LAYOUT_JS, [seq, BX])
    return result


def on_opening_row(item: dict[str, Any]) -> bool:
    rect = item["rect"]
    return bool(rect["y0"] >= -1.01 and rect["y1"] <= 1.01)


def test_a_lone_arm_runs_on_along_the_opening_row(tabs: Tabs) -> None:
    laid = lay(tabs, ONE_ARM)
    row = [i for i in laid["items"] if on_opening_row(i)]
    right = max(i["rect"]["x1"] for i in row)
    # Until now the arm turned at bx (12) with the left half empty; now it takes the row's
    # width less what it leaves the other arm, 2·bx − 4 − 1 = 19.
    assert right > BX + 4, f"the lone arm turned at {right}"
    assert right <= 2 * BX - 4 - 1 + 0.01
    left = min(i["rect"]["x0"] for i in laid["items"])
    rightmost = max(i["rect"]["x1"] for i in laid["items"])
    view = laid["view"]
    middle = view["x"] + view["w"] / 2
    assert abs(middle - (left + rightmost) / 2) < 0.01, (view, left, rightmost)


def test_the_arms_share_the_opening_row_and_do_not_overlap(tabs: Tabs) -> None:
    laid = lay(tabs, ONE_ARM + OTHER_ARM)
    items = laid["items"]
    row = [i for i in items if on_opening_row(i)]
    span = max(i["rect"]["x1"] for i in row) - min(i["rect"]["x0"] for i in row)
    assert span <= 2 * BX + 0.01, f"the opening row spans {span}"
    assert any(i["tile"] == "0-0" for i in row), "the other arm starts on the opening row"
    for n, a in enumerate(items):
        for b in items[n + 1 :]:
            r, q = a["rect"], b["rect"]
            apart = r["x1"] <= q["x0"] + 0.02 or q["x1"] <= r["x0"] + 0.02
            apart = apart or r["y1"] <= q["y0"] + 0.02 or q["y1"] <= r["y0"] + 0.02
            assert apart, f"{a['tile']} overlaps {b['tile']}"


# A spinner opens, both its line sides are taken, then both branches grow and turn.
SPINNER = [
    ("4-4", None),
    ("1-4", ("4-4:lineB", "1-4:larger")),
    ("4-5", ("4-4:lineA", "4-5:smaller")),
    ("2-4", ("4-4:branchA", "2-4:larger")),
    ("0-2", ("2-4:smaller", "0-2:larger")),
    ("0-3", ("0-2:smaller", "0-3:smaller")),
    ("4-6", ("4-4:branchB", "4-6:smaller")),
    ("3-6", ("4-6:larger", "3-6:larger")),
    ("1-3", ("3-6:smaller", "1-3:larger")),
    ("1-5", ("1-4:smaller", "1-5:smaller")),
    ("5-6", ("1-5:larger", "5-6:smaller")),
]

PREVIEW_JS = """async ([seq, bounds]) => {
  const { layoutBoard } = await import('/js/layout.js');
  const board = (steps) => ({ tiles: steps.map((s) => s[0]), spinner: '4-4',
    joints: steps.filter((s) => s[1]).map((s) => ({ old: s[1][0], new: s[1][1] })) });
  const differ = [];
  const shown = layoutBoard(board(seq), bounds);
  for (const name of [...shown.ports.keys()]) {
    for (const [tile, side] of [['7-8', 'smaller'], ['9-9', 'lineA']]) {
      const preview = shown.place(name, tile === '9-9'); // one layout, as a render does
      const laid = layoutBoard(board([...seq, [tile, [name, `${tile}:${side}`]]]), bounds);
      const rect = laid.items[laid.items.length - 1].rect;
      const same = ['x0', 'y0', 'x1', 'y1']
        .every((k) => Math.abs(rect[k] - preview.rect[k]) < 1e-9);
      if (!same) differ.push(`${tile} at ${name}`);
    }
  }
  return { differ, places: shown.ports.size };
}"""


def test_a_target_shows_where_its_tile_will_lie(tabs: Tabs) -> None:
    """Where a selected tile would lie at an open place is where it lies once laid there, for
    every open place, a double or not, on the opening row's arms and a spinner's branches."""
    tab = tabs.open("layout")
    tab.page.goto(tab.base_url + "/")
    expect(tab.page.locator("#main")).to_be_attached()
    for seq in (ONE_ARM + OTHER_ARM, SPINNER):
        for bounds in ({"bx": 12, "by": 5}, {"bx": 6, "by": 4}):
            found = tab.page.evaluate(PREVIEW_JS, [seq, bounds])
            assert found["places"] >= 2, found
            assert not found["differ"], f"with {bounds}: {found['differ']}"
