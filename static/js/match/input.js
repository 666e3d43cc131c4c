// The match page's input: clicks, keys and typed names become intents, sent to the server as
// commands over the socket (or as API calls: join, answer an expired invitation). Nothing here
// decides a rule: what may be played, drawn or bid is what `legal` says.

import { tileLabel } from "../dom.js";
import { t } from "../i18n.js";
import { ApiError, answerExpired, createGuest, joinMatch } from "../api.js";
import { navigate } from "../router.js";
import { handKeys } from "../hand.js";
import { toast } from "../announce.js";
import { seatName } from "../narrate.js";
import { isRulesOpen } from "../rules.js";
import { errorText } from "./dispatch.js";
import { renderCues } from "./cues.js";
import { renderAll } from "./render.js";
import { openSide } from "./side.js";
import { hint, keyHint, renderBoardOnly, renderHandOnly } from "./table.js";

const ARROWS = ["ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown"];

export class MatchInput {
  constructor(view) {
    this.view = view;
  }

  /** The page's buttons and keys; the cards' buttons are wired as they are drawn. */
  wire() {
    const view = this.view;
    const dom = view.dom;
    dom.querySelector("[data-action=resign]").addEventListener("click", () => this.resign());
    dom.querySelector("[data-action=sound]").addEventListener("click", () => {
      view.cues.setSound(!view.cues.soundOn);
      renderCues(view);
    });
    dom.querySelector("[data-action=notify]").addEventListener("click", async () => {
      const on = await view.cues.setNotify(!view.cues.notifyOn);
      if (!on && typeof Notification !== "undefined" && Notification.permission === "denied") toast(t("cues.notify_denied"), "error");
      renderCues(view);
    });
    dom.querySelector("[data-action=side]").addEventListener("click", () => openSide(view, dom.dataset.side !== "open"));
    dom.querySelector("[data-action=side-close]").addEventListener("click", () => openSide(view, false));
    dom.querySelector("[data-action=draw]").addEventListener("click", () => this.draw());
    dom.querySelector("[data-action=reveal]").addEventListener("click", () => this.send({ type: "reveal" }));
    const auto = dom.querySelector("#auto-draw");
    auto.checked = view.autoDraw.on;
    auto.addEventListener("change", () => {
      view.autoDraw.set(auto.checked);
      view.autoDraw.maybe(view);
    });
    const onKey = (event) => this.onKey(event);
    document.addEventListener("keydown", onKey);
    view.cleanups.push(() => document.removeEventListener("keydown", onKey));
  }

  onKey(event) {
    const view = this.view;
    if (isRulesOpen() || !view.store.match) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = target && (target.closest("input, select, textarea, [contenteditable=true]"));
    if (typing) return;
    const match = view.store.match;
    if (match.handover && match.audience === "device") return;
    if (event.key === "d" || event.key === "D") {
      if (match.legal && match.legal.can_draw) {
        event.preventDefault();
        this.draw();
      }
      return;
    }
    if (event.key === "Escape" && view.dom.dataset.side === "open") {
      openSide(view, false);
      return;
    }
    if (event.key === "Escape" && view.selected) {
      const tile = view.selected;
      this.select(null);
      view.dom.querySelector(`#hand .tile[data-tile="${tile}"]`)?.focus();
      return;
    }
    const hand = view.dom.querySelector("#hand");
    if (hand.contains(document.activeElement)) {
      handKeys(hand, event);
      return;
    }
    const place = document.activeElement && document.activeElement.closest ? document.activeElement.closest("[data-place]") : null;
    if (place && ARROWS.includes(event.key)) {
      const targets = [...view.dom.querySelectorAll("#board [data-place]")];
      const i = targets.indexOf(place);
      const step = event.key === "ArrowRight" || event.key === "ArrowDown" ? 1 : -1;
      targets[(i + step + targets.length) % targets.length]?.focus();
      event.preventDefault();
    }
  }

  onTile(tile, event) {
    const view = this.view;
    const match = view.store.match;
    const legal = match && match.legal;
    const play = legal && (legal.plays || []).find((p) => p.tile === tile);
    if (!play) {
      const button = event.currentTarget;
      button.classList.remove("nope");
      void button.offsetWidth;
      button.classList.add("nope");
      hint(view, legal && legal.can_draw ? keyHint("hand.hint_draw") : t("hand.hint_not_playable"));
      return;
    }
    if (view.pending) return;
    if (legal.opening) {
      this.send({ type: "play", tile, at: null });
    } else if (play.places.length === 1) {
      this.send({ type: "play", tile, at: play.places[0] });
    } else {
      this.select(view.selected === tile ? null : tile);
      if (view.selected) view.dom.querySelector("#board [data-place]")?.focus();
    }
  }

  select(tile) {
    const view = this.view;
    view.selected = tile;
    renderHandOnly(view);
    renderBoardOnly(view);
    hint(view, tile ? t("hand.hint_choose_place", { tile: tileLabel(tile) }) : "");
  }

  onPlace(place) {
    const view = this.view;
    if (!view.selected || view.pending) return;
    this.send({ type: "play", tile: view.selected, at: place });
  }

  draw() {
    const view = this.view;
    const match = view.store.match;
    if (!match || !match.legal || !match.legal.can_draw || view.pending) return;
    this.send({ type: "draw" });
  }

  async resign() {
    const view = this.view;
    const match = view.store.match;
    if (!match || match.status !== "active") return;
    const seat = match.audience === "device" ? match.to_act || match.handover || "first" : match.viewer;
    const question = match.audience === "device"
      ? t("resign.confirm_device", { name: seatName(match, seat) })
      : t("resign.confirm");
    if (!(await view.confirmation.ask(question, t("match.resign")))) return;
    const now = view.store.match;
    if (!now || now.status !== "active") return; // it ended while the question stood
    this.send(match.audience === "device" ? { type: "resign", seat } : { type: "resign" }, { force: true });
  }

  /** A command at the version on show; one at a time unless forced (Resign). */
  send(command, { force = false } = {}) {
    const view = this.view;
    if (view.pending && !force) return;
    if (!view.socket || !view.socket.isOpen()) {
      toast(t("errors.not_connected"), "error");
      return;
    }
    view.pending = true;
    view.socket.send({ ...command, version: view.store.version });
  }

  /** The name typed into a card for a visitor with no guest yet: it becomes one. */
  async ensureGuest(name) {
    const view = this.view;
    if (view.me) return true;
    const clean = (name || "").trim();
    if (!clean) {
      toast(t("lobby.name_needed"), "error");
      return false;
    }
    view.me = await createGuest(clean);
    try {
      localStorage.setItem("specbid.name", view.me.name);
    } catch {
      /* ignore */
    }
    return true;
  }

  /** D3: after an expired invitation, invite its creator back or post an open challenge, with
   * its time control; the new match's page shows the link to send. */
  async again(mode, name) {
    const view = this.view;
    if (view.pending) return;
    view.pending = true;
    try {
      if (!(await this.ensureGuest(name))) return;
      const created = await answerExpired(view.id, mode);
      navigate(`/m/${created.id}`);
    } catch (err) {
      toast(err instanceof ApiError ? errorText(err) : String(err), "error");
    } finally {
      view.pending = false;
    }
  }

  async join(name) {
    const view = this.view;
    try {
      if (!(await this.ensureGuest(name))) return;
      await joinMatch(view.id);
      view.joinOffered = false;
      view.connect(); // the new socket speaks for the new seat
    } catch (err) {
      toast(err instanceof ApiError ? errorText(err) : String(err), "error");
      if (err instanceof ApiError && err.code === "seat_taken") {
        view.joinOffered = false;
        renderAll(view);
      }
    }
  }
}
