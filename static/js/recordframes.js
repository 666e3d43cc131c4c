// Replay frames, normalized for the viewer. The server's GET /api/matches/{id}/replay gives one
// frame per version with the view after it, computed by the rules engine.

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
