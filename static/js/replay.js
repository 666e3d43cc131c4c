// The replay viewer (/replay/{id}): a finished match move by move — every hand visible, the board,
// both balances and the clock readings at each version. Step with the buttons or the arrow keys,
// play and pause, jump to a move (#v=N, a link per move) or to a round.

import { h, fill } from "./dom.js";
import { t, onLanguageChange } from "./i18n.js";
import { ApiError, readChat, readReplay } from "./api.js";
import { loadMuted, renderChatLines } from "./chat.js";
import { renderBoard } from "./board.js";
import { endsParts } from "./ends.js";
import { renderReplaySeat, replaySeatBox } from "./replayseat.js";
import { TableBounds } from "./fit.js";
import { eventText, seatName } from "./narrate.js";
import { framesFromReplay, numberedFrames } from "./recordframes.js";
import { moveNumber } from "./movelist.js";
import { RecordCheck } from "./recordcheck.js";
import { isRulesOpen } from "./rules.js";
import { icon } from "./icons.js";

const PLAY_MS = 900;
const SEATS = ["first", "second"];
const QUIET = new Set(["deck_committed"]);

export function mountReplay(main, matchId) {
  const viewer = new ReplayViewer(main, matchId);
  viewer.start();
  return () => viewer.destroy();
}

/** The frames come from the server, which re-runs the match through the rules engine: the
 * client never works out a board itself (it holds no rules). */
async function loadFrames(id) {
  return framesFromReplay(await readReplay(id));
}

class ReplayViewer {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.frames = [];
    this.header = {};
    this.index = 0;
    this.timer = null;
    this.destroyed = false;
    this.cleanups = [];
    this.tableBounds = new TableBounds();
  }

  async start() {
    fill(this.main, h("div", { class: "page-loading", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" })));
    let loaded;
    try {
      loaded = await loadFrames(this.id);
    } catch (err) {
      if (this.destroyed) return;
      this.problem(err);
      return;
    }
    if (this.destroyed) return;
    this.header = loaded.header;
    this.frames = numberedFrames(loaded.frames.filter((f) => f && f.view));
    this.source = loaded.source;
    if (!this.frames.length) {
      this.problem(new ApiError(404, "not_found", ""));
      return;
    }
    this.record = new RecordCheck(this.id);
    this.build();
    this.index = this.indexFromHash() ?? 0;
    this.render();
    const onHash = () => {
      const i = this.indexFromHash();
      if (i !== null && i !== this.index) this.go(i, { fromHash: true });
    };
    window.addEventListener("hashchange", onHash);
    this.cleanups.push(() => window.removeEventListener("hashchange", onHash));
    const onKey = (event) => this.onKey(event);
    document.addEventListener("keydown", onKey);
    this.cleanups.push(() => document.removeEventListener("keydown", onKey));
    this.cleanups.push(onLanguageChange(() => { this.buildMoves(); this.renderChat(); this.record.render(); this.render(); }));
    this.loadChat();
    const observer = new ResizeObserver(() => this.renderBoard());
    observer.observe(this.root.querySelector(".board-wrap"));
    this.cleanups.push(() => observer.disconnect());
  }

  destroy() {
    this.destroyed = true;
    this.pause();
    for (const fn of this.cleanups) fn();
  }

  problem(err) {
    let text = t("replay.load_failed");
    if (err instanceof ApiError && err.code === "wrong_phase") text = t("replay.still_live");
    else if (err instanceof ApiError && err.status === 404) text = t("replay.not_found");
    fill(this.main, h("section", { class: "card problem-card", id: "replay", "data-state": "unavailable" },
      h("h1", { class: "card-title" }, t("replay.title")),
      h("p", { class: "card-text" }, text),
      h("p", { class: "result-actions" },
        h("a", { class: "btn btn-primary", href: `/m/${this.id}` }, t("replay.open_match")),
        h("a", { class: "btn btn-secondary", href: "/" }, t("match.back_to_lobby")))));
  }

  // -- building --------------------------------------------------------------------------------

  build() {
    const button = (action, iconName, key) =>
      h("button", { type: "button", class: "btn btn-icon ctrl", "data-action": action, "aria-label": t(key), title: t(key) },
        icon(iconName));
    this.root = h(
      "section",
      { id: "replay", class: "replay", "aria-labelledby": "replay-title" },
      h("div", { class: "match-bar" },
        h("div", { class: "match-heading" },
          h("h1", { id: "replay-title", class: "match-title" }),
          h("p", { class: "match-sub" })),
        h("div", { class: "match-meta" },
          // A narrow screen keeps the moves and the chat in a drawer this opens.
          h("button", { type: "button", class: "btn btn-ghost btn-small side-toggle", "data-action": "side", "aria-expanded": "false", "aria-controls": "replay-side" }, t("replay.moves")),
          h("a", { class: "btn btn-ghost btn-small back-link", href: "/" }, t("match.back_to_lobby")))),
      this.record.result,
      this.source === "record" ? h("p", { class: "notice muted small replay-source" }, t("replay.from_record")) : null,
      h("div", { class: "replay-layout" },
        h("div", { class: "replay-stage" },
          replaySeatBox("second"),
          h("div", { class: "arena" },
            h("p", { class: "frame-label", id: "frame-label", "aria-live": "polite" }),
            h("div", { class: "replay-controls", role: "toolbar", "aria-label": t("replay.controls") },
              button("first", "first", "replay.first"),
              button("step-back", "back", "replay.back"),
              h("button", { type: "button", class: "btn btn-primary ctrl ctrl-play", "data-action": "play", "aria-pressed": "false" }),
              button("step-forward", "forward", "replay.forward"),
              button("last", "last", "replay.last"),
              h("span", { class: "position", id: "replay-position" }),
              h("label", { class: "round-pick" }, h("span", { class: "sr-only" }, t("replay.round_jump")), h("select", { id: "replay-round" }))),
            h("div", { class: "board-wrap" }, document.createElementNS("http://www.w3.org/2000/svg", "svg")),
            h("div", { class: "board-info" }, h("div", { class: "ends", id: "replay-ends" }), h("div", { class: "boneyard" }, h("span", { class: "boneyard-label" }), " ", h("span", { class: "count", id: "replay-boneyard" })))),
          replaySeatBox("first")),
        h("aside", { id: "replay-side", class: "replay-side card" },
          h("button", { type: "button", class: "btn btn-ghost btn-icon side-close", "data-action": "side-close", "aria-label": t("drawer.close"), title: t("drawer.close") }, "✕"),
          h("h2", { class: "card-title replay-moves-title" }, t("replay.moves")),
          h("ol", { id: "replay-moves", class: "replay-moves" }),
          h("section", { id: "replay-chat", class: "replay-chat", "aria-labelledby": "replay-chat-title", hidden: true },
            h("h2", { class: "card-title", id: "replay-chat-title" }, t("chat.title_after")),
            h("ol", { class: "chat-lines", id: "replay-chat-lines" })),
          // Under the moves (in the drawer on a narrow screen): the bar above the table has no
          // room for them on a phone.
          this.record.controls)),
    );
    const svg = this.root.querySelector(".board-wrap svg");
    svg.setAttribute("id", "board");
    svg.setAttribute("class", "board");
    svg.setAttribute("role", "group");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    fill(this.main, this.root);

    this.root.querySelector("[data-action=first]").addEventListener("click", () => this.go(0));
    this.root.querySelector("[data-action=last]").addEventListener("click", () => this.go(this.frames.length - 1));
    this.root.querySelector("[data-action=step-back]").addEventListener("click", () => this.go(this.index - 1));
    this.root.querySelector("[data-action=step-forward]").addEventListener("click", () => this.go(this.index + 1));
    this.root.querySelector("[data-action=play]").addEventListener("click", () => (this.timer ? this.pause() : this.play()));
    this.root.querySelector("[data-action=side]").addEventListener("click", () => this.openSide(this.root.dataset.side !== "open"));
    this.root.querySelector("[data-action=side-close]").addEventListener("click", () => this.openSide(false));
    this.root.querySelector("#replay-round").addEventListener("change", (event) => {
      const round = Number(event.target.value);
      const i = this.frames.findIndex((f) => f.round === round);
      if (i >= 0) this.go(i);
    });
    this.buildMoves();
  }

  /** The drawer of the moves and the chat on a narrow screen. */
  openSide(open) {
    if (open) this.root.dataset.side = "open";
    else delete this.root.dataset.side;
    this.root.querySelector("[data-action=side]").setAttribute("aria-expanded", open ? "true" : "false");
    if (open) this.scrollMoves();
  }

  /** What was said at the table, both channels (PROTOCOL.md "chat"); a record imported from a
   * file has none, and the section stays hidden. */
  async loadChat() {
    try {
      this.chatLines = (await readChat(this.id)).lines || [];
    } catch {
      this.chatLines = [];
    }
    if (!this.destroyed) this.renderChat();
  }

  renderChat() {
    const section = this.root.querySelector("#replay-chat");
    const lines = this.chatLines || [];
    section.hidden = lines.length === 0;
    section.querySelector("#replay-chat-title").textContent = t("chat.title_after");
    renderChatLines(section.querySelector("#replay-chat-lines"), lines, { muted: loadMuted() });
  }

  /** The frame's events told in the current language; the server's language-neutral label
   * (e.g. "first play 1-4@4-4:lineA") only when no event says more. */
  frameLabel(frame) {
    const view = { ...frame.view, mode: this.header.mode, bot_level: this.header.bot_level, players: frame.view.players || this.header.players };
    const texts = (frame.events || [])
      .filter((e) => !QUIET.has(e.type))
      .map((e) => eventText(e, view))
      .filter(Boolean);
    if (texts.length) return texts.join(" ");
    if (frame.version === 0) return t("replay.start");
    return frame.label || t("replay.version", { v: frame.version });
  }

  buildMoves() {
    const list = this.root.querySelector("#replay-moves");
    const items = [];
    let round = -1;
    this.frames.forEach((frame, i) => {
      if (frame.round !== round) {
        round = frame.round;
        items.push(h("li", { class: "round-head", "aria-hidden": "false" }, round > 0 ? t("match.round", { n: round }) : t("replay.before_deal")));
      }
      items.push(h("li", { class: "move", "data-version": String(frame.version), "data-index": String(i), "data-move": frame.decision ? String(frame.decision.n) : null },
        h("a", { href: `#v=${frame.version}` },
          moveNumber(frame.decision),
          h("span", { class: "move-text" }, this.frameLabel(frame)))));
    });
    fill(list, items);
    const select = this.root.querySelector("#replay-round");
    const rounds = [...new Set(this.frames.map((f) => f.round))];
    fill(select, rounds.map((r) => h("option", { value: String(r) }, r > 0 ? t("match.round", { n: r }) : t("replay.before_deal"))));
  }

  // -- navigation ------------------------------------------------------------------------------

  indexFromHash() {
    const found = /^#v=(\d+)$/.exec(location.hash);
    if (!found) return null;
    const v = Number(found[1]);
    let best = null;
    this.frames.forEach((frame, i) => {
      if (frame.version <= v) best = i;
    });
    return best ?? 0;
  }

  go(i, { fromHash = false } = {}) {
    const next = Math.max(0, Math.min(this.frames.length - 1, i));
    if (next === this.index && !fromHash) {
      if (this.timer && next === this.frames.length - 1) this.pause();
      return;
    }
    this.index = next;
    if (!fromHash) history.replaceState(null, "", `${location.pathname}#v=${this.frames[next].version}`);
    if (this.index === this.frames.length - 1) this.pause();
    this.render();
  }

  play() {
    if (this.index >= this.frames.length - 1) this.index = 0;
    this.timer = setInterval(() => this.go(this.index + 1), PLAY_MS);
    this.renderControls();
    this.render();
  }

  pause() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.root) this.renderControls();
  }

  onKey(event) {
    if (isRulesOpen() || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape" && this.root.dataset.side === "open") {
      this.openSide(false);
      return;
    }
    const target = event.target;
    if (target && target.closest && target.closest("input, select, textarea")) return;
    const onButton = target && target.closest && target.closest("button, a");
    if (event.key === "ArrowRight") this.go(this.index + 1);
    else if (event.key === "ArrowLeft") this.go(this.index - 1);
    else if (event.key === "Home") this.go(0);
    else if (event.key === "End") this.go(this.frames.length - 1);
    else if (event.key === "PageDown" || event.key === "PageUp") this.jumpRound(event.key === "PageDown" ? 1 : -1);
    else if (event.key === " " && !onButton) (this.timer ? this.pause() : this.play());
    else return;
    event.preventDefault();
  }

  jumpRound(step) {
    const round = this.frames[this.index].round;
    if (step > 0) {
      const i = this.frames.findIndex((f, k) => k > this.index && f.round > round);
      if (i >= 0) this.go(i);
      else this.go(this.frames.length - 1);
    } else {
      const start = this.frames.findIndex((f) => f.round === round);
      if (start < this.index) this.go(start);
      else {
        const prev = this.frames.findIndex((f) => f.round === round - 1);
        if (prev >= 0) this.go(prev);
      }
    }
  }

  // -- drawing ---------------------------------------------------------------------------------

  /** The bar's and the drawer's words, in the language of the moment. */
  renderLabels() {
    const root = this.root;
    root.querySelector("[data-action=side]").textContent = t("replay.moves");
    root.querySelector(".replay-moves-title").textContent = t("replay.moves");
    root.querySelector(".back-link").textContent = t("match.back_to_lobby");
    const close = root.querySelector("[data-action=side-close]");
    close.setAttribute("aria-label", t("drawer.close"));
    close.title = t("drawer.close");
  }

  render() {
    this.renderLabels();
    const frame = this.frames[this.index];
    const view = { ...frame.view, mode: frame.view.mode || this.header.mode, bot_level: this.header.bot_level, players: frame.view.players || this.header.players };
    const root = this.root;
    const names = `${seatName(view, "first")} – ${seatName(view, "second")}`;
    // The names are on the seats too: a phone shows "Replay" only.
    fill(root.querySelector("#replay-title"), t("replay.title"), h("span", { class: "title-names" }, ` · ${names}`));
    const result = this.frames[this.frames.length - 1].view.result;
    root.querySelector(".match-sub").textContent = result
      ? result.winner
        ? t("result.winner", { name: seatName(view, result.winner) }) + ` · ${t(`result.reason.${result.reason}`)}`
        : t("result.aborted")
      : "";
    document.title = `${t("replay.title")} · ${names} — ${t("app.name")}`;
    const number = frame.decision && frame.decision.first ? `${moveNumber(frame.decision).textContent} ` : "";
    root.querySelector("#frame-label").textContent = `${number}${this.frameLabel(frame)}`;
    for (const seat of SEATS) {
      const box = root.querySelector(`.replay-seat[data-seat="${seat}"]`);
      renderReplaySeat(box, view, seat, frame, this.header.settings);
    }
    this.renderBoard();
    const board = view.board;
    const ends = root.querySelector("#replay-ends");
    if (board && board.tiles && board.tiles.length) {
      fill(ends, endsParts(board));
    } else {
      fill(ends);
    }
    root.querySelector(".boneyard-label").textContent = t("match.boneyard");
    root.querySelector("#replay-boneyard").textContent = String(view.boneyard_count ?? 0);
    this.renderControls();
    const list = root.querySelector("#replay-moves");
    list.querySelectorAll("[aria-current]").forEach((el) => el.removeAttribute("aria-current"));
    const current = list.querySelector(`[data-index="${this.index}"]`);
    if (current) current.setAttribute("aria-current", "step");
    this.scrollMoves();
    const select = root.querySelector("#replay-round");
    if (select.value !== String(frame.round)) select.value = String(frame.round);
  }

  /** The current move in the middle of the list. */
  scrollMoves() {
    const list = this.root.querySelector("#replay-moves");
    const current = list.querySelector("[aria-current]");
    if (!current) return;
    const top = current.offsetTop - list.offsetTop - list.clientHeight / 2;
    list.scrollTo({ top: Math.max(0, top), behavior: "auto" });
  }

  renderBoard() {
    if (!this.root) return;
    const frame = this.frames[this.index];
    const svg = this.root.querySelector("#board");
    const wrap = this.root.querySelector(".board-wrap");
    const board = frame.view.board;
    svg.setAttribute("aria-label", t("board.aria", { n: board ? board.tiles.length : 0 }));
    renderBoard(svg, board, { bounds: this.tableBounds.of(wrap, frame.round), emptyText: t("board.empty") });
  }

  renderControls() {
    const root = this.root;
    const last = this.frames.length - 1;
    root.querySelector("[data-action=step-back]").disabled = this.index <= 0;
    root.querySelector("[data-action=first]").disabled = this.index <= 0;
    root.querySelector("[data-action=step-forward]").disabled = this.index >= last;
    root.querySelector("[data-action=last]").disabled = this.index >= last;
    const play = root.querySelector("[data-action=play]");
    play.setAttribute("aria-pressed", this.timer ? "true" : "false");
    fill(play, icon(this.timer ? "pause" : "play"), h("span", { class: "btn-label" }, this.timer ? t("replay.pause") : t("replay.play")));
    root.querySelector("#replay-position").textContent = t("replay.position", { i: this.index + 1, n: this.frames.length });
  }
}
