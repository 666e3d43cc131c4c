// The table's size for the board: how far its lines run before they turn (the layout's bounds)
// comes from the size of the felt, and stays put for a whole round. The page around the board
// changes during a round — a card above it, a second row of tiles in the hand, a notice — and
// the board is then drawn larger or smaller, but never laid out anew: a tile once laid keeps its
// place. A new round, or a new size of the window, lays it out for the table it has then.
// Layout only: nothing here knows a rule.

import { boundsFor } from "./board.js";

const MARGIN = 0.85;

/** The height the felt has with no card above it: the cards (the auction, the settlement, the
 * result) come and go within a round. */
function tableHeight(wrap) {
  let height = wrap.clientHeight;
  const arena = wrap.parentElement;
  if (!arena) return height;
  const gap = parseFloat(getComputedStyle(arena).rowGap) || 0;
  for (const card of arena.querySelectorAll(":scope > .card")) {
    if (card.offsetHeight) height += card.offsetHeight + gap;
  }
  return height;
}

export class TableBounds {
  constructor() {
    this.key = null;
    this.bounds = boundsFor(800);
  }

  /** The bounds for the board in `wrap` during the round `round`. */
  of(wrap, round) {
    if (!wrap || !wrap.clientWidth) return this.bounds;
    const key = `${round}|${window.innerWidth}x${window.innerHeight}`;
    if (key !== this.key) {
      this.key = key;
      // Less a margin: what stands around the felt grows within a round (a longer hint, a
      // notice, the hand's second row), and a board laid out for a larger table than it keeps
      // is drawn under the least tile size.
      this.bounds = boundsFor(wrap.clientWidth, MARGIN * tableHeight(wrap));
    }
    return this.bounds;
  }
}
