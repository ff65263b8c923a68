"""Our Slack signature check agrees with Slack's own: requests signed by the official Python SDK's
`slack_sdk.signature.SignatureVerifier` are accepted by a Slack channel's events route, and the
ones it would refuse are refused (run by scripts/sdk-test.sh).

    slack_signature.py stub PORT    a stand-in for Slack's Web API (auth.test, chat.postMessage)
    slack_signature.py check        the checks, against LORE_URL with LORE_KEY; the server's
                                    LORE_SLACK_API_URL points at the stub
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from slack_sdk.signature import SignatureVerifier

SIGNING_SECRET = "e3b1c4d5a6f70819aabbccddeeff0011"


class SlackStub(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.endswith("/auth.test"):
            body = {"ok": True, "user_id": "U0BOT", "bot_id": "B0BOT"}
        else:
            body = {"ok": True, "ts": "1700000001.000200"}
        raw = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, *args):
        pass


def call(method, path, body=None, headers=None):
    url = os.environ["LORE_URL"] + path
    data = body if isinstance(body, bytes) else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=20) as res:
            return res.status, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def check():
    key = {"authorization": "Bearer " + os.environ["LORE_KEY"]}
    status, created = call("POST", "/api/v1/chatbots", {"name": "Slack signature check"}, key)
    assert status == 201, created
    bot = created["chatbot"]["id"]
    status, connected = call(
        "POST", f"/api/v1/chatbots/{bot}/channels",
        {"type": "slack", "botToken": "xoxb-1-2-sdk", "signingSecret": SIGNING_SECRET}, key,
    )
    assert status == 201, connected
    events = "/channels/" + connected["channel"]["id"] + "/slack/events"

    verifier = SignatureVerifier(signing_secret=SIGNING_SECRET)
    body = json.dumps({"token": "x", "challenge": "sdk-challenge-42", "type": "url_verification"}).encode()
    now = str(int(time.time()))
    signature = verifier.generate_signature(timestamp=now, body=body)
    assert verifier.is_valid(body=body, timestamp=now, signature=signature)

    def post(raw, timestamp, sig):
        return call("POST", events, raw, {"x-slack-request-timestamp": timestamp, "x-slack-signature": sig})

    status, answer = post(body, now, signature)
    assert (status, answer) == (200, {"challenge": "sdk-challenge-42"}), (status, answer)

    # What the SDK refuses, the route refuses: another body, another secret, a stale timestamp.
    tampered = body.replace(b"42", b"43")
    assert not verifier.is_valid(body=tampered, timestamp=now, signature=signature)
    status, answer = post(tampered, now, signature)
    assert (status, answer["error"]["code"]) == (401, "unauthorized"), (status, answer)
    other = SignatureVerifier(signing_secret="another-secret").generate_signature(timestamp=now, body=body)
    status, answer = post(body, now, other)
    assert (status, answer["error"]["code"]) == (401, "unauthorized"), (status, answer)
    stale = str(int(time.time()) - 6 * 60)
    stale_signature = verifier.generate_signature(timestamp=stale, body=body)
    assert not verifier.is_valid(body=body, timestamp=stale, signature=stale_signature), "the SDK refuses it too"
    status, answer = post(body, stale, stale_signature)
    assert (status, answer["error"]["code"]) == (401, "unauthorized"), (status, answer)

    # An event signed by the SDK is acknowledged.
    event = json.dumps({"type": "event_callback", "event_id": "EvSDK1", "team_id": "T1", "event": {
        "type": "app_mention", "user": "U1", "text": "<@U0BOT> hello", "ts": "1700000000.000100", "channel": "C1"}}).encode()
    now = str(int(time.time()))
    status, answer = post(event, now, verifier.generate_signature(timestamp=now, body=event))
    assert (status, answer) == (200, {"status": "success"}), (status, answer)
    print("slack signature: requests signed by slack_sdk's SignatureVerifier are accepted; what it refuses is refused")


if __name__ == "__main__":
    if sys.argv[1] == "stub":
        ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), SlackStub).serve_forever()
    else:
        check()
