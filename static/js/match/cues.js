// What the match page says without being looked at: sounds for the others' placements and scores, for one's turn and for one's own low time, and a
// notification of the turn when the tab is hidden. Sound is on until the player turns it off;
// notifications are off until the player turns them on (the Cues of ../sound.js keep both).

import { h, fill, setAttr } from "../dom.js";
import { t } from "../i18n.js";
import { icon } from "../icons.js";
import { seatName } from "../narrate.js";
import { renderTitle } from "./title.js";

/** The cues of an update's events (and of the turn it gives). */
export function cue(view, match, events, previous) {
  const cues = view.cues;
  const seated = match.audience === "first" || match.audience === "second";
  for (const event of events) {
    const mine = seated && event.seat === match.viewer;
    if (event.type === "played" && !mine) cues.play("place");
    if (event.type === "transferred") cues.play("score");
  }
  // D3: the friend came to this invitation; its creator may be in another tab.
  const arrived = match.audience === "first" && match.mode !== "bot"
    ? events.find((event) => event.type === "seat_taken" && event.seat === "second") : null;
  if (arrived) {
    view.arrived = arrived.name;
    cues.play("join");
    cues.notify(t("arrival.title", { name: arrived.name }), t("arrival.body"), "specbid-join");
    renderTitle(view, match);
  }
  const turnNow = !!match.legal && (!previous || !previous.legal || previous.decision !== match.decision);
  if (turnNow && match.status === "active" && match.audience !== "device") {
    cues.play("turn");
    const names = `${seatName(match, "first")} – ${seatName(match, "second")}`;
    cues.notify(t("match.your_turn_title"), names);
  }
  view.dom.dataset.cues = cues.played.slice(-20).join(",");
}

/** Low time: one cue per decision once one's own bank is in its last seconds (the clock's
 * data-low, painted just before). */
export function lowTimeCue(view, match) {
  const own = match.viewer && match.legal ? view.dom.querySelector(`[data-clock="${match.viewer}"]`) : null;
  if (own && own.dataset.low === "true" && view.lowCued !== match.decision) {
    view.lowCued = match.decision;
    view.cues.play("low");
    view.dom.dataset.cues = view.cues.played.slice(-20).join(",");
  }
}

export function renderCues(view) {
  const cues = view.cues;
  const sound = view.dom.querySelector("[data-action=sound]");
  const on = cues.soundOn;
  // Labelled in words ("Sound on"), which are its name; the title says what a press does.
  setAttr(sound, "aria-pressed", on ? "true" : "false");
  setAttr(sound, "title", on ? t("cues.sound_on") : t("cues.sound_off"));
  fill(sound, icon(on ? "megaphone" : "mute"), h("span", { class: "btn-label" }, t(on ? "cues.sound_label_on" : "cues.sound_label_off")));
  const notify = view.dom.querySelector("[data-action=notify]");
  const allowed = cues.notifyOn;
  setAttr(notify, "aria-pressed", allowed ? "true" : "false");
  setAttr(notify, "aria-label", allowed ? t("cues.notify_on") : t("cues.notify_off"));
  setAttr(notify, "title", allowed ? t("cues.notify_on") : t("cues.notify_off"));
  fill(notify, icon("bell"));
  notify.hidden = typeof Notification === "undefined";
}
