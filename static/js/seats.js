// A seat's panel: name and rating, presence, badges (jockey, to act, ready), the balance as a number and
// chips, the clock, and — for a hidden hand — the tile backs with their count.

import { h, fill, setAttr } from "./dom.js";
import { t, num } from "./i18n.js";
import { chipStack } from "./chips.js";
import { seatName } from "./narrate.js";
import { tileBackSvg } from "./tiles.js";
import { icon } from "./icons.js";
import { computerNameNodes, computerSeatName, levelName } from "./computer.js";
import { fillSeatRating } from "./rating.js";

const MAX_BACKS = 14;

/** A tap on a name cut with an ellipsis shows it whole (wrapped), another cuts it again. */
export function showsWholeOnTap(nameEl) {
  if (nameEl.dataset.tap) return;
  nameEl.dataset.tap = "1";
  nameEl.addEventListener("click", () => nameEl.toggleAttribute("data-whole"));
}

export function renderSeat(panel, match, seat, { backs, countId, isYou }) {
  panel.dataset.seat = seat;
  const name = seatName(match, seat);
  const player = match.players ? match.players[seat] : null;
  const avatar = panel.querySelector(".avatar");
  const nameEl = panel.querySelector(".seat-name");
  if (computerSeatName(match, seat)) {
    if (!avatar.querySelector("[data-icon=cpu]")) fill(avatar, icon("cpu"));
    fill(nameEl, computerNameNodes(match.bot_level));
  } else {
    avatar.textContent = (name || "?").trim().charAt(0).toUpperCase();
    nameEl.textContent = isYou ? t("seat.you_name", { name }) : name;
  }
  // A name cut short on a narrow screen is read whole on hover, or tapped to show it whole.
  setAttr(nameEl, "title", nameEl.textContent.trim());
  showsWholeOnTap(nameEl);
  let ratingEl = panel.querySelector(".seat-rating");
  if (!ratingEl) {
    ratingEl = h("span", { class: "seat-rating" });
    nameEl.after(ratingEl);
  }
  fillSeatRating(ratingEl, player);
  setAttr(panel, "data-to-act", match.to_act === seat && match.status === "active" ? "true" : "false");

  const tags = [];
  if (match.jockey === seat) tags.push(h("span", { class: "tag tag-jockey", title: t("seat.jockey_hint") }, `★ ${t("seat.jockey")}`));
  if (match.to_act === seat && match.status === "active") tags.push(h("span", { class: "tag tag-turn" }, `▶ ${t("seat.to_act")}`));
  if (match.phase === "awaiting_deal" && match.status === "active" && match.ready && match.ready[seat]) {
    tags.push(h("span", { class: "tag tag-ready" }, `✓ ${t("seat.ready")}`));
  }
  if (match.result && match.result.winner === seat) tags.push(h("span", { class: "tag tag-winner" }, icon("trophy", "icon icon-tag"), ` ${t("seat.winner")}`));
  fill(panel.querySelector(".seat-tags"), tags);

  const presence = panel.querySelector(".presence");
  if (computerSeatName(match, seat)) {
    presence.hidden = false;
    fill(presence, levelName(match.bot_level));
    setAttr(presence, "data-online", null);
  } else if (match.mode === "shared" || !player) {
    presence.hidden = !!(match.mode === "shared");
    fill(presence, player ? "" : t("seat.waiting"));
    setAttr(presence, "data-online", null);
  } else {
    presence.hidden = false;
    setAttr(presence, "data-online", player.online ? "true" : "false");
    fill(presence, h("span", { class: "presence-dot", "aria-hidden": "true" }, player.online ? "●" : "○"), " ",
      player.online ? t("seat.online") : t("seat.offline"));
  }

  const balance = match.balances ? match.balances[seat] : 0;
  const balanceEl = panel.querySelector(".balance");
  setAttr(balanceEl, "data-balance", seat);
  const label = t("seat.balance_aria", { name, n: balance, chips: Math.floor(balance / 5) });
  balanceEl.setAttribute("aria-label", label);
  balanceEl.setAttribute("role", "img");
  const numberText = String(balance);
  const current = balanceEl.querySelector(".balance-number");
  if (!current || current.textContent !== numberText || balanceEl.dataset.lang !== document.documentElement.lang) {
    fill(
      balanceEl,
      h("span", { class: "balance-number" }, numberText),
      h("span", { class: "balance-unit" }, t("seat.points")),
      chipStack(balance),
    );
    balanceEl.dataset.lang = document.documentElement.lang;
  }

  panel.querySelector(".clock").setAttribute("data-clock", seat);

  const handBox = panel.querySelector(".seat-hand");
  const count = match.hand_counts ? match.hand_counts[seat] : 0;
  const inRound = ["auction", "opening", "playing"].includes(match.phase) && match.status === "active";
  if (backs && inRound) {
    const tiles = [];
    for (let i = 0; i < Math.min(count, MAX_BACKS); i++) tiles.push(tileBackSvg());
    fill(
      handBox,
      h("span", { class: "backs", "aria-hidden": "true" }, tiles),
      h("span", { class: "backs-count", id: countId || null, "aria-label": t("seat.hand_count_aria", { name, n: count }) },
        h("span", { class: "count" }, num(count)), " ", t("seat.tiles", { n: count })),
    );
    handBox.hidden = false;
  } else {
    fill(handBox);
    handBox.hidden = true;
  }
}
