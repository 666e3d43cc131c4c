// The match page (/m/{id}) — playing, watching and the shared device. It joins the pieces in the
// 2048 way: the socket delivers server messages into the store; every change of the store
// redraws the page from the last view; clicks and keys become intents sent back as commands.
// Nothing here decides a rule: what may be played, drawn or bid is what `legal` says.

import { h, fill, other, setAttr, tileLabel } from "./dom.js";
import { t, onLanguageChange } from "./i18n.js";
import { ApiError, answerExpired, createGuest, joinMatch, readChat, readMatch, readRematch, whoAmI } from "./api.js";
import { ChatPanel } from "./chat.js";
import { RematchBox } from "./rematch.js";
import { Confirmation } from "./confirm.js";
import { navigate } from "./router.js";
import { MatchSocket } from "./socket.js";
import { MatchStore } from "./store.js";
import { buildMatchDom } from "./matchdom.js";
import { renderBoard } from "./board.js";
import { renderSeat } from "./seats.js";
import { renderHand, handKeys } from "./hand.js";
import { renderAuction, renderRoundCard, renderResult, renderInvite, renderJoin, renderLate, paintCountdowns } from "./panels.js";
import { paintClock, serverNow } from "./clock.js";
import { animateTransfer } from "./chips.js";
import { animateMoves } from "./motion.js";
import { announce, toast } from "./announce.js";
import { eventText, seatName } from "./narrate.js";
import { computerSeatName } from "./computer.js";
import { isRulesOpen } from "./rules.js";
import { icon } from "./icons.js";
import { TableBounds } from "./fit.js";
import { Cues } from "./sound.js";
import { isTouchOnly } from "./pointer.js";
import { MoveList } from "./movelist.js";
import { renderRatedMark } from "./rating.js";

const AUTO_DRAW_KEY = "specbid.autodraw";
const QUIET = new Set(["ready", "deck_committed", "deck_revealed", "round_dealt"]);

export function mountMatch(main, matchId) {
  const view = new MatchView(main, matchId);
  view.start();
  return () => view.destroy();
}

class MatchView {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.store = new MatchStore();
    this.socket = null;
    this.dom = null;
    this.me = null;
    this.selected = null;
    this.pending = false;
    this.joinOffered = false;
    this.connState = "reconnecting";
    this.autoDrawnVersion = null;
    this.destroyed = false;
    this.cleanups = [];
    this.moves = null; // the move log: every narrated event, numbered by decisions
    this.boundsKey = "";
    this.tableBounds = new TableBounds();
    this.unread = 0; // chat lines said while the drawer holding the chat was closed
    this.cues = new Cues();
    this.lowCued = null; // the decision whose low-time cue has sounded
    this.arrived = null; // the name of the friend who came to this invitation (D3)
    try {
      this.autoDraw = localStorage.getItem(AUTO_DRAW_KEY) === "1";
    } catch {
      this.autoDraw = false;
    }
  }

  // -- lifecycle --------------------------------------------------------------------------------

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
      onNew: (n) => this.noteUnread(n),
    });
    this.cleanups.push(() => this.confirmation.close());
    this.cleanups.push(() => this.rematch.destroy());
    this.wire();
    this.cleanups.push(this.store.subscribe((change) => this.onChange(change)));
    this.cleanups.push(onLanguageChange(() => this.renderAll()));
    this.joinOffered = snap.match.audience === "spectator" && snap.match.status === "waiting";
    this.store.replace(snap.match, snap.version, [], "state", snap.log);
    this.connect();
    const timer = setInterval(() => this.tick(), 200);
    this.cleanups.push(() => clearInterval(timer));
    const wrap = this.dom.querySelector(".board-wrap");
    let size = "";
    const observer = new ResizeObserver(() => {
      const key = JSON.stringify(this.bounds());
      const now = `${wrap.clientWidth}x${wrap.clientHeight}`;
      if (key !== this.boundsKey || now !== size) this.renderBoardOnly(); // targets keep 44 px
      size = now;
    });
    observer.observe(wrap);
    this.cleanups.push(() => observer.disconnect());
  }

  /** The rematch box of an ended match; its state is read once, for an offer made before this
   * page connected, and then follows the `rematch` messages. */
  renderRematch(match) {
    this.rematch.render(match);
    const ended = match.status === "finished" || match.status === "aborted";
    if (!ended || this.rematchRead) return;
    this.rematchRead = true;
    readRematch(this.id)
      .then((state) => {
        if (!this.destroyed) this.rematch.update(state);
      })
      .catch(() => {}); // too long ago, or a shared device: no rematch to show
  }

  /** The chat panel; once the match has ended both channels are shown, so they are read once. */
  renderChat(match) {
    this.chat.render(match);
    const ended = match.status === "finished" || match.status === "aborted";
    if (!ended || this.chatRead) return;
    this.chatRead = true;
    readChat(this.id)
      .then((history) => {
        if (!this.destroyed) this.chat.add(history.lines || []);
      })
      .catch(() => {}); // the lines said live are shown already
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
      onMessage: (msg) => this.onMessage(msg),
      onState: (state, detail) => {
        this.connState = state;
        if (state !== "online") this.pending = false;
        this.renderConnection();
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
        this.renderConnection();
        return;
      }
    } catch {
      /* still unreachable */
    }
    if (this.destroyed) return;
    const retry = setTimeout(() => {
      if (!this.destroyed) this.connect();
    }, 5000);
    this.cleanups.push(() => clearTimeout(retry));
  }

  onMessage(msg) {
    switch (msg.type) {
      case "state":
        this.store.replace(msg.match, msg.version, [], "state", msg.log);
        break;
      case "update":
        this.store.replace(msg.match, msg.version, msg.events || [], "update");
        break;
      case "presence":
        this.store.presence(msg);
        break;
      case "rematch":
        this.rematch.update(msg);
        break;
      case "chat":
        this.chat.add(msg.lines || []);
        break;
      case "ack":
        if (this.chat.answer(msg)) break; // a chat line's: no command was waiting on it
        // A press already in effect (Start/Continue, Reveal) is acked with no new version: no
        // update follows, and nothing waits for one; the view stays the last one drawn.
        this.pending = false;
        break;
      case "error":
        if (this.chat.answer(msg)) break;
        this.pending = false;
        // A move made against a view the match has left is refused as stale; the update that
        // moved it on is drawn already (presses are never stale).
        if (msg.code !== "stale_version" && msg.code !== "not_found") toast(errorText(msg), "error");
        this.renderAll();
        break;
      default:
        break;
    }
  }

  // -- wiring input -----------------------------------------------------------------------------

  wire() {
    const dom = this.dom;
    dom.querySelector("[data-action=resign]").addEventListener("click", () => this.resign());
    dom.querySelector("[data-action=sound]").addEventListener("click", () => {
      this.cues.setSound(!this.cues.soundOn);
      this.renderCues();
    });
    dom.querySelector("[data-action=notify]").addEventListener("click", async () => {
      const on = await this.cues.setNotify(!this.cues.notifyOn);
      if (!on && typeof Notification !== "undefined" && Notification.permission === "denied") toast(t("cues.notify_denied"), "error");
      this.renderCues();
    });
    dom.querySelector("[data-action=side]").addEventListener("click", () => this.openSide(dom.dataset.side !== "open"));
    dom.querySelector("[data-action=side-close]").addEventListener("click", () => this.openSide(false));
    dom.querySelector("[data-action=draw]").addEventListener("click", () => this.draw());
    dom.querySelector("[data-action=reveal]").addEventListener("click", () => this.send({ type: "reveal" }));
    const auto = dom.querySelector("#auto-draw");
    auto.checked = this.autoDraw;
    auto.addEventListener("change", () => {
      this.autoDraw = auto.checked;
      try {
        localStorage.setItem(AUTO_DRAW_KEY, this.autoDraw ? "1" : "0");
      } catch {
        /* ignore */
      }
      this.maybeAutoDraw();
    });
    const onKey = (event) => this.onKey(event);
    document.addEventListener("keydown", onKey);
    this.cleanups.push(() => document.removeEventListener("keydown", onKey));
  }

  onKey(event) {
    if (isRulesOpen() || !this.store.match) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = target && (target.closest("input, select, textarea, [contenteditable=true]"));
    if (typing) return;
    const match = this.store.match;
    if (match.handover && match.audience === "device") return;
    if (event.key === "d" || event.key === "D") {
      if (match.legal && match.legal.can_draw) {
        event.preventDefault();
        this.draw();
      }
      return;
    }
    if (event.key === "Escape" && this.dom.dataset.side === "open") {
      this.openSide(false);
      return;
    }
    if (event.key === "Escape" && this.selected) {
      const tile = this.selected;
      this.select(null);
      this.dom.querySelector(`#hand .tile[data-tile="${tile}"]`)?.focus();
      return;
    }
    const hand = this.dom.querySelector("#hand");
    if (hand.contains(document.activeElement)) {
      handKeys(hand, event);
      return;
    }
    const place = document.activeElement && document.activeElement.closest ? document.activeElement.closest("[data-place]") : null;
    if (place && ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown"].includes(event.key)) {
      const targets = [...this.dom.querySelectorAll("#board [data-place]")];
      const i = targets.indexOf(place);
      const step = event.key === "ArrowRight" || event.key === "ArrowDown" ? 1 : -1;
      targets[(i + step + targets.length) % targets.length]?.focus();
      event.preventDefault();
    }
  }

  onTile(tile, event) {
    const match = this.store.match;
    const legal = match && match.legal;
    const play = legal && (legal.plays || []).find((p) => p.tile === tile);
    if (!play) {
      const button = event.currentTarget;
      button.classList.remove("nope");
      void button.offsetWidth;
      button.classList.add("nope");
      this.hint(legal && legal.can_draw ? keyHint("hand.hint_draw") : t("hand.hint_not_playable"));
      return;
    }
    if (this.pending) return;
    if (legal.opening) {
      this.send({ type: "play", tile, at: null });
    } else if (play.places.length === 1) {
      this.send({ type: "play", tile, at: play.places[0] });
    } else {
      this.select(this.selected === tile ? null : tile);
      if (this.selected) this.dom.querySelector("#board [data-place]")?.focus();
    }
  }

  select(tile) {
    this.selected = tile;
    this.renderHandOnly();
    this.renderBoardOnly();
    this.hint(tile ? t("hand.hint_choose_place", { tile: tileLabel(tile) }) : "");
  }

  onPlace(place) {
    if (!this.selected || this.pending) return;
    this.send({ type: "play", tile: this.selected, at: place });
  }

  draw() {
    const match = this.store.match;
    if (!match || !match.legal || !match.legal.can_draw || this.pending) return;
    this.send({ type: "draw" });
  }

  async resign() {
    const match = this.store.match;
    if (!match || match.status !== "active") return;
    const seat = match.audience === "device" ? match.to_act || match.handover || "first" : match.viewer;
    const question = match.audience === "device"
      ? t("resign.confirm_device", { name: seatName(match, seat) })
      : t("resign.confirm");
    if (!(await this.confirmation.ask(question, t("match.resign")))) return;
    const now = this.store.match;
    if (!now || now.status !== "active") return; // it ended while the question stood
    this.send(match.audience === "device" ? { type: "resign", seat } : { type: "resign" }, { force: true });
  }

  send(command, { force = false } = {}) {
    if (this.pending && !force) return;
    if (!this.socket || !this.socket.isOpen()) {
      toast(t("errors.not_connected"), "error");
      return;
    }
    this.pending = true;
    this.socket.send({ ...command, version: this.store.version });
  }

  /** The name typed into a card for a visitor with no guest yet: it becomes one. */
  async ensureGuest(name) {
    if (this.me) return true;
    const clean = (name || "").trim();
    if (!clean) {
      toast(t("lobby.name_needed"), "error");
      return false;
    }
    this.me = await createGuest(clean);
    try {
      localStorage.setItem("specbid.name", this.me.name);
    } catch {
      /* ignore */
    }
    return true;
  }

  /** D3: after an expired invitation, invite its creator back or post an open challenge, with
   * its time control; the new match's page shows the link to send. */
  async again(mode, name) {
    if (this.pending) return;
    this.pending = true;
    try {
      if (!(await this.ensureGuest(name))) return;
      const created = await answerExpired(this.id, mode);
      navigate(`/m/${created.id}`);
    } catch (err) {
      toast(err instanceof ApiError ? errorText(err) : String(err), "error");
    } finally {
      this.pending = false;
    }
  }

  async join(name) {
    try {
      if (!(await this.ensureGuest(name))) return;
      await joinMatch(this.id);
      this.joinOffered = false;
      this.connect(); // the new socket speaks for the new seat
    } catch (err) {
      toast(err instanceof ApiError ? errorText(err) : String(err), "error");
      if (err instanceof ApiError && err.code === "seat_taken") {
        this.joinOffered = false;
        this.renderAll();
      }
    }
  }

  /** An answer to what the player just did (a tile chosen, a tile that cannot go): shown on
   * every screen, unlike the standing hint, which a phone leaves to the turn banner. */
  hint(text) {
    const el = this.dom && this.dom.querySelector(".hand-hint");
    if (!el) return;
    el.textContent = text;
    el.dataset.kind = "answer";
  }

  // -- store changes ----------------------------------------------------------------------------

  onChange(change) {
    const { match, events, kind, previous, log } = change;
    if (kind === "state" && Array.isArray(log)) this.rebuildLog(log);
    if (kind !== "presence") {
      this.pending = false;
      if (!previous || previous.decision !== match.decision || !match.legal) this.selected = null;
      else if (this.selected && !(match.legal.plays || []).some((p) => p.tile === this.selected && p.places.length > 1)) this.selected = null;
    }
    const focusInside = this.focusWasInPlay();
    this.renderAll();
    if (kind === "update") {
      this.afterEvents(match, events);
      this.cue(match, events, previous);
    }
    if (focusInside) this.restoreFocus();
    this.maybeAutoDraw();
  }

  /** The drawer of the chat and the moves on a narrow screen (on a wide one they are beside
   * the table, and the toggle is not shown). */
  openSide(open) {
    if (!this.dom) return;
    if (open) this.dom.dataset.side = "open";
    else delete this.dom.dataset.side;
    if (open) this.unread = 0;
    this.renderSide();
    const focus = open ? this.dom.querySelector("#chat-input:not([hidden])") || this.dom.querySelector("[data-action=side-close]")
      : this.dom.querySelector("[data-action=side]");
    if (focus && focus.offsetParent) focus.focus({ preventScroll: true });
  }

  /** Chat lines that arrived: counted on the drawer's toggle while the drawer is closed. */
  noteUnread(n) {
    const toggle = this.dom && this.dom.querySelector("[data-action=side]");
    if (!toggle || this.dom.dataset.side === "open" || !toggle.offsetParent) return;
    this.unread += n;
    this.renderSide();
  }

  renderSide() {
    const open = this.dom.dataset.side === "open";
    const toggle = this.dom.querySelector("[data-action=side]");
    const label = t("drawer.toggle");
    setAttr(toggle, "aria-expanded", open ? "true" : "false");
    setAttr(toggle, "aria-label", label);
    setAttr(toggle, "title", label);
    const mark = toggle.querySelector(".side-toggle-icon");
    if (!mark.firstChild) mark.append(icon("chat"));
    const unread = toggle.querySelector(".side-unread");
    unread.hidden = this.unread === 0;
    unread.textContent = this.unread > 9 ? "9+" : String(this.unread);
    const close = this.dom.querySelector("[data-action=side-close]");
    setAttr(close, "aria-label", t("drawer.close"));
    setAttr(close, "title", t("drawer.close"));
    if (!close.firstChild) close.append("✕");
  }

  /** Sounds for the others' placements and scores and for one's turn; a notification of the
   * turn when the tab is hidden (issue 12 item 5). Sound is on until the player turns it off;
   * notifications are off until the player turns them on. */
  cue(match, events, previous) {
    const seated = match.audience === "first" || match.audience === "second";
    for (const event of events) {
      const mine = seated && event.seat === match.viewer;
      if (event.type === "played" && !mine) this.cues.play("place");
      if (event.type === "transferred") this.cues.play("score");
    }
    // D3: the friend came to this invitation; its creator may be in another tab.
    const arrived = match.audience === "first" && match.mode !== "bot"
      ? events.find((event) => event.type === "seat_taken" && event.seat === "second") : null;
    if (arrived) {
      this.arrived = arrived.name;
      this.cues.play("join");
      this.cues.notify(t("arrival.title", { name: arrived.name }), t("arrival.body"), "specbid-join");
      this.renderTitle(match);
    }
    const turnNow = !!match.legal && (!previous || !previous.legal || previous.decision !== match.decision);
    if (turnNow && match.status === "active" && match.audience !== "device") {
      this.cues.play("turn");
      const names = `${seatName(match, "first")} – ${seatName(match, "second")}`;
      this.cues.notify(t("match.your_turn_title"), names);
    }
    this.dom.dataset.cues = this.cues.played.slice(-20).join(",");
  }

  renderCues() {
    const sound = this.dom.querySelector("[data-action=sound]");
    const on = this.cues.soundOn;
    // Labelled in words ("Sound on"), which are its name; the title says what a press does.
    setAttr(sound, "aria-pressed", on ? "true" : "false");
    setAttr(sound, "title", on ? t("cues.sound_on") : t("cues.sound_off"));
    fill(sound, icon(on ? "megaphone" : "mute"), h("span", { class: "btn-label" }, t(on ? "cues.sound_label_on" : "cues.sound_label_off")));
    const notify = this.dom.querySelector("[data-action=notify]");
    const allowed = this.cues.notifyOn;
    setAttr(notify, "aria-pressed", allowed ? "true" : "false");
    setAttr(notify, "aria-label", allowed ? t("cues.notify_on") : t("cues.notify_off"));
    setAttr(notify, "title", allowed ? t("cues.notify_on") : t("cues.notify_off"));
    fill(notify, icon("bell"));
    notify.hidden = typeof Notification === "undefined";
  }

  /** A state's log (every event so far) becomes the move log, read as the updates would have
   * made it: after a reload, a resync or for a late spectator. */
  rebuildLog(events) {
    this.moves.replace(events);
  }

  afterEvents(match, events) {
    const live = events.length <= 12;
    const announced = [];
    this.moves.add(events);
    for (const event of events) {
      const text = eventText(event, match);
      if (event.type === "transferred" && live) animateTransfer(event);
      if (!text || QUIET.has(event.type)) continue;
      const mine = match.audience !== "device" && match.audience !== "spectator" && event.seat === match.viewer;
      if (mine && (event.type === "played" || event.type === "bid_made" || event.type === "declined")) continue;
      announced.push(text);
    }
    for (const text of announced.slice(-4)) announce(text);
    if (live) this.animateMoves(match, events);
    this.renderLog();
  }

  /** The opponent's placements slide in and draws leave the boneyard (issue 12 item 5). */
  animateMoves(match, events) {
    const seated = match.audience === "first" || match.audience === "second";
    const slides = (seat) => (match.audience === "device" ? false : !seated || seat !== match.viewer);
    animateMoves(this.dom, events, { viewer: seated ? match.viewer : null, slides });
  }

  focusWasInPlay() {
    const active = document.activeElement;
    return !!(active && this.dom && active.closest && active.closest("#hand, #board, .hand-actions, #auction"));
  }

  restoreFocus() {
    const active = document.activeElement;
    if (active && active !== document.body && this.dom.contains(active)) return;
    const next = this.dom.querySelector('#hand .tile[data-legal="true"]')
      || this.dom.querySelector("[data-action=draw]:not([hidden])")
      || this.dom.querySelector("#auction button")
      || this.dom.querySelector("#hand .tile");
    if (next) next.focus({ preventScroll: true });
  }

  maybeAutoDraw() {
    const match = this.store.match;
    if (!this.autoDraw || !match || !match.legal || !match.legal.can_draw || this.pending) return;
    const version = this.store.version;
    if (this.autoDrawnVersion === version) return;
    this.autoDrawnVersion = version;
    setTimeout(() => {
      const now = this.store.match;
      if (this.destroyed || this.store.version !== version || !now.legal || !now.legal.can_draw) return;
      this.draw();
    }, 450);
  }

  // -- rendering --------------------------------------------------------------------------------

  seats() {
    const match = this.store.match;
    let bottom = "first";
    if (match.audience === "first" || match.audience === "second") bottom = match.audience;
    else if (match.audience === "device") bottom = match.handover || match.to_act || "first";
    return { bottom, top: other(bottom) };
  }

  bounds() {
    const match = this.store.match;
    return this.tableBounds.of(this.dom.querySelector(".board-wrap"), match ? match.round_number : 0);
  }

  renderAll() {
    const match = this.store.match;
    if (!match || !this.dom) return;
    const dom = this.dom;
    setAttr(dom, "data-audience", match.audience);
    setAttr(dom, "data-phase", match.phase);
    setAttr(dom, "data-status", match.status);
    setAttr(dom, "data-version", String(this.store.version));
    setAttr(dom, "data-mode", match.mode);
    setAttr(dom, "data-my-turn", match.legal ? "true" : "false");

    const { bottom, top } = this.seats();
    const names = `${seatName(match, "first")} – ${seatName(match, "second")}`;
    dom.querySelector(".match-title").textContent = this.titleText(match);
    dom.querySelector(".match-sub").textContent = `${names} · ${t(`mode.${match.mode}`)}`;
    this.renderTitle(match);
    this.renderConnection();

    renderRatedMark(dom.querySelector(".match-meta"), match);
    const spectators = dom.querySelector("#spectators");
    fill(spectators, icon("eye", "icon icon-inline"), " ", h("span", { class: "count" }, String(match.spectators || 0)), " ", h("span", { class: "spectators-word" }, t("match.spectators", { n: match.spectators || 0 })));

    const resign = dom.querySelector("[data-action=resign]");
    resign.hidden = !(match.audience !== "spectator" && match.status === "active");
    if (resign.hidden) this.confirmation.close(); // the match ended while the question stood
    // An icon and a word; a phone shows the icon only (the word stays its name).
    if (resign.dataset.lang !== document.documentElement.lang) {
      resign.dataset.lang = document.documentElement.lang;
      fill(resign, icon("flag"), h("span", { class: "btn-label" }, t("match.resign")));
      resign.title = t("match.resign");
    }

    this.renderOpponentStatus(match);
    renderJoin(dom.querySelector("#join-panel"), {
      visible: this.joinOffered && match.audience === "spectator" && match.status === "waiting",
      // Issue 12 item 6: a visitor who opens the invitation of a full match is told why there is
      // no Join button.
      full: match.audience === "spectator" && match.status === "active" && match.mode !== "shared",
      hasName: !!this.me,
      onJoin: (name) => this.join(name),
    });
    renderInvite(dom.querySelector("#invite-panel"), match);
    renderLate(dom.querySelector("#late-panel"), match, { hasName: !!this.me, onAgain: (mode, name) => this.again(mode, name) });

    const isPlayer = match.audience === "first" || match.audience === "second";
    renderSeat(dom.querySelector(".seat-top"), match, top, { backs: true, countId: "opponent-count", isYou: false });
    renderSeat(dom.querySelector(".seat-bottom"), match, bottom, {
      backs: match.audience === "spectator" || !match.hand,
      countId: null,
      isYou: isPlayer && bottom === match.viewer,
    });

    const banner = dom.querySelector("#turn-banner");
    banner.textContent = this.bannerText(match);
    setAttr(banner, "data-mine", match.legal ? "true" : "false");

    const ctx = {
      onCommand: (command) => this.send(command),
      confirm: (question, yes) => this.confirmation.ask(question, yes),
      version: this.store.version,
      roundEvents: this.store.roundEvents,
      commitments: this.store.commitments,
    };
    renderAuction(dom.querySelector("#auction"), match, ctx);
    renderRoundCard(dom.querySelector("#round-card"), match, ctx);
    renderResult(dom.querySelector("#result"), match);
    this.renderChat(match);
    this.renderCues();
    this.renderSide();
    this.renderRematch(match);

    this.renderEnds(match);
    const inRound = ["auction", "opening", "playing"].includes(match.phase);
    dom.querySelector(".boneyard").hidden = !inRound;
    dom.querySelector(".boneyard-label").textContent = t("match.boneyard");
    dom.querySelector("#boneyard-count").textContent = String(match.boneyard_count ?? 0);

    this.renderHandArea(match);
    this.renderHandover(match);
    // Last: the felt's size is measured once the table around it is drawn.
    this.renderBoardOnly();
    this.renderLog();
    this.tick();
  }

  /** A player in another tab sees it is their turn in the tab's title, and the creator of an
   * invitation that the friend has come to, until the first round starts (D3). */
  renderTitle(match) {
    const names = `${seatName(match, "first")} – ${seatName(match, "second")}`;
    const arrival = this.arrived && match.phase === "awaiting_deal" && match.round_number === 0
      && match.status === "active" && !(match.ready && match.ready[match.viewer]);
    const flag = match.legal ? t("match.your_turn_title") : arrival ? t("arrival.title", { name: this.arrived }) : "";
    document.title = `${flag ? `● ${flag} · ` : ""}${names} — ${t("app.name")}`;
  }

  titleText(match) {
    if (match.status === "waiting") return t("phase.waiting");
    if (match.status === "finished" || match.status === "aborted") return t("phase.over");
    // Before the first deal the match is about to play round 1, not between two rounds.
    if (match.round_number === 0) return t("match.round", { n: 1 });
    const round = match.round_number > 0 ? `${t("match.round", { n: match.round_number })} · ` : "";
    return `${round}${t(`phase.${match.phase}`)}`;
  }

  bannerText(match) {
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

  renderConnection() {
    if (!this.dom) return;
    const el = this.dom.querySelector("#connection");
    el.dataset.state = this.connState;
    el.querySelector(".conn-icon").textContent = { online: "●", reconnecting: "◐", offline: "○" }[this.connState] || "○";
    el.querySelector(".conn-text").textContent = t(`connection.${this.connState}`);
    const spare = this.dom.querySelector(".handover-conn");
    if (spare) spare.textContent = this.connState === "online" ? "" : t(`connection.${this.connState}`);
  }

  renderOpponentStatus(match) {
    const el = this.dom.querySelector("#opponent-status");
    let text = "";
    if (match.status === "active" && match.mode !== "shared") {
      const seats = match.audience === "first" || match.audience === "second" ? [other(match.audience)] : ["first", "second"];
      const lines = [];
      for (const seat of seats) {
        const player = match.players && match.players[seat];
        if (!player || player.online || computerSeatName(match, seat)) continue;
        const running = match.clock && match.clock.running === seat;
        const key = match.audience === "spectator" ? (running ? "match.player_offline_running" : "match.player_offline") : (running ? "match.opponent_offline_running" : "match.opponent_offline");
        lines.push(t(key, { name: player.name }));
      }
      text = lines.join(" ");
    }
    el.textContent = text;
    el.hidden = !text;
  }

  renderBoardOnly() {
    const match = this.store.match;
    if (!match || !this.dom) return;
    const bounds = this.bounds();
    this.boundsKey = JSON.stringify(bounds);
    const svg = this.dom.querySelector("#board");
    const legal = match.legal;
    const play = legal && this.selected ? (legal.plays || []).find((p) => p.tile === this.selected) : null;
    let emptyText = "";
    if (match.phase === "opening") emptyText = legal ? t("board.empty_you") : t("board.empty_other", { name: seatName(match, match.to_act) });
    else if (match.phase === "auction") emptyText = t("board.empty_auction");
    else if (!match.board || !match.board.tiles.length) emptyText = t("board.empty");
    const hidden = match.audience === "device" && !!match.handover;
    svg.setAttribute("aria-label", t("board.aria", { n: match.board ? match.board.tiles.length : 0 }));
    renderBoard(svg, hidden ? null : match.board, {
      bounds,
      selected: play ? this.selected : null,
      places: play ? play.places : [],
      onPlace: (place) => this.onPlace(place),
      emptyText: hidden ? "" : emptyText,
    });
  }

  renderEnds(match) {
    const el = this.dom.querySelector("#ends");
    const board = match.board;
    if (!board || !board.tiles || !board.tiles.length || (match.audience === "device" && match.handover)) {
      el.hidden = true;
      fill(el);
      return;
    }
    el.hidden = false;
    const values = (board.scoring_ends || []).map((e) => e[1]);
    const sum = values.length ? `${values.join(" + ")} = ${board.ends_sum}` : String(board.ends_sum);
    const last = board.tiles[board.tiles.length - 1];
    fill(
      el,
      h("span", { class: "ends-last" }, t("ends.last", { tile: tileLabel(last) })),
      h("span", { class: "ends-sum" }, h("span", { class: "ends-label" }, t("ends.label")), " ", h("strong", {}, sum)),
      board.award > 0
        ? h("span", { class: "ends-award is-award" }, `✦ ${t("ends.award", { n: board.award })}`)
        : h("span", { class: "ends-award" }, t("ends.no_award")),
    );
  }

  renderHandOnly() {
    const match = this.store.match;
    if (!match || !this.dom) return;
    const box = this.dom.querySelector("#hand");
    const showHand = match.audience !== "spectator" && !(match.audience === "device" && match.handover);
    const tiles = showHand && match.hand ? match.hand : [];
    const legal = match.legal;
    const map = new Map();
    if (legal && (match.phase === "opening" || match.phase === "playing")) {
      for (const p of legal.plays || []) map.set(p.tile, p.places);
    }
    renderHand(box, tiles, {
      legal: map,
      opening: !!(legal && legal.opening),
      placing: !!(legal && legal.plays && legal.plays.length),
      selected: this.selected,
      mustPlay: match.must_play,
      onTile: (tile, event) => this.onTile(tile, event),
    });
  }

  renderHandArea(match) {
    const area = this.dom.querySelector(".hand-area");
    const showHand = match.audience !== "spectator" && !!match.hand && !(match.audience === "device" && match.handover);
    area.hidden = !showHand;
    this.renderHandOnly();
    const { bottom } = this.seats();
    const title = match.audience === "device" ? t("hand.title_device", { name: seatName(match, bottom) }) : t("hand.title");
    area.querySelector(".hand-title").textContent = title;
    const draw = area.querySelector("[data-action=draw]");
    const canDraw = !!(match.legal && match.legal.can_draw);
    draw.hidden = !canDraw;
    // A touch screen has no D key to show (or to announce).
    const keys = !isTouchOnly();
    fill(draw, t("hand.draw"), keys ? [" ", h("kbd", { "aria-hidden": "true" }, "D")] : null);
    setAttr(draw, "aria-keyshortcuts", keys ? "D" : null);
    area.querySelector(".toggle-text").textContent = t("hand.auto_draw");
    const hint = area.querySelector(".hand-hint");
    if (!this.selected) {
      let text = "";
      if (match.legal && (match.phase === "opening" || match.phase === "playing")) {
        text = canDraw ? keyHint("hand.hint_draw") : match.legal.opening ? t("hand.hint_open") : keyHint("hand.hint_play");
      }
      hint.textContent = text;
      hint.dataset.kind = "standing";
    } else if (hint.dataset.lang !== document.documentElement.lang) {
      // A tile chosen before the language changed: its answer in the new language.
      this.hint(t("hand.hint_choose_place", { tile: tileLabel(this.selected) }));
    }
    hint.dataset.lang = document.documentElement.lang;
  }

  renderHandover(match) {
    const overlay = this.dom.querySelector("#handover");
    const show = match.audience === "device" && !!match.handover && match.status === "active";
    const wasHidden = overlay.hidden;
    overlay.hidden = !show;
    if (!show) return;
    const name = seatName(match, match.handover);
    overlay.querySelector("#handover-title").textContent = t("handover.title", { name });
    overlay.querySelector(".handover-text").textContent = t("handover.text", { name });
    overlay.querySelector("[data-action=reveal]").textContent = t("handover.reveal", { name });
    overlay.querySelector(".handover-note").textContent = t("handover.note");
    if (wasHidden) overlay.querySelector("[data-action=reveal]").focus({ preventScroll: true });
  }

  renderLog() {
    if (!this.dom) return;
    const details = this.dom.querySelector(".move-log");
    const grew = this.moves.render();
    details.querySelector("summary").textContent = t("match.log", { n: this.moves.decisions });
    if (grew) {
      const list = details.querySelector("#move-log-list");
      list.scrollTop = list.scrollHeight;
    }
  }

  tick() {
    const match = this.store.match;
    if (!match || !this.dom) return;
    const elapsed = this.store.elapsed();
    for (const seat of ["first", "second"]) {
      const el = this.dom.querySelector(`[data-clock="${seat}"]`);
      paintClock(el, match, elapsed, seat, { fullDelayMs: this.store.fullDelayMs, name: seatName(match, seat) });
    }
    paintCountdowns(this.dom, match, serverNow(match, elapsed));
    // Low time: one cue per decision once one's own bank is in its last 10 s (issue 12 item 4).
    const own = match.viewer && match.legal ? this.dom.querySelector(`[data-clock="${match.viewer}"]`) : null;
    if (own && own.dataset.low === "true" && this.lowCued !== match.decision) {
      this.lowCued = match.decision;
      this.cues.play("low");
      this.dom.dataset.cues = this.cues.played.slice(-20).join(",");
    }
  }
}

/** A hint that names keys, or its words without them on a touch screen. */
function keyHint(key) {
  return t(isTouchOnly() ? `${key}_touch` : key);
}

function errorText(err) {
  const code = err.code;
  const known = code ? t(`errors.${code}`) : null;
  if (known && known !== `errors.${code}`) return known;
  return err.message || String(code);
}
