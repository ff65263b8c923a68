// What the console's Actions section checks and lists (lib/http/src/console/js/actions.js): the
// schema editor's verdicts, sample arguments, a call in words and the newest calls across
// transcripts. Run by scripts/js-test.sh (node --test).
import test from "node:test";
import assert from "node:assert/strict";
import { callWords, checkSchema, newestCalls, sampleArguments } from "../../lib/http/src/console/js/actions.js";

test("the schema editor refuses what the API would, and says where JSON breaks", () => {
  assert.equal(checkSchema('{"type": "object", "properties": {}}').problem, undefined);
  assert.match(checkSchema('{"type": "object",').problem, /line|position|JSON/i);
  assert.match(checkSchema("[]").problem, /object/);
  assert.match(checkSchema('{"type": "string"}').problem, /"type": "object"/);
  const big = JSON.stringify({ type: "object", description: "x".repeat(9000) });
  assert.match(checkSchema(big).problem, /8 KB|8,192|bytes/);
});

test("sample arguments follow the schema's properties", () => {
  const args = sampleArguments({ type: "object", properties: { orderId: { type: "string" }, n: { type: "integer" } } });
  assert.deepEqual(Object.keys(args), ["orderId", "n"]);
});

test("a call in words never holds its arguments", () => {
  const words = callWords({ name: "lookup_order", status: "ok", httpStatus: 200, tookMs: 182, arguments: { orderId: "10042" } });
  assert.equal(words, "Called lookup_order · ok · 200 · 182 ms");
  assert.equal(callWords({ name: "x", status: "invalid", httpStatus: null, tookMs: 0 }), "Called x · invalid · 0 ms");
});

test("the newest calls across transcripts, newest first, at most the limit", () => {
  const call = (name) => ({ name, status: "ok", httpStatus: 200, tookMs: 1 });
  const transcripts = [
    { messages: [{ createdAt: "2026-12-07T10:00:00.000Z", conversationId: "conv_a", actions: [call("a1"), call("a2")] }] },
    { messages: [{ createdAt: "2026-12-07T09:00:00.000Z", conversationId: "conv_b", actions: [] }, { createdAt: "2026-12-07T11:00:00.000Z", conversationId: "conv_b", actions: [call("b1")] }] },
    { messages: [{ role: "user", createdAt: "2026-12-07T12:00:00.000Z", conversationId: "conv_c" }] },
  ];
  const got = newestCalls(transcripts, 2);
  assert.deepEqual(got.map((c) => [c.call.name, c.conversationId]), [["b1", "conv_b"], ["a1", "conv_a"]]);
  assert.equal(newestCalls([], 10).length, 0);
});
