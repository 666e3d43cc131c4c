// The match page (/m/{id}) — playing, watching and the shared device. It joins the pieces in the
// 2048 way: the socket delivers server messages into the store (./dispatch.js); every change of
// the store redraws the page from the last view (./render.js, ./table.js); clicks and keys become
// intents sent back as commands (./input.js). This module owns the page's life: what it holds,
// its first read, its socket, and its end.

import { h, fill } from "../dom.js";
import { t, onLanguageChange } from "../i18n.js";
import { ApiError, readMatch, whoAmI } from "../api.js";
import { ChatPanel } from "../chat.js";
import { RematchBox } from "../rematch.js";
import { Confirmation } from "../confirm.js";
import { navigate } from "../router.js";
import { MatchSocket } from "../socket.js";
import { MatchStore } from "../store.js";
import { buildMatchDom } from "../matchdom.js";
import { eventText } from "../narrate.js";
import { TableBounds } from "../fit.js";
import { Cues } from "../sound.js";
import { MoveList } from "../movelist.js";
import { AutoDraw } from "./autodraw.js";
import { dispatch, storeChanged } from "./dispatch.js";
import { MatchInput } from "./input.js";
import { renderAll, renderConnection } from "./render.js";
import { noteUnread } from "./side.js";
import { bounds, renderBoardOnly, tick } from "./table.js";

const TICK_MS = 200; // the clocks' countdown
const RETRY_REFUSED_MS = 5000; // a refused socket of a match still live is tried again

export function mountMatch(main, matchId) {
  const view = new MatchView(main, matchId);
  view.start();
  return () => view.destroy();
}

/** What the page holds; the roles (input, dispatch, render) read and write it. */
class MatchView {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.store = new MatchStore();
    this.socket = null;
    this.dom = null;
    this.me = null;
    this.selected = null; // the tile chosen, its places shown on the board
    this.pending = false; // a command is on its way: no other is sent until it is answered
    this.joinOffered = false;
    this.connState = "reconnecting";
    this.destroyed = false;
    this.cleanups = [];
    this.moves = null; // the move log: every narrated event, numbered by decisions
    this.boundsKey = "";
    this.tableBounds = new TableBounds();
    this.unread = 0; // chat lines said while the drawer holding the chat was closed
    this.cues = new Cues();
    this.lowCued = null; // the decision whose low-time cue has sounded
    this.arrived = null; // the name of the friend who came to this invitation (D3)
    this.autoDraw = new AutoDraw();
    this.input = new MatchInput(this);
  }

  async start() {
    fill(this.main, h("div", { class: "page-loading", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" }), h("span", { class: "sr-only" }, t("common.loading"))));
    let snap;
    try {
      const [me, read] = await Promise.all([whoAmI().catch(() => null), readMatch(this.id)]);
      this.me = me;
      snap = read;
    } catch (err) {
      if (this.destroyed) return;
      this.showProblem(err instanceof ApiError && err.status === 404 ? t("match.not_found") : t("match.load_failed"));
      return;
    }
    if (this.destroyed) return;
    this.dom = buildMatchDom();
    fill(this.main, this.dom);
    // Narrated with the view on show, so a language change rereads the whole list.
    this.moves = new MoveList(this.dom.querySelector("#move-log-list"), (event) => eventText(event, this.store.match));
    this.rematch = new RematchBox(this.dom.querySelector("#rematch"), (id) => navigate(`/m/${id}`));
    this.confirmation = new Confirmation(this.dom.querySelector("#confirm-box"));
    this.chat = new ChatPanel(this.dom.querySelector("#chat"), {
      send: (line) => (this.socket && this.socket.isOpen() ? this.socket.send(line) : null),
      me: () => this.me,
      onNew: (n) => noteUnread(this, n),
    });
    this.cleanups.push(() => this.confirmation.close());
    this.cleanups.push(() => this.rematch.destroy());
    this.input.wire();
    this.cleanups.push(this.store.subscribe((change) => storeChanged(this, change)));
    this.cleanups.push(onLanguageChange(() => renderAll(this)));
    this.joinOffered = snap.match.audience === "spectator" && snap.match.status === "waiting";
    this.store.replace(snap.match, snap.version, [], "state", snap.log);
    this.connect();
    const timer = setInterval(() => tick(this), TICK_MS);
    this.cleanups.push(() => clearInterval(timer));
    const wrap = this.dom.querySelector(".board-wrap");
    let size = "";
    const observer = new ResizeObserver(() => {
      const key = JSON.stringify(bounds(this));
      const now = `${wrap.clientWidth}x${wrap.clientHeight}`;
      if (key !== this.boundsKey || now !== size) renderBoardOnly(this); // targets keep 44 px
      size = now;
    });
    observer.observe(wrap);
    this.cleanups.push(() => observer.disconnect());
  }

  destroy() {
    this.destroyed = true;
    if (this.socket) this.socket.close();
    for (const fn of this.cleanups) fn();
    this.cleanups = [];
  }

  showProblem(text) {
    fill(this.main, h("section", { class: "card problem-card" },
      h("h1", { class: "card-title" }, text),
      h("p", {}, h("a", { class: "btn btn-primary", href: "/" }, t("match.back_to_lobby")))));
  }

  connect() {
    if (this.socket) this.socket.close();
    this.socket = new MatchSocket(this.id, {
      since: () => this.store.version,
      isFinal: () => !!this.store.match && ["finished", "aborted"].includes(this.store.match.status),
      onMessage: (msg) => dispatch(this, msg),
      onState: (state, detail) => {
        this.connState = state;
        if (state !== "online") this.pending = false;
        renderConnection(this);
        if (state === "offline" && detail && detail.code === 1008) this.afterRefusal();
      },
    });
    this.socket.connect();
  }

  /** The server refused the socket (e.g. a match that ended while we were away is no longer
   * live): read the match over HTTP instead, and try the socket again later if it still runs. */
  async afterRefusal() {
    try {
      const snap = await readMatch(this.id);
      if (this.destroyed) return;
      this.store.replace(snap.match, snap.version, [], "state", snap.log);
      if (snap.match.status === "finished" || snap.match.status === "aborted") {
        this.connState = "online";
        renderConnection(this);
        return;
      }
    } catch {
      /* still unreachable */
    }
    if (this.destroyed) return;
    const retry = setTimeout(() => {
      if (!this.destroyed) this.connect();
    }, RETRY_REFUSED_MS);
    this.cleanups.push(() => clearTimeout(retry));
  }
}
