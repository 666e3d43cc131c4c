// The board as SVG: tiles from the layout, open places as markers (a filled number for a scoring
// end, a hollow dot for a place that counts nothing), and — while a hand tile is selected — each
// open place the server allows for it as a focusable target showing where the tile would lie.

import { s, clear, tileLabel } from "./dom.js";
import { t } from "./i18n.js";
import { layoutBoard, markerPoint, parsePlace, parseTile, placeValue } from "./layout.js";
import { tileShape } from "./tiles.js";

const PAD = 0.8;
const MIN_W = 6;
const MIN_H = 4;
const FIT_HALF = 1.5;
const SMALL_TABLE_PX = 560;
/** A tile's width on the table, in CSS px: never under `least` while the table can hold the
 * board (a line turns first), never over `most` (an early board is drawn large, not lost in the
 * middle of the felt). A phone's table is small: its tiles are too. */
export const TILE_PX = { least: [18, 26], most: [32, 46] };

export function placeText(placeName) {
  const { tile, side } = parsePlace(placeName);
  return t("board.place_label", {
    tile: tileLabel(tile),
    side: t(`side.${side}`),
    value: placeValue(placeName),
  });
}

/** Bounds for the layout (how far lines run before they turn) from the table's size in CSS
 * pixels: as many tile widths as fit at the least tile size, less a margin for the badges. */
export function boundsFor(widthPx, heightPx) {
  const w = widthPx || 800;
  const h = heightPx || w / 2.4;
  const unitPx = TILE_PX.least[w < SMALL_TABLE_PX ? 0 : 1];
  const bx = Math.max(5, Math.min(14, Math.floor(w / unitPx / 2 - PAD)));
  const by = Math.max(4, Math.min(9, Math.floor(h / unitPx / 2 - PAD)));
  return { bx, by };
}

function scoringMarkers(board, ports) {
  // Pair each scoring end [tile, value] with one open place of that tile; the others are hollow,
  // but for a double already counted whole (the opening double's both line ends are one end,
  // counted once), which shows its count once and nothing at its other end.
  const left = (board.scoring_ends || []).map(([tile, value]) => ({ tile, value }));
  const counted = new Set();
  const markers = [];
  for (const name of board.open_places || []) {
    const port = ports.get(name);
    if (!port) continue;
    const { tile } = parsePlace(name);
    const v = placeValue(name);
    const i = left.findIndex((e) => e.tile === tile && (e.value === v || e.value === 2 * v));
    const scoring = i >= 0 ? left.splice(i, 1)[0] : null;
    if (scoring && parseTile(tile).isDouble && scoring.value === 2 * v) counted.add(tile);
    markers.push({ name, tile, port, value: scoring ? scoring.value : null });
  }
  const line = (m) => ["lineA", "lineB"].includes(parsePlace(m.name).side);
  return markers.filter((m) => m.value !== null || !(counted.has(m.tile) && line(m)));
}

const STEP = { N: [0, -1], S: [0, 1], E: [1, 0], W: [-1, 0] };

/** Just past the far end of a target's rect, along the way the tile would lie. */
function beyond(spot) {
  const [dx, dy] = STEP[spot.d] || [0, -1];
  const r = spot.rect;
  const cx = (r.x0 + r.x1) / 2;
  const cy = (r.y0 + r.y1) / 2;
  return { x: cx + dx * ((r.x1 - r.x0) / 2 + 0.34), y: cy + dy * ((r.y1 - r.y0) / 2 + 0.34) };
}

function extend(box, r) {
  box.x0 = Math.min(box.x0, r.x0);
  box.y0 = Math.min(box.y0, r.y0);
  box.x1 = Math.max(box.x1, r.x1);
  box.y1 = Math.max(box.y1, r.y1);
}

/**
 * Draw `board` into `svg`.
 * options: {bounds, selected: tile or null, places: [place], onPlace(place), emptyText,
 *           markCounted: outline the tiles whose ends are counted (the rules' pictures),
 *           fit: a view box only as large as the tiles, not a live table's,
 *           viewPx: {w, h}, the size the board is shown at (else the svg's own)}
 * Returns the target elements in order (to focus the first one).
 */
export function renderBoard(svg, board, options = {}) {
  const { bounds = boundsFor(800), selected = null, places = [], onPlace = null, emptyText = "", markCounted = false, fit = false, viewPx = null } = options;
  const counted = new Set(markCounted && board ? (board.scoring_ends || []).map((e) => e[0]) : []);
  clear(svg);
  const { items, ports, rects, place } = layoutBoard(board, bounds);
  const box = { x0: -1, y0: -1, x1: 1, y1: 1 };
  rects.forEach((r) => extend(box, r));

  const tilesLayer = s("g", { class: "board-tiles" });
  const last = items.length ? items[items.length - 1].tile : null;
  for (const item of items) {
    const label = [
      tileLabel(item.tile),
      item.isSpinner ? t("board.spinner") : null,
      item.tile === last ? t("board.last_played") : null,
    ].filter(Boolean).join(", ");
    const g = s(
      "g",
      {
        class: `board-tile${item.isSpinner ? " is-spinner" : ""}${item.tile === last ? " is-last" : ""}${counted.has(item.tile) ? " is-counted" : ""}`,
        "data-tile": item.tile,
        "data-last": item.tile === last ? "true" : null,
        "data-spinner": item.isSpinner ? "true" : null,
        transform: `translate(${item.cx} ${item.cy}) rotate(${item.rot})`,
        role: "img",
        "aria-label": label,
      },
      item.tile === last ? s("rect", { class: "last-glow", x: -0.6, y: -1.1, width: 1.2, height: 2.2, rx: 0.22 }) : null,
      tileShape(item.top, item.bottom),
      item.isSpinner ? s("rect", { class: "spinner-ring", x: -0.47, y: -0.97, width: 0.94, height: 1.94, rx: 0.14 }) : null,
      item.isSpinner ? s("text", { class: "spinner-mark", x: 0, y: 0.08, "text-anchor": "middle", "dominant-baseline": "middle", "aria-hidden": "true" }, "✦") : null,
    );
    tilesLayer.append(g);
  }

  // Where a selected tile would lie at each allowed place, so that a badge goes beyond it.
  const spots = new Map();
  if (selected && places.length) {
    const isDouble = parseTile(selected).isDouble;
    for (const name of places) {
      const port = ports.get(name);
      if (port) spots.set(name, place(name, isDouble));
    }
  }

  const markerLayer = s("g", { class: "board-markers", "aria-hidden": "true" });
  if (board) {
    for (const m of scoringMarkers(board, ports)) {
      const spot = spots.get(m.name);
      // A place's count never hides under the target on it: past its far end.
      const pt = spot ? beyond(spot) : markerPoint(m.port);
      extend(box, { x0: pt.x - 0.35, y0: pt.y - 0.35, x1: pt.x + 0.35, y1: pt.y + 0.35 });
      if (m.value === null) {
        markerLayer.append(s("circle", { class: "open-dot", cx: pt.x, cy: pt.y, r: 0.16 }));
      } else {
        markerLayer.append(
          s("g", { class: "score-badge", transform: `translate(${pt.x} ${pt.y})` },
            s("circle", { r: 0.3 }),
            s("text", { x: 0, y: 0.02, "text-anchor": "middle", "dominant-baseline": "middle" }, String(m.value))),
        );
      }
    }
  }

  const targetLayer = s("g", { class: "board-targets" });
  const targets = [];
  if (selected && places.length) {
    for (const name of places) {
      const spot = spots.get(name);
      if (!spot) continue;
      extend(box, spot.rect);
      const r = spot.rect;
      const label = t("board.target_label", { tile: tileLabel(selected), place: placeText(name) });
      const target = s(
        "g",
        {
          class: "place-target",
          "data-place": name,
          role: "button",
          tabindex: "0",
          "aria-label": label,
        },
        s("title", {}, label),
        s("rect", { class: "target-hit", x: r.x0 - 0.12, y: r.y0 - 0.12, width: r.x1 - r.x0 + 0.24, height: r.y1 - r.y0 + 0.24, rx: 0.2 }),
        s("rect", { class: "target-box", x: r.x0 + 0.04, y: r.y0 + 0.04, width: r.x1 - r.x0 - 0.08, height: r.y1 - r.y0 - 0.08, rx: 0.14 }),
        s("text", { class: "target-plus", x: (r.x0 + r.x1) / 2, y: (r.y0 + r.y1) / 2 + 0.03, "text-anchor": "middle", "dominant-baseline": "middle" }, "+"),
      );
      const choose = (event) => {
        event.preventDefault();
        if (onPlace) onPlace(name);
      };
      target.addEventListener("click", choose);
      target.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") choose(event);
      });
      targets.push(target);
      targetLayer.append(target);
    }
  }

  if (!items.length && emptyText) {
    tilesLayer.append(s("text", { class: "board-empty", x: 0, y: 0, "text-anchor": "middle", "dominant-baseline": "middle" }, emptyText));
    box.x0 = Math.min(box.x0, -7);
    box.x1 = Math.max(box.x1, 7);
  }

  // A picture (`fit`) is only as large as what it shows. The table fills its box: what is laid
  // is centred and drawn as large as the box allows, up to TILE_PX.most a tile, so an early
  // board is not a few small tiles in the middle of the felt; a board that outgrows the box at
  // that size is drawn smaller, whole.
  const cx = (box.x0 + box.x1) / 2;
  const cy = (box.y0 + box.y1) / 2;
  let w = Math.max(box.x1 - box.x0, fit ? 2 * FIT_HALF : MIN_W) + 2 * PAD;
  // An empty table shows its line of text as large as a tile's face would be.
  const least = fit ? 2 * FIT_HALF : items.length ? MIN_H : 2;
  let hgt = Math.max(box.y1 - box.y0, least) + 2 * PAD;
  const shown = fit ? null : viewSize(svg, viewPx);
  if (shown) {
    const most = TILE_PX.most[shown.w < SMALL_TABLE_PX ? 0 : 1];
    const unit = Math.min(shown.w / w, shown.h / hgt, most);
    w = shown.w / unit;
    hgt = shown.h / unit;
  }
  const x = cx - w / 2;
  const y = cy - hgt / 2;
  svg.setAttribute("viewBox", `${x.toFixed(2)} ${y.toFixed(2)} ${w.toFixed(2)} ${hgt.toFixed(2)}`);
  svg.style.setProperty("--board-aspect", `${w} / ${hgt}`);
  svg.dataset.bounds = `${bounds.bx}x${bounds.by}`;
  svg.append(tilesLayer, markerLayer, targetLayer);
  growTargets(svg, targets);
  return targets;
}

/** The size the svg is shown at, in CSS px (null when it is not laid out). */
function viewSize(svg, viewPx) {
  if (viewPx && viewPx.w > 0 && viewPx.h > 0) return viewPx;
  const w = svg.clientWidth;
  const h = svg.clientHeight;
  return w > 0 && h > 0 ? { w, h } : null;
}

const MIN_TARGET_PX = 44;

/** A place target is at least 44×44 CSS px however small the board is drawn:
 * its invisible hit area grows around it, in board units at the scale the board is shown. */
function growTargets(svg, targets) {
  if (!targets.length || !svg.getScreenCTM) return;
  const ctm = svg.getScreenCTM();
  const scale = ctm ? Math.hypot(ctm.a, ctm.b) : 0;
  if (!(scale > 0)) return;
  const least = MIN_TARGET_PX / scale;
  for (const target of targets) {
    const hit = target.querySelector(".target-hit");
    const x = Number(hit.getAttribute("x"));
    const y = Number(hit.getAttribute("y"));
    const w = Number(hit.getAttribute("width"));
    const hgt = Number(hit.getAttribute("height"));
    if (w < least) {
      hit.setAttribute("x", String(x - (least - w) / 2));
      hit.setAttribute("width", String(least));
    }
    if (hgt < least) {
      hit.setAttribute("y", String(y - (least - hgt) / 2));
      hit.setAttribute("height", String(least));
    }
  }
}
