// What the console's Channels section says and sends (lib/http/src/console/js/channels.js): the
// platforms' names and steps, a channel in words, the URL to paste, the body of a connection and
// the API's refusals as sentences. Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { PLATFORMS, channelBody, channelLabel, channelName, fieldProblem, onPlatform, pasteUrl, statusWords, reachable } from "../../lib/http/src/console/js/channels.js";

test("each platform asks for exactly the members the API takes", () => {
  const members = Object.fromEntries(Object.entries(PLATFORMS).map(([type, p]) => [type, p.fields.map((f) => f.member)]));
  assert.deepEqual(members, {
    slack: ["botToken", "signingSecret"],
    telegram: ["botToken"],
    whatsapp: ["phoneNumberId", "accessToken", "appSecret", "verifyToken"],
  });
  // Every secret is typed in a password field; only the phone number ID is shown as typed.
  for (const p of Object.values(PLATFORMS)) {
    for (const f of p.fields) assert.equal(f.type, f.member === "phoneNumberId" ? "text" : "password", `${p.name} ${f.member}`);
  }
  // Slack and WhatsApp need a URL pasted at the platform; Telegram's webhook Lore sets itself.
  assert.deepEqual(Object.values(PLATFORMS).map((p) => p.paste), ["Request URL", null, "Callback URL"]);
});

test("a connection's body: the type and that platform's members, trimmed, nothing else", () => {
  const typed = { botToken: " xoxb-1 ", signingSecret: "s3cret\n", accessToken: "left over", phoneNumberId: "123" };
  assert.deepEqual(channelBody("slack", typed), { type: "slack", botToken: "xoxb-1", signingSecret: "s3cret" });
  assert.deepEqual(channelBody("telegram", typed), { type: "telegram", botToken: "xoxb-1" });
  assert.deepEqual(channelBody("whatsapp", { phoneNumberId: "1055", accessToken: "EAA", appSecret: "a", verifyToken: "v" }),
    { type: "whatsapp", phoneNumberId: "1055", accessToken: "EAA", appSecret: "a", verifyToken: "v" });
  assert.deepEqual(channelBody("whatsapp", {}), { type: "whatsapp", phoneNumberId: "", accessToken: "", appSecret: "", verifyToken: "" });
});

test("channels and conversations by name, and two of one platform told apart", () => {
  assert.deepEqual(["slack", "telegram", "whatsapp", "public", "api"].map(channelName), ["Slack", "Telegram", "WhatsApp", "Chat page", "API"]);
  assert.deepEqual(["slack", "public", "api", undefined].map(onPlatform), [true, false, false, false]);
  assert.equal(channelLabel({ type: "slack", botUserId: "U0BOT" }), "Slack (bot U0BOT)");
  assert.equal(channelLabel({ type: "whatsapp", phoneNumberId: "1055" }), "WhatsApp (number ID 1055)");
  assert.equal(channelLabel({ type: "telegram" }), "Telegram");
  assert.deepEqual(["active", "failing"].map(statusWords), ["Active", "Failing"]);
});

test("the URL to paste: Slack's Request URL, WhatsApp's Callback URL, none for Telegram", () => {
  const url = "https://lore.example/channels/chan_1/slack/events";
  assert.deepEqual(pasteUrl({ type: "slack", webhookUrl: url, eventsUrl: url }), { label: "Request URL", url });
  const wa = "https://lore.example/channels/chan_2/whatsapp";
  assert.deepEqual(pasteUrl({ type: "whatsapp", webhookUrl: wa }), { label: "Callback URL", url: wa });
  assert.equal(pasteUrl({ type: "telegram", webhookUrl: "https://lore.example/channels/chan_3/telegram" }), null);
});

test("the API's refusals as sentences next to their fields", () => {
  assert.equal(fieldProblem("Bot token", "is required"), "Bot token is required.");
  assert.equal(fieldProblem("Phone number ID", "must be digits"), "Phone number ID must be digits.");
  assert.equal(fieldProblem("Bot User OAuth Token", "Slack refused it: invalid_auth"), "Slack refused it: invalid_auth.");
  assert.equal(fieldProblem("Platform", "could not reach Slack (timed out); try again"), "Could not reach Slack (timed out); try again.");
  assert.equal(fieldProblem("x", "Done."), "Done.");
  assert.equal(fieldProblem("x", ""), "");
});

test("a URL the platforms can reach is public https", () => {
  assert.equal(reachable("https://lore.example.com/channels/chan_1/slack/events"), true);
  assert.equal(reachable("http://lore.example.com/channels/chan_1/whatsapp"), false);
  assert.equal(reachable("https://127.0.0.1:3000/channels/x"), false);
  assert.equal(reachable("https://localhost/channels/x"), false);
  assert.equal(reachable("https://[::1]:3000/channels/x"), false);
});
