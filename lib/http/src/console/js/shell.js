// The console's frame: the sign-in form, signing out, and the layout of every signed-in view
// (a skip link, the sections, the workspace's name, the live regions `announce` speaks in).

import { api } from "./api.js";
import { announce, el, field, fill } from "./dom.js";
import { signIn, signOutOfState, state } from "./state.js";

/** Where the key is kept: this tab's sessionStorage, never a cookie. */
export const KEY = "lore.console.key";
const app = document.getElementById("app");

let signedIn = () => {};
/** What to do once signed in (draw the view the address names). */
export function onSignedIn(fn) {
  signedIn = fn;
}

export function signInView(message) {
  document.title = "Sign in · Lore console";
  const key = el("input", { type: "password", autocomplete: "off", spellcheck: "false", required: true });
  const form = el(
    "form",
    { class: "card signin", "aria-labelledby": "signin-title" },
    el("h1", { id: "signin-title" }, "Lore console"),
    el("p", {}, "Sign in with an API key of your workspace. It is kept in this tab only and forgotten when you sign out or close it."),
    field("API key", key),
    el("button", { type: "submit", class: "primary" }, "Sign in"),
    el("div", { id: "alerts", role: "alert" }, message ? el("p", { class: "error" }, message) : null),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const who = await api("GET", "/api/integrations/webhooks/auth/verify", undefined, key.value.trim());
      sessionStorage.setItem(KEY, key.value.trim());
      signIn(key.value.trim(), who);
      if (!location.hash || location.hash === "#/") location.hash = "#/chatbots";
      signedIn();
    } catch (err) {
      announce(err.status === 401 ? "That key was not accepted." : err.message, "error");
      key.focus();
    }
  });
  fill(app, el("main", { id: "main", class: "narrow" }, form));
  key.focus();
}

export function signOut(message) {
  sessionStorage.removeItem(KEY);
  signOutOfState();
  history.replaceState(null, "", "#/");
  signInView(message);
}

export function layout(title, ...content) {
  document.title = `${title} · Lore console`;
  const here = location.hash;
  const link = (href, text) =>
    el("a", { href, "aria-current": here.startsWith(href) ? "page" : null }, text);
  const main = el("main", { id: "main", tabindex: "-1" }, ...content);
  // Confirmations and errors appear at the bottom of the window, wherever the action was.
  const toasts = el("div", { class: "toasts" }, el("div", { id: "alerts", role: "alert" }), el("div", { id: "status", role: "status", "aria-live": "polite" }));
  fill(app,
    el("a", { href: "#main", class: "skip" }, "Skip to content"),
    el(
      "header",
      { class: "top" },
      el("span", { class: "brand" }, "Lore"),
      el("nav", { "aria-label": "Sections" }, link("#/chatbots", "Chatbots"), link("#/minds", "Minds"), link("#/webhooks", "Webhooks"), link("#/workspace", "Workspace"), link("#/privacy", "Privacy")),
      el("span", { class: "who" }, state.session.workspace.name),
      el("button", { type: "button", onclick: () => signOut("Signed out.") }, "Sign out"),
    ),
    main,
    toasts,
  );
  return main;
}
