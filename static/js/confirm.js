// An in-page confirmation (Resign asked through window.confirm, which blocks the
// page, cannot be styled, and in some browsers can be switched off for good by the player). The
// question shows in a box of the page with two buttons; Escape or a click elsewhere in the page
// answers no. One question at a time: asking again replaces the open one (answered no).

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";

export class Confirmation {
  constructor(box) {
    this.box = box;
    this.answer = null;
    this.onKey = (event) => {
      if (event.key === "Escape") this.settle(false);
    };
  }

  /** Show `question`; resolves true for `yes`, false for no, Escape or close(). */
  ask(question, yes) {
    this.settle(false);
    return new Promise((resolve) => {
      this.answer = resolve;
      const no = h("button", { type: "button", class: "btn btn-secondary", "data-action": "confirm-no", onclick: () => this.settle(false) }, t("confirm.cancel"));
      fill(this.box,
        h("p", { class: "confirm-question", id: "confirm-question" }, question),
        h("div", { class: "confirm-actions" },
          h("button", { type: "button", class: "btn btn-danger", "data-action": "confirm-yes", onclick: () => this.settle(true) }, yes),
          no));
      this.box.hidden = false;
      document.addEventListener("keydown", this.onKey);
      no.focus();
    });
  }

  /** Answer the open question (no question: nothing happens). */
  settle(value) {
    const answer = this.answer;
    if (!answer) return;
    this.answer = null;
    document.removeEventListener("keydown", this.onKey);
    this.box.hidden = true;
    fill(this.box);
    answer(value);
  }

  close() {
    this.settle(false);
  }
}
