// Events as short sentences: for the live region, the move log and the replay's move list.

import { tileLabel } from "./dom.js";
import { t } from "./i18n.js";
import { placeText } from "./board.js";
import { computerSeatName } from "./computer.js";

/** A seat's display name; on a shared device both seats belong to one guest, so they are called
 * by the two names typed for them, or Player 1 and Player 2 when none were (both seats then
 * bear the device's own name); the computer is called by its level. */
export function seatName(match, seat) {
  if (!seat) return "";
  if (match && match.mode === "shared") {
    const players = match.players || {};
    const names = [players.first, players.second].map((p) => (p && p.name) || "");
    if (names[0] && names[1] && names[0] !== names[1]) return names[seat === "first" ? 0 : 1];
    return t(seat === "first" ? "seat.player1" : "seat.player2");
  }
  const computer = computerSeatName(match, seat);
  if (computer) return computer;
  const player = match && match.players ? match.players[seat] : null;
  return player && player.name ? player.name : t("seat.empty");
}

export function reasonText(reason) {
  return t(`result.reason.${reason}`);
}

/** One event as a sentence, or null for bookkeeping events nobody needs to hear. */
export function eventText(event, match) {
  const name = (seat) => seatName(match, seat);
  switch (event.type) {
    case "seat_taken":
      return t("event.seat_taken", { name: match && match.mode === "shared" ? name(event.seat) : computerSeatName(match, event.seat) || event.name });
    case "ready":
      return t("event.ready", { name: name(event.seat) });
    case "round_dealt":
      return t("event.round_dealt", { n: event.number });
    case "auction_opened":
      return t("event.auction_opened", { name: name(event.jockey) });
    case "declined":
      return t(event.forced ? "event.declined_forced" : "event.declined", { name: name(event.seat) });
    case "bid_made":
      return t("event.bid_made", { name: name(event.seat), amount: event.amount, cost: event.cost });
    case "bid_accepted":
      return t(event.forced ? "event.bid_accepted_forced" : "event.bid_accepted", {
        name: name(event.seat),
        bidder: name(event.bidder),
        amount: event.amount,
        payment: event.payment,
      });
    case "opener_chosen":
      return event.tile
        ? t("event.opener_chosen_tile", { name: name(event.seat), tile: tileLabel(event.tile) })
        : t("event.opener_chosen", { name: name(event.seat) });
    case "played": {
      const base = event.at
        ? t("event.played", { name: name(event.seat), tile: tileLabel(event.tile), place: placeText(event.at) })
        : t("event.opened", { name: name(event.seat), tile: tileLabel(event.tile) });
      const sum = t("event.ends", { sum: event.ends_sum });
      const award = event.award > 0 ? ` ${t("event.award", { award: event.award })}` : "";
      return `${base} ${sum}${award}`;
    }
    case "transferred":
      return t("event.transferred", {
        payee: name(event.payee),
        payer: name(event.payer),
        amount: event.amount,
        reason: t(`transfer.${event.reason}`),
      });
    case "drew":
      return event.tile
        ? t("event.drew_own", { name: name(event.seat), tile: tileLabel(event.tile), n: event.boneyard_count })
        : t("event.drew", { name: name(event.seat), n: event.boneyard_count });
    case "passed":
      return t("event.passed", { name: name(event.seat) });
    case "round_ended":
      if (event.reason === "domino") return t("event.round_domino", { n: event.number, name: name(event.jockey) });
      if (event.reason === "block") return t("event.round_block", { n: event.number });
      return t("event.round_over", { n: event.number });
    case "match_ended":
      if (event.undecided) return t("event.match_aborted_undecided", { name: name(event.undecided) });
      if (!event.winner) return t("event.match_aborted", { reason: reasonText(event.reason) });
      return t("event.match_won", { name: name(event.winner), reason: reasonText(event.reason) });
    case "revealed":
      return t("event.revealed", { name: name(event.seat) });
    case "deck_revealed":
      return t("event.deck_revealed", { n: event.round });
    default:
      return null;
  }
}
