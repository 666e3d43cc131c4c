// The rules overlay, from every page: /rules/{lang}.html shown over the page. It pauses nothing
// (R7.8): the match underneath keeps receiving updates and its clocks keep running.

import { readBoard } from "./api.js";
import { assetUrl } from "./assets.js";
import { renderBoard, boundsFor } from "./board.js";
import { clear, h, s as svgEl } from "./dom.js";
import { lang, onLanguageChange, t } from "./i18n.js";

let overlay = null;
let body = null;
let returnFocus = null;
let loadedLang = null;

export function isRulesOpen() {
  return !!overlay && !overlay.hidden;
}

async function loadRules() {
  const wanted = lang();
  if (loadedLang === wanted) return;
  try {
    const response = await fetch(assetUrl(`rules/${wanted}.html`));
    const html = response.ok ? await response.text() : "";
    if (lang() !== wanted) return; // switched meanwhile: the newer load wins
    const doc = new DOMParser().parseFromString(html, "text/html");
    const article = doc.querySelector("article") || doc.body;
    body.replaceChildren(...Array.from(article.childNodes).map((node) => document.importNode(node, true)));
    body.setAttribute("lang", wanted);
    loadedLang = wanted;
    drawPositions(body);
  } catch {
    body.textContent = "";
  }
}

const boards = new Map(); // moves → the server's board for them, fetched once per page

function boardFor(moves) {
  if (!boards.has(moves)) {
    const request = readBoard(moves);
    request.catch(() => boards.delete(moves)); // a failed fetch is tried again next time
    boards.set(moves, request);
  }
  return boards.get(moves);
}

/** The worked positions of docs/RULES.md, Appendix B, each drawn by the board renderer from
 * the board the engine builds for its moves: the counted ends carry their numbers, and the
 * tiles they are on are outlined. */
function drawPositions(root) {
  for (const figure of root.querySelectorAll("figure.worked[data-moves]")) {
    const svg = svgEl("svg", { class: "board worked-board", role: "img", preserveAspectRatio: "xMidYMid meet" });
    const ends = h("p", { class: "worked-ends" });
    figure.prepend(svg);
    figure.append(ends);
    boardFor(figure.dataset.moves).then((board) => {
      if (!figure.isConnected) return;
      renderBoard(svg, board, { bounds: boundsFor(560), markCounted: true, fit: true });
      const values = board.scoring_ends.map((e) => e[1]);
      const sum = values.length ? `${values.join(" + ")} = ${board.ends_sum}` : String(board.ends_sum);
      svg.setAttribute("aria-label", `${t("board.aria", { n: board.tiles.length })} ${t("ends.label")}: ${sum}`);
      clear(ends);
      ends.append(
        h("span", { class: "ends-label" }, t("ends.label")), " ", h("strong", {}, sum), " · ",
        board.award > 0 ? h("span", { class: "is-award" }, `✦ ${t("ends.award", { n: board.award })}`) : t("ends.no_award"),
      );
    }).catch(() => {
      svg.remove();
    });
  }
}

export async function openRules() {
  if (!overlay) return;
  returnFocus = document.activeElement;
  await loadRules(); // the text is there before the overlay shows
  overlay.hidden = false;
  document.body.classList.add("rules-open");
  overlay.querySelector(".rules-body").scrollTop = 0;
  overlay.querySelector("[data-action=close-rules]").focus();
}

export function closeRules() {
  if (!overlay || overlay.hidden) return;
  overlay.hidden = true;
  document.body.classList.remove("rules-open");
  if (returnFocus && returnFocus.isConnected) returnFocus.focus();
  returnFocus = null;
}

export function initRules() {
  overlay = document.getElementById("rules-overlay");
  body = overlay.querySelector(".rules-body");
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-action]");
    if (!button) {
      if (event.target === overlay) closeRules();
      return;
    }
    if (button.dataset.action === "rules") {
      event.preventDefault();
      openRules();
    } else if (button.dataset.action === "close-rules") {
      event.preventDefault();
      closeRules();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (!isRulesOpen()) return;
    if (event.key === "Escape") {
      event.preventDefault();
      closeRules();
    } else if (event.key === "Tab") {
      const focusable = [...overlay.querySelectorAll("button, a[href], [tabindex='0'], summary")].filter((el) => el.offsetParent !== null);
      if (!focusable.length) return;
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  });
  // Loaded when first opened, not with the page: the text and its pictures cost a visit a dozen
  // requests it mostly does not need.
  onLanguageChange(() => {
    loadedLang = null;
    if (isRulesOpen()) loadRules();
  });
}
