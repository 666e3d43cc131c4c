// Replay frames, normalized for the viewer. The server's GET /api/matches/{id}/replay gives one
// frame per version with the view after it, computed by the rules engine.

import { DecisionCounter } from "./movelist.js";

function roundOf(view) {
  return view && typeof view.round_number === "number" ? view.round_number : 0;
}

/** Frames from the server's replay document, in the shape the viewer draws. */
export function framesFromReplay(doc) {
  const header = doc.match || {};
  const frames = (doc.frames || []).map((frame) => {
    const view = frame.view || frame.match || {};
    return {
      version: frame.version ?? view.version ?? 0,
      label: frame.label || "",
      events: frame.events || [],
      round: roundOf(view),
      view,
      clock: frame.clock || view.clock || null,
    };
  });
  return { header, frames, source: "replay" };
}

/** Each frame with the decisions it takes part in, numbered as the live move list numbers them:
 * {n, last, first}, n the first one's number, last the last one begun here (a placement and the
 * pass it forced, D2, are one version), first whether one begins here; null for a frame of
 * narration or of the service (a press, a deal, a reveal). */
export function numberedFrames(frames) {
  const counter = new DecisionCounter();
  return frames.map((frame) => {
    const parts = (frame.events || []).map((event) => counter.next(event)).filter(Boolean);
    const begun = parts.filter((part) => part.first);
    const decision = parts.length
      ? { n: (begun[0] || parts[0]).n, last: begun.length ? begun[begun.length - 1].n : parts[0].n, first: begun.length > 0 }
      : null;
    return { ...frame, decision };
  });
}
