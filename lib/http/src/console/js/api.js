// The public API with the console's session: JSON requests, uploads with progress, downloads,
// and the list of languages. The owner's key is sent once, to open the session
// (POST /api/v1/console/session); from then on the browser sends the session's HttpOnly cookie,
// which no script reads, and every call says it is the console's own (`X-Lore-Console: 1`, the
// only calls the cookie counts for). A 401 on a signed-in session signs out.

import { state } from "./state.js";
import { announce, el } from "./dom.js";

export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `The request failed (${status || "no answer"}).`);
    this.status = status;
    this.code = e.code || "error";
    /** A `validation_error`'s refused members: member → reason. */
    this.fields = (e.details && e.details.fields) || {};
  }
}

let refused = () => {};
/** What to do when the API refuses the signed-in key (sign out, with a message). */
export function onRefused(fn) {
  refused = fn;
}

/** The header that makes a call the console's own: without it the session cookie is no credential. */
const CONSOLE = { "X-Lore-Console": "1" };

/** A call to the API with the session; with `key`, with that key instead (signing in only: the
 * key is used for this one call and kept nowhere). */
export async function api(method, path, body, key) {
  const headers = { ...CONSOLE, Accept: "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  const init = { method, headers, credentials: "same-origin" };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = await res.json().catch(() => null);
  if (res.status === 401 && state.session) {
    refused("Your session ended (its key was revoked, it expired, or you signed out in another tab): sign in again.");
    throw new ApiError(401, data);
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

/** A write whose refusal is answered, not thrown: `{data}`, or `{error}` (an ApiError, whose
 * `fields` name the refused members for the form to show beside them). A refused session has
 * signed out already (`api`). */
export async function write(method, path, body) {
  try {
    return { data: await api(method, path, body) };
  } catch (e) {
    return { error: e instanceof ApiError ? e : new ApiError(0, null) };
  }
}

/** A multipart upload with progress, through XMLHttpRequest (fetch reports no upload progress). */
export function upload(path, form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    xhr.setRequestHeader("X-Lore-Console", "1");
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", (e) => e.lengthComputable && onProgress(e.loaded / e.total));
    xhr.addEventListener("load", () => {
      let data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch (_) {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else reject(new ApiError(xhr.status, data));
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, null)));
    xhr.send(form);
  });
}

/** Runs `action`, announcing its failure; returns its result or undefined. */
export async function attempt(action) {
  try {
    return await action();
  } catch (e) {
    if (e.status !== 401) announce(e.message, "error");
    return undefined;
  }
}

/** Fetches `path` with the session and saves it as `name` (a link cannot carry the console's header). */
export async function download(path, name) {
  try {
    const res = await fetch(path, { headers: CONSOLE, credentials: "same-origin" });
    if (!res.ok) throw new ApiError(res.status, await res.json().catch(() => null));
    const url = URL.createObjectURL(await res.blob());
    const a = el("a", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    announce(`Downloaded ${name}.`);
  } catch (e) {
    announce(e.message, "error");
  }
}

// ---- Languages (docs/api.md §20) ------------------------------------------------------------

let languageList = null; // a promise of GET /api/v1/languages' list, fetched once a session
export function languages() {
  languageList ||= api("GET", "/api/v1/languages").then(
    (d) => d.languages,
    (e) => {
      languageList = null; // asked again next time
      throw e;
    },
  );
  return languageList;
}

/** A language's name as its speakers write it ("fr" → Français), marked with its `lang`; the
 * code itself when `list` does not know it. */
export const languageName = (code, list) => el("span", { lang: code }, (list.find((l) => l.code === code) || { name: code }).name);

export const AUTO_LANGUAGE = "Automatic (each visitor's language)";
