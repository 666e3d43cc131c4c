// A seat of the replay viewer: name, tags, balance, the clock reading of the version on show and
// the hand, every hand visible once the match has ended (D4).

import { h, fill, mmss, tileLabel } from "./dom.js";
import { t } from "./i18n.js";
import { showsWholeOnTap } from "./seats.js";
import { chipStack } from "./chips.js";
import { clockElement, paintClock } from "./clock.js";
import { seatName } from "./narrate.js";
import { tileSvg } from "./tiles.js";
import { icon } from "./icons.js";

export function replaySeatBox(seat) {
  const clock = clockElement(seat);
  return h("section", { class: `seat replay-seat seat-${seat}`, "data-seat": seat },
    h("div", { class: "seat-head" },
      h("span", { class: "avatar", "aria-hidden": "true" }),
      h("div", { class: "seat-who" }, h("h2", { class: "seat-name" }))),
    h("div", { class: "seat-tags" }),
    h("div", { class: "seat-body" },
      h("div", { class: "balance", "data-balance": seat, role: "img" }),
      h("div", { class: "clock-slot" }, clock)),
    h("div", { class: "replay-hand", role: "group" }));
}

/** Draw `seat` into its box from the frame's view; `settings` is the record's time control
 * ({bank_ms, delay_ms}), the clocks' reading before the first one. */
export function renderReplaySeat(box, view, seat, frame, settings) {
  const name = seatName(view, seat);
  box.querySelector(".avatar").textContent = (name || "?").charAt(0).toUpperCase();
  box.querySelector(".seat-name").textContent = name;
  box.querySelector(".seat-name").title = name;
  showsWholeOnTap(box.querySelector(".seat-name"));
  const tags = [];
  if (view.jockey === seat) tags.push(h("span", { class: "tag tag-jockey" }, `★ ${t("seat.jockey")}`));
  if (view.to_act === seat && !view.result) tags.push(h("span", { class: "tag tag-turn" }, `▶ ${t("seat.to_act")}`));
  if (view.result && view.result.winner === seat) tags.push(h("span", { class: "tag tag-winner" }, icon("trophy", "icon icon-tag"), ` ${t("seat.winner")}`));
  fill(box.querySelector(".seat-tags"), tags);
  const balance = view.balances ? view.balances[seat] : 0;
  const balanceEl = box.querySelector(".balance");
  balanceEl.setAttribute("aria-label", t("seat.balance_aria", { name, n: balance, chips: Math.floor(balance / 5) }));
  fill(balanceEl, h("span", { class: "balance-number" }, String(balance)), h("span", { class: "balance-unit" }, t("seat.points")), chipStack(balance));
  const bank = settings && settings.bank_ms;
  const clock = frame.clock || view.clock || (typeof bank === "number"
    ? { running: null, bank_left_ms: { first: bank, second: bank }, delay_left_ms: 0 }
    : null);
  const clockEl = box.querySelector(".clock");
  if (clock && clock.bank_left_ms) {
    const delay = settings && settings.delay_ms;
    paintClock(clockEl, { status: "active", clock, result: null }, 0, seat, { fullDelayMs: typeof delay === "number" ? delay : 0, name });
  } else {
    clockEl.querySelector(".clock-bank").textContent = mmss(0);
  }
  const hands = view.hands || {};
  const tiles = hands[seat] || (view.last_round && view.last_round.hands ? view.last_round.hands[seat] : []) || [];
  const handBox = box.querySelector(".replay-hand");
  handBox.setAttribute("aria-label", t("replay.hand_of", { name }));
  fill(handBox, tiles.length
    ? tiles.map((tile) => h("span", { class: "mini-tile", "data-tile": tile, role: "img", "aria-label": tileLabel(tile) }, tileSvg(tile)))
    : h("span", { class: "muted small" }, t("replay.no_tiles")));
}
