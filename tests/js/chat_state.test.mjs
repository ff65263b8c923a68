// The chat page's state and its rules (lib/http/src/public_page/js/state.js).
// Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import {
  COUNT_FROM, Kept, LIMIT, POLL_FIRST, POLL_MAX, counterStep, endpointOf, keptFor, newSession, nextPollDelay,
  openingBody, parseIdentity, restarted, storeKeyOf, waiting,
} from "../../lib/http/src/public_page/js/state.js";

test("the visitor routes: data-endpoint without its trailing slash, else the page's own path", () => {
  assert.equal(endpointOf("https://fn.lambda-url.example/m/ada/", "/m/ada"), "https://fn.lambda-url.example/m/ada");
  assert.equal(endpointOf("", "/prod/m/ada/"), "/prod/m/ada");
  assert.equal(endpointOf(null, "/c/bot"), "/c/bot");
});

test("the widget's identity: both parts or nothing, decoded, at most 400 characters", () => {
  assert.deepEqual(parseIdentity("#userId=u%201&userHash=abc=def"), { userId: "u 1", userHash: "abc=def" });
  assert.deepEqual(parseIdentity("#userId=u1"), {}, "no hash: no identity");
  assert.deepEqual(parseIdentity("#userId=%E0%A4%A&userHash=h"), {}, "undecodable: dropped");
  assert.deepEqual(parseIdentity("#other=1&userId=u&userHash=h&userId="), { userId: "u", userHash: "h" });
  assert.equal(parseIdentity(`#userId=${"x".repeat(500)}&userHash=h`).userId.length, 400);
  assert.deepEqual(parseIdentity(""), {});
});

test("one conversation kept per page, named by its kind and slug", () => {
  assert.equal(storeKeyOf("m", "ada", "/m/ada", "https://lore.example/m/ada"), "lore:m:ada");
  assert.equal(storeKeyOf(null, null, "https://fn.example/c/support%20bot", "https://lore.example/"), "lore:c:support bot");
  assert.equal(storeKeyOf("x", "ada", "/somewhere", "https://lore.example/"), "lore:/somewhere");
});

function memoryStorage() {
  const items = new Map();
  return {
    getItem: (k) => (items.has(k) ? items.get(k) : null),
    setItem: (k, v) => items.set(k, String(v)),
    removeItem: (k) => items.delete(k),
  };
}

test("the kept conversation is written, read back and forgotten; junk is not used", () => {
  const storage = memoryStorage();
  const kept = new Kept("lore:m:ada", () => storage);
  assert.equal(kept.read(), null);
  kept.write({ id: "conv_1", token: "tok" }, { userId: "u1", userHash: "h" });
  assert.deepEqual(kept.read(), { conversationId: "conv_1", visitorToken: "tok", userId: "u1" });
  storage.setItem("lore:m:ada", '{"conversationId": 5}');
  assert.equal(kept.read(), null);
  storage.setItem("lore:m:ada", "{not json");
  assert.equal(kept.read(), null);
  kept.forget();
  assert.equal(storage.getItem("lore:m:ada"), null);
});

test("blocked storage: the chat goes on without keeping anything", () => {
  const kept = new Kept("k", () => {
    throw new Error("SecurityError");
  });
  assert.equal(kept.read(), null);
  assert.doesNotThrow(() => kept.write({ id: "c", token: "t" }, {}));
  assert.doesNotThrow(() => kept.forget());
});

test("a kept conversation belongs to the visitor it was made for", () => {
  const saved = { conversationId: "c", visitorToken: "t", userId: "u1" };
  assert.equal(keptFor(saved, { userId: "u1" }), saved);
  assert.equal(keptFor(saved, { userId: "u2" }), null);
  assert.equal(keptFor(saved, {}), null);
  assert.equal(keptFor({ conversationId: "c", visitorToken: "t" }, {}).conversationId, "c");
  assert.equal(keptFor(null, {}), null);
});

test("questions wait while an answer is written, a conversation is read, or the gate is not passed", () => {
  const s = newSession();
  assert.equal(waiting(s, false), false);
  assert.equal(waiting(s, true), true, "gated, nobody known yet");
  assert.equal(waiting({ ...s, visitor: { email: "a@b.example" } }, true), false);
  assert.equal(waiting({ ...s, conversation: { id: "c", token: "t" } }, true), false);
  assert.equal(waiting({ ...s, busy: true }, false), true);
  assert.equal(waiting({ ...s, restoring: true }, false), true);
});

test("a new conversation drops the old one and makes what it awaits moot", () => {
  const s = { ...newSession(), conversation: { id: "c" }, visitor: { email: "e" }, busy: true, epoch: 4,
    queue: [{ text: "q" }], handedOff: true, seenAgents: { a: true }, following: false };
  const next = restarted(s);
  assert.equal(next.epoch, 5);
  assert.deepEqual([next.conversation, next.visitor, next.busy, next.handedOff], [null, null, false, false]);
  assert.deepEqual([next.queue, next.seenAgents, next.following], [[], {}, false]);
  assert.equal(s.epoch, 4, "the old state is left as it was");
});

test("opening a conversation sends the gate's filled fields and the widget's identity, or nothing", () => {
  assert.deepEqual(openingBody(null, {}), {});
  assert.deepEqual(openingBody({ email: "a@b.example", name: "" }, {}), { visitor: { email: "a@b.example" } });
  assert.deepEqual(openingBody(null, { userId: "u", userHash: "h" }), { visitor: { userId: "u", userHash: "h" } });
});

test("the counter's steps: hidden, shown, near the limit, at it", () => {
  assert.deepEqual([0, COUNT_FROM - 1, COUNT_FROM, LIMIT - 101, LIMIT - 100, LIMIT - 1, LIMIT, LIMIT + 5].map(counterStep),
    [0, 0, 1, 1, 2, 2, 3, 3]);
});

test("polling a handed-off conversation slows while nothing comes, within 3 to 30 s", () => {
  assert.equal(nextPollDelay(POLL_FIRST, "same"), 4500);
  assert.equal(nextPollDelay(25000, "same"), POLL_MAX);
  assert.equal(nextPollDelay(20000, "fresh"), POLL_FIRST);
  assert.equal(nextPollDelay(4000, "failed"), 8000);
  assert.equal(nextPollDelay(4000, "limited", 20000), 20000, "Retry-After is respected");
  assert.equal(nextPollDelay(4000, "limited", NaN), 8000);
  assert.equal(nextPollDelay(20000, "limited", 60000), POLL_MAX);
});
