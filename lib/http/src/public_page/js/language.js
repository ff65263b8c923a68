// The page in the visitor's language (docs/api.md §20): the page is rendered in one language,
// with its catalogue inlined in #lore-texts; when another is wanted (the owner's is "auto" and
// no ?lang= names one: the visitor's navigator.languages decide), its catalogue is fetched and
// every element that carries a key (data-i18n, data-i18n-label, data-i18n-placeholder) shows it.

import { RTL, cataloguePath } from "./i18n.js";

// Every fixed text of the page in the language of `texts`.
export function translate(texts) {
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = texts.t(e.getAttribute("data-i18n"));
  for (const e of document.querySelectorAll("[data-i18n-label]")) {
    e.setAttribute("aria-label", texts.t(e.getAttribute("data-i18n-label")));
  }
  for (const e of document.querySelectorAll("[data-i18n-placeholder]")) {
    e.placeholder = texts.t(e.getAttribute("data-i18n-placeholder"));
  }
}

// Shows language `wanted` when it is not the page's: a promise that resolves once shown (or
// failed: the page's texts stay), or null when nothing is to change.
export function showLanguage(texts, wanted) {
  if (wanted === texts.lang) return null;
  const html = document.documentElement;
  return fetch(cataloguePath(location.pathname, wanted), { headers: { Accept: "application/json" } })
    .then((res) => {
      if (!res.ok) throw new Error("no catalogue");
      return res.json();
    })
    .then((catalogue) => {
      texts.use(catalogue, wanted);
      html.lang = wanted;
      if (RTL[wanted]) html.dir = "rtl";
      else html.removeAttribute("dir");
      translate(texts);
    })
    .catch(() => {
      /* the page's language stays */
    });
}
