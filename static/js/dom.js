// Tiny DOM helpers: element builders for HTML and SVG, and a few utilities.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.setAttribute("class", value);
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h("button", {class: "btn", onclick}, "Label"). */
export function h(tag, attrs = {}, ...children) {
  return append(apply(document.createElement(tag), attrs), children);
}

/** An SVG element. */
export function s(tag, attrs = {}, ...children) {
  return append(apply(document.createElementNS(SVG_NS, tag), attrs), children);
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Replace the children of el with the given ones. */
export function fill(el, ...children) {
  clear(el);
  return append(el, children);
}

/** Show or hide an element with the hidden attribute. */
export function show(el, visible) {
  if (!el) return;
  if (visible) el.removeAttribute("hidden");
  else el.setAttribute("hidden", "");
}

export function setAttr(el, name, value) {
  if (!el) return;
  if (value === null || value === undefined || value === false) el.removeAttribute(name);
  else el.setAttribute(name, value === true ? "true" : String(value));
}

export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** "1-4" -> "[1|4]" */
export function tileLabel(tile) {
  const [a, b] = String(tile).split("-");
  return `[${a}|${b}]`;
}

export function other(seat) {
  return seat === "first" ? "second" : "first";
}

/** m:ss from milliseconds, rounded up (0:00 only when the time is gone). */
export function mmss(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const sec = total % 60;
  return `${m}:${String(sec).padStart(2, "0")}`;
}
