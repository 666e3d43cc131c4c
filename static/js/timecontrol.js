// The time control of a new match (issue 11 item 5): the rules' own 2 min + 10 s (R7.1, R7.2),
// the only one a match can be rated on, a few casual presets, or a custom bank and delay; and
// the compact label ("2 min + 10 s") the lobby shows for a match's control.

import { h, show } from "./dom.js";
import { t, num } from "./i18n.js";

const STANDARD = { id: "standard", bank_ms: 120000, delay_ms: 10000 };
const PRESETS = [
  STANDARD,
  { id: "1-5", bank_ms: 60000, delay_ms: 5000 },
  { id: "5-10", bank_ms: 300000, delay_ms: 10000 },
  { id: "10-20", bank_ms: 600000, delay_ms: 20000 },
];
/** What POST /api/matches accepts (docs/PROTOCOL.md), in the form's units. */
const BANK_MIN_MAX = 60;
const DELAY_S_MAX = 600;

/** "2 min", "45 s", "1 min 30 s". */
function bankLabel(ms) {
  const seconds = ms / 1000;
  if (seconds < 60) return t("time.seconds", { n: num(seconds) });
  const minutes = Math.floor(seconds / 60);
  const rest = seconds - minutes * 60;
  if (rest === 0) return t("time.minutes", { n: num(minutes) });
  return t("time.minutes_seconds", { m: num(minutes), s: num(rest) });
}

/** "2 min + 10 s": a match's bank and delay. */
export function controlLabel(bank_ms, delay_ms) {
  return t("time.control", { bank: bankLabel(bank_ms), delay: t("time.seconds", { n: num(delay_ms / 1000) }) });
}

/** The control of a lobby line as an element, or null when the line has none. */
export function controlTag(line) {
  if (typeof line.bank_ms !== "number" || typeof line.delay_ms !== "number") return null;
  return h("span", { class: "time-tag", "data-bank-ms": line.bank_ms, "data-delay-ms": line.delay_ms },
    controlLabel(line.bank_ms, line.delay_ms));
}

/** A number typed in a field, or null when it is empty, not a number, or outside 0..max. */
function typed(input, max) {
  const text = input.value.trim();
  if (!text) return null;
  const value = Number(text);
  return Number.isFinite(value) && value >= 0 && value <= max ? value : null;
}

export class TimeControlPicker {
  constructor() {
    this.bankInput = h("input", {
      id: "tc-bank-min", class: "text-input number-input", type: "number", min: "0",
      max: String(BANK_MIN_MAX), step: "any", inputmode: "decimal", "aria-describedby": "tc-error",
    });
    this.delayInput = h("input", {
      id: "tc-delay-s", class: "text-input number-input", type: "number", min: "0",
      max: String(DELAY_S_MAX), step: "any", inputmode: "decimal", "aria-describedby": "tc-error",
    });
    this.bankInput.value = String(STANDARD.bank_ms / 60000);
    this.delayInput.value = String(STANDARD.delay_ms / 1000);
    this.error = h("p", { class: "form-error", id: "tc-error", role: "alert" });
    this.problemKeys = [];
    const choices = [...PRESETS.map((p) => p.id), "custom"].map((id) => {
      const radio = h("input", { type: "radio", name: "time-control", id: `tc-${id}`, value: id, checked: id === STANDARD.id });
      radio.addEventListener("change", () => this.update());
      return h("label", { class: "tc-choice", for: `tc-${id}` }, radio, h("span", { class: "tc-text", "data-tc": id }));
    });
    this.custom = h("div", { class: "tc-custom", id: "tc-custom-fields", hidden: true },
      h("div", { class: "field" },
        h("label", { for: "tc-bank-min", class: "field-label", "data-i18n": "time.custom_bank" }), this.bankInput),
      h("div", { class: "field" },
        h("label", { for: "tc-delay-s", class: "field-label", "data-i18n": "time.custom_delay" }), this.delayInput));
    for (const input of [this.bankInput, this.delayInput]) {
      input.addEventListener("input", () => {
        if (this.problemKeys.length) this.check();
      });
    }
    this.el = h("fieldset", { class: "time-control", id: "time-control" },
      h("legend", { class: "field-label", "data-i18n": "time.legend" }),
      h("div", { class: "tc-choices" }, choices),
      this.custom,
      this.error,
      h("p", { class: "tc-note", "data-i18n": "time.rated_note" }));
  }

  /** Redraw the texts (a language switch); the [data-i18n] ones are the lobby's to fill. */
  render() {
    for (const span of this.el.querySelectorAll("[data-tc]")) {
      const preset = PRESETS.find((p) => p.id === span.dataset.tc);
      if (!preset) span.textContent = t("time.custom");
      else if (preset === STANDARD) span.textContent = t("time.standard", { control: controlLabel(preset.bank_ms, preset.delay_ms) });
      else span.textContent = t("time.casual", { control: controlLabel(preset.bank_ms, preset.delay_ms) });
    }
    this.showProblems();
  }

  selected() {
    const radio = this.el.querySelector("input[name=time-control]:checked");
    return radio ? radio.value : STANDARD.id;
  }

  update() {
    const custom = this.selected() === "custom";
    show(this.custom, custom);
    if (!custom) this.problemKeys = [];
    this.showProblems();
  }

  /** Validate the custom fields, showing what is wrong; true when they are good. */
  check() {
    this.problemKeys = [];
    if (typed(this.bankInput, BANK_MIN_MAX) === null) this.problemKeys.push("time.bank_invalid");
    if (typed(this.delayInput, DELAY_S_MAX) === null) this.problemKeys.push("time.delay_invalid");
    this.showProblems();
    return this.problemKeys.length === 0;
  }

  showProblems() {
    this.error.textContent = this.problemKeys.map((key) => t(key, { bank: BANK_MIN_MAX, delay: DELAY_S_MAX })).join(" ");
    this.bankInput.setAttribute("aria-invalid", String(this.problemKeys.includes("time.bank_invalid")));
    this.delayInput.setAttribute("aria-invalid", String(this.problemKeys.includes("time.delay_invalid")));
  }

  /** What createMatch sends: {} for the rules' control (the server's own), {bank_ms, delay_ms}
   * for another, or null when the custom fields are wrong (the problem is shown, the first bad
   * field focused). */
  chosen() {
    const id = this.selected();
    let control = PRESETS.find((p) => p.id === id);
    if (id === "custom") {
      if (!this.check()) {
        (this.problemKeys[0] === "time.bank_invalid" ? this.bankInput : this.delayInput).focus();
        return null;
      }
      control = {
        bank_ms: Math.round(typed(this.bankInput, BANK_MIN_MAX) * 60000),
        delay_ms: Math.round(typed(this.delayInput, DELAY_S_MAX) * 1000),
      };
    }
    if (!control || (control.bank_ms === STANDARD.bank_ms && control.delay_ms === STANDARD.delay_ms)) return {};
    return { bank_ms: control.bank_ms, delay_ms: control.delay_ms };
  }
}
