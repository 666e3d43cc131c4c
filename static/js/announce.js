// The live region (#live): short sentences for screen readers about what just happened —
// above all the opponent's moves and every award — and a visible toast for errors.

import { h } from "./dom.js";

const KEEP = 6;

export function announce(text) {
  const live = document.getElementById("live");
  if (!live || !text) return;
  live.append(h("p", {}, text));
  while (live.childElementCount > KEEP) live.firstElementChild.remove();
}

/** Toasts belong to the page they were shown on: the router calls this as it changes pages. */
export function clearToasts() {
  const box = document.getElementById("toasts");
  if (box) box.replaceChildren();
}

export function toast(text, kind = "info", ms = 4200) {
  const box = document.getElementById("toasts");
  if (!box || !text) return;
  const note = h("div", { class: `toast toast-${kind}` }, text);
  box.append(note);
  setTimeout(() => {
    note.classList.add("leaving");
    setTimeout(() => note.remove(), 300);
  }, ms);
}
