// The move list of a match and of its replay: every event of the match, numbered by decisions.
// A decision (R7.2) is a bid, an accept, a decline, a placement or a pass; the draws before a
// placement are part of it (R4.3) and share its number. Narration ("Ann is to open", a
// transfer, a deal) and the service's own events (a press, a reveal) carry no number.

import { h, fill } from "./dom.js";

const DECISIONS = new Set(["bid_made", "bid_accepted", "declined", "played", "passed"]);
const LEADS = new Set(["drew"]);

/** Counts decisions event by event, oldest first. */
export class DecisionCounter {
  constructor() {
    this.count = 0;
    this.open = false; // a draw began the next decision
  }

  /** The decision `event` belongs to — {n, first} with first true on its first event — or null
   * for narration and the service's events. */
  next(event) {
    if (LEADS.has(event.type)) {
      const first = !this.open;
      this.open = true;
      return { n: this.count + 1, first };
    }
    if (DECISIONS.has(event.type)) {
      const first = !this.open;
      this.open = false;
      this.count += 1;
      return { n: this.count, first };
    }
    return null;
  }
}

/** The number column of a line: "12." on a decision's first line, empty on the others; a
 * replay's frame that begins two decisions (a placement and the pass it forced, D2) shows
 * "12–13.". */
export function moveNumber(decision) {
  let text = "";
  if (decision && decision.first) text = decision.last > decision.n ? `${decision.n}–${decision.last}.` : `${decision.n}.`;
  return h("span", { class: "move-n" }, text);
}

function line(event, decision, text) {
  const kind = decision ? (decision.first ? "is-decision" : "is-continued") : "is-note";
  return h("li", {
    class: `move-line ${kind}`,
    "data-version": event.version,
    "data-event": event.type,
    "data-move": decision ? String(decision.n) : null,
  }, moveNumber(decision), h("span", { class: "move-text" }, text));
}

/** The live match's list (#move-log-list): every event, added as updates come, drawn again in
 * full after a state (a reload, a resync) or a change of language. */
export class MoveList {
  constructor(list, narrate) {
    this.list = list;
    this.narrate = narrate; // (event) => its sentence, or null for events nobody needs to hear
    this.events = [];
    this.drawn = 0;
    this.counter = new DecisionCounter();
    this.lang = null;
  }

  get decisions() {
    return this.counter.count;
  }

  replace(events) {
    this.events = [];
    this.add(events);
    this.drawn = -1; // drawn again from the start
  }

  add(events) {
    for (const event of events) {
      if (event.type !== "deck_committed" && this.narrate(event)) this.events.push(event);
    }
  }

  /** Draw what is new; everything again after replace() or a change of language. */
  render() {
    const lang = document.documentElement.lang;
    if (this.drawn < 0 || lang !== this.lang) {
      this.lang = lang;
      this.drawn = 0;
      this.counter = new DecisionCounter();
      fill(this.list);
    }
    if (this.drawn === this.events.length) return false;
    const items = [];
    for (const event of this.events.slice(this.drawn)) {
      items.push(line(event, this.counter.next(event), this.narrate(event)));
    }
    this.list.append(...items);
    this.drawn = this.events.length;
    return true;
  }
}
