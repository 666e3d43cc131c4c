// The match page's cards: the round settlement with Start/Continue, the result,
// the invitation, the join offer and the way forward from an expired invitation. Each is drawn
// from the last snapshot only.

import { h, fill, mmss, tileLabel } from "./dom.js";
import { t } from "./i18n.js";
import { seatName, reasonText } from "./narrate.js";
import { tileSvg } from "./tiles.js";
import { verifyReveal } from "./fairness.js";
import { icon } from "./icons.js";
import { ratingChanges } from "./rating.js";

// -- settlement and Start/Continue -----------------------------------------------------------

function handRow(match, seat, last) {
  const tiles = (last.hands && last.hands[seat]) || [];
  return h("div", { class: "settle-hand" },
    h("div", { class: "settle-who" },
      h("strong", {}, seatName(match, seat)),
      h("span", { class: "muted" }, t("settlement.pips", { n: last.pip_totals ? last.pip_totals[seat] : 0 }))),
    tiles.length
      ? h("div", { class: "settle-tiles" }, tiles.map((tile) =>
          h("span", { class: "mini-tile", "data-tile": tile, role: "img", "aria-label": tileLabel(tile) }, tileSvg(tile))))
      : h("p", { class: "muted settle-empty" }, t("settlement.empty_hand")));
}

/** Each transfer of the round as who gained what and why, e.g. "Matti +10 (award for [4|6])":
 * an award names the tile whose placement earned it (the `played` event it follows). */
function transferLines(match, roundEvents, roundNumber) {
  const lines = [];
  let inRound = false;
  let lastTile = null;
  for (const event of roundEvents) {
    if (event.type === "round_dealt") inRound = event.number === roundNumber;
    if (event.type === "played") lastTile = event.tile;
    if (!inRound || event.type !== "transferred") continue;
    const payer = seatName(match, event.payer);
    let why;
    if (event.reason === "award") why = lastTile ? t("settlement.why_award", { tile: tileLabel(lastTile) }) : t("settlement.why_award_plain");
    else if (event.reason === "block") why = t("settlement.why_block", { payer });
    else why = t("settlement.why_auction", { payer });
    lines.push(h("li", { class: `transfer reason-${event.reason}`, "data-payee": event.payee },
      h("span", { class: "transfer-reason" }, t(`transfer.${event.reason}`)),
      h("span", {}, t("settlement.transfer_line", { payee: seatName(match, event.payee), amount: event.amount, why }))));
  }
  return lines;
}

function roundReason(match, last) {
  if (last.reason === "domino") return t("settlement.reason_domino", { name: seatName(match, match.jockey) });
  if (last.reason === "block") return t("settlement.reason_block");
  return t("settlement.reason_match_over");
}

/** The round card: the settlement (between rounds and at the end) and the Start/Continue block. */
export function renderRoundCard(card, match, ctx) {
  const settlementBox = card.querySelector("#settlement");
  const startBox = card.querySelector("#start-panel");
  const last = match.last_round;
  const between = match.phase === "awaiting_deal" && match.status === "active";
  const ended = match.status === "finished" || match.status === "aborted";
  const showSettlement = !!last && (between || ended);
  const showStart = between && match.status === "active";
  card.hidden = !(showSettlement || showStart);

  settlementBox.hidden = !showSettlement;
  if (showSettlement) {
    const key = `${last.number}:${match.status}:${document.documentElement.lang}`;
    if (settlementBox.dataset.key !== key) {
      settlementBox.dataset.key = key;
      const transfers = transferLines(match, ctx.roundEvents, last.number);
      const commitment = h("p", { id: "commitment", class: "commitment", "data-verified": "pending" }, t("settlement.checking"));
      fill(
        settlementBox,
        h("h2", { class: "card-title" }, t("settlement.title", { n: last.number })),
        h("p", { class: "card-text settle-reason" }, roundReason(match, last)),
        last.reason === "block" ? h("p", { class: "muted small" }, t("settlement.block_rule")) : null,
        h("div", { class: "settle-hands" }, handRow(match, "first", last), handRow(match, "second", last)),
        transfers.length
          ? h("div", { class: "settle-transfers" }, h("h3", {}, t("settlement.transfers")), h("ul", {}, transfers))
          : null,
        h("p", { class: "settle-balances" }, t("settlement.balances", {
          a: seatName(match, "first"), x: match.balances.first, b: seatName(match, "second"), y: match.balances.second,
        })),
        commitment,
      );
      checkCommitment(commitment, match, ctx.commitments, last.number);
    }
  } else {
    delete settlementBox.dataset.key;
    fill(settlementBox);
  }

  startBox.hidden = !showStart;
  if (showStart) {
    const seat = match.viewer;
    const isDevice = match.audience === "device";
    const canPress = match.audience !== "spectator" && (isDevice || (seat && match.ready && !match.ready[seat]));
    const label = match.round_number === 0 ? t("start.start") : t("start.continue");
    const pressed = seat && match.ready && match.ready[seat];
    const keyText = `${canPress}|${pressed}|${label}|${match.version}`;
    if (startBox.dataset.key !== keyText) {
      startBox.dataset.key = keyText;
      fill(
        startBox,
        match.round_number === 0 && !last ? h("h2", { class: "card-title" }, t("start.title")) : null,
        match.round_number === 0 && !last ? h("p", { class: "card-text" }, t(isDevice ? "start.text_device" : "start.text")) : null,
        canPress
          ? h("button", { type: "button", class: "btn btn-primary btn-large", "data-action": "start", onclick: () => ctx.onCommand({ type: "start" }) }, label)
          : h("p", { class: "waiting-line" }, h("span", { class: "spinner small", "aria-hidden": "true" }),
              match.audience === "spectator" ? t("start.waiting_players") : t("start.waiting_other", { name: seatName(match, seat === "first" ? "second" : "first") })),
        h("p", { class: "countdown", "data-countdown": "start" }),
      );
    }
  } else {
    delete startBox.dataset.key;
    fill(startBox);
  }
}

async function checkCommitment(el, match, commitments, round) {
  const reveal = match.deck_reveal;
  if (!reveal || reveal.round !== round) {
    el.dataset.verified = "false";
    el.textContent = t("settlement.no_reveal");
    return;
  }
  try {
    const seen = commitments.has(round) ? commitments.get(round) : null;
    const { computed, ok } = await verifyReveal(reveal, seen);
    el.dataset.verified = ok ? "true" : "false";
    fill(
      el,
      h("span", { class: "commit-icon", "aria-hidden": "true" }, ok ? "✔" : "✖"),
      h("span", {}, ok ? t("settlement.verified") : t("settlement.not_verified")),
      h("code", { class: "hash", title: computed }, `SHA-256 ${computed.slice(0, 16)}…`),
      h("details", { class: "commit-details" },
        h("summary", {}, t("settlement.details")),
        h("p", {}, t("settlement.details_text")),
        h("p", {}, h("span", { class: "muted" }, "salt: "), h("code", {}, reveal.salt)),
        h("p", {}, h("span", { class: "muted" }, "deck: "), h("code", { class: "deck-text" }, reveal.deck.join(" "))),
        h("p", {}, h("span", { class: "muted" }, "commitment: "), h("code", {}, reveal.commitment || ""))),
    );
  } catch (err) {
    el.dataset.verified = "false";
    el.textContent = t("settlement.not_verified");
  }
}

// -- the result ------------------------------------------------------------------------------

/** A trophy for a win seen by its winner or a watcher; never above "You lost". */
function resultIcon(match, result) {
  if (!result.winner) return "stop";
  const lost = match.viewer && match.audience !== "device" && result.winner !== match.viewer;
  return lost ? "flag" : "trophy";
}

export function renderResult(box, match) {
  // A visitor who came to an expired invitation is offered a way forward instead (renderLate).
  const ended = (match.status === "finished" || match.status === "aborted") && !isLate(match);
  box.hidden = !ended;
  if (!ended) {
    fill(box);
    return;
  }
  const result = match.result || { winner: null, reason: "join_timeout" };
  const changes = ["first", "second"].map((seat) => match.players && match.players[seat] ? match.players[seat].rating_change : null);
  const key = `${result.winner}|${result.reason}|${result.undecided}|${changes.join("|")}|${document.documentElement.lang}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  let headline;
  if (!result.winner) headline = t("result.aborted");
  else if (match.viewer && match.audience !== "device") headline = result.winner === match.viewer ? t("result.you_won") : t("result.you_lost");
  else headline = t("result.winner", { name: seatName(match, result.winner) });
  const loser = result.winner ? (result.winner === "first" ? "second" : "first") : null;
  let detail = result.winner
    ? t(`result.detail.${result.reason}`, { winner: seatName(match, result.winner), loser: seatName(match, loser) })
    : reasonText(result.reason);
  // D7: whose first decision never came.
  if (result.undecided) detail = t("result.detail.no_first_decision", { name: seatName(match, result.undecided) });
  fill(
    box,
    h("div", { class: "result-icon", "aria-hidden": "true" }, icon(resultIcon(match, result), "icon icon-result")),
    h("h2", { class: "card-title" }, headline),
    h("p", { class: "card-text" }, detail),
    h("p", { class: "result-balances" }, t("settlement.balances", {
      a: seatName(match, "first"), x: match.balances.first, b: seatName(match, "second"), y: match.balances.second,
    })),
    ratingChanges(match, (seat) => seatName(match, seat)),
    h("div", { class: "result-actions" },
      h("a", { class: "btn btn-primary", href: `/replay/${match.id}` }, t("result.replay")),
      h("a", { class: "btn btn-secondary", href: "/" }, t("result.lobby"))),
  );
}

// -- invitation and joining ------------------------------------------------------------------

export function renderInvite(box, match) {
  const show = match.status === "waiting" && match.audience === "first" && match.bot_level == null;
  box.hidden = !show;
  if (!show) return;
  const url = `${location.origin}/m/${match.id}`;
  if (box.dataset.key === `${url}|${document.documentElement.lang}`) return;
  box.dataset.key = `${url}|${document.documentElement.lang}`;
  const input = h("input", { id: "invite-link", class: "invite-input", type: "text", readonly: true, value: url, "aria-label": t("invite.link_label") });
  input.addEventListener("focus", () => input.select());
  const copy = h("button", { type: "button", class: "btn btn-primary", "data-action": "copy-invite" }, t("invite.copy"));
  copy.addEventListener("click", async () => {
    let ok = false;
    try {
      await navigator.clipboard.writeText(url);
      ok = true;
    } catch {
      input.select();
      try {
        ok = document.execCommand("copy");
      } catch {
        ok = false;
      }
    }
    copy.textContent = ok ? t("invite.copied") : t("invite.copy_failed");
    setTimeout(() => { copy.textContent = t("invite.copy"); }, 2000);
  });
  // D3: it waits while this page is open, and for the join timeout once it is closed.
  const minutes = Math.max(1, Math.round((match.join_timeout_ms || 0) / 60000));
  fill(
    box,
    h("h2", { class: "card-title" }, match.mode === "open" ? t("invite.open_title") : t("invite.title")),
    h("p", { class: "card-text" }, match.mode === "open" ? t("invite.open_text") : t("invite.text")),
    h("div", { class: "invite-row" }, input, copy),
    h("p", { class: "muted invite-waits" }, t("invite.waits", { n: minutes })),
  );
}

/** A visitor at an invitation (or open challenge) that expired before a second player came. */
export function isLate(match) {
  return match.status === "aborted" && (match.mode === "invite" || match.mode === "open")
    && !!match.players && !!match.players.first && !match.players.second && match.audience === "spectator";
}

/** D3: a friend who came too late sees who invited them and, in one click, invites them back
 * (a new invitation on the same time control, whose link they send) or posts an open
 * challenge — not the replay of an empty match. */
export function renderLate(box, match, { hasName, onAgain }) {
  const show = isLate(match);
  box.hidden = !show;
  if (!show) {
    delete box.dataset.key;
    fill(box);
    return;
  }
  const name = match.players.first.name;
  const key = `${name}|${hasName}|${document.documentElement.lang}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  let input = null;
  if (!hasName) {
    input = h("input", { id: "late-name", class: "text-input", type: "text", maxlength: "24", autocomplete: "nickname", placeholder: t("lobby.name_placeholder"), "aria-label": t("lobby.name_label") });
    try { input.value = localStorage.getItem("specbid.name") || ""; } catch { /* ignore */ }
  }
  const choice = (mode, titleKey, hintKey) =>
    h("button", { type: "button", class: `btn ${mode === "invite" ? "btn-primary" : "btn-secondary"}`, "data-action": `again-${mode}`, onclick: () => onAgain(mode, input ? input.value : null) },
      h("strong", {}, t(titleKey, { name })),
      h("small", {}, t(hintKey, { name })));
  fill(
    box,
    h("h2", { class: "card-title" }, t("late.title", { name })),
    h("p", { class: "card-text" }, t("late.text", { name })),
    input,
    h("div", { class: "late-actions" },
      choice("invite", "late.invite_back", "late.invite_back_hint"),
      choice("open", "late.challenge", "late.challenge_hint")),
  );
}

export function renderJoin(box, { visible, full, hasName, onJoin }) {
  box.hidden = !visible && !full;
  if (!visible) {
    const key = `full|${document.documentElement.lang}`;
    if (!full) {
      delete box.dataset.key;
      fill(box);
    } else if (box.dataset.key !== key) {
      box.dataset.key = key;
      fill(box, h("p", { class: "card-text", "data-join": "full" }, t("join.full")));
    }
    return;
  }
  const key = `${hasName}|${document.documentElement.lang}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const form = h("form", { class: "join-form" });
  let input = null;
  if (!hasName) {
    input = h("input", { id: "join-name", class: "text-input", type: "text", maxlength: "24", required: true, autocomplete: "nickname", placeholder: t("lobby.name_placeholder"), "aria-label": t("lobby.name_label") });
    try { input.value = localStorage.getItem("specbid.name") || ""; } catch { /* ignore */ }
    form.append(input);
  }
  form.append(h("button", { type: "submit", class: "btn btn-primary btn-large", "data-action": "join" }, t("join.join")));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    onJoin(input ? input.value : null);
  });
  fill(box, h("h2", { class: "card-title" }, t("join.title")), h("p", { class: "card-text" }, t("join.text")), form);
}

/** Refresh the countdown lines (start grace, join timeout, a first decision) from the server's
 * clock. */
export function paintCountdowns(root, match, nowServerMs) {
  for (const el of root.querySelectorAll("[data-countdown]")) {
    const kind = el.dataset.countdown;
    const deadline = { start: match.start_deadline_ms, join: match.join_deadline_ms, first: match.first_decision_deadline_ms }[kind];
    let text = "";
    if (deadline && kind === "first") text = firstDecisionText(match, Math.max(0, deadline - nowServerMs));
    else if (deadline) {
      const left = Math.max(0, deadline - nowServerMs);
      text = kind === "start"
        ? t(match.round_number === 0 ? "start.auto_first" : "start.auto", { time: mmss(left) })
        : t("invite.expires", { time: mmss(left) });
    }
    if (el.textContent !== text) el.textContent = text;
    if (kind === "first") el.hidden = !text;
  }
}

/** D7: until a player has made a decision of their own, running out of time aborts the match
 * instead of losing it; the player to decide and everyone else are told how long is left. */
function firstDecisionText(match, leftMs) {
  if (match.status !== "active" || !match.to_act) return "";
  const s = Math.ceil(leftMs / 1000);
  const mine = match.audience === "device" ? !match.handover : match.viewer === match.to_act;
  return mine ? t("first_decision.you", { s }) : t("first_decision.other", { name: seatName(match, match.to_act), s });
}
