// A player's page (/@/{name}): the rating now with its history as a small chart, wins and
// losses, and every ended match of the player, newest first, a page at a time, each opening its
// replay (PROTOCOL.md "Players: profiles, ratings and archives"). On one's own page each match with
// an opponent also offers a rematch, however long ago it ended (PROTOCOL.md "rematch"). The
// computer is called by its level, on its own page and in the lines of matches against it, which
// are never rated, so nothing of a rating is shown for them (PROTOCOL.md "POST /api/matches").
// Everything shown comes from the server; nothing is computed here but the chart's drawing.

import { h, s, fill } from "./dom.js";
import { t, onLanguageChange } from "./i18n.js";
import { ApiError, offerRematch, readPlayer, readPlayerMatches, whoAmI } from "./api.js";
import { navigate } from "./router.js";
import { toast } from "./announce.js";
import { ratingTag, signedChange } from "./rating.js";
import { computerName, computerSeatName } from "./computer.js";

const CHART = { width: 480, height: 140, pad: 28 };
const PAGE = 20;

export function mountProfile(main, handle) {
  const page = new ProfilePage(main, handle);
  page.start();
  return () => page.destroy();
}


class ProfilePage {
  constructor(main, handle) {
    this.main = main;
    this.handle = handle;
    this.player = null;
    this.matches = [];
    this.next = null;
    this.me = null;
    this.busy = false;
    this.destroyed = false;
    this.offLanguage = onLanguageChange(() => this.render());
  }

  async start() {
    fill(this.main, h("div", { class: "page-loading", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" })));
    try {
      this.player = await readPlayer(this.handle);
      this.me = await whoAmI().catch(() => null);
      const first = await readPlayerMatches(this.handle, PAGE, null);
      this.matches = first.matches;
      this.next = first.next;
    } catch (err) {
      if (!this.destroyed) this.problem(err);
      return;
    }
    if (!this.destroyed) this.render();
  }

  async more() {
    if (!this.next) return;
    try {
      const page = await readPlayerMatches(this.handle, PAGE, this.next);
      this.matches = this.matches.concat(page.matches);
      this.next = page.next;
    } catch (err) {
      this.next = null;
    }
    if (!this.destroyed) this.render();
  }

  /** Offer a rematch of one of one's own matches; its page then shows the offer standing (or
   * the rematch, when the opponent's offer stood). */
  async rematch(id) {
    if (this.busy) return;
    this.busy = true;
    try {
      const answer = await offerRematch(id);
      navigate(`/m/${answer.match_id || id}`);
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), "error");
    } finally {
      this.busy = false;
    }
  }

  problem(err) {
    const missing = err instanceof ApiError && err.status === 404;
    fill(this.main, h("section", { class: "card problem-card" },
      h("h1", { class: "card-title" }, missing ? t("profile.not_found") : t("profile.problem")),
      h("p", {}, h("a", { class: "btn btn-primary", href: "/" }, t("match.back_to_lobby")))));
  }

  render() {
    const p = this.player;
    if (!p) return;
    const computer = p.bot_level != null;
    const name = computer ? computerName(p.bot_level) : p.name;
    const badge = computer ? t("computer.badge") : p.account ? null : t("rating.guest");
    document.title = `${name} · Spectacular Bid`;
    fill(this.main, h("section", { class: "profile card", "data-player": p.name, "data-bot-level": computer ? p.bot_level : null },
      h("h1", { class: "card-title profile-name" }, name,
        badge ? h("span", { class: "profile-badge" }, badge) : null),
      h("dl", { class: "profile-stats" },
        computer ? null : h("div", {}, h("dt", {}, t("profile.rating")), h("dd", { "data-stat": "rating" }, ratingTag(p, "rating"))),
        h("div", {}, h("dt", {}, t("profile.wins")), h("dd", { "data-stat": "wins" }, String(p.wins))),
        h("div", {}, h("dt", {}, t("profile.losses")), h("dd", { "data-stat": "losses" }, String(p.losses)))),
      p.account && !computer ? chart(p.ratings) : null,
      h("h2", { class: "profile-heading" }, t("profile.matches")),
      this.matches.length
        ? h("ol", { class: "item-list profile-matches" }, this.matches.map((m) => matchLine(m, p, this.me && this.me.id === p.id ? (id) => this.rematch(id) : null)))
        : h("p", { class: "empty" }, t("profile.no_matches")),
      this.next
        ? h("button", { type: "button", class: "btn btn-secondary", "data-action": "more-matches", onclick: () => this.more() }, t("profile.more"))
        : null));
  }

  destroy() {
    this.destroyed = true;
    this.offLanguage();
  }
}

function seatOf(m, player) {
  const mine = (link) => link === player.profile_url;
  if (mine(m.first_profile) && mine(m.second_profile)) return null; // a shared device
  if (mine(m.first_profile)) return "first";
  if (mine(m.second_profile)) return "second";
  return null;
}

function matchLine(m, player, rematch) {
  const seat = seatOf(m, player);
  const other = seat === "first" ? "second" : "first";
  const computer = m.bot_level != null;
  const named = (which) => computerSeatName(m, which) || m[which];
  let outcome = t(`status.${m.status}`);
  if (seat && m.winner) outcome = m.winner === seat ? t("profile.won") : t("profile.lost");
  const opponentLink = seat ? m[`${other}_profile`] : null;
  const opponent = seat ? named(other) : `${m.first || "?"} ${t("lobby.vs")} ${named("second") || "…"}`;
  const rating = computer ? null : m.rated ? t("profile.rated") : t("profile.casual");
  const change = seat ? m[`${seat}_rating_change`] : null;
  return h("li", { class: "match-item", "data-match-id": m.id, "data-bot-level": computer ? m.bot_level : null },
    h("div", { class: "item-main" },
      h("span", { class: "item-title" },
        seat ? [t("profile.versus"), " ", opponentLink ? h("a", { href: opponentLink }, opponent || "?") : opponent || "?"] : opponent,
        change != null
          ? [" ", h("span", { class: `rating-change${change < 0 ? " is-loss" : " is-gain"}`, "data-change": String(change), title: t("profile.change_hint") }, signedChange(change))]
          : null),
      h("span", { class: "item-meta" },
        [outcome, t(`result.reason.${m.reason}`), rating, new Date(m.ended_at_ms).toLocaleDateString(document.documentElement.lang || "en")].filter(Boolean).join(" · "))),
    h("div", { class: "item-actions" },
      h("a", { class: "btn btn-secondary btn-small", href: `/replay/${m.id}` }, t("lobby.replay")),
      rematch && seat && m.mode !== "shared" && !computer && opponentLink
        ? h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "rematch", onclick: () => rematch(m.id) }, t("profile.rematch"))
        : null));
}

/** The rating from before the first match shown, then after each rated match, oldest to newest,
 * as a line: one match already draws one. The rating axis is labelled at its lowest, highest and
 * starting values, the time axis at the first and last match's dates. */
function chart(points) {
  if (!points.length) return h("p", { class: "profile-chart-empty" }, t("profile.no_rated"));
  const lang = document.documentElement.lang || "en";
  const first = points[0];
  const start = typeof first.before === "number" ? first.before : first.value;
  const values = [start, ...points.map((p) => p.value)];
  const lowest = Math.min(...values);
  const highest = Math.max(...values);
  const spread = Math.max(highest - lowest, 20);
  const low = lowest - spread * 0.1;
  const high = highest + spread * 0.1;
  const { width, height, pad } = CHART;
  const left = pad + 24; // room for the rating labels
  const bottom = height - pad;
  const x = (i) => left + (i * (width - left - pad)) / (values.length - 1);
  const y = (v) => bottom - ((v - low) * (bottom - pad / 2)) / (high - low);
  const line = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const last = points[points.length - 1];
  const day = (ms) => new Date(ms).toLocaleDateString(lang);
  const ticks = [...new Set([lowest, highest, start].map((v) => Math.round(v)))];
  return s("svg", { class: "profile-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": t("profile.chart", { n: points.length, value: Math.round(last.value) }) },
    s("line", { x1: left, y1: bottom, x2: width - pad, y2: bottom, class: "chart-axis" }),
    s("line", { x1: left, y1: pad / 2, x2: left, y2: bottom, class: "chart-axis" }),
    ticks.map((v) => [
      s("line", { x1: left, y1: y(v).toFixed(1), x2: width - pad, y2: y(v).toFixed(1), class: "chart-grid" }),
      s("text", { x: left - 4, y: (y(v) + 4).toFixed(1), class: "chart-label", "text-anchor": "end" }, String(v)),
    ]),
    s("text", { x: x(1), y: height - 6, class: "chart-label", "text-anchor": points.length > 1 ? "start" : "end" }, day(first.at_ms)),
    points.length > 1 ? s("text", { x: x(values.length - 1), y: height - 6, class: "chart-label", "text-anchor": "end" }, day(last.at_ms)) : null,
    s("polyline", { points: line, class: "chart-line", fill: "none" }),
    values.map((v, i) => s("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3, class: i ? "chart-point" : "chart-point chart-start" },
      s("title", {}, i ? `${Math.round(v)} · ${day(points[i - 1].at_ms)}` : t("profile.chart_start", { value: Math.round(v) })))));
}
