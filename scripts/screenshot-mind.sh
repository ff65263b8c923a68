#!/usr/bin/env bash
# Screenshot test of a Mind's public page (docs/api.md §8, GET /m/{slug}) in headless Chromium.
#
#   bash scripts/screenshot-mind.sh [out.png]     # default: ${CARGO_TARGET_DIR:-target}/screenshots/mind.png
#
# Builds and starts `lore serve` on a free port of 127.0.0.1 with a fresh data dir, creates a
# Mind over the HTTP API with the dev key (name, headline, bio, welcome message, questions),
# sets its theme (background #fdf6e3, primary #0a7c3e) with PATCH, publishes it, and
# screenshots `/m/{slug}` with Chromium. Then it checks the PNG with a small stdlib-only
# Python decoder (zlib): the size is the window's, the theme's background colour covers most
# of the page and its primary colour (the top band, the welcome bubble) is present, so the
# page was rendered with the Mind's theme rather than blank or as an error. It also checks the
# HTML itself (name, escaped text) and that the page is 404 once unpublished.
#
# Needs: curl, python3, Chromium (`apt-get install -y chromium`; LORE_CHROMIUM overrides the
# binary). LORE_BIN uses an already built `lore` instead of `cargo build`.
set -euo pipefail

cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
OUT="${1:-$TARGET_DIR/screenshots/mind.png}"
CHROMIUM="${LORE_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
WIDTH=1000
HEIGHT=1200
BACKGROUND="#fdf6e3"
PRIMARY="#0a7c3e"

if [ -z "$CHROMIUM" ]; then
  echo "screenshot-mind: Chromium not found (apt-get install -y chromium, or set LORE_CHROMIUM)" >&2
  exit 2
fi
if [ -z "${LORE_BIN:-}" ]; then
  cargo build -q --bin lore
  LORE_BIN="$TARGET_DIR/debug/lore"
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:$PORT"
# The built-in embedder: no model files needed; no base URL override, so publicUrl is $BASE/m/….
LORE_EMBEDDER=local LORE_PUBLIC_BASE_URL="" "$LORE_BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$WORK/data" \
  >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!

# Wait (bounded) until the server answers and has written its dev key.
for _ in $(seq 1 300); do
  if [ -s "$WORK/data/dev-key" ] && curl -fsS -o /dev/null "$BASE/api/v1/openapi.json" 2>/dev/null; then
    break
  fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    echo "screenshot-mind: lore serve exited:" >&2
    cat "$WORK/serve.log" >&2
    exit 1
  fi
  sleep 0.1
done
KEY="$(cat "$WORK/data/dev-key")"

api() { # method path [json body] -> prints the body, fails on a non-2xx status
  local method=$1 path=$2 body=${3:-}
  if [ -n "$body" ]; then
    curl -fsS -X "$method" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
      --data "$body" "$BASE$path"
  else
    curl -fsS -X "$method" -H "Authorization: Bearer $KEY" "$BASE$path"
  fi
}
json_get() { python3 -c 'import json, sys; v = json.load(sys.stdin)
for k in sys.argv[1].split("."): v = v[k]
print(v)' "$1"; }

MIND="$(api POST /api/v1/minds '{
  "name": "Ada Lovelace",
  "headline": "Mathematician & the first programmer",
  "bio": "I wrote the first published algorithm for a machine: notes on Babbage'"'"'s Analytical Engine.\n\nAsk me about <engines>, numbers and poetical science.",
  "welcomeMessage": "Hello! What shall we compute today?",
  "suggestedQuestions": ["What is the Analytical Engine?", "How do Bernoulli numbers work?", "What is poetical science?"],
  "expertiseAreas": ["Mathematics", "Computing history", "Poetry"]
}')"
ID="$(printf '%s' "$MIND" | json_get mind.id)"
SLUG="$(printf '%s' "$MIND" | json_get mind.slug)"
api PATCH "/api/v1/minds/$ID" "{\"theme\": {\"backgroundColor\": \"$BACKGROUND\", \"primaryColor\": \"$PRIMARY\",
  \"fontFamily\": \"Georgia, serif\", \"mode\": \"light\"}, \"socialLinks\": {\"website\": \"https://ada.example.com\"}}" \
  >/dev/null
PUBLISHED="$(api POST "/api/v1/minds/$ID/publish" '{"isPublished": true}')"
PUBLIC_URL="$(printf '%s' "$PUBLISHED" | json_get mind.publicUrl)"
if [ "$PUBLIC_URL" != "$BASE/m/$SLUG" ]; then
  echo "screenshot-mind: publicUrl is $PUBLIC_URL, expected $BASE/m/$SLUG" >&2
  exit 1
fi

HTML="$(curl -fsS "$PUBLIC_URL")"
for expected in "<h1>Ada Lovelace</h1>" "Mathematician &amp; the first programmer" "&lt;engines&gt;" \
  "What is the Analytical Engine?" "--bg: $BACKGROUND;"; do
  if ! grep -qF -- "$expected" <<<"$HTML"; then
    echo "screenshot-mind: the page lacks $expected" >&2
    exit 1
  fi
done

mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --hide-scrollbars --user-data-dir="$WORK/chromium" \
  --window-size="$WIDTH,$HEIGHT" --screenshot="$OUT" "$PUBLIC_URL" >"$WORK/chromium.log" 2>&1 || {
  echo "screenshot-mind: Chromium failed:" >&2
  cat "$WORK/chromium.log" >&2
  exit 1
}

python3 - "$OUT" "$WIDTH" "$HEIGHT" "$BACKGROUND" "$PRIMARY" <<'PY'
"""Decodes the PNG with zlib only and checks its size and the theme's colours."""
import struct
import sys
import zlib

path, width, height, background, primary = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
assert len(data) > 10_000, f"suspiciously small PNG: {len(data)} bytes"
pos, idat, header = 8, b"", None
while pos < len(data):
    (length,) = struct.unpack(">I", data[pos : pos + 4])
    kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
    if kind == b"IHDR":
        header = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
w, h, depth, color_type, _, _, interlace = header
assert (w, h) == (width, height), f"PNG is {w}x{h}, expected {width}x{height}"
assert depth == 8 and color_type in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
bpp = 3 if color_type == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
rows, prev, off = [], bytearray(stride), 0
for _ in range(h):
    ftype, line = raw[off], bytearray(raw[off + 1 : off + 1 + stride])
    off += 1 + stride
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if ftype == 1:
            line[i] = (line[i] + a) & 255
        elif ftype == 2:
            line[i] = (line[i] + b) & 255
        elif ftype == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif ftype == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line

def rgb(hexcolour):
    return tuple(int(hexcolour[i : i + 2], 16) for i in (1, 3, 5))

def share(colour, tolerance=2):
    want, hits = rgb(colour), 0
    for row in rows:
        for x in range(0, stride, bpp):
            if all(abs(row[x + k] - want[k]) <= tolerance for k in range(3)):
                hits += 1
    return hits / (w * h)

bg, fg = share(background), share(primary)
print(f"screenshot-mind: {path}: {w}x{h}, {len(data)} bytes; background {background} covers {bg:.1%}, "
      f"primary {primary} {fg:.2%}")
assert bg >= 0.5, f"the theme's background {background} covers only {bg:.1%} of the page"
assert fg >= 0.005, f"the theme's primary colour {primary} is (almost) absent: {fg:.2%}"
PY

# Unpublished, the page is gone.
api POST "/api/v1/minds/$ID/publish" '{"isPublished": false}' >/dev/null
STATUS="$(curl -s -o /dev/null -w '%{http_code}' "$PUBLIC_URL")"
if [ "$STATUS" != 404 ]; then
  echo "screenshot-mind: the unpublished page answered $STATUS, expected 404" >&2
  exit 1
fi
echo "screenshot-mind: ok ($OUT)"
