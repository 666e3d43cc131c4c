// The match's words at the top: the tab's title, the header's title and the turn banner, each
// said from the last view (whose turn, which phase) and nothing else.

import { tileLabel } from "../dom.js";
import { t } from "../i18n.js";
import { seatName } from "../narrate.js";

/** A player in another tab sees it is their turn in the tab's title, and the creator of an
 * invitation that the friend has come to, until the first round starts (D3). */
export function renderTitle(view, match) {
  const names = `${seatName(match, "first")} – ${seatName(match, "second")}`;
  const arrival = view.arrived && match.phase === "awaiting_deal" && match.round_number === 0
    && match.status === "active" && !(match.ready && match.ready[match.viewer]);
  const flag = match.legal ? t("match.your_turn_title") : arrival ? t("arrival.title", { name: view.arrived }) : "";
  document.title = `${flag ? `● ${flag} · ` : ""}${names} — ${t("app.name")}`;
}

export function titleText(match) {
  if (match.status === "waiting") return t("phase.waiting");
  if (match.status === "finished" || match.status === "aborted") return t("phase.over");
  // Before the first deal the match is about to play round 1, not between two rounds.
  if (match.round_number === 0) return t("match.round", { n: 1 });
  const round = match.round_number > 0 ? `${t("match.round", { n: match.round_number })} · ` : "";
  return `${round}${t(`phase.${match.phase}`)}`;
}

export function bannerText(match) {
  const name = (seat) => seatName(match, seat);
  if (match.status === "waiting") {
    // Only the creator waits for *its* opponent; a visitor sees that a seat is free.
    return match.audience === "first" ? t("banner.waiting_opponent") : t("banner.waiting_second");
  }
  if (match.status === "finished" || match.status === "aborted") return "";
  if (match.audience === "device" && match.handover) return t("banner.handover", { name: name(match.handover) });
  const legal = match.legal;
  switch (match.phase) {
    case "awaiting_deal":
      return match.round_number === 0 ? t("banner.ready_to_start") : t("banner.round_over");
    case "auction":
      return legal ? t("banner.auction_you") : t("banner.auction_other", { name: name(match.to_act) });
    case "opening":
      if (!legal) return t("banner.opens_other", { name: name(match.to_act) });
      {
        const only = legal.opening && legal.plays.length === 1 ? legal.plays[0].tile : null;
        const tile = match.opening_tile || only;
        return tile ? t("banner.open_with", { tile: tileLabel(tile) }) : t("banner.open_any");
      }
    case "playing":
      if (!legal) return t("banner.turn_other", { name: name(match.to_act) });
      if (legal.can_draw) return t("banner.must_draw");
      if (match.must_play) return t("banner.must_play", { tile: tileLabel(match.must_play) });
      return t("banner.your_turn");
    default:
      return "";
  }
}
