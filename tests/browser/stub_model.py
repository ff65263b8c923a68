"""A local OpenAI-compatible model server for the browser test (stdlib only).

POST /v1/chat/completions answers with a fixed text that cites passage [1], streamed word by
word with a short pause between pieces (so that a browser can be seen receiving it piece by
piece); a question containing "hostile" is answered with markup-looking text, to check that the
page shows it as text. A question containing "markdown please" is answered with Markdown (bold, a
list, inline and fenced code, a link), one containing "inert please" with Markdown-looking text that
must stay inert (an HTML image, script URLs in links). POST /v1/audio/speech answers a short
silent WAV file, or 400 while `Stub.speech_fails` is set. GET /stats tells how many requests of
each kind arrived.
"""

import io
import json
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = "Refunds are paid within fourteen days of the return [1]. Shipping costs are not refunded [1]."
HOSTILE = 'Here is <img src=x onerror="window.__xss=7"> and <script>window.__xss=8</script> as text [1].'
MARKDOWN = (
    "**Refunds** are paid within *fourteen days* [1].\n\n"
    "- Keep the `receipt` number\n"
    "- Shipping is not refunded [1]\n\n"
    "1. Pack the item\n"
    "2. Post it\n\n"
    "```\nreturn --order 42\n```\n\n"
    "See [the policy](https://shop.example/refunds) for more."
)
INERT = (
    'Text <img src=x onerror="window.__xss=20"> and [click](javascript:window.__xss=21) and '
    "[x](javascript:alert(1)) and [data](data:text/html,hi) stay text [1]."
)
PIECE_PAUSE_S = 0.12


def answer_for(question):
    q = question.lower()
    if "inert please" in q:
        return INERT
    if "markdown please" in q:
        return MARKDOWN
    if "hostile" in q:
        return HOSTILE
    return ANSWER


def silent_wav(seconds=3, rate=8000):
    frames = b"\x00\x00" * rate * seconds
    out = io.BytesIO()
    out.write(b"RIFF" + struct.pack("<I", 36 + len(frames)) + b"WAVE")
    out.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16))
    out.write(b"data" + struct.pack("<I", len(frames)) + frames)
    return out.getvalue()


class Stub:
    def __init__(self):
        self.counts = {"chat": 0, "speech": 0}
        self.lock = threading.Lock()
        self.audio = silent_wav()
        self.speech_fails = False

    def count(self, kind):
        with self.lock:
            self.counts[kind] += 1


def handler(stub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length) or b"{}")

        def send(self, status, content_type, data):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path == "/stats":
                with stub.lock:
                    self.send(200, "application/json", json.dumps(stub.counts).encode())
            else:
                self.send(404, "application/json", b"{}")

        def do_POST(self):
            if self.path.endswith("/audio/speech"):
                self.body()
                stub.count("speech")
                if stub.speech_fails:
                    self.send(400, "application/json", b'{"error": {"message": "stub: speech fails"}}')
                    return
                self.send(200, "audio/mpeg", stub.audio)
                return
            if not self.path.endswith("/chat/completions"):
                self.send(404, "application/json", b"{}")
                return
            request = self.body()
            stub.count("chat")
            question = ""
            for m in request.get("messages", []):
                if m.get("role") == "user":
                    question = m.get("content") or ""
            text = answer_for(question)
            if not request.get("stream"):
                reply = {
                    "id": "stub",
                    "object": "chat.completion",
                    "created": 0,
                    "model": request.get("model", "stub"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                }
                self.send(200, "application/json", json.dumps(reply).encode())
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            words = text.split(" ")
            for i, word in enumerate(words):
                piece = word if i == 0 else " " + word
                chunk = {
                    "id": "stub",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": request.get("model", "stub"),
                    "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece}, "finish_reason": None}],
                }
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.flush()
                time.sleep(PIECE_PAUSE_S)
            last = {
                "id": "stub",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": request.get("model", "stub"),
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            }
            self.wfile.write(b"data: " + json.dumps(last).encode() + b"\n\ndata: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


def start():
    """Starts the stub on a free port of 127.0.0.1; returns (base URL, stub, server)."""
    stub = Stub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(stub))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", stub, server
