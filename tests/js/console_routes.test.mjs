// The console's addresses and the API paths of its views (lib/http/src/console/js/router.js,
// kinds.js) and who is signed in (state.js). Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { SECTIONS, parseRoute, sectionHref } from "../../lib/http/src/console/js/router.js";
import { busy, kinds } from "../../lib/http/src/console/js/kinds.js";
import { can, clearTimers, later, signIn, signOutOfState, state } from "../../lib/http/src/console/js/state.js";

test("each address names its view", () => {
  assert.deepEqual(parseRoute("#/minds"), { view: "list", kind: "mind" });
  assert.deepEqual(parseRoute("#/chatbots/cb_1"), { view: "owner", kind: "chatbot", id: "cb_1", section: "knowledge" });
  assert.deepEqual(parseRoute("#/minds/m1/sources/s1"), { view: "chunks", kind: "mind", id: "m1", sourceId: "s1" });
  assert.deepEqual(parseRoute("#/chatbots/c/conversations/conv_9"),
    { view: "transcript", kind: "chatbot", id: "c", conversationId: "conv_9" });
  assert.deepEqual(parseRoute("#/webhooks"), { view: "webhooks" });
  assert.deepEqual(parseRoute("#/webhooks/hook_1"), { view: "hook", hookId: "hook_1" });
  assert.deepEqual(parseRoute("#workspace"), { view: "workspace" });
  assert.deepEqual(parseRoute("#/privacy"), { view: "privacy" });
  assert.deepEqual(parseRoute("#/minds//m1/"), { view: "owner", kind: "mind", id: "m1", section: "knowledge" }, "empty parts are skipped");
});

test("a chatbot's or Mind's page: a section at each address, the first one by default", () => {
  assert.deepEqual(SECTIONS.map(([s]) => s), ["knowledge", "search", "settings", "publish", "conversations", "analytics", "tests", "actions", "channels"]);
  for (const [section] of SECTIONS) {
    const href = sectionHref("chatbot", "cb_1", section);
    assert.equal(href, `#/chatbots/cb_1/${section}`);
    assert.deepEqual(parseRoute(href), { view: "owner", kind: "chatbot", id: "cb_1", section });
  }
  assert.deepEqual(parseRoute("#/minds/m1/settings/"), { view: "owner", kind: "mind", id: "m1", section: "settings" });
  assert.deepEqual(parseRoute("#/minds/m1"), parseRoute("#/minds/m1/knowledge"));
  // Conversations is a section, one conversation still its transcript.
  assert.deepEqual(parseRoute("#/minds/m1/conversations"), { view: "owner", kind: "mind", id: "m1", section: "conversations" });
  assert.equal(parseRoute("#/minds/m1/conversations/conv_1").view, "transcript");
});

test("an address that names no view goes to one that does", () => {
  assert.deepEqual(parseRoute(""), { view: "redirect", to: "#/chatbots" });
  assert.deepEqual(parseRoute("#/nothing/here"), { view: "redirect", to: "#/chatbots" });
  assert.deepEqual(parseRoute("#/minds/m1/sources"), { view: "redirect", to: "#/minds/m1" });
  assert.deepEqual(parseRoute("#/chatbots/c/nothing"), { view: "redirect", to: "#/chatbots/c" });
  assert.deepEqual(parseRoute("#/chatbots/c/unknown/x"), { view: "redirect", to: "#/chatbots" });
});

test("chatbots and Minds: their own API paths and field names", () => {
  assert.equal(kinds.chatbot.process("cb", "s"), "/api/v1/chatbots/cb/sources/s/process");
  assert.equal(kinds.mind.process("m", "s"), "/api/v1/minds/m/knowledge/s/reprocess");
  assert.equal(kinds.mind.chunks("m", "s"), "/api/v1/minds/m/knowledge/s/chunks");
  assert.equal(kinds.chatbot.search("cb"), "/api/v1/chatbots/cb/knowledge/search");
  assert.deepEqual([kinds.chatbot.instructions, kinds.mind.instructions], ["descriptor", "systemPrompt"]);
  assert.deepEqual([kinds.chatbot.page, kinds.mind.page], ["c", "m"]);
});

test("a source is being worked on until ready or failed", () => {
  assert.deepEqual(["pending", "processing", "transcribing", "ready", "failed", "error"].map(busy),
    [true, true, true, false, false, false]);
});

test("signing in keeps the workspace and the scopes, never the key; signing out forgets them", () => {
  const who = { workspace: { id: "ws_1", name: "default" }, key: { id: "key_1", scopes: ["minds:read", "workspace:admin"] } };
  assert.deepEqual(signIn(who), { workspace: who.workspace, scopes: who.key.scopes });
  assert.equal(can("workspace:admin"), true);
  assert.equal(can("webhooks:write"), false);
  signOutOfState();
  assert.equal(state.session, null);
  assert.equal(can("minds:read"), false);
});

test("a view's polling stops when the view changes", async () => {
  let ran = 0;
  later(() => ran++, 5);
  later(() => ran++, 5);
  assert.equal(state.timers.length, 2);
  clearTimers();
  assert.equal(state.timers.length, 0);
  await new Promise((done) => setTimeout(done, 20));
  assert.equal(ran, 0);
});

test("polling waits 1 s, doubled after each failed reading, at most 15 s", async () => {
  const { pollDelay } = await import("../../lib/http/src/console/js/state.js");
  assert.deepEqual([0, 1, 2, 3, 4, 10].map(pollDelay), [1000, 2000, 4000, 8000, 15000, 15000]);
});
