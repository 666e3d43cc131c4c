// The match clocks, for display only: the server's reading (bank, delay, who runs, its now_ms)
// counted down with the local time elapsed since it arrived. The delay empties first, then the
// bank falls (R7.2). The server alone decides when time is up (R7.7).

import { h, s, mmss, setAttr } from "./dom.js";
import { t } from "./i18n.js";

export const LOW_BANK_MS = 10000;
const RING_R = 15.9155; // circumference 100

/** What a seat's clock shows `elapsedMs` after the reading arrived. */
export function clockReading(match, elapsedMs, seat) {
  const clock = match.clock || {};
  const bank = (clock.bank_left_ms || {})[seat] ?? 0;
  if (clock.running !== seat || match.status !== "active") {
    return { bankMs: bank, delayMs: 0, running: false };
  }
  const delayLeft = clock.delay_left_ms || 0;
  const delayMs = Math.max(0, delayLeft - elapsedMs);
  const overMs = Math.max(0, elapsedMs - delayLeft);
  return { bankMs: Math.max(0, bank - overMs), delayMs, running: true };
}

/** The server's monotonic ms now, estimated from the last reading. */
export function serverNow(match, elapsedMs) {
  return ((match.clock && match.clock.now_ms) || 0) + elapsedMs;
}

/** Build the clock element of one seat. */
export function clockElement(seat) {
  const ring = s(
    "svg",
    { class: "delay-ring", viewBox: "0 0 36 36", "aria-hidden": "true", focusable: "false" },
    s("circle", { class: "ring-track", cx: 18, cy: 18, r: RING_R }),
    s("circle", { class: "ring-fill", cx: 18, cy: 18, r: RING_R, "stroke-dasharray": "0 100", transform: "rotate(-90 18 18)" }),
  );
  return h(
    "div",
    { class: "clock", "data-clock": seat, role: "timer", "aria-live": "off" },
    h("span", { class: "clock-bank" }, "0:00"),
    h("span", { class: "clock-bank-label" }),
    h("span", { class: "clock-delay" }, ring, h("span", { class: "clock-delay-text" })),
    h("span", { class: "clock-note" }),
  );
}

/** Refresh a seat's clock element from the store's last reading. fullDelayMs is the delay
 * ring's full length, the decision's whole delay as the server set it (when not given, the
 * reading's own delay: a full ring). */
export function paintClock(el, match, elapsedMs, seat, { fullDelayMs = 0, name = "" } = {}) {
  if (!el || !match) return;
  const r = clockReading(match, elapsedMs, seat);
  const flagged = match.result && match.result.reason === "time" && match.result.winner && match.result.winner !== seat;
  const low = r.bankMs < LOW_BANK_MS && (r.running || flagged || r.bankMs === 0);
  const bankText = mmss(r.bankMs);
  const bank = el.querySelector(".clock-bank");
  if (bank.textContent !== bankText) bank.textContent = bankText;
  // Labelled, so that the delay beside it does not read as an increment (PROTOCOL.md "Clocks").
  const bankLabel = el.querySelector(".clock-bank-label");
  if (bankLabel.textContent !== t("clock.bank")) bankLabel.textContent = t("clock.bank");
  setAttr(el, "data-running", r.running ? "true" : "false");
  setAttr(el, "data-low", low ? "true" : "false");
  setAttr(el, "data-flagged", flagged ? "true" : null);
  setAttr(el, "data-in-delay", r.running && r.delayMs > 0 ? "true" : "false");
  const full = Math.max(fullDelayMs, r.delayMs, 1);
  const fraction = r.running ? Math.min(1, r.delayMs / full) : 0;
  el.querySelector(".ring-fill").setAttribute("stroke-dasharray", `${(fraction * 100).toFixed(2)} 100`);
  const delayText = r.running && r.delayMs > 0 ? t("clock.delay_short", { s: Math.ceil(r.delayMs / 1000) }) : "";
  const delayEl = el.querySelector(".clock-delay-text");
  if (delayEl.textContent !== delayText) delayEl.textContent = delayText;
  let note = "";
  if (flagged) note = t("clock.time_up");
  else if (low && r.running) note = t("clock.low");
  const noteEl = el.querySelector(".clock-note");
  if (noteEl.textContent !== note) noteEl.textContent = note;
  const label = t("clock.aria", {
    name,
    bank: bankText,
    state: r.running
      ? r.delayMs > 0
        ? t("clock.aria_delay", { s: Math.ceil(r.delayMs / 1000) })
        : t("clock.aria_running")
      : t("clock.aria_stopped"),
  }) + (note ? `. ${note}` : "");
  if (el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
}
