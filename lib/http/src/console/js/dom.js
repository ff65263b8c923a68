// Elements of the console: `el` makes them (text always as text nodes, never HTML), `fill`
// replaces children, `field` labels a control, `announce` shows a message in the view's live
// regions (a toast at the bottom of the window), and two small widgets every view may use.

import { markParts } from "./format.js";

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else if (v === true) node.setAttribute(k, "");
    else node.setAttribute(k, String(v));
  }
  return fill(node, ...children);
}

/** Replaces `node`'s children, skipping null/false and flattening arrays as `el` does. */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
  return node;
}

let uid = 0;
/** A fresh id for a control that has none. */
export const newId = () => `f${++uid}`;

/** A labelled form control: the label names it for screen readers. */
export function field(label, control, hint) {
  const id = control.id || newId();
  control.id = id;
  const hintNode = hint ? el("span", { class: "hint", id: `${id}-hint` }, hint) : null;
  if (hintNode) control.setAttribute("aria-describedby", hintNode.id);
  return el("div", { class: "field" }, el("label", { for: id }, label), control, hintNode);
}

/** How long a confirmation stays on screen; an error stays until it is dismissed. */
export const TOAST_MS = 6000;
let toastTimer = null;

/** Says `message` in the view's live regions: a confirmation (`ok`) in the status toast at the
 * bottom of the window, gone after TOAST_MS; an error in the alert toast, with a button that
 * dismisses it. */
export function announce(message, kind = "ok") {
  const error = kind === "error";
  const region = document.getElementById(error ? "alerts" : "status");
  if (!region) return;
  region.textContent = "";
  // A fresh text node so that assistive technology reads a repeated message again.
  const note = el("p", { class: `toast ${kind}` }, el("span", {}, message));
  if (error) note.append(el("button", { type: "button", class: "dismiss", "aria-label": "Dismiss this message", onclick: () => note.remove() }, "×"));
  region.append(note);
  if (!error) {
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => note.remove(), TOAST_MS);
  }
}

/** `text` with every occurrence of the query's words marked. */
export function marked(text, query) {
  return markParts(text, query).map((part, i) => (i % 2 ? el("mark", {}, part) : part));
}

/** A secret shown once, with a copy button. */
export function showSecret(holder, secret, label) {
  const box = el("input", { type: "text", readonly: true, class: "code", value: secret });
  fill(holder, el("div", { class: "secret" }, field(label, box, "Shown once: copy it to your receiver now."), el("button", { type: "button", onclick: async () => { box.select(); try { await navigator.clipboard.writeText(secret); announce("Secret copied."); } catch (_) { announce("Select the secret and copy it with your keyboard.", "error"); } } }, "Copy secret")));
}
