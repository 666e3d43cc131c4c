// Drawing one domino tile as SVG: a 1 × 2 ivory tile in local units centred on (0, 0), the
// `top` half above the divider and the `bottom` half below. Callers rotate and move it.

import { s } from "./dom.js";

const P = 0.26; // pip offset from a half's centre
const PIPS = {
  0: [],
  1: [[0, 0]],
  2: [[-P, -P], [P, P]],
  3: [[-P, -P], [0, 0], [P, P]],
  4: [[-P, -P], [P, -P], [-P, P], [P, P]],
  5: [[-P, -P], [P, -P], [0, 0], [-P, P], [P, P]],
  6: [[-P, -P], [P, -P], [-P, 0], [P, 0], [-P, P], [P, P]],
};

function half(value, cy) {
  return (PIPS[value] || []).map(([x, y]) =>
    s("circle", { cx: x, cy: cy + y, r: 0.095, class: "pip" }),
  );
}

/** A <g> holding one tile; top and bottom are pip counts 0–6. */
export function tileShape(top, bottom, extraClass = "") {
  return s(
    "g",
    { class: `tile-shape ${extraClass}`.trim() },
    s("rect", { x: -0.47, y: -0.97, width: 0.94, height: 1.94, rx: 0.14, class: "tile-face" }),
    s("line", { x1: -0.32, y1: 0, x2: 0.32, y2: 0, class: "tile-divider" }),
    half(top, -0.5),
    half(bottom, 0.5),
  );
}

/** A small standalone <svg> of a tile, upright (for hands and lists). */
export function tileSvg(tile, { horizontal = false } = {}) {
  const [a, b] = String(tile).split("-").map(Number);
  const shape = tileShape(a, b);
  if (horizontal) shape.setAttribute("transform", "rotate(-90)");
  return s(
    "svg",
    {
      class: horizontal ? "tile-svg tile-svg-h" : "tile-svg",
      viewBox: horizontal ? "-1 -0.5 2 1" : "-0.5 -1 1 2",
      "aria-hidden": "true",
      focusable: "false",
    },
    shape,
  );
}

/** A face-down tile (an opponent's hand, the boneyard). */
export function tileBackSvg() {
  return s(
    "svg",
    { class: "tile-svg tile-back", viewBox: "-0.5 -1 1 2", "aria-hidden": "true", focusable: "false" },
    s("rect", { x: -0.47, y: -0.97, width: 0.94, height: 1.94, rx: 0.14, class: "back-face" }),
    s("rect", { x: -0.33, y: -0.83, width: 0.66, height: 1.66, rx: 0.08, class: "back-inlay" }),
  );
}
