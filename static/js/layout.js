// Board geometry — presentation only, computed from the server's `board` (tiles in placement
// order and joints old place → new side). No rule is decided here: where a tile *may* go always
// comes from the server's open places and legal plays.
//
// Units: a tile is 1 wide and 2 long. The opening tile sits at the origin. Each open place is a
// "port": the point a chain grows from, its direction, and how far the tile's edge reaches from
// that point. A chain runs in rows: along `row` until its limit, then one corner tile in the
// progress direction `p`, then back the other way — so lines turn before the edge and a full
// 28-tile layout stays compact. The four arms of an opening spinner wind into four quadrants
// (left arm up, branch A right, right arm down, branch B left) and never meet. Layout is greedy
// in placement order, so a tile never moves once laid.
//
// The opening row is shared by its two arms (issue 12 item 6): together they may take its whole
// width, 2·bx, so an arm that grows while the other stays short goes on instead of turning with
// half the table empty. Each arm keeps RESERVE units for the other, and an arm's later rows keep
// the limits it had when it turned. The board renderer centres its view on what is laid.

const V = { E: [1, 0], W: [-1, 0], N: [0, -1], S: [0, 1] };
const LEFT = { E: "N", N: "W", W: "S", S: "E" };
const RIGHT = { E: "S", S: "W", W: "N", N: "E" };
const BACK = { E: "W", W: "E", N: "S", S: "N" };
const ROTATION = { S: 0, E: -90, N: 180, W: 90 };
const EPS = 0.02;
const RESERVE = 4;

export const isHorizontal = (d) => d === "E" || d === "W";

export function parseTile(tile) {
  const [a, b] = String(tile).split("-").map(Number);
  return { a, b, isDouble: a === b };
}

export function parsePlace(place) {
  const i = String(place).lastIndexOf(":");
  return { tile: place.slice(0, i), side: place.slice(i + 1) };
}

/** The pip value showing at an open place ("1-4:smaller" → 1). */
export function placeValue(place) {
  const { tile, side } = parsePlace(place);
  const { a, b } = parseTile(tile);
  return side === "larger" ? b : a;
}

function rectAt(cx, cy, d, along, across) {
  const w = isHorizontal(d) ? along : across;
  const hgt = isHorizontal(d) ? across : along;
  return { x0: cx - w / 2, y0: cy - hgt / 2, x1: cx + w / 2, y1: cy + hgt / 2 };
}

function overlaps(r, q) {
  return r.x0 < q.x1 - EPS && q.x0 < r.x1 - EPS && r.y0 < q.y1 - EPS && q.y0 < r.y1 - EPS;
}

/** How far a chain may run: fixed, or on the opening row, what the other arm leaves. */
function extent(chain) {
  const row = chain.shared;
  if (!row) return { min: chain.min, max: chain.max };
  if (chain.row === "W") return { min: Math.max(row.hi, row.rootHi + RESERVE) - row.width, max: chain.max };
  return { min: chain.min, max: Math.min(row.lo, row.rootLo - RESERVE) + row.width };
}

/** A chain leaving the opening row at a corner: its limits are fixed from then on. */
function turned(chain, row, p) {
  const { min, max } = extent(chain);
  return { row, p, min, max };
}

function inBounds(rect, d, chain) {
  if (isHorizontal(chain.row) !== isHorizontal(d)) return true; // a corner: not limited
  const { min, max } = extent(chain);
  if (d === "W") return rect.x0 >= min - EPS;
  if (d === "E") return rect.x1 <= max + EPS;
  if (d === "N") return rect.y0 >= min - EPS;
  return rect.y1 <= max + EPS;
}

/** Where a tile would lie if it joined `port` going `d`. */
function footprint(port, d, isDouble) {
  const reach = d === port.dir ? port.ra : port.rx;
  const ex = port.x + V[d][0] * (reach + 0.5);
  const ey = port.y + V[d][1] * (reach + 0.5);
  if (isDouble) {
    return { d, ex, ey, cx: ex, cy: ey, rect: rectAt(ex, ey, d, 1, 2), rot: isHorizontal(d) ? 0 : 90 };
  }
  const cx = ex + V[d][0] * 0.5;
  const cy = ey + V[d][1] * 0.5;
  return { d, ex, ey, cx, cy, rect: rectAt(cx, cy, d, 2, 1), rot: ROTATION[d] };
}

function candidates(port, isDouble) {
  const { chain } = port;
  if (port.dir === chain.row) {
    const straight = { d: chain.row, bounded: true, next: chain };
    const over = { d: chain.row, bounded: false, next: chain };
    const corner = { d: chain.p, next: turned(chain, BACK[chain.row], chain.p) };
    const cornerBack = { d: BACK[chain.p], next: turned(chain, BACK[chain.row], BACK[chain.p]) };
    // A double takes one unit along the line: it rather goes on than stands in a corner.
    return isDouble ? [straight, over, corner, cornerBack] : [straight, corner, cornerBack, over];
  }
  // Just after a corner: head back along the row (the corner already flipped it).
  return [
    { d: chain.row, bounded: true, next: chain },
    { d: port.dir, next: chain },
    { d: chain.row, bounded: false, next: chain },
    { d: BACK[chain.row], next: turned(chain, BACK[chain.row], chain.p) },
  ].filter((c) => c.d !== BACK[port.dir]);
}

/** The placement a tile gets at `port`, avoiding every rect in `rects`. */
export function place(port, isDouble, rects) {
  const options = candidates(port, isDouble);
  for (const option of options) {
    const spot = footprint(port, option.d, isDouble);
    if (option.bounded && !inBounds(spot.rect, option.d, port.chain)) continue;
    if (rects.some((r) => overlaps(spot.rect, r))) continue;
    return { ...spot, chain: option.next };
  }
  const first = options[0];
  return { ...footprint(port, first.d, isDouble), chain: first.next };
}

function portsOf(tile, spot, isSpinner, exitSide, bounds) {
  const { d, chain } = spot;
  const ports = [];
  if (!parseTile(tile).isDouble) {
    ports.push([`${tile}:${exitSide}`, { x: spot.ex + V[d][0], y: spot.ey + V[d][1], dir: d, ra: 0.5, rx: 0.5, chain }]);
    return ports;
  }
  ports.push([`${tile}:lineB`, { x: spot.cx, y: spot.cy, dir: d, ra: 0.5, rx: 1, chain }]);
  if (isSpinner) {
    const along = isHorizontal(d) ? spot.cy : spot.cx;
    for (const [side, bd] of [["branchA", LEFT[d]], ["branchB", RIGHT[d]]]) {
      const sign = bd === "N" || bd === "W" ? -1 : 1;
      const limits = sign < 0
        ? { min: along - bounds.branch, max: along - 1 }
        : { min: along + 1, max: along + bounds.branch };
      ports.push([`${tile}:${side}`, { x: spot.cx, y: spot.cy, dir: bd, ra: 1, rx: 0.5, chain: { row: bd, p: d, ...limits } }]);
    }
  }
  return ports;
}

function rootPorts(tile, isSpinner, bounds, shared) {
  const { bx, by } = bounds;
  const { isDouble } = parseTile(tile);
  if (isDouble) {
    const ports = [
      [`${tile}:lineA`, { x: 0, y: 0, dir: "W", ra: 0.5, rx: 1, chain: { row: "W", p: "N", min: -bx, max: -1, shared } }],
      [`${tile}:lineB`, { x: 0, y: 0, dir: "E", ra: 0.5, rx: 1, chain: { row: "E", p: "S", min: 1, max: bx, shared } }],
    ];
    if (isSpinner) {
      ports.push([`${tile}:branchA`, { x: 0, y: 0, dir: "N", ra: 1, rx: 0.5, chain: { row: "N", p: "E", min: -by, max: -1 } }]);
      ports.push([`${tile}:branchB`, { x: 0, y: 0, dir: "S", ra: 1, rx: 0.5, chain: { row: "S", p: "W", min: 1, max: by } }]);
    }
    return ports;
  }
  return [
    [`${tile}:smaller`, { x: -0.5, y: 0, dir: "W", ra: 0.5, rx: 0.5, chain: { row: "W", p: "N", min: -bx, max: 0, shared } }],
    [`${tile}:larger`, { x: 0.5, y: 0, dir: "E", ra: 0.5, rx: 0.5, chain: { row: "E", p: "S", min: 0, max: bx, shared } }],
  ];
}

/**
 * Lay out a board. Returns {items, ports, rects}: items are the tiles to draw
 * ({tile, cx, cy, rot, top, bottom, isDouble, isSpinner, rect}), ports the open places by
 * "TILE:SIDE" (for targets and markers).
 * bounds: {bx, by, branch} — how far rows run before they turn, in tile widths.
 */
export function layoutBoard(board, bounds) {
  const items = [];
  const rects = [];
  const ports = new Map();
  if (!board || !board.tiles || board.tiles.length === 0) return { items, ports, rects };
  const spinner = board.spinner || null;
  const [root, ...rest] = board.tiles;
  const r = parseTile(root);
  const rootItem = r.isDouble
    ? { tile: root, cx: 0, cy: 0, rot: 0, top: r.a, bottom: r.b, rect: rectAt(0, 0, "E", 1, 2) }
    : { tile: root, cx: 0, cy: 0, rot: -90, top: r.a, bottom: r.b, rect: rectAt(0, 0, "E", 2, 1) };
  items.push({ ...rootItem, isDouble: r.isDouble, isSpinner: spinner === root });
  rects.push(rootItem.rect);
  const { x0, x1 } = rootItem.rect;
  const shared = { lo: x0, hi: x1, rootLo: x0, rootHi: x1, width: 2 * bounds.bx };
  for (const [key, port] of rootPorts(root, spinner === root, bounds, shared)) ports.set(key, port);

  const jointOf = new Map();
  for (const joint of board.joints || []) jointOf.set(parsePlace(joint.new).tile, joint);
  for (const tile of rest) {
    const joint = jointOf.get(tile);
    const t = parseTile(tile);
    let port = joint ? ports.get(joint.old) : undefined;
    if (!port) {
      // Unknown joint (should not happen): park the tile below everything, still visible.
      const y = Math.max(...rects.map((q) => q.y1)) + 1.5;
      port = { x: 0, y, dir: "E", ra: 0.5, rx: 0.5, chain: { row: "E", p: "S", min: -bounds.bx, max: bounds.bx } };
    } else {
      ports.delete(joint.old);
    }
    const entrySide = joint ? parsePlace(joint.new).side : "smaller";
    const spot = place(port, t.isDouble, rects);
    const top = t.isDouble ? t.a : entrySide === "larger" ? t.b : t.a;
    const bottom = t.isDouble ? t.b : entrySide === "larger" ? t.a : t.b;
    items.push({ tile, cx: spot.cx, cy: spot.cy, rot: spot.rot, top, bottom, rect: spot.rect, isDouble: t.isDouble, isSpinner: spinner === tile });
    rects.push(spot.rect);
    if (port.chain.shared) {
      shared.lo = Math.min(shared.lo, spot.rect.x0);
      shared.hi = Math.max(shared.hi, spot.rect.x1);
    }
    const exitSide = entrySide === "larger" ? "smaller" : "larger";
    for (const [key, p] of portsOf(tile, spot, spinner === tile, exitSide, bounds)) ports.set(key, p);
  }
  return { items, ports, rects };
}

/** Where a marker for an open place sits: just beyond the tile's open end. */
export function markerPoint(port) {
  const [dx, dy] = V[port.dir];
  return { x: port.x + dx * (port.ra + 0.34), y: port.y + dy * (port.ra + 0.34) };
}
