// The console's frame: the sign-in form, signing out, and the layout of every signed-in view
// (a skip link, the sections, the workspace's name, the live regions `announce` speaks in).

import { api } from "./api.js";
import { announce, el, field, fill } from "./dom.js";
import { signIn, signOutOfState, state } from "./state.js";

/** Kept in this tab while signed in, to say so when a session ends on its own: a mark, never the
 * key (the session is an HttpOnly cookie no script can read; api.js). */
export const SIGNED_IN = "lore.console.signedIn";
const SESSION = "/api/v1/console/session";
const VERIFY = "/api/integrations/webhooks/auth/verify";
const app = document.getElementById("app");

let signedIn = () => {};
/** What to do once signed in (draw the view the address names). */
export function onSignedIn(fn) {
  signedIn = fn;
}

/** Who the session's key is, once signed in (GET …/auth/verify with the session). */
export function resume(who) {
  signIn(who);
  sessionStorage.setItem(SIGNED_IN, "1");
  signedIn();
}

export function signInView(message) {
  document.title = "Sign in · Lore console";
  const key = el("input", { type: "password", autocomplete: "off", spellcheck: "false", required: true });
  const form = el(
    "form",
    { class: "card signin", "aria-labelledby": "signin-title" },
    el("h1", { id: "signin-title" }, "Lore console"),
    el("p", {}, "Sign in with an API key of your workspace. The key is exchanged for a session that no page's script can read; it ends when you sign out, or after 8 hours."),
    field("API key", key),
    el("button", { type: "submit", class: "primary" }, "Sign in"),
    el("div", { id: "alerts", role: "alert" }, message ? el("p", { class: "error" }, message) : null),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const typed = key.value.trim();
    try {
      await api("POST", SESSION, undefined, typed);
    } catch (err) {
      announce(err.status === 401 ? "That key was not accepted." : err.message, "error");
      key.focus();
      return;
    }
    key.value = "";
    try {
      const who = await api("GET", VERIFY);
      if (!location.hash || location.hash === "#/") location.hash = "#/chatbots";
      resume(who);
    } catch (err) {
      // The key was accepted, but the browser did not send the session back: it keeps a Secure
      // cookie only over HTTPS (or on localhost).
      announce(err.status === 401 ? "The browser did not keep the session: open the console over HTTPS, or at localhost." : err.message, "error");
      key.focus();
    }
  });
  fill(app, el("main", { id: "main", class: "narrow" }, form));
  key.focus();
}

/** Ends the session (the cookie is cleared) and shows the sign-in form with `message`. */
export async function signOut(message) {
  sessionStorage.removeItem(SIGNED_IN);
  signOutOfState();
  history.replaceState(null, "", "#/");
  await api("DELETE", SESSION).catch(() => {});
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
