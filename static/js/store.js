// The last server view of one match, and nothing else: the client keeps no rules and no state
// of its own beyond what the server sent (and when it arrived, to count the clocks down).

export class MatchStore {
  constructor() {
    this.match = null;
    this.version = null;
    this.receivedAt = 0; // performance.now() when the last match object arrived
    this.commitments = new Map(); // round -> commitment seen at the deal
    this.roundEvents = []; // public events of the round on show (for the settlement)
    this.fullDelayMs = 0; // the largest delay reading seen: the delay ring's full length
    this.listeners = new Set();
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(change) {
    for (const fn of [...this.listeners]) fn(change);
  }

  /** A `state` or `update` message, or a match object read over HTTP. A state's `log` is every
   * event of the match so far (as this viewer may see it): the round on show is taken from it
   * again, as the updates would have built it. */
  replace(match, version, events = [], kind = "state", log = null) {
    if (this.version !== null && version < this.version) return; // an older view: ignore
    const previous = this.match;
    this.match = match;
    this.version = version;
    this.receivedAt = performance.now();
    this.fullDelayMs = Math.max(this.fullDelayMs, match.clock ? match.clock.delay_left_ms : 0);
    if (match.deck_commitment) this.commitments.set(match.deck_commitment.round, match.deck_commitment.commitment);
    if (log) this.roundEvents = [];
    for (const event of log || events) {
      if (event.type === "round_dealt") this.roundEvents = [];
      this.roundEvents.push(event);
    }
    this.emit({ kind, previous, match, events, log });
  }

  /** A `presence` message: who is connected and how many watch. Not a new version. */
  presence(msg) {
    if (!this.match) return;
    const players = { ...this.match.players };
    for (const seat of ["first", "second"]) {
      if (players[seat]) players[seat] = { ...players[seat], online: !!(msg.online && msg.online[seat]) };
    }
    this.match = { ...this.match, players, spectators: msg.spectators ?? this.match.spectators };
    this.emit({ kind: "presence", previous: null, match: this.match, events: [] });
  }

  /** Milliseconds since the last match object arrived (for display only). */
  elapsed() {
    return performance.now() - this.receivedAt;
  }
}
