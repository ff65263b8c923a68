// A chatbot's or Mind's actions (docs/api.md §23): the owner's HTTP endpoints a model may call
// while it answers. The list (method and URL, an enabled switch, edit, delete confirmed in view,
// test), a form to add or change one with three templates, a schema editor checked as the owner
// types, header rows whose stored values stay hidden ("•••"), the signing secret shown once, and
// a test call whose answer shows as text. `callLines` writes a message's calls for a transcript.

import { api, attempt, write } from "./api.js";
import { announce, el, field, fill, newId, showSecret } from "./dom.js";
import { kinds } from "./kinds.js";

/** What the API shows instead of a header's value (and takes back as "keep it"). */
const HIDDEN = "•••";
const MAX_PARAMETERS_BYTES = 8 * 1024;
const MAX_HEADERS = 10;

/** The templates the form can be filled from: a start, for the owner to point at their endpoint. */
const TEMPLATES = [
  {
    label: "Look up an order",
    name: "lookup_order",
    description: "Looks up an order by its number and says where it is and when it arrives. Call it when the visitor asks about an order and gives its number.",
    method: "GET",
    placeholder: "https://shop.example/api/orders",
    parameters: { type: "object", properties: { orderId: { type: "string", description: "The order number, as the visitor gives it" } }, required: ["orderId"] },
  },
  {
    label: "Book a meeting",
    name: "book_meeting",
    description: "Books a meeting with our team. Call it only after the visitor has agreed to book and has given their name, e-mail address and a preferred time; never book on your own initiative.",
    method: "POST",
    placeholder: "https://calendar.example/api/bookings",
    parameters: {
      type: "object",
      properties: {
        name: { type: "string", description: "The visitor's name" },
        email: { type: "string", format: "email", description: "The visitor's e-mail address" },
        preferredTime: { type: "string", description: "When the visitor would like to meet, as they said it" },
      },
      required: ["name", "email", "preferredTime"],
    },
  },
  {
    label: "Open a ticket",
    name: "open_ticket",
    description: "Opens a support ticket for a problem the knowledge cannot solve. Call it when the visitor wants the team to follow up, with a short subject, what happened and their e-mail address.",
    method: "POST",
    placeholder: "https://hooks.zapier.com/hooks/catch/…",
    parameters: {
      type: "object",
      properties: {
        subject: { type: "string", description: "A short subject line" },
        description: { type: "string", description: "What the visitor needs, in their words" },
        email: { type: "string", format: "email", description: "Where the team answers" },
      },
      required: ["subject", "description", "email"],
    },
  },
];

/** Whether `text` is a parameters schema the API takes: {value} or {problem} in words (a parse
 * error with its line and column, not an object, no `"type": "object"`, over 8 KB). */
export function checkSchema(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec(e.message);
    let where = "";
    if (at && !/line \d+/.test(e.message)) {
      const before = text.slice(0, Number(at[1])).split("\n");
      where = ` (line ${before.length}, column ${before[before.length - 1].length + 1})`;
    }
    return { problem: `Not valid JSON: ${e.message}${where}.` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { problem: "Must be a JSON object (a JSON Schema)." };
  if (value.type !== "object") return { problem: 'Must have "type": "object".' };
  const size = new TextEncoder().encode(JSON.stringify(value)).length;
  if (size > MAX_PARAMETERS_BYTES) return { problem: `Must be at most 8 KB (it is ${size} bytes).` };
  return { value };
}

/** Arguments to start a test with: each property of the schema with an empty value of its type. */
export function sampleArguments(schema) {
  const empty = { string: "", number: 0, integer: 0, boolean: false, array: [], object: {} };
  const out = {};
  for (const [name, p] of Object.entries((schema && schema.properties) || {})) out[name] = p && p.type in empty ? empty[p.type] : "";
  return out;
}

/** A call of a message, in words: "Called lookup_order · ok · 200 · 182 ms" (never its answer). */
export const callWords = (c) => ["Called " + c.name, c.status, c.httpStatus ?? null, `${c.tookMs} ms`].filter((x) => x !== null).join(" · ");

/** A message's calls as short lines, or null when it made none. */
export function callLines(m) {
  if (!m.actions || !m.actions.length) return null;
  return el("ul", { class: "calls", "aria-label": "Actions called" }, m.actions.map((c) => el("li", { class: `call ${c.status}` }, callWords(c))));
}

/** How many of the newest conversations "Last calls" reads, and how many calls it lists. */
const RECENT_CONVERSATIONS = 20;
const LAST_CALLS = 10;

/** The newest calls in `transcripts` (each `{messages}`), newest first:
 * [{at, conversationId, call}], at most `limit`. */
export function newestCalls(transcripts, limit) {
  const calls = [];
  for (const t of transcripts) {
    for (const m of t.messages || []) {
      for (const call of m.actions || []) calls.push({ at: m.createdAt, conversationId: m.conversationId, call });
    }
  }
  return calls.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, limit);
}

export function actionsSection(kind, id) {
  const base = `${kinds[kind].base(id)}/actions`;
  let actions = [];
  let editing = null; // the action being changed, or null when adding

  // ---- the form ------------------------------------------------------------------------------
  const name = el("input", { type: "text", maxlength: 64, required: true, spellcheck: "false", autocomplete: "off", class: "code" });
  const description = el("textarea", { rows: 3, maxlength: 1000, required: true });
  const url = el("input", { type: "url", required: true, maxlength: 2048, placeholder: "https://shop.example/api/orders", spellcheck: "false" });
  const method = el("select", {}, el("option", { value: "POST" }, "POST (arguments as a JSON body)"), el("option", { value: "GET" }, "GET (arguments in the query string)"));
  const parameters = el("textarea", { rows: 10, class: "code schema", spellcheck: "false" });
  const enabled = el("input", { type: "checkbox", checked: true, id: newId() });
  const headerRows = el("div", { class: "header-rows" });
  const addHeader = el("button", { type: "button", onclick: () => { headerRow("", false); headerRows.lastChild.querySelector("input").focus(); } }, "Add a header");
  const headersBox = el("fieldset", { class: "headers" }, el("legend", {}, "Headers"), el("p", { class: "hint" }, `Sent with every call (an API key, say), at most ${MAX_HEADERS}. Values are secret: once saved they show as ${HIDDEN} and are kept unless you type a new one.`), headerRows, addHeader);
  const formTitle = el("h3", {}, "Add an action");
  const submit = el("button", { type: "submit", class: "primary" }, "Save action");
  const cancel = el("button", { type: "button", hidden: true, onclick: () => reset() }, "Cancel");
  const templates = el("div", { class: "templates", role: "group", "aria-label": "Templates" }, el("span", { class: "hint" }, "Start from a template:"), TEMPLATES.map((t) => el("button", { type: "button", onclick: () => useTemplate(t) }, t.label)));

  // A problem next to each control: the schema's as it is typed, the API's after a save.
  const problems = {};
  const withProblem = (key, control, label, hint) => {
    const note = el("p", { class: "field-error", id: `${control.id || (control.id = newId())}-problem`, hidden: true });
    problems[key] = { note, control };
    const f = field(label, control, hint);
    control.setAttribute("aria-describedby", [control.getAttribute("aria-describedby"), note.id].filter(Boolean).join(" "));
    f.append(note);
    return f;
  };
  const setProblem = (key, text) => {
    const p = problems[key];
    if (!p) return;
    p.note.textContent = text || "";
    p.note.hidden = !text;
    if (text) p.control.setAttribute("aria-invalid", "true");
    else p.control.removeAttribute("aria-invalid");
  };
  const clearProblems = () => Object.keys(problems).forEach((k) => setProblem(k, ""));
  // The headers' problem shows under their rows.
  const headersNote = el("p", { class: "field-error", id: newId(), hidden: true });
  headersBox.setAttribute("aria-describedby", headersNote.id);
  problems.headers = { note: headersNote, control: headersBox };

  const form = el(
    "form",
    { class: "card action-form", "aria-labelledby": "action-form-h", novalidate: true },
    formTitle,
    templates,
    el("div", { class: "grid" },
      withProblem("name", name, "Name", "What the model calls it: lower-case letters, digits and _, starting with a letter (lookup_order)."),
      withProblem("method", method, "Method")),
    withProblem("description", description, "Description", "What the model reads to decide when to call it (up to 1,000 characters)."),
    withProblem("url", url, "URL", "Your endpoint (http or https). Each call is signed: check its webhook-signature header with the signing secret."),
    withProblem("parameters", parameters, "Parameters (JSON Schema)", 'The arguments the model must give, as a JSON Schema object with "type": "object" (at most 8 KB).'),
    headersBox,
    headersNote,
    el("div", { class: "check" }, enabled, el("label", { for: enabled.id }, "Enabled: offered to the model")),
    el("div", { class: "row" }, submit, cancel),
  );
  formTitle.id = "action-form-h";

  function headerRow(headerName, stored) {
    const n = el("input", { type: "text", maxlength: 100, spellcheck: "false", autocomplete: "off", placeholder: "Authorization", value: headerName });
    const v = el("input", { type: "password", autocomplete: "off", spellcheck: "false", placeholder: stored ? `${HIDDEN} (kept)` : "Value" });
    const row = el("div", { class: "header-row" });
    row.stored = stored ? headerName : null; // the stored header this row keeps, unless renamed or retyped
    fill(row,
      field("Header name", n),
      field("Value", v, stored ? "Leave empty to keep the stored value." : null),
      el("button", { type: "button", class: "danger", "aria-label": `Remove the header ${headerName || "row"}`, onclick: () => { row.remove(); addHeader.disabled = false; addHeader.focus(); } }, "Remove"));
    headerRows.append(row);
    addHeader.disabled = headerRows.children.length >= MAX_HEADERS;
  }

  function headersBody() {
    const out = {};
    for (const row of headerRows.children) {
      const [n, v] = row.querySelectorAll("input");
      const key = n.value.trim();
      if (!key) continue;
      out[key] = v.value ? v.value : row.stored && row.stored === key ? HIDDEN : "";
    }
    return out;
  }

  // The schema editor: checked as the owner types; Save waits for a schema the API takes.
  function checkParameters() {
    const { problem } = checkSchema(parameters.value);
    setProblem("parameters", problem);
    submit.disabled = !!problem;
    return !problem;
  }
  parameters.addEventListener("input", checkParameters);

  function fillForm(a, title) {
    clearProblems();
    name.value = a.name || "";
    description.value = a.description || "";
    url.value = a.url || "";
    method.value = a.method || "POST";
    parameters.value = JSON.stringify(a.parameters || { type: "object", properties: {} }, null, 2);
    enabled.checked = a.enabled !== false;
    headerRows.replaceChildren();
    for (const h of Object.keys(a.headers || {})) headerRow(h, true);
    addHeader.disabled = headerRows.children.length >= MAX_HEADERS;
    formTitle.textContent = title;
    checkParameters();
  }

  function reset() {
    editing = null;
    fillForm({}, "Add an action");
    url.placeholder = "https://shop.example/api/orders";
    cancel.hidden = true;
    templates.hidden = false;
  }

  function useTemplate(t) {
    fillForm({ name: t.name, description: t.description, method: t.method, parameters: t.parameters, url: editing ? url.value : "" }, formTitle.textContent);
    url.placeholder = t.placeholder;
    announce(`Filled from “${t.label}”: add your endpoint's URL, then save.`);
    url.focus();
  }

  function edit(a) {
    editing = a;
    fillForm(a, `Change ${a.name}`);
    cancel.hidden = false;
    templates.hidden = true;
    form.scrollIntoView({ block: "start" });
    name.focus();
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!checkParameters()) return parameters.focus();
    clearProblems();
    const body = {
      name: name.value.trim(),
      description: description.value.trim(),
      url: url.value.trim(),
      method: method.value,
      parameters: JSON.parse(parameters.value),
      headers: headersBody(),
      enabled: enabled.checked,
    };
    submit.disabled = true;
    const { data, error } = editing ? await write("PATCH", `${base}/${editing.id}`, body) : await write("POST", base, body);
    submit.disabled = false;
    if (error) {
      if (error.status === 401) return;
      const fields = { ...error.fields };
      if (error.code === "invalid_url" || error.code === "url_blocked") fields.url ||= error.message;
      if (error.code === "action_name_taken") fields.name ||= error.message;
      const shown = Object.entries(fields).filter(([k]) => problems[k]);
      shown.forEach(([k, text]) => setProblem(k, text));
      if (shown.length) {
        const first = problems[shown[0][0]].control;
        (first.matches("fieldset") ? first.querySelector("input") || addHeader : first).focus();
      }
      const said = Object.entries(fields);
      return announce(said.length ? `The action was not saved: ${said.map(([k, t]) => `${k} ${t}`).join("; ")}.` : error.message, "error");
    }
    if (!editing) {
      showSecret(secretBox, data.signingSecret, `Signing secret of ${data.action.name}`);
      secretBox.append(el("p", { class: "hint" }, "It will not be shown again. Your endpoint verifies each call's webhook-signature header with it (Standard Webhooks)."));
      secretBox.scrollIntoView({ block: "nearest" });
      announce(`Action ${data.action.name} added. Copy its signing secret now: it is not shown again.`);
    } else {
      fill(secretBox);
      announce(`Action ${data.action.name} saved.`);
    }
    reset();
    load();
  });

  // ---- the list ------------------------------------------------------------------------------
  const secretBox = el("div", { class: "action-secret", "aria-live": "polite" });
  const list = el("div", {}, "Loading…");
  const tester = el("div", { class: "tester-holder" });

  async function load() {
    const data = await attempt(() => api("GET", base));
    if (!data) return fill(list, el("p", { class: "empty" }, `Actions need a key with ${kind === "mind" ? "minds:read" : "chatbot:read"}.`));
    actions = data.actions;
    if (!actions.length) return fill(list, el("p", { class: "empty" }, "No actions yet: add one below, or start from a template."));
    fill(list, el(
      "table",
      { class: "actions" },
      el("caption", { class: "sr" }, "Actions"),
      el("thead", {}, el("tr", {}, ["Name", "Endpoint", "Enabled", "Manage"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, actions.map(row)),
    ));
  }

  function row(a) {
    const toggle = el("input", { type: "checkbox", checked: a.enabled, id: newId(), onchange: (e) => setEnabled(a, e.currentTarget) });
    const manage = el("div", { class: "action-buttons" });
    const buttons = () => fill(manage,
      el("button", { type: "button", "aria-label": `Test ${a.name}`, onclick: () => openTester(a) }, "Test"),
      el("button", { type: "button", "aria-label": `Edit ${a.name}`, onclick: () => edit(a) }, "Edit"),
      el("button", { type: "button", class: "danger", "aria-label": `Delete ${a.name}`, onclick: () => confirmDelete() }, "Delete"));
    // Deleting asks here, in the row: the two buttons take the place of the others.
    const confirmDelete = () => {
      const yes = el("button", { type: "button", class: "danger", onclick: () => remove(a) }, "Delete for good");
      fill(manage,
        el("p", { class: "confirm", id: `confirm-${a.id}` }, `Delete ${a.name}? The model stops calling it at once; answers that called it keep their record.`),
        yes,
        el("button", { type: "button", onclick: () => { buttons(); manage.querySelector("button.danger").focus(); } }, "Keep it"));
      yes.setAttribute("aria-describedby", `confirm-${a.id}`);
      yes.focus();
    };
    buttons();
    return el(
      "tr",
      { "data-action": a.id },
      el("th", { scope: "row" }, el("code", {}, a.name), el("p", { class: "hint" }, a.description)),
      el("td", { "data-label": "Endpoint" }, el("span", { class: "method" }, a.method), " ", el("span", { class: "url" }, a.url),
        Object.keys(a.headers || {}).length ? el("p", { class: "hint" }, `Headers: ${Object.keys(a.headers).join(", ")}`) : null),
      el("td", { "data-label": "Enabled" }, el("div", { class: "check" }, toggle, el("label", { for: toggle.id }, el("span", { class: "sr" }, `${a.name} `), "enabled"))),
      el("td", {}, manage),
    );
  }

  async function setEnabled(a, box) {
    const { data, error } = await write("PATCH", `${base}/${a.id}`, { enabled: box.checked });
    if (error) {
      box.checked = !box.checked;
      if (error.status !== 401) announce(error.message, "error");
      return;
    }
    a.enabled = data.action.enabled;
    announce(`${a.name} ${a.enabled ? "enabled: the model may call it" : "disabled: the model no longer calls it"}.`);
  }

  async function remove(a) {
    if (!(await attempt(() => api("DELETE", `${base}/${a.id}`)))) return;
    announce(`Action ${a.name} deleted.`);
    if (editing && editing.id === a.id) reset();
    if (tester.dataset.action === a.id) fill(tester);
    await load();
    const first = list.querySelector("button, a");
    (first || form.querySelector("input")).focus();
  }

  // ---- a test call ---------------------------------------------------------------------------
  function openTester(a) {
    const args = el("textarea", { rows: 5, class: "code", spellcheck: "false" });
    args.value = JSON.stringify(sampleArguments(a.parameters), null, 2);
    const send = el("button", { type: "submit", class: "primary" }, "Send test call");
    const result = el("div", { class: "test-result" });
    const note = el("p", { class: "field-error", id: newId(), hidden: true });
    const argsField = field("Arguments (JSON)", args);
    args.setAttribute("aria-describedby", note.id);
    args.addEventListener("input", () => { note.hidden = true; args.removeAttribute("aria-invalid"); });
    argsField.append(note);
    const testForm = el(
      "form",
      { class: "card action-test", "aria-labelledby": "action-test-h" },
      el("h3", { id: "action-test-h" }, `Test ${a.name}`),
      el("p", { class: "hint" }, `Calls ${a.method} ${a.url} now, as the model would, with these arguments (checked against the parameters first).`),
      argsField,
      el("div", { class: "row" }, send, el("button", { type: "button", onclick: () => { fill(tester); delete tester.dataset.action; } }, "Close")),
      result,
    );
    testForm.addEventListener("submit", async (e) => {
      e.preventDefault();
      let parsed;
      try {
        parsed = JSON.parse(args.value || "{}");
      } catch (err) {
        note.textContent = `Not valid JSON: ${err.message}.`;
        note.hidden = false;
        args.setAttribute("aria-invalid", "true");
        return args.focus();
      }
      send.disabled = true;
      fill(result, el("p", { class: "hint" }, "Calling…"));
      const done = await attempt(() => api("POST", `${base}/${a.id}/test`, { arguments: parsed }));
      send.disabled = false;
      if (!done) return fill(result);
      const r = done.result;
      const facts = [r.httpStatus ? `HTTP ${r.httpStatus}` : "no HTTP answer", `${r.tookMs} ms`].join(" · ");
      fill(result,
        el("p", { class: "call-status" }, el("span", { class: `badge ${r.status === "ok" ? "ready" : "failed"}` }, r.status), ` ${facts}`),
        el("h4", {}, "What it answered"),
        el("pre", { class: "call-body", tabindex: "0" }, r.body || "(empty)"));
      announce(`Test of ${a.name}: ${r.status} · ${facts}.`, r.status === "ok" ? "ok" : "error");
    });
    tester.dataset.action = a.id;
    fill(tester, testForm);
    testForm.scrollIntoView({ block: "start" });
    args.focus();
  }

  // ---- the last calls: read from the newest conversations' answers (no log of its own) -----
  const recent = el("div", { class: "last-calls" });
  async function lastCalls() {
    const owner = kinds[kind].base(id);
    let transcripts;
    try {
      const page = await api("GET", `${owner}/conversations?limit=${RECENT_CONVERSATIONS}`);
      transcripts = await Promise.all(page.conversations.map((c) => api("GET", `${owner}/conversations/${encodeURIComponent(c.id)}`)));
    } catch {
      return fill(recent, el("p", { class: "hint" }, "The last calls need a key with conversations:read."));
    }
    const calls = newestCalls(transcripts, LAST_CALLS);
    if (!calls.length) return fill(recent, el("p", { class: "hint" }, `No calls in the ${RECENT_CONVERSATIONS} newest conversations yet.`));
    fill(recent, el("ul", { class: "calls" }, calls.map(({ at, call }) =>
      el("li", { class: `call ${call.status}` }, callWords(call), " · ", el("time", { datetime: at }, new Date(at).toLocaleString())))));
  }

  reset();
  load();
  lastCalls();
  return el(
    "section",
    { "aria-labelledby": "actions-h" },
    el("h2", { id: "actions-h" }, "Actions"),
    el("p", { class: "hint" }, "Your endpoints the model may call while it answers (at most 3 calls an answer): look up an order, book a meeting, open a ticket. Each call is signed with the action's secret."),
    secretBox,
    list,
    el("h3", {}, "Last calls"),
    recent,
    tester,
    form,
  );
}
