// A creation refused because the server is busy (docs/PROTOCOL.md "When the server is busy"),
// retried after the server's Retry-After and said in the page, not only in a toast: "trying again
// in 3 s…" with a Cancel button while it waits, then, when the server stayed busy through every
// try, a message with a Try again button. One notice serves every creation on a page; starting
// another cancels the wait of the one before.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { busyWaitS, retryWhenBusy } from "./api.js";

export class BusyRetry {
  constructor() {
    this.el = h("div", { class: "busy-notice notice notice-warn", role: "status", hidden: true, "data-busy": "" });
    this.controller = null;
    this.state = null; // {phase: "waiting", kind, seconds, sent} or {phase: "gave_up", kind, again}
  }

  /** Whether a retry is waiting for its next try (a new action may then cancel it). */
  get waiting() {
    return this.controller !== null && this.state !== null && this.state.phase === "waiting";
  }

  /** make()'s answer, retried while the server is busy; null when the retry was cancelled or
   * the server stayed busy (the notice then offers again(), which starts the action anew).
   * kind "computer" says the computer opponents are busy, anything else the server. Any other
   * error is thrown, with the notice hidden. */
  async run(make, { kind = "server", again }) {
    this.cancel();
    const controller = new AbortController();
    this.controller = controller;
    try {
      const answer = await retryWhenBusy(make, {
        signal: controller.signal,
        onWait: (seconds, sent) => this.show({ phase: "waiting", kind, seconds, sent }),
      });
      this.hide();
      return answer;
    } catch (err) {
      if (controller.signal.aborted) return null;
      if (busyWaitS(err) === null) {
        this.hide();
        throw err;
      }
      this.show({ phase: "gave_up", kind, again });
      return null;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  /** Stop a waiting retry (its run() answers null) and hide the notice. */
  cancel() {
    if (this.controller) this.controller.abort();
    this.controller = null;
    this.hide();
  }

  hide() {
    this.state = null;
    this.el.hidden = true;
    fill(this.el);
  }

  show(state) {
    const before = this.state;
    this.state = state;
    const sameWait = before && before.phase === "waiting" && state.phase === "waiting" && before.sent === state.sent;
    if (sameWait) {
      this.el.querySelector(".busy-count").textContent = this.text();
      return;
    }
    const first = this.el.hidden;
    this.render();
    if (first) this.el.scrollIntoView({ block: "nearest" });
  }

  text() {
    const { phase, kind, seconds } = this.state;
    const computer = kind === "computer";
    if (phase === "waiting") return t(computer ? "lobby.busy_computer_wait" : "lobby.busy_wait", { s: seconds });
    return t(computer ? "lobby.busy_computer_gave_up" : "lobby.busy_gave_up");
  }

  /** Draw the notice in the current language: anew for each wait and for the end, so that the
   * live region speaks each once; within a wait only the countdown's text changes, hidden from
   * screen readers (a sentence a second would drown everything else). */
  render() {
    const state = this.state;
    if (!state) return;
    this.el.hidden = false;
    this.el.dataset.busy = state.phase;
    const cancel = h("button", { type: "button", class: "btn btn-secondary btn-small", "data-action": "busy-cancel", onclick: () => this.cancel() }, t("lobby.busy_cancel"));
    if (state.phase === "waiting") {
      fill(this.el,
        h("p", { class: "busy-text" },
          h("span", { class: "busy-count", "aria-hidden": "true" }, this.text()),
          h("span", { class: "sr-only" }, this.text())),
        h("div", { class: "busy-actions" }, cancel));
      return;
    }
    const again = () => {
      this.hide();
      state.again();
    };
    fill(this.el,
      h("p", { class: "busy-text" }, this.text()),
      h("div", { class: "busy-actions" },
        h("button", { type: "button", class: "btn btn-primary btn-small", "data-action": "busy-again", onclick: again }, t("lobby.busy_try_again")),
        cancel));
  }
}
