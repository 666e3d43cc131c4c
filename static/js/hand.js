// The viewer's own hand: one button per tile, reused by tile so focus survives a redraw. Legal
// tiles (from the server's legal.plays) are marked, the rest aria-disabled. The hand is dimmed
// only while a tile is to be placed, and then only the tiles that cannot be: the rest of the
// time — the opponent's turn, the auction — it is needed to think, so it stays fully readable
// (PROTOCOL.md "Clocks").

import { h, setAttr, tileLabel } from "./dom.js";
import { t } from "./i18n.js";
import { tileSvg } from "./tiles.js";

/**
 * @param {HTMLElement} box  #hand
 * @param {string[]} tiles  the hand, in the server's order
 * @param {{legal: Map<string,string[]>, opening: boolean, placing: boolean, selected: string|null, mustPlay: string|null,
 *          onTile: (tile, event) => void}} opts
 */
export function renderHand(box, tiles, opts) {
  const existing = new Map();
  for (const el of box.querySelectorAll(".tile[data-tile]")) existing.set(el.dataset.tile, el);
  const wanted = [];
  for (const tile of tiles) {
    let button = existing.get(tile);
    if (!button) {
      button = h("button", { type: "button", class: "tile", "data-tile": tile }, tileSvg(tile));
      button.addEventListener("click", (event) => opts.onTile(tile, event));
    }
    existing.delete(tile);
    const places = opts.legal.get(tile);
    const isLegal = places !== undefined;
    setAttr(button, "data-legal", isLegal ? "true" : "false");
    setAttr(button, "aria-disabled", isLegal ? null : "true");
    setAttr(button, "data-dim", opts.placing && !isLegal ? "true" : null);
    setAttr(button, "aria-pressed", opts.selected === tile ? "true" : "false");
    setAttr(button, "data-must-play", opts.mustPlay === tile ? "true" : null);
    let state;
    if (!isLegal) state = t("hand.not_playable");
    else if (opts.opening) state = t("hand.opening_tile");
    else if (places.length === 1) state = t("hand.one_place");
    else state = t("hand.places", { n: places.length });
    setAttr(button, "aria-label", `${tileLabel(tile)}, ${state}`);
    setAttr(button, "title", `${tileLabel(tile)} — ${state}`);
    wanted.push(button);
  }
  for (const el of existing.values()) el.remove();
  wanted.forEach((button, i) => {
    if (box.children[i] !== button) box.insertBefore(button, box.children[i] || null);
  });
}

/** Arrow keys move the focus along the hand (Home/End to its ends). */
export function handKeys(box, event) {
  const tiles = [...box.querySelectorAll(".tile[data-tile]")];
  const i = tiles.indexOf(document.activeElement);
  if (i < 0) return false;
  let next = null;
  if (event.key === "ArrowRight" || event.key === "ArrowDown") next = tiles[(i + 1) % tiles.length];
  else if (event.key === "ArrowLeft" || event.key === "ArrowUp") next = tiles[(i - 1 + tiles.length) % tiles.length];
  else if (event.key === "Home") next = tiles[0];
  else if (event.key === "End") next = tiles[tiles.length - 1];
  if (!next) return false;
  event.preventDefault();
  next.focus();
  return true;
}
