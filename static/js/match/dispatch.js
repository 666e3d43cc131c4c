// Dispatch: each server message to where it belongs (a new view to the store, chat lines to the
// chat, a rematch's state to its box, an answer to the command that waited on it), and each
// change of the store to the page: the redraw, the update's events, the cues, auto-draw.

import { t } from "../i18n.js";
import { toast } from "../announce.js";
import { cue } from "./cues.js";
import { renderAll } from "./render.js";
import { afterEvents, focusWasInPlay, restoreFocus } from "./updates.js";

/** A message from the match's socket (docs/PROTOCOL.md). */
export function dispatch(view, msg) {
  switch (msg.type) {
    case "state":
      view.store.replace(msg.match, msg.version, [], "state", msg.log);
      break;
    case "update":
      view.store.replace(msg.match, msg.version, msg.events || [], "update");
      break;
    case "presence":
      view.store.presence(msg);
      break;
    case "rematch":
      view.rematch.update(msg);
      break;
    case "chat":
      view.chat.add(msg.lines || []);
      break;
    case "ack":
      if (view.chat.answer(msg)) break; // a chat line's: no command was waiting on it
      // A press already in effect (Start/Continue, Reveal) is acked with no new version: no
      // update follows, and nothing waits for one; the view stays the last one drawn.
      view.pending = false;
      break;
    case "error":
      if (view.chat.answer(msg)) break;
      view.pending = false;
      // A move made against a view the match has left is refused as stale; the update that
      // moved it on is drawn already (presses are never stale).
      if (msg.code !== "stale_version" && msg.code !== "not_found") toast(errorText(msg), "error");
      renderAll(view);
      break;
    default:
      break;
  }
}

/** The store has a new view (or presence): draw it, then what its events do. */
export function storeChanged(view, change) {
  const { match, events, kind, previous, log } = change;
  // A state's log (every event so far) becomes the move log, read as the updates would have
  // made it: after a reload, a resync or for a late spectator.
  if (kind === "state" && Array.isArray(log)) view.moves.replace(log);
  if (kind !== "presence") {
    view.pending = false;
    if (!previous || previous.decision !== match.decision || !match.legal) view.selected = null;
    else if (view.selected && !(match.legal.plays || []).some((p) => p.tile === view.selected && p.places.length > 1)) view.selected = null;
  }
  const focusInside = focusWasInPlay(view);
  renderAll(view);
  if (kind === "update") {
    afterEvents(view, match, events);
    cue(view, match, events, previous);
  }
  if (focusInside) restoreFocus(view);
  view.autoDraw.maybe(view);
}

/** A refusal in the player's language when the client knows its code, else the server's words. */
export function errorText(err) {
  const code = err.code;
  const known = code ? t(`errors.${code}`) : null;
  if (known && known !== `errors.${code}`) return known;
  return err.message || String(code);
}
