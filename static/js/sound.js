// Cues: short tones for a placement, a score, one's turn, low time and the opponent's arrival at
// one's invitation (D3), on unless the player turned them off; and, when the tab is hidden and the
// player allowed it, a browser notification of one's turn or of that arrival. Both choices are
// kept in this browser. Tones are made with Web Audio, so no sound file is fetched. A browser lets
// a page sound only once the person has interacted with it (a click, a tap, a key), so until then
// nothing is played.

const SOUND_KEY = "specbid.sound";
const NOTIFY_KEY = "specbid.notify";

const TONES = {
  place: [[520, 0.07]],
  score: [[660, 0.08], [880, 0.12]],
  turn: [[440, 0.09], [660, 0.09]],
  low: [[880, 0.1], [0, 0.06], [880, 0.1]],
  join: [[523, 0.09], [659, 0.09], [784, 0.16]],
};

/** "1", "0", or null for a choice never made. */
function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

// Whether the person has interacted with this page yet (a click, a tap, a key), on any of its
// routes: the events a browser counts as an activation, seen from the page's start.
const GESTURES = ["pointerdown", "keydown", "touchend"];
let gestured = false;
function onGesture() {
  gestured = true;
  for (const kind of GESTURES) document.removeEventListener(kind, onGesture, true);
}
for (const kind of GESTURES) document.addEventListener(kind, onGesture, true);

function store(key, on) {
  try {
    localStorage.setItem(key, on ? "1" : "0");
  } catch {
    /* private mode: the choice lasts for this page */
  }
}

export class Cues {
  constructor() {
    this.soundOn = stored(SOUND_KEY) !== "0"; // on by default
    this.notifyOn = stored(NOTIFY_KEY) === "1" && typeof Notification !== "undefined" && Notification.permission === "granted";
    this.audio = null;
    this.played = []; // what was sounded, for the page's own record (tests read data-cues)
  }

  setSound(on) {
    this.soundOn = on;
    store(SOUND_KEY, on);
    if (on) this.context(); // made inside the click, as browsers ask
  }

  /** Ask the browser once; true when notifications may be shown. */
  async setNotify(on) {
    if (!on || typeof Notification === "undefined") {
      this.notifyOn = false;
      store(NOTIFY_KEY, false);
      return false;
    }
    const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
    this.notifyOn = permission === "granted";
    store(NOTIFY_KEY, this.notifyOn);
    return this.notifyOn;
  }

  context() {
    if (!this.audio && typeof AudioContext !== "undefined") {
      try {
        this.audio = new AudioContext();
      } catch {
        this.audio = null;
      }
    }
    return this.audio;
  }

  play(name) {
    if (!this.soundOn || !TONES[name] || !gestured) return;
    this.played.push(name);
    const ctx = this.context();
    if (!ctx) return;
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    let at = ctx.currentTime;
    for (const [freq, length] of TONES[name]) {
      if (freq > 0) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.12, at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
        osc.connect(gain).connect(ctx.destination);
        osc.start(at);
        osc.stop(at + length + 0.02);
      }
      at += length;
    }
  }

  /** A notification, only while the tab is hidden and the player allowed it; one per tag
   * stands at a time (the turn, or the opponent's arrival). */
  notify(title, body, tag = "specbid-turn") {
    if (!this.notifyOn || !document.hidden || typeof Notification === "undefined") return;
    try {
      const note = new Notification(title, { body, tag });
      note.onclick = () => {
        window.focus();
        note.close();
      };
    } catch {
      /* some browsers allow notifications only from a service worker */
    }
  }
}
