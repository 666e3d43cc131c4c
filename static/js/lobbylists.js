// The lobby's lists (docs/PROTOCOL.md "GET /api/lobby"): the finished matches, the others
// (LobbyLists), and what every list's lines share. The finished list is the server's store,
// newest first: each poll of the lobby brings its first page, "More" reads the next ones by their
// cursor, and a poll's fresh first page is joined to the older lines "More" read, so the list
// grows at its top as matches end and keeps what was shown below.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { ApiError, declineRematch, offerRematch, readFinished } from "./api.js";
import { toast } from "./announce.js";
import { computerSeatName } from "./computer.js";
import { icon } from "./icons.js";
import { ratingTag } from "./rating.js";
import { controlTag } from "./timecontrol.js";

export class FinishedList {
  constructor() {
    this.lines = [];
    this.next = null;
    this.extended = false; // "More" has read lines past the first page
    this.loading = false;
    this.key = null;
    this.list = h("ul", { id: "finished-matches", class: "match-list" });
    this.moreButton = h("button", { type: "button", class: "btn btn-secondary btn-small more-finished", "data-action": "more-finished", hidden: true, onclick: () => this.more() });
    this.el = h("div", { class: "finished-list" }, this.list, this.moreButton);
  }

  /** A poll's first page and the cursor after it. */
  update(first, next) {
    if (this.extended) {
      // The older lines stay where the fresh page reaches them; when more matches ended since
      // the last poll than a page holds, it does not, and the list starts again from it.
      const last = first.length ? first[first.length - 1] : null;
      const at = last ? this.lines.findIndex((m) => m.id === last.id) : -1;
      if (at >= 0) {
        this.lines = [...first, ...this.lines.slice(at + 1)];
        this.render();
        return;
      }
      this.extended = false;
    }
    this.lines = first;
    this.next = next;
    this.render();
  }

  async more() {
    if (this.loading || !this.next) return;
    this.loading = true;
    this.moreButton.disabled = true;
    try {
      const page = await readFinished(this.next);
      const shown = new Set(this.lines.map((m) => m.id));
      this.lines = [...this.lines, ...page.matches.filter((m) => !shown.has(m.id))];
      this.next = page.next;
      this.extended = true;
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), "error");
    } finally {
      this.loading = false;
      this.moreButton.disabled = false;
      this.render();
    }
  }

  /** Redrawn only on a change (lines, language, the minute), so a focused link keeps focus. */
  render() {
    this.moreButton.hidden = !this.next;
    this.moreButton.textContent = t("lobby.more_finished");
    const key = JSON.stringify([this.lines, document.documentElement.lang, Math.floor(Date.now() / 60000)]);
    if (this.key === key) return;
    this.key = key;
    if (!this.lines.length) {
      fill(this.list, h("li", { class: "empty" }, t("lobby.finished_empty")));
      return;
    }
    fill(this.list, this.lines.map((m) => h("li", { class: "match-item", "data-match-id": m.id, "data-status": m.status }, finishedLine(m))));
  }
}

function finishedLine(m) {
  return [
    h("div", { class: "item-main" },
      h("span", { class: "item-title" }, players(m)),
      h("span", { class: "item-meta" }, meta([outcome(m), reason(m.reason), m.rated ? t("profile.rated") : null, ago(m.ended_at_ms)]))),
    h("div", { class: "item-actions" },
      h("a", { class: "btn btn-secondary btn-small", href: m.replay_url, "data-action": "replay" }, t("lobby.replay")),
      h("a", { class: "btn btn-ghost btn-small", href: `/m/${m.id}` }, t("lobby.result"))),
  ];
}

function seatName(m, seat) {
  if (m.mode === "shared") return t(seat === "first" ? "seat.player1" : "seat.player2");
  return computerSeatName(m, seat) || m[seat];
}

/** The two names, each linking to its player's profile and archive, each with the rating the
 * match moved beside it. */
function players(m) {
  const name = (seat) => {
    const shown = computerSeatName(m, seat) || m[seat] || (seat === "first" ? "?" : "…");
    const link = m[`${seat}_profile`];
    return h("span", { class: "item-name", "data-seat": seat },
      link ? h("a", { class: "player-link", href: link }, shown) : shown,
      ratingMove(m[`${seat}_rating_change`]));
  };
  if (m.mode === "shared") return t("lobby.shared_match", { name: m.first || "?" });
  return [name("first"), ` ${t("lobby.vs")} `, name("second")];
}

/** "+12" or "−12" as the server counted it (the rounded rating after less the one before). */
function ratingMove(move) {
  if (!move) return null;
  const shown = move.change > 0 ? `+${move.change}` : move.change < 0 ? `\u2212${-move.change}` : "±0";
  const spoken = t("lobby.rating_moved", { before: Math.round(move.before), after: Math.round(move.after) });
  const direction = move.change > 0 ? "up" : move.change < 0 ? "down" : "even";
  return [" ", h("span", { class: `rating-move rating-${direction}`, "data-change": move.change, title: spoken },
    h("span", { "aria-hidden": "true" }, shown),
    h("span", { class: "sr-only" }, spoken))];
}

function outcome(m) {
  if (m.status === "aborted") return t("lobby.aborted");
  if (!m.winner) return t(`status.${m.status}`);
  return t("lobby.won", { name: seatName(m, m.winner) || "?" });
}

/** How it ended, in words; a reason this page has no words for yet is shown as sent. */
function reason(code) {
  if (!code) return null;
  const text = t(`result.reason.${code}`);
  return text === `result.reason.${code}` ? code.replaceAll("_", " ") : text;
}

/** The text of key with its {name} replaced by nodes (a name and the tag beside it). */
export function withName(key, nodes) {
  const [before, after = ""] = t(key, { name: "\u0000" }).split("\u0000");
  return [before, h("span", { class: "item-name" }, nodes), after];
}

/** Parts of a meta line, " · " between the ones present. */
export function meta(parts) {
  return parts.filter((part) => part).flatMap((part, i) => (i ? [" · ", part] : [part]));
}

export function ago(ms) {
  if (!ms) return "";
  const seconds = Math.max(0, Math.round((Date.now() - ms) / 1000));
  const rtf = new Intl.RelativeTimeFormat(document.documentElement.lang || "en", { numeric: "auto" });
  if (seconds < 60) return rtf.format(-seconds, "second");
  if (seconds < 3600) return rtf.format(-Math.round(seconds / 60), "minute");
  if (seconds < 86400) return rtf.format(-Math.round(seconds / 3600), "hour");
  return rtf.format(-Math.round(seconds / 86400), "day");
}

/** The lobby's lists but the finished one: the rematches offered to this player, the
 * invitations made back to them (D3), the open challenges and the live matches. Each is redrawn
 * only when what it shows changed, so that a focused button keeps its focus between polls. */
export class LobbyLists {
  /** actions: accept(matchId) takes a seat; answerRematch(endedId, call) accepts or declines. */
  constructor(actions) {
    this.actions = actions;
    this.keys = new Map();
  }

  /** Every list of `data` (a lobby read) but the finished one, as `me` sees them. */
  render(root, data, me) {
    const myName = me ? me.name : null;
    // Minutes, not ms, so that a poll redraws the line only when what it shows changes.
    const offers = (data.rematch_offers || []).map(({ expires_in_ms: left, ...o }) => ({ ...o, id: o.match_id, minutes: Math.max(1, Math.ceil(left / 60000)) }));
    root.querySelector("#rematch-offers").closest("section").hidden = !offers.length;
    this.fillList(root, me, "rematch-offers", offers, (o) => [
      h("div", { class: "item-main" },
        h("span", { class: "item-title" }, withName("rematch.offered_by", [h("a", { class: "player-link", href: o.by_profile }, o.by), " ", ratingTag(o, "by_rating")])),
        h("span", { class: "item-meta" }, meta([controlTag(o), t("rematch.left", { when: inMinutes(o.minutes) })]))),
      h("div", { class: "item-actions" },
        h("button", { type: "button", class: "btn btn-primary btn-small", "data-action": "accept-rematch", onclick: () => this.actions.answerRematch(o.match_id, offerRematch) }, t("rematch.accept")),
        h("button", { type: "button", class: "btn btn-secondary btn-small", "data-action": "decline-rematch", onclick: () => this.actions.answerRematch(o.match_id, declineRematch) }, t("rematch.decline"))),
    ]);
    this.renderInvitations(root, me, data.invitations || []);
    this.fillList(root, me, "open-challenges", data.open_challenges || [], (m) => {
      const mine = myName && m.first === myName;
      return [
        h("div", { class: "item-main" },
          h("span", { class: "item-title" }, withName("lobby.challenge_by", [m.first || "?", " ", ratingTag(m, "first_rating")])),
          h("span", { class: "item-meta" }, meta([controlTag(m), ago(m.created_at_ms)]))),
        h("div", { class: "item-actions" },
          mine
            ? h("a", { class: "btn btn-secondary btn-small", href: `/m/${m.id}` }, t("lobby.open_yours"))
            : h("button", { type: "button", class: "btn btn-primary btn-small", "data-action": "accept-challenge", onclick: () => this.actions.accept(m.id) }, t("lobby.accept"))),
      ];
    });
    this.fillList(root, me, "live-matches", data.live || [], (m) => [
      h("div", { class: "item-main" },
        h("span", { class: "item-title" }, versus(m)),
        h("span", { class: "item-meta" },
          meta([m.round_number > 0 ? t("lobby.round", { n: m.round_number }) : t("lobby.starting"), t(`mode.${m.mode}`), controlTag(m)]),
          " · ", icon("eye", "icon icon-inline"), h("span", { class: "sr-only" }, t("match.spectators", { n: m.spectators })), ` ${m.spectators}`)),
      h("div", { class: "item-actions" },
        h("a", { class: "btn btn-secondary btn-small", href: `/m/${m.id}` }, t("lobby.watch"))),
    ]);
  }

  /** D3: invitations made back to this player by a friend who came after theirs expired. */
  renderInvitations(root, me, invitations) {
    const items = invitations.map((i) => ({ ...i, id: i.match_id }));
    root.querySelector("#invitations-back").closest("section").hidden = !items.length;
    this.fillList(root, me, "invitations-back", items, (i) => [
      h("div", { class: "item-main" },
        h("span", { class: "item-title" }, withName("late.invited_you", [h("a", { class: "player-link", href: i.by_profile }, i.by), " ", ratingTag(i, "by_rating")])),
        h("span", { class: "item-meta" }, meta([controlTag(i)]))),
      h("div", { class: "item-actions" },
        h("button", { type: "button", class: "btn btn-primary btn-small", "data-action": "accept-invitation", onclick: () => this.actions.accept(i.match_id) }, t("late.play"))),
    ]);
  }

  fillList(root, me, id, items, row) {
    const ul = root.querySelector(`#${id}`);
    // Redraw only on a change, so that a focused button keeps its focus between polls.
    const key = JSON.stringify([items, document.documentElement.lang, me && me.name, Math.floor(Date.now() / 60000)]);
    if (this.keys.get(id) === key) return;
    this.keys.set(id, key);
    if (!items.length) {
      fill(ul, h("li", { class: "empty" }, t(ul.dataset.emptyKey)));
      return;
    }
    fill(ul, items.map((m) => h("li", { class: "match-item", "data-match-id": m.id }, row(m))));
  }
}

function versus(m) {
  if (m.mode === "shared") return t("lobby.shared_match", { name: m.first || "?" });
  return `${m.first || "?"} ${t("lobby.vs")} ${computerSeatName(m, "second") || m.second || "…"}`;
}

function inMinutes(minutes) {
  return new Intl.RelativeTimeFormat(document.documentElement.lang || "en", { numeric: "auto" }).format(minutes, "minute");
}
