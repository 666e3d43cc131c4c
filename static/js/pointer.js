// How the player points: a touch screen (a phone, a tablet) has no keyboard to hint at, so its
// pages show no key on the Draw button and no "Keys:" line; a mouse and keyboard get both.

const TOUCH_ONLY = "(hover: none) and (pointer: coarse)";

/** True on a screen whose only pointer is a finger. */
export function isTouchOnly() {
  return typeof window.matchMedia === "function" && window.matchMedia(TOUCH_ONLY).matches;
}
