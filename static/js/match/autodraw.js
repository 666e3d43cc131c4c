// Auto-draw: a player's choice, kept in this browser, to have a draw the server allows made for
// them (R4.1 leaves no choice but to draw then). It only sends what `legal` offers.

const AUTO_DRAW_KEY = "specbid.autodraw";
const AUTO_DRAW_MS = 450; // long enough to see the hand that could not play

export class AutoDraw {
  constructor() {
    this.drawnVersion = null; // the version a draw was last sent for
    try {
      this.on = localStorage.getItem(AUTO_DRAW_KEY) === "1";
    } catch {
      this.on = false;
    }
  }

  /** The player turned it on or off (the hand's toggle). */
  set(on) {
    this.on = on;
    try {
      localStorage.setItem(AUTO_DRAW_KEY, on ? "1" : "0");
    } catch {
      /* ignore */
    }
  }

  /** Draw once for this version when it is on and the server allows a draw. */
  maybe(view) {
    const match = view.store.match;
    if (!this.on || !match || !match.legal || !match.legal.can_draw || view.pending) return;
    const version = view.store.version;
    if (this.drawnVersion === version) return;
    this.drawnVersion = version;
    setTimeout(() => {
      const now = view.store.match;
      if (view.destroyed || view.store.version !== version || !now.legal || !now.legal.can_draw) return;
      view.input.draw();
    }, AUTO_DRAW_MS);
  }
}
