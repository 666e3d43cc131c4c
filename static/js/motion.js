// Motion at the table: the others' tiles slide from their side of the table to
// the place they were laid, and drawn tiles go from the boneyard to the hand that drew them. It
// only shows what the server already sent; nothing waits for it, and with
// `prefers-reduced-motion: reduce` none of it runs (chips.js does the same for transfers).

import { h, reducedMotion } from "./dom.js";
import { tileBackSvg } from "./tiles.js";

const SLIDE_MS = 420;
const DRAW_MS = 380;
const STAGGER_MS = 90;

function centre(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

function shown(el) {
  return !!el && !el.hidden && el.getClientRects().length > 0;
}

/** Where a seat's tiles come from and go to: its row of backs, or else its panel. */
function seatSpot(root, seat) {
  const panel = root.querySelector(`.seat[data-seat="${seat}"]`);
  if (!panel) return null;
  const backs = panel.querySelector(".seat-hand");
  return shown(backs) ? backs : panel;
}

/** `translate(x y) rotate(r)` of a laid tile, as the CSS transform an animation can move. */
function cssTransform(g) {
  const text = g.getAttribute("transform") || "";
  const at = /translate\(([-\d.e]+)[ ,]+([-\d.e]+)\)/.exec(text);
  const turn = /rotate\(([-\d.e]+)\)/.exec(text);
  const x = at ? Number(at[1]) : 0;
  const y = at ? Number(at[2]) : 0;
  return { x, y, rot: turn ? Number(turn[1]) : 0 };
}

/** The tile just laid at `tile` glides in from `from` (an element off the board) to its place. */
function slideIn(svg, tile, from, delay) {
  const g = svg.querySelector(`.board-tile[data-tile="${tile}"]`);
  const ctm = svg.getScreenCTM && svg.getScreenCTM();
  const scale = ctm ? Math.hypot(ctm.a, ctm.b) : 0;
  if (!g || !from || !(scale > 0)) return null;
  const a = centre(from);
  const b = centre(g);
  const { x, y, rot } = cssTransform(g);
  const dx = (a.x - b.x) / scale;
  const dy = (a.y - b.y) / scale;
  const animation = g.animate(
    [
      { transform: `translate(${x + dx}px, ${y + dy}px) rotate(${rot}deg) scale(0.8)`, opacity: 0.4 },
      { transform: `translate(${x}px, ${y}px) rotate(${rot}deg) scale(1)`, opacity: 1 },
    ],
    { duration: SLIDE_MS, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
  );
  animation.id = "slide";
  return animation;
}

/** A tile flies from the boneyard: a hand button of one's own, or a face-down tile to a seat. */
function drawIn(root, event, viewer, delay) {
  const pile = root.querySelector(".boneyard");
  if (!shown(pile)) return null;
  const start = centre(pile);
  const own = event.tile ? root.querySelector(`#hand .tile[data-tile="${event.tile}"]`) : null;
  if (own && event.seat === viewer) {
    const end = centre(own);
    const animation = own.animate(
      [{ transform: `translate(${start.x - end.x}px, ${start.y - end.y}px) scale(0.7)`, opacity: 0.3 }, { transform: "none", opacity: 1 }],
      { duration: DRAW_MS, delay, easing: "cubic-bezier(.2,.7,.3,1)", fill: "backwards" },
    );
    animation.id = "draw";
    return animation;
  }
  const target = seatSpot(root, event.seat);
  if (!target) return null;
  const end = centre(target);
  const flying = h("span", { class: "flying-tile", "aria-hidden": "true" }, tileBackSvg());
  flying.style.left = `${start.x}px`;
  flying.style.top = `${start.y}px`;
  document.body.append(flying);
  const animation = flying.animate(
    [
      { transform: "translate(-50%, -50%) scale(0.8)", opacity: 0 },
      { transform: `translate(calc(-50% + ${end.x - start.x}px), calc(-50% + ${end.y - start.y}px)) scale(1)`, opacity: 0.9 },
    ],
    { duration: DRAW_MS, delay, easing: "cubic-bezier(.3,.7,.3,1)", fill: "both" },
  );
  animation.id = "draw";
  animation.onfinish = () => flying.remove();
  animation.oncancel = () => flying.remove();
  return animation;
}

/**
 * Animate a live update's placements and draws, after the view has been drawn with them.
 * `slides(seat)` says whether that seat's placements arrive from elsewhere: the opponent's for a
 * player, both for a spectator, none on a shared device (its players laid them here).
 * Returns the animations started, in order.
 */
export function animateMoves(root, events, { viewer = null, slides = () => true } = {}) {
  if (reducedMotion()) return [];
  const svg = root.querySelector("#board");
  const started = [];
  events.forEach((event, i) => {
    const delay = i * STAGGER_MS;
    let animation = null;
    if (event.type === "played" && slides(event.seat) && svg) {
      animation = slideIn(svg, event.tile, seatSpot(root, event.seat), delay);
    } else if (event.type === "drew") {
      animation = drawIn(root, event, viewer, delay);
    }
    if (animation) started.push(animation);
  });
  return started;
}
