// What an update's events do on the page besides the redraw: the move log grows, the others'
// moves are announced to a screen reader, chips and tiles move (a short update only: a resync's
// long one is not replayed), and the focus stays in play.

import { animateTransfer } from "../chips.js";
import { animateMoves } from "../motion.js";
import { announce } from "../announce.js";
import { eventText } from "../narrate.js";
import { renderLog } from "./table.js";

const QUIET = new Set(["ready", "deck_committed", "deck_revealed", "round_dealt"]);
const LIVE_EVENTS = 12; // more events at once are a catch-up, not play to watch
const ANNOUNCED = 4; // the last few are read out, not a whole catch-up

export function afterEvents(view, match, events) {
  const live = events.length <= LIVE_EVENTS;
  const announced = [];
  view.moves.add(events);
  for (const event of events) {
    const text = eventText(event, match);
    if (event.type === "transferred" && live) animateTransfer(event);
    if (!text || QUIET.has(event.type)) continue;
    const mine = match.audience !== "device" && match.audience !== "spectator" && event.seat === match.viewer;
    if (mine && (event.type === "played" || event.type === "bid_made" || event.type === "declined")) continue;
    announced.push(text);
  }
  for (const text of announced.slice(-ANNOUNCED)) announce(text);
  if (live) slideMoves(view, match, events);
  renderLog(view);
}

/** The opponent's placements slide in and draws leave the boneyard. */
function slideMoves(view, match, events) {
  const seated = match.audience === "first" || match.audience === "second";
  const slides = (seat) => (match.audience === "device" ? false : !seated || seat !== match.viewer);
  animateMoves(view.dom, events, { viewer: seated ? match.viewer : null, slides });
}

export function focusWasInPlay(view) {
  const active = document.activeElement;
  return !!(active && view.dom && active.closest && active.closest("#hand, #board, .hand-actions, #auction"));
}

/** The focus, lost with the element that held it, goes to the next thing to press. */
export function restoreFocus(view) {
  const active = document.activeElement;
  if (active && active !== document.body && view.dom.contains(active)) return;
  const next = view.dom.querySelector('#hand .tile[data-legal="true"]')
    || view.dom.querySelector("[data-action=draw]:not([hidden])")
    || view.dom.querySelector("#auction button")
    || view.dom.querySelector("#hand .tile");
  if (next) next.focus({ preventScroll: true });
}
