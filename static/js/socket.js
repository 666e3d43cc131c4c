// One WebSocket per match (/ws/matches/{id}); the cookie authenticates. It reconnects by itself
// with ?since=<last version> and reports its state: online, reconnecting or offline.

const PING_EVERY_MS = 15000;
const PONG_TIMEOUT_MS = 10000;
const NO_RETRY = new Set([1008, 1009]);

export class MatchSocket {
  /**
   * @param {string} matchId
   * @param {{onMessage: (msg) => void, onState: (state, detail) => void, since: () => number|null,
   *          isFinal?: () => boolean}} hooks
   */
  constructor(matchId, hooks) {
    this.matchId = matchId;
    this.hooks = hooks;
    this.ws = null;
    this.closed = false;
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.nextId = 1;
    this.onOnline = () => this.reconnectNow();
    this.onOffline = () => this.hooks.onState("offline");
    window.addEventListener("online", this.onOnline);
    window.addEventListener("offline", this.onOffline);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const since = this.hooks.since();
    const query = since !== null && since !== undefined ? `?since=${since}` : "";
    return `${scheme}//${location.host}/ws/matches/${encodeURIComponent(this.matchId)}${query}`;
  }

  connect() {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.attempt = 0;
      this.hooks.onState("online");
      this.startPing();
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "pong") clearTimeout(this.pongTimer);
      this.hooks.onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.stopPing();
      this.ws = null;
      if (this.closed) return;
      if (NO_RETRY.has(event.code)) {
        this.hooks.onState("offline", { code: event.code, reason: event.reason });
        return;
      }
      if (this.hooks.isFinal && this.hooks.isFinal()) {
        // An ended match: the server sent its final view and closed; nothing more will come.
        this.hooks.onState("online", { final: true });
        return;
      }
      this.scheduleRetry();
    });
    // An "error" is always followed by "close", which decides what to do.
  }

  scheduleRetry() {
    if (this.closed) return;
    this.hooks.onState(navigator.onLine === false ? "offline" : "reconnecting");
    const delay = Math.min(5000, 400 * 2 ** this.attempt) + Math.random() * 250;
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.closed || this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
      this.ws.send(JSON.stringify({ type: "ping", id: `p${this.nextId++}` }));
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => {
        if (this.ws) this.ws.close(4000, "no pong");
      }, PONG_TIMEOUT_MS);
    }, PING_EVERY_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  /** Send a command; returns its correlation id, or null when the socket is not open. */
  send(command) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const id = `c${this.nextId++}`;
    this.ws.send(JSON.stringify({ ...command, id }));
    return id;
  }

  isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  close() {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.stopPing();
    window.removeEventListener("online", this.onOnline);
    window.removeEventListener("offline", this.onOffline);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(1000, "leaving");
    }
  }
}
