// The board on a phone takes the height the rest of the table leaves it (issue 12 item 2): one's
// seat and hand are pinned to the bottom of the screen (the dock), and the board fills the space
// between what is above it and the dock, so nothing of the table needs scrolling during play.
// Layout only: the page measures itself; nothing here knows a rule.

const PHONE = "(max-width: 560px)";
const LEAST_PX = 140;
const MARGIN_PX = 6;

export function fitBoard(root) {
  const wrap = root.querySelector(".board-wrap");
  if (!wrap) return;
  const dock = root.querySelector(".dock");
  if (!window.matchMedia(PHONE).matches) {
    wrap.style.removeProperty("height");
    root.style.removeProperty("--dock-h");
    return;
  }
  // The between-rounds "Continue" sticks just above the dock, however long the settlement is.
  root.style.setProperty("--dock-h", `${dock ? dock.offsetHeight : 0}px`);
  const info = root.querySelector(".board-info");
  const box = wrap.getBoundingClientRect();
  const top = box.top + window.scrollY;
  const under = info && info.offsetHeight ? info.getBoundingClientRect().bottom - box.bottom : 0;
  const below = under + (dock ? dock.offsetHeight : 0);
  const height = Math.max(LEAST_PX, Math.floor(window.innerHeight - top - below - MARGIN_PX));
  if (wrap.style.height !== `${height}px`) wrap.style.height = `${height}px`;
}
