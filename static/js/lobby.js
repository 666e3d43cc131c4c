// The lobby (/): a display name or an account, the time control, the three ways to start a
// match with a person and the one against the computer, and the lists of invitations made back
// and rematches offered to this player, open challenges, live matches to watch and finished
// matches to replay, polled while it is open. A creation the server refuses as busy is retried
// after its Retry-After, saying so in the page (busyretry.js).

import { h, fill } from "./dom.js";
import { t, onLanguageChange } from "./i18n.js";
import { ApiError, createGuest, createMatch, joinMatch, readLobby, whoAmI } from "./api.js";
import { navigate } from "./router.js";
import { toast } from "./announce.js";
import { icon } from "./icons.js";
import { AccountPanel } from "./account.js";
import { TimeControlPicker, secondsLabel } from "./timecontrol.js";
import { ComputerPicker } from "./computer.js";
import { BusyRetry } from "./busyretry.js";
import { FinishedList, LobbyLists } from "./lobbylists.js";
import { SharedNamesForm } from "./sharedform.js";

const POLL_MS = 2500;
const NAME_KEY = "specbid.name";

export function mountLobby(main) {
  const lobby = new Lobby(main);
  lobby.start();
  return () => lobby.destroy();
}

function savedName() {
  try {
    return localStorage.getItem(NAME_KEY) || "";
  } catch {
    return "";
  }
}

class Lobby {
  constructor(main) {
    this.main = main;
    this.me = null;
    this.data = null;
    this.timer = null;
    this.destroyed = false;
    this.busy = false;
    this.action = 0; // the latest action's number: an older one's end leaves busy alone
    this.retry = new BusyRetry();
    this.finished = new FinishedList();
    this.cleanups = [];
    this.lists = new LobbyLists({
      accept: (id) => this.accept(id),
      answerRematch: (endedId, call) => this.answerRematch(endedId, call),
    });
    this.account = new AccountPanel(() => this.sessionChanged());
    this.timeControl = new TimeControlPicker();
    this.computer = new ComputerPicker((level) => this.create("bot", { level }));
    this.shared = new SharedNamesForm((fields) => this.create("shared", fields));
  }

  async start() {
    this.build();
    this.cleanups.push(onLanguageChange(() => this.renderAll()));
    try {
      this.me = await whoAmI();
    } catch {
      this.me = null;
    }
    if (this.destroyed) return;
    this.renderIdentity();
    await this.poll();
    const onVisible = () => {
      if (document.visibilityState === "visible") this.poll();
    };
    document.addEventListener("visibilitychange", onVisible);
    this.cleanups.push(() => document.removeEventListener("visibilitychange", onVisible));
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
    this.retry.cancel();
    for (const fn of this.cleanups) fn();
  }

  /** After a log-in, log-out or claim: who is this browser now? */
  async sessionChanged() {
    try {
      this.me = await whoAmI();
    } catch {
      this.me = null;
    }
    if (this.destroyed) return;
    try {
      if (this.me) localStorage.setItem(NAME_KEY, this.me.name);
      else localStorage.removeItem(NAME_KEY);
    } catch {
      /* ignore */
    }
    this.root.querySelector("#name-input").value = this.me ? this.me.name : "";
    this.renderIdentity();
    this.renderLists();
  }

  async poll() {
    clearTimeout(this.timer);
    try {
      this.data = await readLobby();
      if (this.destroyed) return;
      this.timeControl.configure(this.data.time_controls);
      this.renderClockFact();
      this.renderLists();
      this.setStale(false);
    } catch {
      if (this.destroyed) return;
      this.setStale(true);
    }
    if (!this.destroyed) this.timer = setTimeout(() => this.poll(), POLL_MS);
  }

  build() {
    const nameInput = h("input", {
      id: "name-input",
      class: "text-input",
      type: "text",
      maxlength: "24",
      autocomplete: "nickname",
      spellcheck: "false",
    });
    nameInput.value = savedName();
    const form = h("form", { class: "name-form", novalidate: true },
      h("label", { for: "name-input", class: "field-label", "data-i18n": "lobby.name_label" }),
      h("div", { class: "name-row", id: "name-row" },
        nameInput,
        h("button", { type: "submit", class: "btn btn-primary", "data-action": "save-name", "data-i18n": "lobby.save_name" })),
      h("p", { class: "who-line", id: "who-line" }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.saveName();
    });

    const modeButton = (action, iconName, titleKey, textKey, mode) => {
      const button = h("button", { type: "button", class: "mode-card", "data-action": action },
        h("span", { class: "mode-icon", "aria-hidden": "true" }, icon(iconName)),
        h("span", { class: "mode-title", "data-i18n": titleKey }),
        h("span", { class: "mode-text", "data-i18n": textKey }));
      button.addEventListener("click", () => (mode === "shared" ? this.shared.open(this.root.querySelector("#name-input").value.trim()) : this.create(mode)));
      return button;
    };
    const sharedForm = this.shared.el;

    const list = (id, titleKey, emptyKey) =>
      h("section", { class: "card list-card", "aria-labelledby": `${id}-title` },
        h("h2", { class: "card-title", id: `${id}-title`, "data-i18n": titleKey }),
        h("ul", { id, class: "match-list", "data-empty-key": emptyKey }));

    this.root = h(
      "div",
      { class: "lobby" },
      h("section", { class: "hero" },
        h("div", { class: "hero-text" },
          h("h1", { class: "hero-title", "data-i18n": "lobby.title" }),
          h("p", { class: "hero-lead", "data-i18n": "lobby.lead" }),
          h("ul", { class: "hero-facts" },
            h("li", {}, h("span", { class: "fact-icon", "aria-hidden": "true" }, icon("chip")), h("span", { "data-i18n": "lobby.fact_points" })),
            h("li", {}, h("span", { class: "fact-icon", "aria-hidden": "true" }, icon("fives")), h("span", { "data-i18n": "lobby.fact_fives" })),
            h("li", {}, h("span", { class: "fact-icon", "aria-hidden": "true" }, icon("clock")), h("span", { id: "fact-clock" }))),
          h("button", { type: "button", class: "btn btn-ghost", "data-action": "rules", "data-i18n": "lobby.read_rules" })),
        h("div", { class: "card start-card" },
          h("h2", { class: "card-title", "data-i18n": "lobby.start_title" }),
          form,
          this.account.el,
          this.timeControl.el,
          h("div", { class: "mode-grid" },
            modeButton("create-invite", "link", "lobby.invite_title", "lobby.invite_text", "invite"),
            modeButton("create-open", "megaphone", "lobby.open_title", "lobby.open_text", "open"),
            modeButton("create-shared", "device", "lobby.shared_title", "lobby.shared_text", "shared")),
          sharedForm,
          this.retry.el,
          this.computer.el)),
      h("p", { class: "lobby-stale notice notice-warn", hidden: true, role: "status", "data-i18n": "lobby.stale" }),
      h("div", { class: "lists" },
        list("invitations-back", "late.lobby_list", "late.lobby_list"),
        list("rematch-offers", "rematch.list", "rematch.list"),
        list("open-challenges", "lobby.open_list", "lobby.open_empty"),
        list("live-matches", "lobby.live_list", "lobby.live_empty"),
        h("section", { class: "card list-card", "aria-labelledby": "finished-matches-title" },
          h("h2", { class: "card-title", id: "finished-matches-title", "data-i18n": "lobby.finished_list" }),
          this.finished.el)),
    );
    fill(this.main, this.root);
    this.renderAll();
  }

  renderAll() {
    if (!this.root) return;
    for (const el of this.root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    const input = this.root.querySelector("#name-input");
    input.placeholder = t("lobby.name_placeholder");
    document.title = `${t("lobby.page_title")} — ${t("app.name")}`;
    this.timeControl.render();
    this.renderClockFact();
    this.computer.render();
    this.retry.render();
    this.renderIdentity();
    this.renderLists();
  }

  /** "120 s of bank for the match, 10 s of delay per decision": the server's own control. */
  renderClockFact() {
    const fact = this.root && this.root.querySelector("#fact-clock");
    const own = this.timeControl.own();
    if (fact) fact.textContent = own ? t("lobby.fact_clock", { bank: secondsLabel(own.bank_ms), delay: secondsLabel(own.delay_ms) }) : "";
  }

    setStale(stale) {
    const el = this.root && this.root.querySelector(".lobby-stale");
    if (el) el.hidden = !stale;
  }

  renderIdentity() {
    const line = this.root && this.root.querySelector("#who-line");
    if (!line) return;
    const input = this.root.querySelector("#name-input");
    // An account keeps its name: a new one would be a new guest, leaving the account.
    const account = Boolean(this.me && this.me.account);
    this.root.querySelector("label[for=name-input]").hidden = account;
    this.root.querySelector("#name-row").hidden = account;
    line.hidden = account; // the account's own line says who it is
    this.account.render(this.me);
    if (this.me) {
      fill(line, h("span", { class: "who-dot", "aria-hidden": "true" }, "●"), " ", t("lobby.playing_as", { name: this.me.name }));
      if (!input.value) input.value = this.me.name;
      this.root.querySelector("[data-action=save-name]").textContent = t("lobby.change_name");
    } else {
      fill(line, t("lobby.no_name"));
      this.root.querySelector("[data-action=save-name]").textContent = t("lobby.save_name");
    }
  }

  async saveName() {
    const input = this.root.querySelector("#name-input");
    const name = input.value.trim();
    if (!name) {
      toast(t("lobby.name_needed"), "error");
      input.focus();
      return false;
    }
    if (this.me && this.me.name === name) return true;
    try {
      this.me = await createGuest(name);
      try {
        localStorage.setItem(NAME_KEY, this.me.name);
      } catch {
        /* ignore */
      }
      input.value = this.me.name;
      this.renderIdentity();
      this.renderLists();
      toast(t("lobby.name_saved", { name: this.me.name }), "ok", 2200);
      return true;
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), "error");
      return false;
    }
  }

  /** A guest is needed to play: save the typed name first if there is none yet. */
  async ensureGuest() {
    if (this.me) return true;
    const input = this.root.querySelector("#name-input");
    if (!input.value.trim()) {
      toast(t("lobby.name_needed"), "error");
      input.focus();
      return false;
    }
    return this.saveName();
  }

  /** Start an action (a creation, a join, an accepted rematch) unless one is under way; a
   * retry waiting for a busy server is cancelled by the new one. Returns the action's number,
   * or null when it may not start. */
  begin() {
    if (this.busy && !this.retry.waiting) return null;
    this.retry.cancel();
    this.busy = true;
    this.action += 1;
    return this.action;
  }

  end(action) {
    if (action === this.action) this.busy = false;
  }

  /** fields: what the mode needs besides the time control ({level} for the computer, {names}
   * for a shared device). */
  async create(mode, fields = {}) {
    const action = this.begin();
    if (action === null) return;
    try {
      const control = this.timeControl.chosen();
      if (control === null) return;
      if (!(await this.ensureGuest())) return;
      const created = await this.retry.run(() => createMatch(mode, control, fields), {
        kind: mode === "bot" ? "computer" : "server",
        again: () => this.create(mode, fields),
      });
      if (created && !this.destroyed) navigate(`/m/${created.id}`);
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), "error");
    } finally {
      this.end(action);
    }
  }

  /** Accept (the rematch starts: go there) or decline a rematch offered from the archive. */
  async answerRematch(endedId, call) {
    const action = this.begin();
    if (action === null) return;
    try {
      const answer = await this.retry.run(() => call(endedId), { again: () => this.answerRematch(endedId, call) });
      if (answer && answer.match_id) navigate(`/m/${answer.match_id}`);
      else this.poll();
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), "error");
      this.poll();
    } finally {
      this.end(action);
    }
  }

  /** Join an open challenge: refused as busy only when another server process runs it and
   * cannot be reached for a moment (docs/PROTOCOL.md "Several servers on one database"). */
  async accept(id) {
    const action = this.begin();
    if (action === null) return;
    try {
      if (!(await this.ensureGuest())) return;
      const joined = await this.retry.run(() => joinMatch(id), { again: () => this.accept(id) });
      if (joined && !this.destroyed) navigate(`/m/${id}`);
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), "error");
      this.poll();
    } finally {
      this.end(action);
    }
  }

  renderLists() {
    if (!this.root || !this.data) return;
    this.lists.render(this.root, this.data, this.me);
    this.finished.update(this.data.finished || [], this.data.finished_next || null);
  }
}
