// A chatbot's or Mind's channels (docs/api.md §24): its connections to Slack, Telegram and
// WhatsApp. The list (platform, status in words, the last error with its time, the last message,
// the URL to paste with a Copy button, Disconnect confirmed in its row) and "Connect a channel":
// a platform chosen, its steps next to its fields (secrets typed in password fields, cleared
// once sent, never shown again: the API says "•••"), the API's refusals next to the fields, and
// after connecting the URL to paste at the platform with the steps left. The helpers above
// `channelsSection` are pure (tests/js/console_channels.test.mjs).

import { api, attempt, write } from "./api.js";
import { announce, el, field, fill, newId } from "./dom.js";
import { when } from "./format.js";
import { kinds } from "./kinds.js";

/** At most this many channels a chatbot or Mind (the API's `channels_limit_reached`). */
export const MAX_CHANNELS = 10;

const code = (text) => el("code", {}, text);
const link = (href, text) => el("a", { href, target: "_blank", rel: "noopener noreferrer" }, text);
const quoted = (text) => el("strong", {}, text);

/** Each platform: its name, the members the API takes (label, input type, hint), the steps
 * before connecting and those after (lists of parts for `el`), and where its URL is pasted. */
export const PLATFORMS = {
  slack: {
    name: "Slack",
    fields: [
      { member: "botToken", label: "Bot User OAuth Token", type: "password", placeholder: "xoxb-…", hint: "Starts with xoxb-. From “OAuth & Permissions”." },
      { member: "signingSecret", label: "Signing Secret", type: "password", hint: "From “Basic Information”, App Credentials." },
    ],
    before: () => [
      ["Go to ", link("https://api.slack.com/apps", "api.slack.com/apps"), " and create an app (“From scratch”) in your workspace."],
      ["Under ", quoted("OAuth & Permissions"), ", add the bot token scopes ", code("app_mentions:read"), ", ", code("chat:write"), " and ", code("im:history"), "."],
      ["On the same page, install the app to your workspace, then copy the ", quoted("Bot User OAuth Token"), " (it starts with ", code("xoxb-"), ")."],
      ["Under ", quoted("Basic Information"), ", copy the ", quoted("Signing Secret"), "."],
      ["Paste both here and press ", quoted("Connect Slack"), "."],
    ],
    after: () => [
      ["In your Slack app, open ", quoted("Event Subscriptions"), ", turn events on and paste the Request URL above. Slack checks it at once."],
      ["Under ", quoted("Subscribe to bot events"), ", add ", code("app_mention"), " and ", code("message.im"), ", then save."],
      ["Under ", quoted("App Home"), ", allow users to send messages in the ", quoted("Messages"), " tab."],
      ["Mention the app in a channel, or message it directly, to try it."],
    ],
    paste: "Request URL",
  },
  telegram: {
    name: "Telegram",
    fields: [{ member: "botToken", label: "Bot token", type: "password", placeholder: "123456789:AA…", hint: "The token BotFather gave you." }],
    before: () => [
      ["In Telegram, open a chat with ", link("https://t.me/BotFather", "@BotFather"), " and send ", code("/newbot"), "."],
      ["Choose your bot's name and user name. BotFather answers with a token: copy it."],
      ["Paste it here and press ", quoted("Connect Telegram"), ". Lore sets up the rest itself: there is nothing to paste anywhere."],
    ],
    after: () => [["Nothing to paste: Lore told Telegram where to send messages. Send your bot a message to try it."]],
    paste: null,
  },
  whatsapp: {
    name: "WhatsApp",
    fields: [
      { member: "phoneNumberId", label: "Phone number ID", type: "text", inputmode: "numeric", hint: "Digits, from WhatsApp → API Setup (not the phone number itself)." },
      { member: "accessToken", label: "Access token", type: "password", hint: "A permanent System User token with whatsapp_business_messaging." },
      { member: "appSecret", label: "App Secret", type: "password", hint: "From App settings → Basic." },
      { member: "verifyToken", label: "Verify token", type: "password", hint: "Any text you choose. Keep it at hand: you paste it at Meta too." },
    ],
    before: () => [
      ["In ", link("https://developers.facebook.com/apps", "Meta for Developers"), ", open your app with the WhatsApp product (or create a Business app and add WhatsApp)."],
      ["Under ", quoted("WhatsApp → API Setup"), ", copy the ", quoted("Phone number ID"), "."],
      ["In Business Settings → System users, make a permanent access token with the ", code("whatsapp_business_messaging"), " permission. (The temporary token of API Setup stops working after a day.)"],
      ["Under ", quoted("App settings → Basic"), ", copy the ", quoted("App Secret"), "."],
      ["Choose a verify token: any text you like."],
      ["Fill them in here and press ", quoted("Connect WhatsApp"), "."],
    ],
    after: () => [
      ["In your Meta app, open ", quoted("WhatsApp → Configuration"), " and edit the webhook: paste the Callback URL above and your verify token, then press Verify and save."],
      ["Under ", quoted("Webhook fields"), ", subscribe to ", code("messages"), "."],
      ["Send a WhatsApp message to your business number to try it."],
    ],
    paste: "Callback URL",
  },
};

/** A channel's platform, or a conversation's channel, by name: "Slack", "Chat page", "API". */
export function channelName(type) {
  if (PLATFORMS[type]) return PLATFORMS[type].name;
  return { public: "Chat page", api: "API" }[type] || String(type || "API");
}

/** Whether a conversation is held on a connected platform (Slack, Telegram, WhatsApp). */
export const onPlatform = (type) => Object.hasOwn(PLATFORMS, type);

/** A channel in a few words, to tell two of one platform apart: "Slack (bot U0BOT)". */
export function channelLabel(c) {
  const name = channelName(c.type);
  if (c.botUserId) return `${name} (bot ${c.botUserId})`;
  if (c.phoneNumberId) return `${name} (number ID ${c.phoneNumberId})`;
  return name;
}

/** A channel's status in words: not colour alone. */
export const statusWords = (status) => (status === "failing" ? "Failing" : "Active");

/** The URL the owner pastes at the platform, {label, url}, or null (Telegram: Lore sets it). */
export function pasteUrl(c) {
  const label = PLATFORMS[c.type] && PLATFORMS[c.type].paste;
  const url = c.type === "slack" ? c.eventsUrl || c.webhookUrl : c.webhookUrl;
  return label && url ? { label, url } : null;
}

/** Whether a platform on the internet can reach `url`: https, and not this computer's own name. */
export function reachable(url) {
  return /^https:\/\//.test(url) && !/^https:\/\/(localhost|127\.|\[::1\]|0\.0\.0\.0)/i.test(url);
}

/** The body of POST …/channels: the type and that platform's members, trimmed. */
export function channelBody(type, values) {
  const body = { type };
  for (const f of (PLATFORMS[type] || { fields: [] }).fields) body[f.member] = String(values[f.member] ?? "").trim();
  return body;
}

/** What the API said about a member, as a sentence: "is required" → "Bot token is required."
 * (its own words are kept: "Slack refused it: invalid_auth."). */
export function fieldProblem(label, reason) {
  const r = String(reason || "").trim();
  if (!r) return "";
  const sentence = /^(is|must|was|has)\b/.test(r) ? `${label} ${r}` : r[0].toUpperCase() + r.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** A URL to paste, read-only (wrapping: whole at phone width too), labelled, with a Copy button. */
function urlBox(label, url) {
  const box = el("textarea", { readonly: true, rows: 2, class: "code url", spellcheck: "false" });
  box.value = url;
  const copy = async () => {
    box.select();
    try {
      await navigator.clipboard.writeText(url);
      announce(`${label} copied.`);
    } catch {
      announce(`Select the ${label} and copy it with your keyboard.`, "error");
    }
  };
  return el("div", { class: "paste-url" }, field(label, box), el("button", { type: "button", onclick: copy, "aria-label": `Copy the ${label}` }, "Copy"));
}

const steps = (parts, start) => el("ol", { class: "steps", start: start > 1 ? start : null }, parts.map((p) => el("li", {}, p)));

export function channelsSection(kind, id) {
  const base = `${kinds[kind].base(id)}/channels`;
  const owner = kind === "mind" ? "Mind" : "chatbot";

  // ---- after connecting: the URL to paste and the steps left ---------------------------------
  const next = el("div", { class: "channel-next" });
  function showNext(c) {
    const p = PLATFORMS[c.type];
    const paste = pasteUrl(c);
    const title = el("h3", { tabindex: "-1" }, paste ? `${p.name} connected: one more step at ${p.name}` : `${p.name} connected`);
    fill(next, el("div", { class: "card done" },
      title,
      paste ? urlBox(paste.label, paste.url) : null,
      paste && !reachable(paste.url)
        ? el("p", { class: "field-error", role: "note" }, `${p.name} can only reach a public https address, and this one is not. `
          + "Set LORE_PUBLIC_BASE_URL to the address the internet reaches Lore at (or run an https tunnel to it) and restart Lore: "
          + "this URL then follows it.")
        : null,
      steps(p.after(), paste ? p.before().length + 1 : 1),
      el("button", { type: "button", onclick: () => { fill(next); form.querySelector("input").focus(); } }, "Done")));
    title.focus();
  }

  // ---- the form ------------------------------------------------------------------------------
  const choices = el("div", { class: "choices" });
  const typeNote = el("p", { class: "field-error", id: newId(), hidden: true });
  const platformBox = el("fieldset", { class: "platforms", "aria-describedby": typeNote.id }, el("legend", {}, "Platform"), choices, typeNote);
  const radios = Object.entries(PLATFORMS).map(([type, p]) => {
    const r = el("input", { type: "radio", name: `channel-type-${id}`, value: type, id: newId(), onchange: () => choose(type) });
    choices.append(el("div", { class: "check" }, r, el("label", { for: r.id }, p.name)));
    return r;
  });
  const how = el("div", { class: "channel-how" }, el("p", { class: "hint" }, "Choose a platform to see its steps."));
  const submit = el("button", { type: "submit", class: "primary" }, "Connect");
  const form = el("form", { class: "card channel-form", "aria-labelledby": "channel-form-h", novalidate: true },
    el("h3", { id: "channel-form-h" }, "Connect a channel"),
    platformBox, how);
  let chosen = null;
  let inputs = {}; // member → {input, note, label}

  function choose(type) {
    chosen = type;
    const p = PLATFORMS[type];
    inputs = {};
    const fields = p.fields.map((f) => {
      const input = el("input", { type: f.type, autocomplete: "off", spellcheck: "false", placeholder: f.placeholder, inputmode: f.inputmode, required: true, class: f.type === "password" ? null : "code" });
      const note = el("p", { class: "field-error", id: newId(), hidden: true });
      const box = field(f.label, input, f.hint);
      input.setAttribute("aria-describedby", [input.getAttribute("aria-describedby"), note.id].filter(Boolean).join(" "));
      box.append(note);
      inputs[f.member] = { input, note, label: f.label };
      return box;
    });
    const paste = p.paste ? [" After connecting, Lore shows the ", p.paste, " to paste at ", p.name, "."] : "";
    fill(how, el("div", { class: "grid" },
      el("div", { class: "steps-box" }, el("h4", {}, `Steps at ${p.name}`), steps(p.before(), 1), paste ? el("p", { class: "hint" }, paste) : null),
      el("div", {}, el("h4", {}, `Your ${p.name} details`), fields, el("div", { class: "row" }, submit))));
    submit.textContent = `Connect ${p.name}`;
    setType("");
  }

  const setProblem = (member, text) => {
    const it = inputs[member];
    if (!it) return false;
    it.note.textContent = text;
    it.note.hidden = !text;
    if (text) it.input.setAttribute("aria-invalid", "true");
    else it.input.removeAttribute("aria-invalid");
    return true;
  };
  function setType(text) {
    typeNote.textContent = text;
    typeNote.hidden = !text;
  }

  function reset() {
    chosen = null;
    inputs = {};
    radios.forEach((r) => (r.checked = false));
    fill(how, el("p", { class: "hint" }, "Choose a platform to see its steps."));
    setType("");
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!chosen) {
      setType("Choose Slack, Telegram or WhatsApp first.");
      return radios[0].focus();
    }
    Object.keys(inputs).forEach((m) => setProblem(m, ""));
    setType("");
    const values = Object.fromEntries(Object.entries(inputs).map(([m, it]) => [m, it.input.value]));
    const empty = Object.entries(inputs).filter(([m]) => !values[m].trim());
    if (empty.length) {
      empty.forEach(([m, it]) => setProblem(m, `${it.label} is required.`));
      empty[0][1].input.focus();
      return announce(`Not connected: fill in ${empty.map(([, it]) => it.label).join(", ")}.`, "error");
    }
    const p = PLATFORMS[chosen];
    submit.disabled = true;
    submit.textContent = `Checking with ${p.name}…`;
    const { data, error } = await write("POST", base, channelBody(chosen, values));
    submit.disabled = false;
    submit.textContent = `Connect ${p.name}`;
    if (error) {
      if (error.status === 401) return;
      const said = [];
      let first = null;
      for (const [member, reason] of Object.entries(error.fields)) {
        const label = inputs[member] ? inputs[member].label : member === "type" ? "Platform" : member;
        const text = fieldProblem(label, reason);
        said.push(text);
        if (setProblem(member, text)) first ||= inputs[member].input;
        else setType(text);
      }
      if (!said.length) setType(error.code === "channels_limit_reached" ? `A ${owner} has at most ${MAX_CHANNELS} channels: disconnect one first.` : error.message);
      (first || radios.find((r) => r.checked) || radios[0]).focus();
      return announce(`${p.name} was not connected: ${said.length ? said.join(" ") : typeNote.textContent}`, "error");
    }
    // The secrets leave the page: the fields are emptied, and the API never says them again.
    Object.values(inputs).forEach((it) => (it.input.value = ""));
    reset();
    announce(`${p.name} connected.`);
    showNext(data.channel);
    load();
  });

  // ---- the list ------------------------------------------------------------------------------
  const list = el("div", {}, "Loading…");

  async function load() {
    const data = await attempt(() => api("GET", base));
    if (!data) return fill(list, el("p", { class: "empty" }, `Channels need a key with ${kind === "mind" ? "minds:read" : "chatbot:read"}.`));
    const count = data.channels.length;
    if (!count) return fill(list, el("p", { class: "empty" }, "No channels yet: connect one below."));
    fill(list,
      el("table", { class: "channels" },
        el("caption", { class: "sr" }, "Channels"),
        el("thead", {}, el("tr", {}, ["Platform", "Status", "Last message", "Manage"].map((h) => el("th", { scope: "col" }, h)))),
        el("tbody", {}, data.channels.map(row))),
      count >= MAX_CHANNELS ? el("p", { class: "hint" }, `That is ${MAX_CHANNELS} channels, the most a ${owner} may have: disconnect one to connect another.`) : null);
  }

  function row(c) {
    const name = channelLabel(c);
    const paste = pasteUrl(c);
    const manage = el("div", { class: "action-buttons" });
    const buttons = () => fill(manage, el("button", { type: "button", class: "danger", "aria-label": `Disconnect ${name}`, onclick: confirm }, "Disconnect"));
    // Disconnecting asks here, in the row.
    function confirm() {
      const note = el("p", { class: "confirm", id: newId() }, `Disconnect ${name}? It stops answering there at once; its conversations stay here.`);
      const yes = el("button", { type: "button", class: "danger", "aria-describedby": note.id, onclick: () => remove(c, name) }, "Yes, disconnect");
      fill(manage, note, yes, el("button", { type: "button", onclick: () => { buttons(); manage.querySelector("button").focus(); } }, "Keep it"));
      yes.focus();
    }
    buttons();
    const failing = c.status === "failing";
    return el("tr", { "data-channel": c.id, class: failing ? "failing" : null },
      el("th", { scope: "row" }, el("strong", {}, name), el("p", { class: "hint" }, `Connected ${when(c.createdAt)}`),
        paste ? el("details", { class: "channel-url" }, el("summary", {}, paste.label), urlBox(paste.label, paste.url)) : null),
      el("td", { "data-label": "Status" },
        el("span", { class: `badge ${failing ? "failed" : "ready"}` }, failing ? "⚠ " : null, statusWords(c.status)),
        c.lastError ? el("p", { class: "channel-error" }, el("span", { class: "label" }, `Last error, ${when(c.lastError.at)}: `), c.lastError.message) : null),
      el("td", { "data-label": "Last message" }, c.lastMessageAt ? el("time", { datetime: c.lastMessageAt }, when(c.lastMessageAt)) : "None yet"),
      el("td", {}, manage));
  }

  async function remove(c, name) {
    if (!(await attempt(() => api("DELETE", `${base}/${c.id}`)))) return;
    announce(`${name} disconnected.`);
    await load();
    (list.querySelector("button") || radios[0]).focus();
  }

  reset();
  load();
  return el("section", { "aria-labelledby": "channels-h" },
    el("h2", { id: "channels-h" }, "Channels"),
    el("p", { class: "hint" }, `Let people ask this ${owner} in Slack, Telegram or WhatsApp: it answers there from the same knowledge, and the conversations show here. At most ${MAX_CHANNELS} channels.`),
    next,
    list,
    form);
}
