// The computer opponent as the client shows it (PROTOCOL.md "POST /api/matches"): its name at a
// level, wherever the server marks a seat as the computer's (`bot_level` on a match, a lobby or
// archive line, a profile), and the lobby's choice of a level to play. What a level does is the
// server's.

import { h } from "./dom.js";
import { t, num } from "./i18n.js";
import { icon } from "./icons.js";

const LEVELS = [1, 2, 3, 4, 5];
const DEFAULT_LEVEL = 3;
const LEVEL_KEY = "specbid.bot_level";

/** The computer in the second seat, by its level, or null when it is a person's seat. */
export function computerSeatName(line, seat) {
  if (seat !== "second" || !line || line.bot_level == null) return null;
  return computerName(line.bot_level);
}

/** "Computer · level 3". */
export function computerName(level) {
  return `${t("computer.kind")} · ${t("computer.level", { level: num(level) })}`;
}

/** The same name as nodes, the kind apart: a phone's seat shows only the level. */
export function computerNameNodes(level) {
  return [
    h("span", { class: "computer-kind" }, `${t("computer.kind")} · `),
    h("span", { class: "computer-level" }, t("computer.level", { level: num(level) })),
  ];
}

/** What a level is called ("Greedy"). */
export function levelName(level) {
  return t(`computer.level_${level}`);
}

function savedLevel() {
  try {
    const level = Number(localStorage.getItem(LEVEL_KEY));
    return LEVELS.includes(level) ? level : DEFAULT_LEVEL;
  } catch {
    return DEFAULT_LEVEL;
  }
}

/** The lobby's "Play the computer": a radio group of the levels, what the chosen one does, and
 * the button; onPlay(level) creates the match (with the lobby's time control). */
export class ComputerPicker {
  constructor(onPlay) {
    const chosen = savedLevel();
    const choices = LEVELS.map((level) => {
      const radio = h("input", {
        type: "radio", name: "bot-level", id: `bot-level-${level}`, value: String(level),
        checked: level === chosen, "aria-describedby": "bot-hint",
      });
      radio.addEventListener("change", () => this.update());
      return h("label", { class: "bot-choice", for: `bot-level-${level}` },
        radio,
        h("span", { class: "bot-level-number" }, num(level)),
        h("span", { class: "bot-level-name", "data-i18n": `computer.level_${level}` }));
    });
    this.hint = h("p", { class: "bot-hint", id: "bot-hint", "aria-live": "polite" });
    this.button = h("button", { type: "button", class: "btn btn-primary", "data-action": "create-bot" });
    this.button.addEventListener("click", () => onPlay(this.level()));
    this.el = h("fieldset", { class: "bot-picker", id: "bot-picker" },
      h("legend", { class: "bot-title" },
        h("span", { class: "mode-icon", "aria-hidden": "true" }, icon("cpu")),
        h("span", { "data-i18n": "computer.title" })),
      h("div", { class: "bot-choices" }, choices),
      this.hint,
      h("div", { class: "bot-actions" },
        this.button,
        h("span", { class: "tc-note", "data-i18n": "computer.unrated" })));
  }

  level() {
    const radio = this.el.querySelector("input[name=bot-level]:checked");
    return radio ? Number(radio.value) : DEFAULT_LEVEL;
  }

  update() {
    try {
      localStorage.setItem(LEVEL_KEY, String(this.level()));
    } catch {
      /* ignore */
    }
    this.render();
  }

  /** Redraw the texts of the chosen level; the [data-i18n] ones are the lobby's to fill. */
  render() {
    const level = this.level();
    this.hint.textContent = t(`computer.hint_${level}`);
    this.button.textContent = t("computer.play", { level: num(level) });
  }
}
