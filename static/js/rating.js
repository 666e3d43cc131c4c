// Ratings where people look: a player's rating beside its name (PROTOCOL.md "GET /api/lobby"), as a
// lobby line or the match object carries it — the key absent (a server that does not rate yet)
// shows nothing, null a guest, a rating its rounded value with "?" while provisional ("1500?") —
// the "Rated" mark of a match, and the changes a rated match made ("+12" / "−12").

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The tag for line[key] (e.g. "first_rating"), or null when the line has no such key. */
export function ratingTag(line, key) {
  if (!line || !(key in line)) return null;
  const rating = line[key];
  if (rating === null) {
    return h("span", { class: "rating-tag rating-guest", "data-rating": "guest" }, t("rating.guest"));
  }
  const value = Math.round(Number(rating.value));
  // Plain digits, as ratings are written everywhere (no "1 500" grouping).
  const shown = `${value}${rating.provisional ? "?" : ""}`;
  const spoken = t(rating.provisional ? "rating.provisional_aria" : "rating.aria", { value });
  return h("span", { class: "rating-tag", "data-rating": shown },
    h("span", { "aria-hidden": "true" }, shown),
    h("span", { class: "sr-only" }, spoken));
}

/** A rating change as it is written: a sign and whole points ("+12", "−12" with U+2212). */
export function signedChange(change) {
  const rounded = Math.round(Number(change));
  if (rounded > 0) return `+${rounded}`;
  if (rounded < 0) return `\u2212${-rounded}`;
  return "±0";
}

/** The match header's rating beside a seat's name (match.players[seat].rating): "1512", or
 * "1500?" while provisional; nothing for a guest or the computer. */
export function fillSeatRating(el, player) {
  const rating = player && player.rating;
  if (!rating) {
    el.hidden = true;
    el.textContent = "";
    el.removeAttribute("aria-label");
    return;
  }
  const value = Math.round(Number(rating.value));
  el.hidden = false;
  el.textContent = `${value}${rating.provisional ? "?" : ""}`;
  el.setAttribute("aria-label", t(rating.provisional ? "rating.provisional_aria" : "rating.aria", { value }));
}

/** The "Rated" mark in the match's bar, shown while a match is to be rated or after it was. */
export function renderRatedMark(bar, match) {
  let mark = bar.querySelector(".rated-badge");
  if (!mark) {
    mark = h("span", { class: "rated-badge" });
    bar.prepend(mark);
  }
  mark.hidden = !match.rated;
  mark.textContent = t("rating.rated");
  mark.title = t("rating.rated_hint");
}

/** Each player's rating change at a rated match's end ("Ann +12 · Bob −12"), or null. */
export function ratingChanges(match, nameOf) {
  const players = match.players || {};
  const seats = ["first", "second"].filter((seat) => players[seat] && players[seat].rating_change != null);
  if (seats.length !== 2) return null;
  const parts = [];
  for (const seat of seats) {
    const change = players[seat].rating_change;
    if (parts.length) parts.push(" · ");
    parts.push(h("span", { class: "rating-who" }, nameOf(seat)), " ",
      h("span", { class: `rating-change${change < 0 ? " is-loss" : " is-gain"}`, "data-seat": seat, "data-change": String(change) }, signedChange(change)));
  }
  return h("p", { class: "result-ratings", "aria-label": t("rating.changes_aria") }, parts);
}
