// The time control of a new match: the server's own (R7.1, R7.2; the only one a match can be
// rated on), a few casual presets, or a custom bank and delay; and the compact label
// ("2 min + 10 s") the lobby shows for a match's control. The client keeps none of these numbers:
// the server tells them with the lobby (time_controls, docs/PROTOCOL.md "GET /api/lobby").

import { h, show } from "./dom.js";
import { t, num } from "./i18n.js";

const OWN = "standard";
const CUSTOM = "custom";

/** A preset's id, as its radio's is: "5-10" for 5 min + 10 s. */
const presetId = (control) => `${control.bank_ms / 60000}-${control.delay_ms / 1000}`;

/** "120 s": a bank or a delay in seconds, as the lobby's facts say them. */
export const secondsLabel = (ms) => t("time.seconds", { n: num(ms / 1000) });

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
    this.controls = null; // the server's time_controls, once a lobby read has told them
    this.told = ""; // their JSON: a read that tells the same rebuilds nothing
    this.choices = []; // {id, bank_ms, delay_ms}: the server's own first, then the presets
    this.bankInput = h("input", {
      id: "tc-bank-min", class: "text-input number-input", type: "number", min: "0",
      step: "any", inputmode: "decimal", "aria-describedby": "tc-error",
    });
    this.delayInput = h("input", {
      id: "tc-delay-s", class: "text-input number-input", type: "number", min: "0",
      step: "any", inputmode: "decimal", "aria-describedby": "tc-error",
    });
    this.error = h("p", { class: "form-error", id: "tc-error", role: "alert" });
    this.problemKeys = [];
    this.radios = h("div", { class: "tc-choices" });
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
      this.radios,
      this.custom,
      this.error,
      h("p", { class: "tc-note", "data-i18n": "time.rated_note" }));
  }

  /** The server's own control ({bank_ms, delay_ms}), or null before a lobby read told it. */
  own() {
    return this.controls ? this.controls.own : null;
  }

  /** The custom fields' bounds, in their units (minutes, seconds). */
  bankMax() {
    return this.controls.bank_ms_max / 60000;
  }

  delayMax() {
    return this.controls.delay_ms_max / 1000;
  }

  /** Take the controls a lobby read told (time_controls); the choices are rebuilt only when
   * they changed, keeping the one chosen if it is still offered. */
  configure(controls) {
    const told = JSON.stringify(controls || null);
    if (!controls || told === this.told) return;
    const first = this.controls === null;
    const selected = first ? OWN : this.selected();
    this.controls = controls;
    this.told = told;
    this.choices = [{ id: OWN, ...controls.own }, ...controls.casual.map((c) => ({ id: presetId(c), ...c }))];
    this.bankInput.max = String(this.bankMax());
    this.delayInput.max = String(this.delayMax());
    if (first) {
      this.bankInput.value = String(controls.own.bank_ms / 60000);
      this.delayInput.value = String(controls.own.delay_ms / 1000);
    }
    const ids = [...this.choices.map((c) => c.id), CUSTOM];
    const checked = ids.includes(selected) ? selected : OWN;
    this.radios.replaceChildren(...ids.map((id) => {
      const radio = h("input", { type: "radio", name: "time-control", id: `tc-${id}`, value: id, checked: id === checked });
      radio.addEventListener("change", () => this.update());
      return h("label", { class: "tc-choice", for: `tc-${id}` }, radio, h("span", { class: "tc-text", "data-tc": id }));
    }));
    this.render();
    this.update();
  }

  /** Redraw the texts (a language switch); the [data-i18n] ones are the lobby's to fill. */
  render() {
    for (const span of this.el.querySelectorAll("[data-tc]")) {
      const choice = this.choices.find((c) => c.id === span.dataset.tc);
      if (!choice) span.textContent = t("time.custom");
      else if (choice.id === OWN) span.textContent = t("time.standard", { control: controlLabel(choice.bank_ms, choice.delay_ms) });
      else span.textContent = t("time.casual", { control: controlLabel(choice.bank_ms, choice.delay_ms) });
    }
    this.showProblems();
  }

  selected() {
    const radio = this.el.querySelector("input[name=time-control]:checked");
    return radio ? radio.value : OWN;
  }

  update() {
    const custom = this.selected() === CUSTOM;
    show(this.custom, custom);
    if (!custom) this.problemKeys = [];
    this.showProblems();
  }

  /** Validate the custom fields, showing what is wrong; true when they are good. */
  check() {
    this.problemKeys = [];
    if (typed(this.bankInput, this.bankMax()) === null) this.problemKeys.push("time.bank_invalid");
    if (typed(this.delayInput, this.delayMax()) === null) this.problemKeys.push("time.delay_invalid");
    this.showProblems();
    return this.problemKeys.length === 0;
  }

  showProblems() {
    const bounds = this.controls ? { bank: this.bankMax(), delay: this.delayMax() } : {};
    this.error.textContent = this.problemKeys.map((key) => t(key, bounds)).join(" ");
    this.bankInput.setAttribute("aria-invalid", String(this.problemKeys.includes("time.bank_invalid")));
    this.delayInput.setAttribute("aria-invalid", String(this.problemKeys.includes("time.delay_invalid")));
  }

  /** What createMatch sends: {} for the server's own control (also before the server told the
   * controls), {bank_ms, delay_ms} for another, or null when the custom fields are wrong (the
   * problem is shown, the first bad field focused). */
  chosen() {
    if (!this.controls) return {};
    const id = this.selected();
    let control = this.choices.find((c) => c.id === id);
    if (id === CUSTOM) {
      if (!this.check()) {
        (this.problemKeys[0] === "time.bank_invalid" ? this.bankInput : this.delayInput).focus();
        return null;
      }
      control = {
        bank_ms: Math.round(typed(this.bankInput, this.bankMax()) * 60000),
        delay_ms: Math.round(typed(this.delayInput, this.delayMax()) * 1000),
      };
    }
    const own = this.controls.own;
    if (!control || (control.bank_ms === own.bank_ms && control.delay_ms === own.delay_ms)) return {};
    return { bank_ms: control.bank_ms, delay_ms: control.delay_ms };
  }
}
