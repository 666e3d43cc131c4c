// Start-up: the language, the rules overlay, then the page for the current route. Each page
// module mounts into <main> and returns its unmount function.

import { h, fill } from "./dom.js";
import { initI18n, t } from "./i18n.js";
import { initRules } from "./rules.js";
import { startRouter } from "./router.js";
import { mountLobby } from "./lobby.js";
import { mountMatch } from "./match/page.js";
import { mountReplay } from "./replay.js";
import { mountProfile } from "./profile.js";

let unmount = null;

function route(found) {
  if (unmount) unmount();
  unmount = null;
  const main = document.getElementById("main");
  window.scrollTo(0, 0);
  document.body.dataset.page = found.name;
  if (found.name === "lobby") unmount = mountLobby(main);
  else if (found.name === "match") unmount = mountMatch(main, found.id);
  else if (found.name === "replay") unmount = mountReplay(main, found.id);
  else if (found.name === "profile") unmount = mountProfile(main, found.id);
  else {
    fill(main, h("section", { class: "card problem-card" },
      h("h1", { class: "card-title" }, t("common.not_found")),
      h("p", {}, h("a", { class: "btn btn-primary", href: "/" }, t("match.back_to_lobby")))));
  }
}

async function boot() {
  try {
    await initI18n();
  } catch (err) {
    // The dictionaries could not load: the page still works with the keys' English fallbacks.
    console.warn("i18n", err);
  }
  initRules();
  startRouter(route);
}

boot();
