// The page's fixed texts (docs/api.md §20): which supported language to show, and the texts of a
// catalogue with their values in place, counted forms and numbers in that language. Pure: no
// DOM, so that node's tests can import it (tests/js/chat_i18n.test.mjs).

// Languages written right to left: the page turns with them.
export const RTL = { ar: true, fa: true, he: true };

// The supported language a tag names: "fr-CA" and "FR" are "fr"; "auto" and others none.
export function supportedLanguage(tag, languages) {
  const primary = String(tag || "").toLowerCase().split(/[-_]/)[0];
  return languages.indexOf(primary) >= 0 ? primary : null;
}

// The owner's fixed language (`owner`: data-language), else ?lang= in `search` (the widget's
// data-language), else the first supported of the browser's `preferred`, else English.
export function wantedLanguage(owner, search, preferred, languages) {
  const fixed = supportedLanguage(owner, languages);
  if (fixed) return fixed;
  const asked = /[?&]lang=([^&#]*)/.exec(search || "");
  if (asked && supportedLanguage(decodeURIComponent(asked[1]), languages)) {
    return supportedLanguage(decodeURIComponent(asked[1]), languages);
  }
  for (const tag of preferred || []) {
    const found = supportedLanguage(tag, languages);
    if (found) return found;
  }
  return "en";
}

// Where another language's catalogue is: next to the page (under a stage prefix too).
export function cataloguePath(pathname, lang) {
  return pathname.replace(/\/[mc]\/[^/]+\/?$/, "") + "/i18n/" + lang + ".json";
}

// 12345 → "12,345": the numbers of a browser without Intl.
export function thousands(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

// The texts of one catalogue in language `lang`; `name` fills {name} (the Mind's or chatbot's).
// `use` switches to another catalogue once it has arrived.
export class Texts {
  constructor(catalogue, lang, name) {
    this.catalogue = catalogue || {};
    this.lang = lang || "en";
    this.name = name || "";
  }

  use(catalogue, lang) {
    this.catalogue = catalogue || {};
    this.lang = lang;
  }

  has(key) {
    return Object.prototype.hasOwnProperty.call(this.catalogue, key);
  }

  // The text of `key` (the key itself when the catalogue lacks it), with {name} and the given
  // values in place; an unknown {placeholder} stays as written.
  t(key, values) {
    const text = this.has(key) ? String(this.catalogue[key]) : key;
    return text.replace(/\{(\w+)\}/g, (all, k) => {
      if (values && Object.prototype.hasOwnProperty.call(values, k)) return values[k];
      return k === "name" ? this.name : all;
    });
  }

  number(n) {
    try {
      return new Intl.NumberFormat(this.lang).format(n);
    } catch (e) {
      return thousands(n);
    }
  }

  // A counted text: the form of `key` the language uses for n ("sources.one", "sources.few"…),
  // else "key.other"; {n} is the number written in the language.
  plural(key, n, values) {
    let form = "other";
    try {
      form = new Intl.PluralRules(this.lang).select(n);
    } catch (e) {
      /* no plural rules: the general form */
    }
    const k = this.has(key + "." + form) ? key + "." + form : key + ".other";
    values = values || {};
    values.n = this.number(n);
    return this.t(k, values);
  }
}
