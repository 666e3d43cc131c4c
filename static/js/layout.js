// Board geometry — presentation only, computed from the server's `board` (tiles in placement
// order and joints old place → new side). No rule is decided here: where a tile *may* go always
// comes from the server's open places and legal plays (docs/RULES.md R3.1–R3.3).
//
// Units: a tile is 1 wide and 2 long. The opening tile sits at the origin. Each open place is a
// "port": the point a line grows from, its direction, and how far the tile's edge reaches from
// that point. The table is 2·bx wide and 2·by high (`bounds`, from its size in pixels), and what
// is laid must fit in it wherever it sits: the renderer centres its view on what is laid.
//
// Each tile goes on straight while it fits; at the table's edge its line turns a corner. A line
// turns toward the side with more free table, so the two arms of the opening row and the
// spinner's two branches wind into four quadrants like a pinwheel. Three things never happen:
// a tile touches a tile of another line (a gap is kept), an open end faces a tile closer than its
// count badge needs, and a spinner's branch heads back toward the line it left. When nothing
// fits, a line runs on past the edge and the view grows (the tiles are then drawn smaller).
// Layout is greedy in placement order, so a tile never moves once laid; on the opening row an
// arm grown alone leaves RESERVE units for the other (docs/RULES.md R3.2 for the spinner).

const V = { E: [1, 0], W: [-1, 0], N: [0, -1], S: [0, 1] };
const LEFT = { E: "N", N: "W", W: "S", S: "E" };
const RIGHT = { E: "S", S: "W", W: "N", N: "E" };
const BACK = { E: "W", W: "E", N: "S", S: "N" };
const ROTATION = { S: 0, E: -90, N: 180, W: 90 };
const EPS = 0.02;
const RESERVE = 4;
const GAP = 0.4; // between a tile and any tile of another line
const AHEAD = 1.0; // free table beyond an open end: its badge (0.34 + 0.3) and some air
const RUNWAY = 1.0; // before an open end, kept free of other lines: its badge and some air
const BRANCH_RUNWAY = 2.7; // before a line not yet begun (a spinner's branch): a tile and a badge
const LOOKAHEAD = 3; // tiles a line must still be able to run from where a tile leaves it

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

function overlaps(r, q, gap = 0) {
  return r.x0 - gap < q.x1 - EPS && q.x0 < r.x1 + gap - EPS
    && r.y0 - gap < q.y1 - EPS && q.y0 < r.y1 + gap - EPS;
}

function union(box, r) {
  return {
    x0: Math.min(box.x0, r.x0), y0: Math.min(box.y0, r.y0),
    x1: Math.max(box.x1, r.x1), y1: Math.max(box.y1, r.y1),
  };
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

/** The port a tile laid at `spot` leaves open on its far side. */
function exitPort(spot, isDouble) {
  const d = spot.d;
  return isDouble
    ? { x: spot.cx, y: spot.cy, dir: d, ra: 0.5, rx: 1 }
    : { x: spot.ex + V[d][0], y: spot.ey + V[d][1], dir: d, ra: 0.5, rx: 0.5 };
}

/** The open end a placed tile leaves, as a segment: its edge's middle and direction. */
function openEnd(spot, isDouble) {
  const half = isDouble ? 0.5 : 1;
  return { x: spot.cx + V[spot.d][0] * half, y: spot.cy + V[spot.d][1] * half, d: spot.d };
}

/** How much free table lies straight beyond an open end (a strip a tile wide), up to `far`. */
function freeAhead(end, rects, skip, far = 3) {
  const [dx, dy] = V[end.d];
  const side = 0.45;
  const strip = dx !== 0
    ? { x0: Math.min(end.x, end.x + dx * far), x1: Math.max(end.x, end.x + dx * far), y0: end.y - side, y1: end.y + side }
    : { x0: end.x - side, x1: end.x + side, y0: Math.min(end.y, end.y + dy * far), y1: Math.max(end.y, end.y + dy * far) };
  let free = far;
  for (const r of rects) {
    if (r === skip || !overlaps(strip, r)) continue;
    const gap = dx > 0 ? r.x0 - end.x : dx < 0 ? end.x - r.x1 : dy > 0 ? r.y0 - end.y : end.y - r.y1;
    free = Math.min(free, Math.max(0, gap));
  }
  return free;
}

/**
 * The board's layout state: the tiles laid so far and the lines' open ports. `place` finds where
 * a tile joining a port lies, the same way for the tiles on the board and for the targets that
 * show where a selected tile would go.
 */
class Layout {
  constructor(bounds, ports) {
    this.width = 2 * bounds.bx;
    this.height = 2 * bounds.by;
    this.rects = [];
    this.box = null;
    this.ports = ports; // the open ends, whose badges no tile may cover
  }

  add(rect) {
    this.rects.push(rect);
    this.box = this.box ? union(this.box, rect) : { ...rect };
  }

  /** Does `rect` keep what is laid within the table? A line still running out from where it
   * started shares that axis with the line running the other way from the same tile (the
   * opening row's two arms, a spinner's two branches): it leaves RESERVE units for it until
   * that one has run them or turned. */
  fits(rect, chain) {
    const box = union(this.box, rect);
    let width = this.width;
    let height = this.height;
    const lane = chain.lane;
    if (lane && !lane.turned[chain.dir]) {
      const other = BACK[chain.dir];
      const spare = lane.turned[other] ? 0 : Math.max(0, RESERVE - lane.run[other]);
      if (isHorizontal(chain.dir)) width -= spare;
      else height -= spare;
    }
    // Past the edge already (a line had no other way): what does not grow the board further
    // still fits, so the other lines keep turning.
    const now = this.box;
    return box.x1 - box.x0 <= Math.max(width, now.x1 - now.x0) + EPS
      && box.y1 - box.y0 <= Math.max(height, now.y1 - now.y0) + EPS;
  }

  /** The ways a line may go from `port`: straight first, then its turns, toward the side with
   * more free table first (on a tie, the line's own turn: a pinwheel). Each says whether the line
   * has sworn it off (`never`): heading back toward the line it left. */
  directions(port) {
    const { chain } = port;
    const d = port.dir;
    const room = (q) => {
      const end = { x: port.x + V[q][0] * port.rx, y: port.y + V[q][1] * port.rx, d: q };
      const free = freeAhead(end, this.rects, null, 8);
      const box = this.box;
      const edge = q === "N" ? port.y - (box.y1 - this.height) : q === "S" ? (box.y0 + this.height) - port.y
        : q === "W" ? port.x - (box.x1 - this.width) : (box.x0 + this.width) - port.x;
      return Math.min(free, edge);
    };
    const turns = [LEFT[d], RIGHT[d]];
    turns.sort((p, q) => room(q) - room(p) || (q === chain.turn) - (p === chain.turn));
    return [{ d, turned: false }, ...turns.map((q) => ({ d: q, turned: true }))]
      .map((o) => ({ ...o, sworn: chain.never.includes(o.d) }));
  }

  /** Is `rect` clear of every tile but `parent` (which it may touch), keeping the gap, and of
   * the badge of every open end but `own`'s? */
  clear(rect, parent, own = null, more = []) {
    if (parent && overlaps(rect, parent)) return false;
    if (this.rects.some((r) => r !== parent && overlaps(rect, r, GAP))) return false;
    if (more.some((r) => overlaps(rect, r, GAP))) return false;
    for (const port of this.ports.values()) {
      if (port !== own && overlaps(rect, badgeZone(port))) return false;
    }
    return true;
  }

  /** Could a line go on for `depth` more tiles from the open end a tile at `spot` leaves? A
   * line that would run into a pocket is turned away before it does. */
  continues(spot, isDouble, depth, laid = []) {
    const d = spot.d;
    const port = exitPort(spot, isDouble);
    const path = [...laid, spot.rect];
    return [d, LEFT[d], RIGHT[d]].some((q) => {
      const next = footprint(port, q, false);
      if (overlaps(next.rect, spot.rect) || !this.clear(next.rect, null, null, laid)) return false;
      return depth <= 1 || this.continues(next, false, depth - 1, path);
    });
  }

  /** Where a tile (a double or not) joining `port` lies: {d, cx, cy, rect, rot, chain}. */
  place(port, isDouble) {
    const tried = this.directions(port).map((o) => {
      const spot = footprint(port, o.d, isDouble);
      const clear = this.clear(spot.rect, port.parent, port);
      const ahead = freeAhead(openEnd(spot, isDouble), this.rects, port.parent, AHEAD + 0.5);
      // Its open end faces free table, not the runway of another open end.
      const zone = badgeZone({ ...exitPort(spot, isDouble), chain: null });
      const facing = [...this.ports.values()].some((q) => q !== port && overlaps(zone, badgeZone(q)));
      return {
        ...o, spot, clear, fits: this.fits(spot.rect, port.chain),
        open: ahead >= AHEAD && !facing, on: clear && this.continues(spot, isDouble, LOOKAHEAD),
      };
    });
    const good = (o) => !o.sworn && o.on && o.open;
    // A double goes on across its line rather than stand in a corner, even past the edge.
    const order = [
      ...(isDouble ? [(o) => !o.turned && good(o)] : []),
      (o) => good(o) && o.fits,
      (o) => !o.turned && good(o),
      good,
      (o) => !o.sworn && o.on,
      (o) => !o.sworn && o.clear,
      (o) => o.clear, // boxed in: back the way it came rather than onto a tile
    ];
    let chosen = null;
    for (const test of order) {
      chosen = tried.find(test);
      if (chosen) break;
    }
    chosen = chosen || tried[0];
    return { ...chosen.spot, turned: chosen.turned, chain: this.follow(port.chain, chosen.d, chosen.turned) };
  }

  /** The line after a tile went `d`. A line that turned across its first direction never heads
   * back the way it crossed (toward the line it left); along it, it may (a row far from it). */
  follow(chain, d, turned) {
    if (!turned) return chain;
    const across = isHorizontal(d) !== isHorizontal(chain.dir);
    const never = across && !chain.never.includes(BACK[d]) ? [...chain.never, BACK[d]] : chain.never;
    return { ...chain, lane: null, turn: RIGHT[d], never };
  }

  /** Note how far a line on its lane has run, or that it turned off it, once a tile is laid
   * (never for a target's preview: a preview changes nothing). */
  laid(chain, spot) {
    const lane = chain.lane;
    if (!lane) return;
    if (spot.turned) {
      lane.turned[chain.dir] = true;
      return;
    }
    const rect = spot.rect;
    const d = chain.dir;
    const o = lane.origin;
    lane.run[d] = d === "W" ? o.x0 - rect.x0 : d === "E" ? rect.x1 - o.x1 : d === "N" ? o.y0 - rect.y0 : rect.y1 - o.y1;
  }
}

/** The two lines running opposite ways out of one tile (docs/RULES.md R3.2, R3.3). */
function lane(origin) {
  return { origin, run: { W: 0, E: 0, N: 0, S: 0 }, turned: { W: false, E: false, N: false, S: false } };
}

function portsOf(tile, spot, isSpinner, exitSide, rect) {
  const { d, chain } = spot;
  const ports = [];
  if (!parseTile(tile).isDouble) {
    ports.push([`${tile}:${exitSide}`, { x: spot.ex + V[d][0], y: spot.ey + V[d][1], dir: d, ra: 0.5, rx: 0.5, chain, parent: rect }]);
    return ports;
  }
  ports.push([`${tile}:lineB`, { x: spot.cx, y: spot.cy, dir: d, ra: 0.5, rx: 1, chain, parent: rect }]);
  if (isSpinner) {
    // A spinner's branches leave across its line and never come back toward it.
    const shared = lane(rect);
    for (const [side, bd] of [["branchA", LEFT[d]], ["branchB", RIGHT[d]]]) {
      const branch = { dir: bd, lane: shared, turn: RIGHT[bd], never: [BACK[bd]] };
      ports.push([`${tile}:${side}`, { x: spot.cx, y: spot.cy, dir: bd, ra: 1, rx: 0.5, chain: branch, parent: rect }]);
    }
  }
  return ports;
}

function rootPorts(tile, isSpinner, rect) {
  const { isDouble } = parseTile(tile);
  const row = lane(rect);
  const arm = (dir) => ({ dir, lane: row, turn: RIGHT[dir], never: [] });
  if (isDouble) {
    const ports = [
      [`${tile}:lineA`, { x: 0, y: 0, dir: "W", ra: 0.5, rx: 1, chain: arm("W"), parent: rect }],
      [`${tile}:lineB`, { x: 0, y: 0, dir: "E", ra: 0.5, rx: 1, chain: arm("E"), parent: rect }],
    ];
    if (isSpinner) {
      const column = lane(rect);
      for (const [side, bd] of [["branchA", "N"], ["branchB", "S"]]) {
        const branch = { dir: bd, lane: column, turn: RIGHT[bd], never: [BACK[bd]] };
        ports.push([`${tile}:${side}`, { x: 0, y: 0, dir: bd, ra: 1, rx: 0.5, chain: branch, parent: rect }]);
      }
    }
    return ports;
  }
  return [
    [`${tile}:smaller`, { x: -0.5, y: 0, dir: "W", ra: 0.5, rx: 0.5, chain: arm("W"), parent: rect }],
    [`${tile}:larger`, { x: 0.5, y: 0, dir: "E", ra: 0.5, rx: 0.5, chain: arm("E"), parent: rect }],
  ];
}

/**
 * Lay out a board. Returns {items, ports, rects, place}: items are the tiles to draw
 * ({tile, cx, cy, rot, top, bottom, isDouble, isSpinner, rect}), ports the open places by
 * "TILE:SIDE" (for targets and markers), and place(name, isDouble) where a tile joining that
 * open place would lie.
 * bounds: {bx, by} — the table is 2·bx wide and 2·by high, in tile widths.
 */
export function layoutBoard(board, bounds) {
  const items = [];
  const ports = new Map();
  const layout = new Layout(bounds, ports);
  const result = { items, ports, rects: layout.rects, place: (name, isDouble) => layout.place(ports.get(name), isDouble) };
  if (!board || !board.tiles || board.tiles.length === 0) return result;
  const spinner = board.spinner || null;
  const [root, ...rest] = board.tiles;
  const r = parseTile(root);
  const rootItem = r.isDouble
    ? { tile: root, cx: 0, cy: 0, rot: 0, top: r.a, bottom: r.b, rect: rectAt(0, 0, "E", 1, 2) }
    : { tile: root, cx: 0, cy: 0, rot: -90, top: r.a, bottom: r.b, rect: rectAt(0, 0, "E", 2, 1) };
  items.push({ ...rootItem, isDouble: r.isDouble, isSpinner: spinner === root });
  layout.add(rootItem.rect);
  for (const [key, port] of rootPorts(root, spinner === root, rootItem.rect)) ports.set(key, port);

  const jointOf = new Map();
  for (const joint of board.joints || []) jointOf.set(parsePlace(joint.new).tile, joint);
  for (const tile of rest) {
    const joint = jointOf.get(tile);
    const t = parseTile(tile);
    let port = joint ? ports.get(joint.old) : undefined;
    if (!port) {
      // Unknown joint (should not happen): park the tile below everything, still visible.
      const y = layout.box.y1 + 1.5;
      port = { x: 0, y, dir: "E", ra: 0.5, rx: 0.5, chain: { dir: "E", lane: null, turn: "S", never: [] }, parent: null };
    } else {
      ports.delete(joint.old);
    }
    const entrySide = joint ? parsePlace(joint.new).side : "smaller";
    const spot = layout.place(port, t.isDouble);
    const top = t.isDouble ? t.a : entrySide === "larger" ? t.b : t.a;
    const bottom = t.isDouble ? t.b : entrySide === "larger" ? t.a : t.b;
    items.push({ tile, cx: spot.cx, cy: spot.cy, rot: spot.rot, top, bottom, rect: spot.rect, isDouble: t.isDouble, isSpinner: spinner === tile });
    layout.add(spot.rect);
    layout.laid(port.chain, spot);
    const exitSide = entrySide === "larger" ? "smaller" : "larger";
    for (const [key, p] of portsOf(tile, spot, spinner === tile, exitSide, spot.rect)) ports.set(key, p);
  }
  return result;
}

/** Where a marker for an open place sits: just beyond the tile's open end. */
export function markerPoint(port) {
  const [dx, dy] = V[port.dir];
  return { x: port.x + dx * (port.ra + 0.34), y: port.y + dy * (port.ra + 0.34) };
}

/** What an open end keeps free before it: room for the next tile and, past it, the badge. */
function badgeZone(port) {
  const [dx, dy] = V[port.dir];
  const x = port.x + dx * port.ra;
  const y = port.y + dy * port.ra;
  const run = port.chain && port.chain.lane && !port.chain.lane.run[port.dir] ? BRANCH_RUNWAY : RUNWAY;
  const far = { x: x + dx * run, y: y + dy * run };
  const side = 0.4;
  return dx !== 0
    ? { x0: Math.min(x, far.x), x1: Math.max(x, far.x), y0: y - side, y1: y + side }
    : { x0: x - side, x1: x + side, y0: Math.min(y, far.y), y1: Math.max(y, far.y) };
}
