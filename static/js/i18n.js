// Interface text in English, Ukrainian and Finnish: dictionaries in /i18n/{lang}.json, the choice
// remembered in localStorage, <html lang> kept in step, and views told to redraw on a switch.

import { assetUrl } from "./assets.js";

export const LANGUAGES = ["en", "uk", "fi"];
const STORAGE_KEY = "specbid.lang";

const dictionaries = {};
const listeners = new Set();
let current = "en";

function initialLanguage() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (LANGUAGES.includes(saved)) return saved;
  } catch {
    /* storage may be unavailable */
  }
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const base = String(wanted).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function load(lang) {
  if (!dictionaries[lang]) {
    const response = await fetch(assetUrl(`i18n/${lang}.json`));
    if (!response.ok) throw new Error(`missing dictionary ${lang}`);
    dictionaries[lang] = await response.json();
  }
  return dictionaries[lang];
}

export function lang() {
  return current;
}

function lookup(dict, key) {
  let node = dict;
  for (const part of key.split(".")) {
    if (node === null || typeof node !== "object" || !(part in node)) return undefined;
    node = node[part];
  }
  return node;
}

/** The text for key in the current language, {placeholders} filled from params. A key whose
 * value is an object of plural forms picks one with params.n. */
export function t(key, params = {}) {
  let value = lookup(dictionaries[current] || {}, key);
  if (value === undefined) value = lookup(dictionaries.en || {}, key);
  if (value === undefined) return key;
  if (typeof value === "object") {
    const form = new Intl.PluralRules(current).select(Number(params.n ?? 0));
    value = value[form] ?? value.other ?? "";
  }
  return String(value).replace(/\{(\w+)\}/g, (_, name) =>
    params[name] === undefined || params[name] === null ? "" : String(params[name]),
  );
}

/** Fill every [data-i18n] (text), [data-i18n-aria] (aria-label), [data-i18n-title] (title) and
 * [data-i18n-placeholder] under root. */
export function translate(root = document) {
  root.querySelectorAll("[data-i18n]").forEach((el) => {
    el.textContent = t(el.dataset.i18n);
  });
  root.querySelectorAll("[data-i18n-aria]").forEach((el) => {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  });
  root.querySelectorAll("[data-i18n-title]").forEach((el) => {
    el.setAttribute("title", t(el.dataset.i18nTitle));
  });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((el) => {
    el.setAttribute("placeholder", t(el.dataset.i18nPlaceholder));
  });
}

export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export async function setLanguage(next) {
  if (!LANGUAGES.includes(next)) return;
  await load(next);
  current = next;
  try {
    localStorage.setItem(STORAGE_KEY, next);
  } catch {
    /* ignore */
  }
  document.documentElement.lang = next;
  const select = document.getElementById("lang");
  if (select && select.value !== next) select.value = next;
  translate(document);
  document.title = t("app.title");
  for (const fn of [...listeners]) fn(next);
}

export async function initI18n() {
  await load("en");
  await setLanguage(initialLanguage());
  const select = document.getElementById("lang");
  if (select) {
    select.value = current;
    select.addEventListener("change", () => setLanguage(select.value));
  }
}

/** Number formatting in the current language. */
export function num(n) {
  return new Intl.NumberFormat(current).format(n);
}
