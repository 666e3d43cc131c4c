"""The layout checker: is the whole table on the screen, and can every word on it be read?

:data:`CHECK_JS` runs in the page with the page at scroll 0 and measures, as a person looking at
the screen would:

- the table's parts: the board, one's own hand (while the page shows one), both clocks, both
  names, the turn banner (the replay's frame label) and every control of the current decision
  (auction buttons and stepper, Draw, Start/Continue, the place targets of a selected tile, the
  result's and the rematch's buttons, the replay's controls). Each must lie wholly inside the
  viewport, be covered by nothing (what is drawn at its points is itself), and no two may
  overlap — a place target on the board or a tile in the hand is part of its container;
- every visible text node (``Range.getClientRects``): no two overlap, none is drawn under
  another element, none runs off the side of the page, and none is cut by a box that hides its
  overflow — but for a name (``.seat-name``, ``.bid-who``, ``.chat-name``) cut with an ellipsis
  after at least :data:`NAME_MIN` characters, whose full text is in a ``title`` to hover or tap;
- the board's drawing: no two tiles overlap, and no count badge or open-place dot touches a tile
  (a line turned back onto another line puts its end's badge on it).

A text node inside a scrolling box counts only where it is scrolled into view. :func:`check`
returns the failures as readable lines (``at 360×740 fi auction: #hand bottom 812 > 740``) and
saves what the screen shows under ``test-artifacts/screenshots/layout/``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from .ui import SCREENSHOTS

FOLDER = SCREENSHOTS / "layout"
NAME_MIN = 8
"""The fewest characters of a name shown when it has to be cut (the whole name on hover)."""

SETTLED_JS = """async () => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => done(true)));
  // Not the transitions: a clock's ring eases to its new reading five times a second.
  const running = () => document.getAnimations()
    .filter((a) => a.playState === 'running' && !(a instanceof CSSTransition) && a.effect
      && a.effect.getTiming().iterations !== Infinity);
  for (let i = 0; i < 20; i++) {
    await frame();
    await frame();
    const now = running();
    if (!now.length) return true;
    await Promise.all(now.map((a) => a.finished.catch(() => null)));
  }
  return false;
}"""
"""Waits until no finite animation runs (a tile landing, chips flying, a score label floating up
and fading) for two frames in a row: the layout is measured at rest, after whatever a resize or
a new language made the page redraw (a board drawn anew lands again). Transitions (a clock's
ring, a tile raised a few pixels) are not waited for."""

FRAMES_JS = """() => new Promise((done) =>
  requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"""
"""Two frames: whatever a resize made observers redraw has been drawn."""

CHECK_JS = r"""(opts) => {
  const nameMin = opts.nameMin;
  const required = opts.required || [];
  const de = document.documentElement;
  const vw = de.clientWidth;
  const vh = Math.min(window.innerHeight, de.clientHeight);
  const failures = [];
  const fail = (text) => failures.push(text);
  const px = (n) => String(Math.round(n));
  const visible = (el) => !!el && el.isConnected && !el.closest('[hidden]')
    && el.checkVisibility({opacityProperty: true, visibilityProperty: true})
    && (() => { const b = el.getBoundingClientRect(); return b.width >= 1 && b.height >= 1; })();
  const box = (el) => { const b = el.getBoundingClientRect();
    return {l: b.left, t: b.top, r: b.right, b: b.bottom, w: b.width, h: b.height}; };
  const cross = (a, b, slack) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > slack
    && Math.min(a.b, b.b) - Math.max(a.t, b.t) > slack;
  const describe = (el) => {
    if (!el) return 'nothing';
    if (el.id) return '#' + el.id;
    const action = el.getAttribute && el.getAttribute('data-action');
    const cls = typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\s+/)[0] : '';
    const tag = el.tagName.toLowerCase();
    return action ? `${tag}[data-action=${action}]` : tag + cls;
  };

  // What is drawn at a point: the topmost element there that paints something (a place
  // target's hit area, grown to 44 px for a finger, is transparent).
  const clearPaint = (v) => !v || v === 'none' || v === 'transparent' || /rgba\(.*,\s*0\)$/.test(v);
  const paintedAt = (x, y) => document.elementsFromPoint(x, y).find((el) => {
    if (!(el instanceof SVGElement) || el instanceof SVGSVGElement) return true;
    if (el.tagName === 'g') return false;
    const cs = getComputedStyle(el);
    return !(clearPaint(cs.fill) && clearPaint(cs.stroke));
  }) || null;

  // -- the table's parts --------------------------------------------------------------------
  const parts = [];
  const add = (label, el) => { if (visible(el)) parts.push({label, el, box: box(el)}); };
  const need = (label, el) => {
    if (!visible(el)) { fail(`${label} is not shown`); return; }
    parts.push({label, el, box: box(el)});
  };
  const match = document.querySelector('#match');
  const replay = document.querySelector('#replay.replay');
  if (match || replay) {
    need('#board', document.querySelector('#board'));
    for (const seat of ['first', 'second']) {
      need(`[data-clock=${seat}]`, document.querySelector(`[data-clock=${seat}]`));
    }
    const names = [...document.querySelectorAll('.seat .seat-name')];
    if (names.length !== 2) fail(`${names.length} seat names on the page, not 2`);
    for (const name of names) {
      const seat = name.closest('.seat');
      need(`${seat.dataset.seat || seat.className} .seat-name`, name);
    }
  }
  if (match) {
    const area = match.querySelector('.hand-area');
    if (area && !area.hidden) need('.hand-area', area);
    const banner = match.querySelector('#turn-banner');
    if (banner && banner.textContent.trim()) need('#turn-banner', banner);
  }
  if (replay) need('#frame-label', replay.querySelector('#frame-label'));
  const controls = [
    '#auction button', '#auction input', '[data-action=draw]', '[data-action=start]',
    '#board .place-target .target-box', '#hand .tile[data-legal=true]',
    '#result .result-actions a', '#rematch button', '[data-action=join]', '#join-name',
    '#confirm-box button', '.replay-controls button', '.replay-controls select',
  ];
  for (const el of document.querySelectorAll(controls.join(', '))) {
    if (!visible(el)) continue;
    const what = el.getAttribute('data-action') || el.getAttribute('data-tile')
      || (el.closest('[data-place]') && el.closest('[data-place]').getAttribute('data-place'))
      || el.id || el.className.baseVal || el.tagName.toLowerCase();
    const amount = el.getAttribute('data-amount');
    add(`control ${what}${amount ? '=' + amount : ''}`, el);
  }
  for (const selector of required) {
    const found = [...document.querySelectorAll(selector)];
    if (!found.some(visible)) fail(`${selector} (needed for this decision) is not shown`);
  }
  for (const part of parts) {
    const b = part.box;
    if (b.t < -0.5) fail(`${part.label} top ${px(b.t)} < 0`);
    if (b.l < -0.5) fail(`${part.label} left ${px(b.l)} < 0`);
    if (b.b > vh + 0.5) fail(`${part.label} bottom ${px(b.b)} > ${vh}`);
    if (b.r > vw + 0.5) fail(`${part.label} right ${px(b.r)} > ${vw}`);
    // Covered by nothing: what is drawn at its points is itself (or its own content).
    const inset = Math.min(4, b.w / 4, b.h / 4);
    const points = [[(b.l + b.r) / 2, (b.t + b.b) / 2], [b.l + inset, b.t + inset],
      [b.r - inset, b.t + inset], [b.l + inset, b.b - inset], [b.r - inset, b.b - inset]];
    for (const [x, y] of points) {
      if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
      const hit = paintedAt(x, y);
      if (hit && (hit === part.el || part.el.contains(hit) || hit.contains(part.el))) continue;
      fail(`${part.label} is covered by ${describe(hit)} at (${px(x)}, ${px(y)})`);
      break;
    }
  }
  for (let i = 0; i < parts.length; i++) {
    for (let j = i + 1; j < parts.length; j++) {
      const a = parts[i];
      const b = parts[j];
      if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
      if (cross(a.box, b.box, 0.5)) fail(`${a.label} overlaps ${b.label}`);
    }
  }

  // -- every visible text node ------------------------------------------------------------------
  const NAMES = '.seat-name, .bid-who, .chat-name';
  const SKIP = 'script, style, noscript, template, title, option, select, textarea';
  const clipsOf = (el) => {
    const clips = [];
    for (let a = el; a && a !== document.body && a !== de; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      const scroll = /auto|scroll/.test(cs.overflowX + ' ' + cs.overflowY);
      const inner = a instanceof SVGElement
        ? {l: b.left, t: b.top, r: b.right, b: b.bottom}
        : {l: b.left + a.clientLeft, t: b.top + a.clientTop,
           r: b.left + a.clientLeft + a.clientWidth, b: b.top + a.clientTop + a.clientHeight};
      clips.push({el: a, box: inner, scroll, ellipsis: cs.textOverflow === 'ellipsis'});
    }
    return clips;
  };
  const inert = (el) => {
    for (let a = el; a && a !== de; a = a.parentElement) {
      if (getComputedStyle(a).pointerEvents === 'none') return true;
    }
    return false;
  };
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.data.replace(/\s+/g, ' ').trim();
    const el = node.parentElement;
    if (!text || !el || el.closest(SKIP) || !visible(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0.5 && r.height > 0.5);
    if (!rects.length) continue;
    const union = rects.reduce((u, r) => ({l: Math.min(u.l, r.left), t: Math.min(u.t, r.top),
      r: Math.max(u.r, r.right), b: Math.max(u.b, r.bottom)}),
      {l: Infinity, t: Infinity, r: -Infinity, b: -Infinity});
    if (union.r - union.l <= 1.5 || union.b - union.t <= 1.5) continue; // visually hidden
    const clips = clipsOf(el);
    // Visually hidden (the screen reader's text): a clipping box of a pixel or none.
    if (clips.some((c) => c.box.r - c.box.l <= 2 || c.box.b - c.box.t <= 2)) continue;
    const shownRects = [];
    let clipped = null;
    for (const r of rects) {
      let q = {l: r.left, t: r.top, r: r.right, b: r.bottom};
      for (const c of clips) {
        const k = c.box;
        const out = Math.max(k.l - q.l, k.t - q.t, q.r - k.r, q.b - k.b);
        if (out > 1 && !c.scroll) clipped = clipped || c;
        // Only what its boxes let through is seen (a scrolling box's too: the rest is there
        // to be read by scrolling).
        q = {l: Math.max(q.l, k.l), t: Math.max(q.t, k.t),
          r: Math.min(q.r, k.r), b: Math.min(q.b, k.b)};
      }
      if (q.r - q.l > 0.5 && q.b - q.t > 0.5) shownRects.push(q);
    }
    const short = text.length > 40 ? text.slice(0, 40) + '…' : text;
    if (clipped) {
      const name = el.closest(NAMES);
      let seen = 0;
      if (clipped.ellipsis) {
        const k = clipped.box;
        const em = parseFloat(getComputedStyle(el).fontSize) || 16;
        for (let i = 0; i < node.data.length; i++) {
          const one = document.createRange();
          one.setStart(node, i);
          one.setEnd(node, i + 1);
          const r = one.getBoundingClientRect();
          if (r.width > 0 && r.right <= k.r - 0.6 * em + 1 && r.left >= k.l - 1) seen += 1;
        }
      }
      const titled = name && [...document.querySelectorAll('[title]')].some((t) =>
        (t === name || t.contains(name) || name.contains(t))
        && t.title.includes(name.textContent.trim()));
      const whole = node.data.trim().length;
      if (!(name && clipped.ellipsis && seen >= Math.min(nameMin, whole) && titled)) {
        const how = name && clipped.ellipsis
          ? `cut to ${seen} of ${whole} characters${titled ? '' : ' with no title'}`
          : `clipped by ${describe(clipped.el)}`;
        fail(`text "${short}" ${how}`);
      }
    }
    for (const q of shownRects) {
      if (q.l < -1 || q.r > vw + 1) {
        fail(`text "${short}" runs off the side (${px(q.l)}–${px(q.r)})`);
      }
    }
    texts.push({node, el, short, rects: shownRects, inert: inert(el)});
  }
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i];
      const b = texts[j];
      const hit = a.rects.some((p) => b.rects.some((q) => cross(p, q, 1.5)));
      if (hit) fail(`text "${a.short}" overlaps text "${b.short}"`);
    }
  }
  for (const t of texts) {
    if (t.inert) continue;
    for (const q of t.rects) {
      const x = (q.l + q.r) / 2;
      const y = (q.t + q.b) / 2;
      if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
      const hit = paintedAt(x, y);
      if (!hit || hit === t.el || t.el.contains(hit) || hit.contains(t.el)) continue;
      fail(`text "${t.short}" is under ${describe(hit)}`);
      break;
    }
  }

  // -- the board's drawing --------------------------------------------------------------------
  const svg = document.querySelector('#board');
  const board = {tiles: 0, unit: null, table: null, extent: null};
  if (svg && visible(svg)) {
    const faces = [...svg.querySelectorAll('.board-tile .tile-face')].map((f) => {
      const b = box(f);
      return {tile: f.closest('.board-tile').getAttribute('data-tile'), box: b};
    });
    for (let i = 0; i < faces.length; i++) {
      for (let j = i + 1; j < faces.length; j++) {
        if (cross(faces[i].box, faces[j].box, 0.5)) {
          fail(`board: tile ${faces[i].tile} overlaps tile ${faces[j].tile}`);
        }
      }
    }
    const marks = [...svg.querySelectorAll('.score-badge circle, .open-dot')].map((c) => box(c));
    for (const m of marks) {
      const cx = (m.l + m.r) / 2;
      const cy = (m.t + m.b) / 2;
      const radius = m.w / 2;
      for (const f of faces) {
        const dx = Math.max(f.box.l - cx, 0, cx - f.box.r);
        const dy = Math.max(f.box.t - cy, 0, cy - f.box.b);
        if (Math.hypot(dx, dy) < radius - 0.5) {
          fail(`board: the mark at (${px(cx)}, ${px(cy)}) touches tile ${f.tile}`);
        }
      }
    }
    const table = box(svg);
    board.table = {w: table.w, h: table.h};
    board.tiles = faces.length;
    if (faces.length) {
      board.unit = Math.min(...faces.map((f) => Math.min(f.box.w, f.box.h)));
      const l = Math.min(...faces.map((f) => f.box.l));
      const r = Math.max(...faces.map((f) => f.box.r));
      const t = Math.min(...faces.map((f) => f.box.t));
      const b = Math.max(...faces.map((f) => f.box.b));
      board.extent = {w: r - l, h: b - t};
    }
  }
  return {failures, board, viewport: {w: vw, h: vh}};
}"""


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def measure(page: Page, required: Sequence[str] = ()) -> dict[str, Any]:
    """The checker's raw answer for the page as it is now, at scroll 0 and at rest."""
    page.evaluate("() => window.scrollTo(0, 0)")
    page.evaluate(SETTLED_JS)
    found: dict[str, Any] = page.evaluate(
        CHECK_JS, {"nameMin": NAME_MIN, "required": list(required)}
    )
    return found


def check(
    page: Page, case: str, required: Sequence[str] = (), least_tile_px: float = 0
) -> list[str]:
    """The failures of the page now, each prefixed with ``case``; a screenshot of the screen is
    saved as ``layout/<case>.jpg`` either way (a JPEG: a PNG of a large screen takes
    longer to encode than the measuring). With ``least_tile_px``, a board whose tiles are drawn
    narrower than that (or than a sixth of the table's height, if less) fails too."""
    found = measure(page, required)
    FOLDER.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(screenshot_path(case)), type="jpeg", quality=70)
    failures = list(found["failures"])
    unit = found["board"]["unit"]
    table = found["board"]["table"]
    # As wide as asked, or a sixth of the table's height when the table is too low for that.
    least = min(least_tile_px, table["h"] / 6) if table else 0
    if least_tile_px and unit is not None and unit < least - 0.5:
        failures.append(
            f"board: tiles {unit:.0f} px wide in a {table['w']:.0f}×{table['h']:.0f} px table "
            f"(at least {least:.0f} px)"
        )
    return [f"at {case}: {failure}" for failure in failures]


def screenshot_path(case: str) -> Path:
    return FOLDER / f"{slug(case)}.jpg"
