// The match page's skeleton, built once per visit; the renderers fill it from each snapshot.

import { h, s } from "./dom.js";
import { clockElement } from "./clock.js";

function seatPanel(position) {
  return h(
    "section",
    { class: `seat seat-${position}`, "data-position": position },
    h(
      "div",
      { class: "seat-head" },
      h("span", { class: "avatar", "aria-hidden": "true" }),
      h("div", { class: "seat-who" },
        h("h2", { class: "seat-name" })),
      h("span", { class: "presence" }),
    ),
    // The badges have a line of their own: beside the name they squeezed it to a letter.
    h("div", { class: "seat-tags" }),
    h(
      "div",
      { class: "seat-body" },
      h("div", { class: "balance" }),
      h("div", { class: "clock-slot" }),
    ),
    h("div", { class: "seat-hand" }),
  );
}

export function buildMatchDom() {
  const root = h(
    "section",
    { id: "match", class: "match", "aria-labelledby": "match-title" },
    h(
      "div",
      { class: "match-bar" },
      h("div", { class: "match-heading" },
        h("h1", { id: "match-title", class: "match-title" }),
        h("p", { class: "match-sub" })),
      h(
        "div",
        { class: "match-meta" },
        h("span", { id: "connection", class: "conn", "data-state": "reconnecting", role: "status" },
          h("span", { class: "conn-icon", "aria-hidden": "true" }),
          h("span", { class: "conn-text" })),
        h("span", { id: "spectators", class: "spectators" }),
        h("button", { type: "button", class: "btn btn-ghost btn-small btn-icon", "data-action": "sound", "aria-pressed": "false" }),
        h("button", { type: "button", class: "btn btn-ghost btn-small btn-icon", "data-action": "notify", "aria-pressed": "false" }),
        // A narrow screen keeps the chat and the moves in a drawer this opens.
        h("button", { type: "button", class: "btn btn-ghost btn-small btn-icon side-toggle", "data-action": "side", "aria-expanded": "false", "aria-controls": "side-panel" },
          h("span", { class: "side-toggle-icon" }), h("span", { class: "side-unread", hidden: true })),
        h("button", { type: "button", class: "btn btn-ghost btn-small", "data-action": "resign", hidden: true }),
      ),
    ),
    h("div", { class: "notices" },
      h("div", { id: "confirm-box", class: "card confirm-box", role: "alertdialog", "aria-modal": "false", "aria-labelledby": "confirm-question", hidden: true }),
      h("p", { id: "opponent-status", class: "notice notice-warn", hidden: true, role: "status" }),
      h("p", { id: "first-decision", class: "notice notice-warn", "data-countdown": "first", hidden: true }),
      h("div", { id: "join-panel", class: "card join-card", hidden: true }),
      h("div", { id: "invite-panel", class: "card invite-card", hidden: true }),
      h("div", { id: "late-panel", class: "card late-card", hidden: true })),
    seatPanel("top"),
    h(
      "section",
      { class: "arena", "aria-label": "" },
      h("p", { id: "turn-banner", class: "turn-banner", role: "status" }),
      h("section", { id: "result", class: "card result-card", hidden: true, role: "status" }),
      h("section", { id: "rematch", class: "card rematch-card", hidden: true, "aria-live": "polite" }),
      h("section", { id: "auction", class: "card auction-card", hidden: true, "aria-labelledby": "auction-title" }),
      h("section", { id: "round-card", class: "card round-card", hidden: true },
        h("div", { id: "settlement", class: "settlement", hidden: true }),
        h("div", { id: "start-panel", class: "start-panel", hidden: true })),
      h(
        "div",
        { class: "board-wrap" },
        s("svg", { id: "board", class: "board", role: "group", preserveAspectRatio: "xMidYMid meet" }),
      ),
      h("div", { class: "board-info" },
        h("div", { id: "ends", class: "ends", "aria-live": "off" }),
        h("div", { class: "boneyard" },
          h("span", { class: "boneyard-icon", "aria-hidden": "true" }),
          h("span", { class: "boneyard-label" }),
          h("span", { id: "boneyard-count", class: "count" }))),
    ),
    // One's own seat and hand, pinned to the bottom of a narrow screen.
    h("div", { class: "dock" },
    seatPanel("bottom"),
    h(
      "section",
      { class: "hand-area", hidden: true },
      h("div", { class: "hand-head" },
        h("h2", { class: "hand-title", id: "hand-title" }),
        h("div", { class: "hand-actions" },
          h("button", { type: "button", class: "btn btn-primary", "data-action": "draw", hidden: true }),
          h("label", { class: "toggle" },
            h("input", { type: "checkbox", id: "auto-draw" }),
            h("span", { class: "toggle-text" })))),
      h("div", { id: "hand", class: "hand", role: "group", "aria-labelledby": "hand-title" }),
      h("p", { class: "hand-hint" }),
    )),
    // Beside the table on a wide screen, a drawer on a narrow one: the chat never pushes the
    // hand or a clock off the screen.
    h("aside", { id: "side-panel", class: "side-panel" },
      h("button", { type: "button", class: "btn btn-ghost btn-icon side-close", "data-action": "side-close" }),
      h("details", { class: "move-log" },
        h("summary", {}),
        h("ol", { id: "move-log-list" })),
      h("section", { id: "chat", class: "card chat-card", "aria-labelledby": "chat-title" })),
    h(
      "div",
      { id: "handover", class: "handover", hidden: true, role: "dialog", "aria-modal": "true", "aria-labelledby": "handover-title" },
      h("div", { class: "handover-panel" },
        h("div", { class: "handover-icon", "aria-hidden": "true" }, "⇄"),
        h("h2", { id: "handover-title" }),
        h("p", { class: "handover-text" }),
        h("button", { type: "button", class: "btn btn-primary btn-large", "data-action": "reveal" }),
        h("p", { class: "handover-note" }),
        h("p", { class: "handover-conn", role: "status" })),
    ),
  );
  root.querySelector(".seat-top .clock-slot").append(clockElement("second"));
  root.querySelector(".seat-bottom .clock-slot").append(clockElement("first"));
  return root;
}
