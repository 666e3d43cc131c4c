// The auction card of the match page (§6): whose decision it is, the standing bid, and the bids
// the server allows, each with what it costs (the jockey's discount applied by the server, R6.4),
// as quick choices and a stepper. Drawn from the last snapshot only: the client never works out a
// legal bid or a cost itself.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { seatName } from "./narrate.js";

export function renderAuction(box, match, ctx) {
  const { onCommand } = ctx;
  const auction = match.auction;
  const visible = match.phase === "auction" && !!auction && match.status === "active";
  box.hidden = !visible;
  if (!visible) {
    delete box.dataset.key;
    fill(box);
    return;
  }
  // Drawn once per version: a redraw in the middle of a decision would drop the stepper's focus.
  const key = JSON.stringify([ctx.version, document.documentElement.lang, match.to_act, match.legal, auction]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const legal = match.legal;
  const name = (seat) => seatName(match, seat);
  const bids = auction.bids || [];
  const bidders = auction.bidders || [];
  const history = bids.length
    ? h("ol", { class: "bid-history", "aria-label": t("auction.history") },
        bids.map((bid, i) =>
          h("li", { class: "bid-item" },
            h("span", { class: "bid-who" }, name(bidders[i])),
            h("span", { class: "bid-amount" }, t("auction.bid_line", { amount: bid.amount, cost: bid.cost })))))
    : h("p", { class: "muted" }, t("auction.no_bids"));

  const actions = [];
  if (legal) {
    const standing = bids.length ? bids[bids.length - 1] : null;
    const standingBy = bidders.length ? bidders[bidders.length - 1] : null;
    const row = [];
    if (legal.can_decline) {
      row.push(h("button", { type: "button", class: "btn btn-secondary", "data-action": "decline", onclick: () => onCommand({ type: "decline" }) },
        h("strong", {}, t("auction.decline")),
        h("small", {}, t("auction.decline_hint", { name: name(auction.jockey) }))));
    }
    if (legal.can_accept && standing) {
      row.push(h("button", { type: "button", class: "btn btn-primary", "data-action": "accept", onclick: () => onCommand({ type: "accept" }) },
        h("strong", {}, t("auction.accept", { amount: standing.amount })),
        h("small", {}, t("auction.accept_hint", { name: name(standingBy), cost: standing.cost }))));
    }
    if (row.length) actions.push(h("div", { class: "auction-main" }, row));
    if (legal.bids && legal.bids.length) actions.push(bidChooser(match, legal.bids, bids.length > 0, ctx));
  } else if (match.to_act) {
    actions.push(h("p", { class: "waiting-line" }, h("span", { class: "spinner small", "aria-hidden": "true" }), t("auction.waiting", { name: name(match.to_act) })));
  }
  fill(
    box,
    h("h2", { id: "auction-title", class: "card-title" }, t("auction.title")),
    h("p", { class: "card-text" }, t("auction.jockey_line", { name: name(auction.jockey) })),
    history,
    actions.length ? h("div", { class: "auction-actions" }, actions) : null,
  );
}

/** The bids one may make: quick choices for the common amounts — the minimum, +5, +10 and
 * +20 — and a stepper over every other amount the server allows, each with what it costs (the
 * jockey's discount applied, R6.4: the tag says what the server's cost takes off the amount).
 * A bid the server marks as costing one's whole balance (R6.5) asks first, since it loses the
 * match if accepted. */
function bidChooser(match, offered, raising, ctx) {
  const title = raising ? t("auction.raise_title") : t("auction.bid_title");
  const send = (bid) => {
    if (!bid.loses_match) {
      ctx.onCommand({ type: "bid", amount: bid.amount });
      return;
    }
    ctx.confirm(t("auction.all_in_confirm", { amount: bid.amount, cost: bid.cost }), t("auction.all_in_yes", { amount: bid.amount }))
      .then((yes) => { if (yes) ctx.onCommand({ type: "bid", amount: bid.amount }); });
  };
  const min = offered[0].amount;
  const quick = QUICK_STEPS.map((step) => offered.find((bid) => bid.amount === min + step)).filter(Boolean);
  const parts = [
    h("p", { class: "auction-bids-title" }, title),
    h("div", { class: "bid-quick", role: "group", "aria-label": title },
      quick.map((bid, i) => bidButton(bid, i === 0 ? t("auction.minimum") : `+${bid.amount - min}`, send))),
  ];
  const rest = offered.filter((bid) => !quick.includes(bid));
  if (rest.length) parts.push(bidStepper(`${match.id}|${ctx.version}`, offered, offered.indexOf(rest[0]), send));
  return parts;
}

const QUICK_STEPS = [0, 5, 10, 20];
let stepperChoice = { key: null, index: 0 };
/** The stepper's amount outlives a redraw of the same decision (the match id and version). */

function bidButton(bid, note, send) {
  const discounted = bid.cost < bid.amount;
  const warn = bid.loses_match ? ` (${t("auction.all_in_short")})` : "";
  return h("button", {
    type: "button",
    class: `btn bid-btn${discounted ? " is-discounted" : ""}${bid.loses_match ? " is-all-in" : ""}${bid.cost === bid.amount ? " is-full-price" : ""}`,
    "data-action": "bid",
    "data-amount": String(bid.amount),
    "data-loses-match": bid.loses_match ? "true" : "false",
    "aria-label": t("auction.bid_aria", { amount: bid.amount, cost: bid.cost }) + (discounted ? ` (${t("auction.discount")})` : "") + warn,
    onclick: () => send(bid),
  },
  h("span", { class: "bid-btn-amount" }, String(bid.amount)),
  h("span", { class: "bid-btn-cost" }, t("auction.cost", { cost: bid.cost })),
  note ? h("span", { class: "bid-btn-note" }, note) : null,
  discounted ? h("span", { class: "bid-btn-tag" }, `−${bid.amount - bid.cost} ${t("auction.discount_short")}`) : null,
  bid.loses_match ? h("span", { class: "bid-btn-warn" }, t("auction.all_in_short")) : null);
}

function bidStepper(key, offered, start, send) {
  const last = offered.length - 1;
  if (stepperChoice.key !== key) stepperChoice = { key, index: Math.min(start, last) };
  stepperChoice.index = Math.max(0, Math.min(last, stepperChoice.index));
  const slider = h("input", {
    type: "range", class: "bid-slider", min: "0", max: String(last), step: "1",
    value: String(stepperChoice.index), "data-amounts": offered.map((bid) => bid.amount).join(" "),
    "aria-label": t("auction.other_amount"),
  });
  const holder = h("div", { class: "bid-chosen" });
  const show = () => {
    const bid = offered[stepperChoice.index];
    slider.value = String(stepperChoice.index);
    slider.setAttribute("aria-valuetext", t("auction.bid_aria", { amount: bid.amount, cost: bid.cost }));
    fill(holder, bidButton(bid, null, send));
    less.disabled = stepperChoice.index === 0;
    more.disabled = stepperChoice.index === last;
  };
  const step = (delta) => {
    stepperChoice.index = Math.max(0, Math.min(last, stepperChoice.index + delta));
    show();
  };
  const less = h("button", { type: "button", class: "btn btn-secondary btn-icon", "data-action": "bid-less", "aria-label": t("auction.less"), onclick: () => step(-1) }, "−");
  const more = h("button", { type: "button", class: "btn btn-secondary btn-icon", "data-action": "bid-more", "aria-label": t("auction.more"), onclick: () => step(1) }, "+");
  slider.addEventListener("input", () => {
    stepperChoice.index = Number(slider.value);
    show();
  });
  const box = h("div", { class: "bid-stepper", role: "group", "aria-label": t("auction.other_amount") },
    h("p", { class: "auction-bids-title" }, t("auction.other_amount")),
    h("div", { class: "bid-stepper-row" }, less, slider, more, holder));
  show();
  return box;
}
