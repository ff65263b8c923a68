#!/usr/bin/env bash
# Crawls the offline Rust book (mdBook, shipped with the toolchain's rust-docs component) into a
# URL source of a fresh `lore serve` and reports what the knowledge base got, as Markdown:
#
#   bash scripts/bench-crawl-book.sh
#   LORE_BIN=path/to/lore BOOK_DIR=path/to/book CRAWL_DEPTH=3 CRAWL_MAX_PAGES=500 bash scripts/bench-crawl-book.sh
#
# 1. Finds the book at `$(rustc --print sysroot)/share/doc/rust/html/book` (runs
#    `rustup component add rust-docs` when it is missing) and serves it with
#    `python3 -m http.server` on a free port of 127.0.0.1.
# 2. Builds `lore` (debug; LORE_BIN skips that) and starts `lore serve` on a fresh data dir
#    (scripts/lib/serve.sh) with LORE_ALLOW_PRIVATE_NETWORK=true (the book is on 127.0.0.1) and
#    LORE_CRAWL_MAX_PAGES (default 500: the book has about 110 pages) and LORE_EMBEDDER (default
#    minilm, the default of `lore serve`: it sizes the chunks; `local` is much faster).
# 3. With the dev key (workspace `default`, every scope): creates a chatbot and a URL source for
#    the book's index.html at depth 3 (index → toc.html, the mdBook table of contents framed in
#    <noscript> → chapters), processes it and polls its detail until `ready` or `error` (at most
#    POLL_SECS, default 900 s).
# 4. Reads the source's chunks from the data dir's SQLite file (no API lists chunks) and prints
#    pages crawled, chunks, chunks per page URL (top 10), the share of chunks from print.html (the
#    whole book on one page) and the heading-only chunks (every non-blank line a Markdown heading).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"

DEPTH="${CRAWL_DEPTH:-3}"
MAX_PAGES="${CRAWL_MAX_PAGES:-500}"
POLL_SECS="${POLL_SECS:-900}"
# The embedder decides the chunk size (its own tokens for minilm): the default of `lore serve`.
EMBEDDER="${LORE_EMBEDDER:-minilm}"

# 1. The book.
if [ -z "${BOOK_DIR:-}" ]; then
  BOOK_DIR="$(rustc --print sysroot)/share/doc/rust/html/book"
  if [ ! -f "$BOOK_DIR/index.html" ]; then
    echo "bench-crawl-book: the Rust book is missing; rustup component add rust-docs" >&2
    rustup component add rust-docs >&2
  fi
fi
if [ ! -f "$BOOK_DIR/index.html" ]; then
  echo "bench-crawl-book: no index.html in $BOOK_DIR" >&2
  exit 1
fi

# 2. The binary and the two servers.
if [ -z "${LORE_BIN:-}" ]; then
  cargo build -q --locked -p lore --bin lore
  LORE_BIN="$CARGO_TARGET_DIR/debug/lore"
fi
export LORE_BIN

# shellcheck source=scripts/lib/serve.sh
. scripts/lib/serve.sh

BOOK_PID=""
cleanup() {
  if [ -n "$BOOK_PID" ]; then
    kill "$BOOK_PID" 2>/dev/null || true
    wait "$BOOK_PID" 2>/dev/null || true
  fi
  stop_lore_serve
}

book_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BOOK_LOG="$(mktemp)"
python3 -m http.server "$book_port" --bind 127.0.0.1 --directory "$BOOK_DIR" > "$BOOK_LOG" 2>&1 &
BOOK_PID=$!
trap 'cleanup; rm -f "$BOOK_LOG"' EXIT
BOOK_URL="http://127.0.0.1:$book_port/index.html"
for _ in $(seq 1 100); do
  if curl -sf -o /dev/null "$BOOK_URL"; then break; fi
  sleep 0.1
done
curl -sf -o /dev/null "$BOOK_URL" || { echo "bench-crawl-book: the book server did not start" >&2; cat "$BOOK_LOG" >&2; exit 1; }

# start_lore_serve replaces the EXIT trap with its own: put back one that stops both servers.
start_lore_serve LORE_ALLOW_PRIVATE_NETWORK=true LORE_CRAWL_MAX_PAGES="$MAX_PAGES" LORE_EMBEDDER="$EMBEDDER" || {
  cleanup
  rm -f "$BOOK_LOG"
  exit 1
}
trap 'cleanup; rm -f "$BOOK_LOG"' EXIT
DB="$LORE_SERVE_WORK/data/lore.db"

api() {
  local method="$1" path="$2"
  shift 2
  curl -sS -X "$method" "$LORE_URL$path" -H "Authorization: Bearer $LORE_KEY" -H 'content-type: application/json' "$@"
}

# 3. Chatbot, source, processing.
BOT="$(api POST /api/v1/chatbots -d '{"name":"Rust book"}' | jq -r .chatbot.id)"
SRC="$(api POST "/api/v1/chatbots/$BOT/sources" \
  -d "{\"type\":\"url\",\"name\":\"The Rust book\",\"url\":\"$BOOK_URL\",\"crawlDepth\":$DEPTH}" | jq -r .source.id)"
if [ -z "$SRC" ] || [ "$SRC" = null ]; then
  echo "bench-crawl-book: could not create the source" >&2
  exit 1
fi
started=$(date +%s)
api POST "/api/v1/chatbots/$BOT/sources/$SRC/process" > /dev/null
status=pending
while :; do
  detail="$(api GET "/api/v1/chatbots/$BOT/sources/$SRC")"
  status="$(jq -r .source.status <<< "$detail")"
  case "$status" in ready | error) break ;; esac
  if [ $(($(date +%s) - started)) -ge "$POLL_SECS" ]; then
    echo "bench-crawl-book: still $status after $POLL_SECS s" >&2
    break
  fi
  sleep 1
done
elapsed=$(($(date +%s) - started))
if [ "$status" != ready ]; then
  echo "bench-crawl-book: the source ended $status: $(jq -r .source.error <<< "$detail")" >&2
fi
pages="$(jq -r .source.pagesCrawled <<< "$detail")"

# 4. The chunks, from SQLite (read-only; the server may still hold the file).
python3 - "$DB" "$SRC" "$pages" "$status" "$elapsed" "$DEPTH" "$MAX_PAGES" "$BOOK_LOG" "$BOOK_DIR" "$EMBEDDER" <<'PY'
import re
import sqlite3
import sys
from collections import Counter
from urllib.parse import urlparse

db, src, pages, status, elapsed, depth, max_pages, book_log, book_dir, embedder = sys.argv[1:]
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
rows = con.execute("SELECT url, content FROM chunks WHERE source_id = ? ORDER BY position", (src,)).fetchall()
heading = re.compile(r"^\s{0,3}#{1,6}(\s|$)")


def page(url):
    return urlparse(url).path.rsplit("/", 1)[-1] or "/" if url else "(none)"


def heading_only(text):
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(heading.match(line) for line in lines)


per_page = Counter(page(url) for url, _ in rows)
# The book server's access log: what the crawler asked for, and which HTML pages it got.
log_line = re.compile(r'"GET (\S+) HTTP/[\d.]+" (\d{3})')
requests = [m.groups() for m in map(log_line.search, open(book_log, errors="replace")) if m]
by_status = Counter(code for _, code in requests)
served = {page(p.split("?")[0]) for p, code in requests if code == "200" and p.split("?")[0].endswith((".html", "/"))}
unchunked = sorted(served - set(per_page))
total = len(rows)
print_chunks = per_page.get("print.html", 0)
headings = sum(1 for _, text in rows if heading_only(text))
pct = lambda n: f"{100 * n / total:.1f} %" if total else "–"

print(f"### Crawl of the offline Rust book (depth {depth}, max pages {max_pages}, embedder `{embedder}`)")
print()
print(f"Book: `{book_dir}`; source status `{status}` after {elapsed} s.")
print()
print("| measure | value |")
print("|---|---|")
print(f"| pages crawled (source `pagesCrawled`) | {pages} |")
print(f"| distinct page URLs among the chunks | {len(per_page)} |")
print(f"| requests the book server saw | {len(requests)} ({', '.join(f'{n}× {c}' for c, n in sorted(by_status.items()))}) |")
missing = [p for p, code in requests if code == "404"]
print(f"| not found (first 5) | {', '.join(f'`{p}`' for p in missing[:5]) or '–'} |")
print(f"| HTML pages served with no chunk | {len(unchunked)}: {', '.join(unchunked[:10]) or '–'} |")
print(f"| chunks | {total} |")
print(f"| chunks from print.html | {print_chunks} ({pct(print_chunks)}) |")
print(f"| heading-only chunks | {headings} ({pct(headings)}) |")
print()
print("Chunks per page URL (top 10):")
print()
print("| page | chunks |")
print("|---|---|")
for name, n in per_page.most_common(10):
    print(f"| {name} | {n} |")
if headings:
    print()
    print("Heading-only chunks (first 5):")
    print()
    shown = 0
    for url, text in rows:
        if heading_only(text):
            print(f"- {page(url)}: `{' / '.join(l.strip() for l in text.splitlines() if l.strip())[:100]}`")
            shown += 1
            if shown == 5:
                break
PY
