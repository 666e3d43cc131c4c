// A player's rating beside its name (issue 11 item 6), as the server sends it on a lobby line:
// the key absent (a server that does not rate yet) shows nothing, null is a guest, and a
// rating shows its rounded value, with "?" while it is provisional ("1500?").

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
