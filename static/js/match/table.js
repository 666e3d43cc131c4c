// The table drawn from the last view: whose seat is at the bottom, the board (with the places
// of the chosen tile), the hand and its actions, the shared device's hand-over screen, the move
// log and the clocks. It only draws; what a press means is ./input.js's.

import { h, fill, other, setAttr, tileLabel } from "../dom.js";
import { t } from "../i18n.js";
import { renderBoard } from "../board.js";
import { renderHand } from "../hand.js";
import { paintCountdowns } from "../panels.js";
import { paintClock, serverNow } from "../clock.js";
import { seatName } from "../narrate.js";
import { isTouchOnly } from "../pointer.js";
import { lowTimeCue } from "./cues.js";

/** The seat drawn at the bottom (one's own, the device's seat to act) and the one at the top. */
export function seats(view) {
  const match = view.store.match;
  let bottom = "first";
  if (match.audience === "first" || match.audience === "second") bottom = match.audience;
  else if (match.audience === "device") bottom = match.handover || match.to_act || "first";
  return { bottom, top: other(bottom) };
}

export function bounds(view) {
  const match = view.store.match;
  return view.tableBounds.of(view.dom.querySelector(".board-wrap"), match ? match.round_number : 0);
}

/** A hint that names keys, or its words without them on a touch screen. */
export function keyHint(key) {
  return t(isTouchOnly() ? `${key}_touch` : key);
}

/** An answer to what the player just did (a tile chosen, a tile that cannot go): shown on
 * every screen, unlike the standing hint, which a phone leaves to the turn banner. */
export function hint(view, text) {
  const el = view.dom && view.dom.querySelector(".hand-hint");
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = "answer";
}

export function renderBoardOnly(view) {
  const match = view.store.match;
  if (!match || !view.dom) return;
  const box = bounds(view);
  view.boundsKey = JSON.stringify(box);
  const svg = view.dom.querySelector("#board");
  const legal = match.legal;
  const play = legal && view.selected ? (legal.plays || []).find((p) => p.tile === view.selected) : null;
  let emptyText = "";
  if (match.phase === "opening") emptyText = legal ? t("board.empty_you") : t("board.empty_other", { name: seatName(match, match.to_act) });
  else if (match.phase === "auction") emptyText = t("board.empty_auction");
  else if (!match.board || !match.board.tiles.length) emptyText = t("board.empty");
  const hidden = match.audience === "device" && !!match.handover;
  svg.setAttribute("aria-label", t("board.aria", { n: match.board ? match.board.tiles.length : 0 }));
  renderBoard(svg, hidden ? null : match.board, {
    bounds: box,
    selected: play ? view.selected : null,
    places: play ? play.places : [],
    onPlace: (place) => view.input.onPlace(place),
    emptyText: hidden ? "" : emptyText,
  });
}

export function renderHandOnly(view) {
  const match = view.store.match;
  if (!match || !view.dom) return;
  const box = view.dom.querySelector("#hand");
  const showHand = match.audience !== "spectator" && !(match.audience === "device" && match.handover);
  const tiles = showHand && match.hand ? match.hand : [];
  const legal = match.legal;
  const map = new Map();
  if (legal && (match.phase === "opening" || match.phase === "playing")) {
    for (const p of legal.plays || []) map.set(p.tile, p.places);
  }
  renderHand(box, tiles, {
    legal: map,
    opening: !!(legal && legal.opening),
    placing: !!(legal && legal.plays && legal.plays.length),
    selected: view.selected,
    mustPlay: match.must_play,
    onTile: (tile, event) => view.input.onTile(tile, event),
  });
}

export function renderHandArea(view, match) {
  const area = view.dom.querySelector(".hand-area");
  const showHand = match.audience !== "spectator" && !!match.hand && !(match.audience === "device" && match.handover);
  area.hidden = !showHand;
  renderHandOnly(view);
  const { bottom } = seats(view);
  const title = match.audience === "device" ? t("hand.title_device", { name: seatName(match, bottom) }) : t("hand.title");
  area.querySelector(".hand-title").textContent = title;
  const draw = area.querySelector("[data-action=draw]");
  const canDraw = !!(match.legal && match.legal.can_draw);
  draw.hidden = !canDraw;
  // A touch screen has no D key to show (or to announce).
  const keys = !isTouchOnly();
  fill(draw, t("hand.draw"), keys ? [" ", h("kbd", { "aria-hidden": "true" }, "D")] : null);
  setAttr(draw, "aria-keyshortcuts", keys ? "D" : null);
  area.querySelector(".toggle-text").textContent = t("hand.auto_draw");
  const hintEl = area.querySelector(".hand-hint");
  if (!view.selected) {
    let text = "";
    if (match.legal && (match.phase === "opening" || match.phase === "playing")) {
      text = canDraw ? keyHint("hand.hint_draw") : match.legal.opening ? t("hand.hint_open") : keyHint("hand.hint_play");
    }
    hintEl.textContent = text;
    hintEl.dataset.kind = "standing";
  } else if (hintEl.dataset.lang !== document.documentElement.lang) {
    // A tile chosen before the language changed: its answer in the new language.
    hint(view, t("hand.hint_choose_place", { tile: tileLabel(view.selected) }));
  }
  hintEl.dataset.lang = document.documentElement.lang;
}

/** The shared device's screen between two seats' decisions (R7.5). */
export function renderHandover(view, match) {
  const overlay = view.dom.querySelector("#handover");
  const show = match.audience === "device" && !!match.handover && match.status === "active";
  const wasHidden = overlay.hidden;
  overlay.hidden = !show;
  if (!show) return;
  const name = seatName(match, match.handover);
  overlay.querySelector("#handover-title").textContent = t("handover.title", { name });
  overlay.querySelector(".handover-text").textContent = t("handover.text", { name });
  overlay.querySelector("[data-action=reveal]").textContent = t("handover.reveal", { name });
  overlay.querySelector(".handover-note").textContent = t("handover.note");
  if (wasHidden) overlay.querySelector("[data-action=reveal]").focus({ preventScroll: true });
}

export function renderLog(view) {
  if (!view.dom) return;
  const details = view.dom.querySelector(".move-log");
  const grew = view.moves.render();
  details.querySelector("summary").textContent = t("match.log", { n: view.moves.decisions });
  if (grew) {
    const list = details.querySelector("#move-log-list");
    list.scrollTop = list.scrollHeight;
  }
}

/** The clocks and countdowns counted down from the last reading (every 200 ms and on each
 * redraw). */
export function tick(view) {
  const match = view.store.match;
  if (!match || !view.dom) return;
  const elapsed = view.store.elapsed();
  for (const seat of ["first", "second"]) {
    const el = view.dom.querySelector(`[data-clock="${seat}"]`);
    paintClock(el, match, elapsed, seat, { fullDelayMs: view.store.fullDelayMs, name: seatName(match, seat) });
  }
  paintCountdowns(view.dom, match, serverNow(match, elapsed));
  lowTimeCue(view, match);
}
