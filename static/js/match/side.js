// The drawer of the chat and the moves on a narrow screen (on a wide one they are beside the
// table, and its toggle is not shown), with the count of chat lines said while it was closed.

import { setAttr } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";

export function openSide(view, open) {
  if (!view.dom) return;
  if (open) view.dom.dataset.side = "open";
  else delete view.dom.dataset.side;
  if (open) view.unread = 0;
  renderSide(view);
  const focus = open ? view.dom.querySelector("#chat-input:not([hidden])") || view.dom.querySelector("[data-action=side-close]")
    : view.dom.querySelector("[data-action=side]");
  if (focus && focus.offsetParent) focus.focus({ preventScroll: true });
}

/** Chat lines that arrived: counted on the drawer's toggle while the drawer is closed. */
export function noteUnread(view, n) {
  const toggle = view.dom && view.dom.querySelector("[data-action=side]");
  if (!toggle || view.dom.dataset.side === "open" || !toggle.offsetParent) return;
  view.unread += n;
  renderSide(view);
}

export function renderSide(view) {
  const open = view.dom.dataset.side === "open";
  const toggle = view.dom.querySelector("[data-action=side]");
  const label = t("drawer.toggle");
  setAttr(toggle, "aria-expanded", open ? "true" : "false");
  setAttr(toggle, "aria-label", label);
  setAttr(toggle, "title", label);
  const mark = toggle.querySelector(".side-toggle-icon");
  if (!mark.firstChild) mark.append(icon("chat"));
  const unread = toggle.querySelector(".side-unread");
  unread.hidden = view.unread === 0;
  unread.textContent = view.unread > 9 ? "9+" : String(view.unread);
  const close = view.dom.querySelector("[data-action=side-close]");
  setAttr(close, "aria-label", t("drawer.close"));
  setAttr(close, "title", t("drawer.close"));
  if (!close.firstChild) close.append("✕");
}
