// The rematch box under an ended online match's result (PROTOCOL.md "rematch"): offer a rematch,
// see the opponent's offer and accept or decline it, and follow everyone to the rematch once it
// starts. The server decides everything; the box shows its last `rematch` message and sends
// intents over HTTP. A match of the archive, long ended, has no socket to push messages, so for
// its players the box reads the rematch's state every few seconds while it is shown.

import { h, fill } from "./dom.js";
import { t } from "./i18n.js";
import { ApiError, offerRematch, declineRematch, readRematch } from "./api.js";
import { toast } from "./announce.js";
import { seatName } from "./narrate.js";

const ONLINE = new Set(["invite", "open"]);
const READ_MS = 3000;

export class RematchBox {
  constructor(box, onStarted) {
    this.box = box;
    this.onStarted = onStarted;
    this.state = { offered_by: null, expires_in_ms: null, match_id: null };
    this.receivedAt = 0;
    this.busy = false;
    this.match = null;
    this.timer = null;
    this.reader = null;
    this.destroyed = false;
  }

  /** A `rematch` message, or the answer of a rematch route: the same shape. */
  update(state) {
    if (this.destroyed) return;
    this.state = state;
    this.receivedAt = performance.now();
    if (state.match_id) {
      this.onStarted(state.match_id);
      return;
    }
    this.render(this.match);
  }

  render(match) {
    this.match = match;
    clearTimeout(this.timer);
    const box = this.box;
    const seat = match && match.viewer && match.audience !== "device" ? match.viewer : null;
    const ended = match && (match.status === "finished" || match.status === "aborted");
    const possible = ended && ONLINE.has(match.mode) && match.players && match.players.second;
    box.hidden = !possible;
    if (!possible) {
      fill(box);
      return;
    }
    const by = this.standingOffer();
    if (!seat) {
      fill(box, by ? h("p", { class: "card-text" }, t("rematch.offered_by", { name: seatName(match, by) })) : null);
      return;
    }
    let content;
    if (!by) {
      content = h("button", { type: "button", class: "btn btn-primary", "data-action": "offer-rematch", onclick: () => this.send(offerRematch) }, t("rematch.offer"));
    } else if (by === seat) {
      content = [
        h("p", { class: "card-text", "data-rematch": "waiting" }, t("rematch.waiting", { name: seatName(match, seat === "first" ? "second" : "first") })),
        h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "withdraw-rematch", onclick: () => this.send(declineRematch) }, t("rematch.withdraw")),
      ];
    } else {
      content = [
        h("p", { class: "card-text", "data-rematch": "offered" }, t("rematch.offered_by", { name: seatName(match, by) })),
        h("div", { class: "result-actions" },
          h("button", { type: "button", class: "btn btn-primary", "data-action": "accept-rematch", onclick: () => this.send(offerRematch) }, t("rematch.accept")),
          h("button", { type: "button", class: "btn btn-secondary", "data-action": "decline-rematch", onclick: () => this.send(declineRematch) }, t("rematch.decline"))),
      ];
    }
    fill(box, content);
    if (by) this.timer = setTimeout(() => this.render(this.match), this.leftMs() + 50);
    if (!this.reader) this.reader = setTimeout(() => this.read(), READ_MS);
  }

  async read() {
    this.reader = null;
    if (this.destroyed || !this.match || this.box.hidden) return;
    try {
      this.update(await readRematch(this.match.id));
    } catch {
      if (!this.destroyed) this.render(this.match); // try again later
    }
  }

  /** The seat whose offer stands, counting down from what the server said it had left. */
  standingOffer() {
    const by = this.state.offered_by;
    return by && this.leftMs() > 0 ? by : null;
  }

  leftMs() {
    if (this.state.expires_in_ms == null) return 0;
    return this.state.expires_in_ms - (performance.now() - this.receivedAt);
  }

  async send(call) {
    if (this.busy || !this.match) return;
    this.busy = true;
    try {
      this.update(await call(this.match.id));
    } catch (err) {
      toast(err instanceof ApiError ? err.message : String(err), "error");
    } finally {
      this.busy = false;
    }
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
    clearTimeout(this.reader);
  }
}
