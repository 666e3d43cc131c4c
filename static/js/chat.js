// The chat panel of a match (docs/PROTOCOL.md, `chat`): the lines the server sends, each shown
// once by its number, the reader's mutes, the quick phrases and a line to type. Who is shown which
// channel and who may speak is the server's to say: a refusal comes back as an error and is shown.

import { h, fill, show } from "./dom.js";
import { t } from "./i18n.js";
import { icon } from "./icons.js";

const MUTED_KEY = "specbid.muted";
export const PHRASES = ["hello", "good_luck", "well_played", "thanks", "good_game"];
const MAX_CHARS = 140;

/** The speakers this reader muted, kept in this browser. */
export function loadMuted() {
  try {
    const list = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(list) ? list.filter((x) => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

function saveMuted(muted) {
  try {
    localStorage.setItem(MUTED_KEY, JSON.stringify([...muted]));
  } catch {
    /* private mode: the mute lasts for this page */
  }
}

/** The text of a line in the reader's language: a phrase is a key, a typed line is itself. */
export function lineText(line) {
  return line.phrase ? t(`chat.phrase.${line.phrase}`) : line.text || "";
}

/** A read-only list of lines (the replay of an ended match, both channels). */
export function renderChatLines(list, lines, { muted = new Set(), onMute = null, isMine = () => false } = {}) {
  const shown = lines.filter((line) => !muted.has(line.by));
  fill(list, shown.map((line) => h("li", {
    class: `chat-line chat-${line.channel}`,
    "data-n": line.n,
    "data-by": line.by,
    "data-channel": line.channel,
  },
  h("span", { class: "chat-name" }, line.name),
  line.channel === "spectators" ? h("span", { class: "chat-tag" }, t("chat.tag_spectator")) : null,
  h("span", { class: "chat-text" }, lineText(line)),
  onMute && !isMine(line)
    ? h("button", {
      type: "button",
      class: "btn btn-icon chat-mute",
      "data-action": "mute",
      "aria-label": t("chat.mute", { name: line.name }),
      title: t("chat.mute", { name: line.name }),
      onclick: () => onMute(line),
    }, icon("mute"))
    : null)));
  return shown.length;
}

export class ChatPanel {
  /**
   * @param {HTMLElement} root the panel's element (built here)
   * @param {{send: (line) => string|null, me: () => {name: string}|null, onNew?: (n) => void}} opts —
   *   send returns the message id, or null when the socket is not open; me is who reads (no mute
   *   for one's lines); onNew hears how many lines of others arrived (a closed drawer counts them)
   */
  constructor(root, { send, me, onNew = () => {} }) {
    this.root = root;
    this.send = send;
    this.me = me;
    this.onNew = onNew;
    this.lines = new Map(); // by number
    this.waiting = new Set(); // ids of our lines not yet answered
    this.muted = loadMuted();
    this.audience = null;
    this.viewer = null;
    this.ended = false;
    this.facesComputer = false; // the computer reads no chat: no players' channel
    this.build();
  }

  build() {
    const form = h("form", { class: "chat-form", "data-action": "chat-form" },
      h("label", { class: "sr-only", for: "chat-input" }, t("chat.placeholder")),
      h("input", {
        id: "chat-input",
        class: "text-input chat-input",
        type: "text",
        maxlength: String(MAX_CHARS),
        autocomplete: "off",
        enterkeyhint: "send",
        placeholder: t("chat.placeholder"),
      }),
      h("button", { type: "submit", class: "btn btn-primary chat-send" }, t("chat.send")));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const input = form.querySelector("input");
      const text = input.value.trim();
      if (!text) return;
      if (this.say({ text })) input.value = "";
    });
    fill(this.root,
      h("h2", { class: "card-title chat-title", id: "chat-title" }),
      h("ol", { class: "chat-lines", id: "chat-lines", "aria-live": "polite", "aria-labelledby": "chat-title" }),
      h("p", { class: "chat-empty" }),
      h("p", { class: "chat-muted-note", hidden: true }),
      h("p", { class: "chat-problem", role: "status", hidden: true }),
      h("div", { class: "chat-phrases", role: "group", "aria-label": t("chat.phrases") },
        PHRASES.map((p) => h("button", {
          type: "button",
          class: "btn btn-ghost btn-small chat-phrase",
          "data-phrase": p,
          onclick: () => this.say({ phrase: p }),
        }))),
      form);
  }

  /** Send a line; true if it went out (the server may still refuse it). */
  say(line) {
    const id = this.send({ type: "chat", ...line });
    if (id === null) {
      this.problem(t("errors.not_connected"));
      return false;
    }
    this.waiting.add(id);
    this.problem("");
    return true;
  }

  /** An ack or error of one of our lines: true if it was ours (the caller then ignores it). */
  answer(msg) {
    if (!msg.id || !this.waiting.has(msg.id)) return false;
    this.waiting.delete(msg.id);
    if (msg.type === "error") {
      const key = `chat.error.${msg.code}`;
      const text = t(key);
      this.problem(text !== key ? text : msg.message);
    }
    return true;
  }

  add(lines) {
    let fresh = 0;
    for (const line of lines) {
      if (!this.lines.has(line.n) && !this.muted.has(line.by) && !this.isMine(line)) fresh += 1;
      this.lines.set(line.n, line);
    }
    this.render();
    if (fresh) this.onNew(fresh);
  }

  /** One's own line, by the name and the seat it was said from (names need not be unique). */
  isMine(line) {
    if (line.channel === "players") return !!this.viewer && line.seat === this.viewer && this.audience !== "spectator";
    const me = this.me();
    return !!me && line.name === me.name && this.audience === "spectator";
  }

  mute(line) {
    this.muted.add(line.by);
    saveMuted(this.muted);
    this.render();
  }

  unmuteAll() {
    this.muted.clear();
    saveMuted(this.muted);
    this.render();
  }

  problem(text) {
    const el = this.root.querySelector(".chat-problem");
    el.textContent = text;
    show(el, !!text);
  }

  /** Redraw from the match's audience and status (the server decides what reaches us). */
  render(match = null) {
    if (match) {
      this.audience = match.audience;
      this.ended = match.status === "finished" || match.status === "aborted";
      this.facesComputer = match.bot_level != null && match.audience !== "spectator";
      this.viewer = match.viewer || null;
    }
    const root = this.root;
    const title = this.ended ? t("chat.title_after")
      : this.audience === "spectator" ? t("chat.title_spectators") : t("chat.title_players");
    root.querySelector(".chat-title").textContent = title;
    const sorted = [...this.lines.values()].sort((a, b) => a.n - b.n);
    const list = root.querySelector(".chat-lines");
    const shown = renderChatLines(list, sorted, {
      muted: this.muted,
      onMute: (line) => this.mute(line),
      isMine: (line) => this.isMine(line),
    });
    list.scrollTop = list.scrollHeight;
    const empty = root.querySelector(".chat-empty");
    empty.textContent = t("chat.empty");
    show(empty, shown === 0);
    const hidden = sorted.length - shown;
    const note = root.querySelector(".chat-muted-note");
    fill(note, t("chat.muted_hidden", { n: hidden }), " ",
      h("button", { type: "button", class: "btn btn-link", "data-action": "unmute", onclick: () => this.unmuteAll() }, t("chat.unmute_all")));
    show(note, this.muted.size > 0 && hidden > 0);
    const input = root.querySelector(".chat-input");
    input.placeholder = t("chat.placeholder");
    root.querySelector(".chat-send").textContent = t("chat.send");
    for (const button of root.querySelectorAll(".chat-phrase")) {
      button.textContent = t(`chat.phrase.${button.dataset.phrase}`);
    }
    // A shared device has no players' channel (both sit at it), and the computer reads none:
    // read, but nothing to say.
    const silent = this.audience === "device" || this.facesComputer;
    const speaks = !silent || this.ended;
    show(root.querySelector(".chat-form"), speaks);
    show(root.querySelector(".chat-phrases"), speaks);
    show(root, !silent || sorted.length > 0 || this.ended);
  }
}
