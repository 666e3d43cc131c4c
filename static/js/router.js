// Client routes: "/" (lobby), "/m/{id}" (a match), "/replay/{id}" (a finished match, step by
// step), "/@/{name}" (a player's profile and archive). Same-origin links to these paths are followed without reloading the page.
// A page's toasts end with it: none is carried into the next.

import { clearToasts } from "./announce.js";

const ROUTES = [
  { name: "match", pattern: /^\/m\/([A-Za-z0-9_-]+)\/?$/ },
  { name: "replay", pattern: /^\/replay\/([A-Za-z0-9_-]+)\/?$/ },
  { name: "profile", pattern: /^\/@\/([^/]+)\/?$/ },
  { name: "lobby", pattern: /^\/?$/ },
];

let handler = null;

function show(found) {
  clearToasts();
  handler(found);
}

function safeDecode(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function match(pathname) {
  for (const route of ROUTES) {
    const found = route.pattern.exec(pathname);
    if (found) return { name: route.name, id: found[1] ? safeDecode(found[1]) : null };
  }
  return { name: "notfound", id: null };
}

export function navigate(path, { replace = false } = {}) {
  const url = new URL(path, location.href);
  if (url.origin !== location.origin) {
    location.assign(url.href);
    return;
  }
  if (replace) history.replaceState(null, "", url.pathname + url.search + url.hash);
  else history.pushState(null, "", url.pathname + url.search + url.hash);
  if (handler) show(match(url.pathname));
}

export function startRouter(onRoute) {
  handler = onRoute;
  window.addEventListener("popstate", () => show(match(location.pathname)));
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target.closest && event.target.closest("a[href]");
    if (!link || link.target || link.hasAttribute("download")) return;
    const url = new URL(link.href, location.href);
    if (url.origin !== location.origin) return;
    const route = match(url.pathname);
    if (route.name === "notfound") return;
    if (url.pathname === location.pathname && url.hash) return; // in-page anchors
    event.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
  show(match(location.pathname));
}
