// The lobby's form for a shared-device match (D8): the names of the two people at the device,
// typed before the match is made — both, different from each other, or none (the device's own
// name on both seats). The server checks them again (docs/PROTOCOL.md "POST /api/matches").

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { toast } from "./announce.js";

export class SharedNamesForm {
  /** start(fields): make the match, with {names: {first, second}} or {} when none is typed. */
  constructor(start) {
    this.start = start;
    const field = (id, key) => h("label", { class: "shared-name", for: id },
      h("span", { class: "field-label", "data-i18n": key }),
      h("input", { id, class: "text-input", type: "text", maxlength: "24", autocomplete: "off", spellcheck: "false" }));
    this.el = h("form", { id: "shared-form", class: "shared-form", hidden: true, novalidate: true },
      h("p", { class: "shared-form-title", "data-i18n": "lobby.shared_names" }),
      h("div", { class: "shared-names" }, field("shared-first", "lobby.shared_first"), field("shared-second", "lobby.shared_second")),
      h("button", { type: "submit", class: "btn btn-primary", "data-action": "start-shared", "data-i18n": "lobby.shared_start" }));
    this.el.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
  }

  /** Show the form, the first name filled with the lobby's typed name when it is empty. */
  open(typedName) {
    const form = this.el;
    form.hidden = false;
    const first = form.querySelector("#shared-first");
    if (!first.value) first.value = typedName;
    form.querySelector(first.value ? "#shared-second" : "#shared-first").focus();
  }

  /** The match under the two typed names, or the device's own name on both seats when none is
   * typed; one name alone, or the same name twice, is asked again. */
  submit() {
    const form = this.el;
    const first = form.querySelector("#shared-first").value.trim();
    const second = form.querySelector("#shared-second").value.trim();
    if (!first && !second) return this.start({});
    if (!first || !second) {
      toast(t("lobby.shared_names_both"), "error");
      form.querySelector(first ? "#shared-second" : "#shared-first").focus();
      return undefined;
    }
    if (first.toLocaleLowerCase() === second.toLocaleLowerCase()) {
      toast(t("lobby.shared_names_differ"), "error");
      form.querySelector("#shared-second").focus();
      return undefined;
    }
    return this.start({ names: { first, second } });
  }
}
