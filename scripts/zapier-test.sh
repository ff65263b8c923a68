#!/usr/bin/env bash
# The Zapier integration (integrations/zapier) tested as Zapier runs it: zapier-platform-core's
# createAppTester against `lore serve` and a local receiver standing in for Zapier's hook URLs,
# plus the platform's own schema validation of the app definition.
#
#   bash scripts/zapier-test.sh
#
# Installs the app's locked dependencies (`npm ci`, into integrations/zapier/node_modules), builds
# and starts `lore serve` on a free port with a fresh data dir (private addresses allowed, so that
# hooks may name 127.0.0.1), runs `node --test`, and stops the server. LORE_BIN uses an already
# built `lore`.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

(cd integrations/zapier && npm ci --silent --no-audit --no-fund >/dev/null)
if [ -z "${LORE_BIN:-}" ]; then
  cargo build -q --locked --bin lore
  LORE_BIN="$TARGET_DIR/debug/lore"
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
export LORE_URL="http://127.0.0.1:$PORT"
LORE_EMBEDDER=local LORE_ALLOW_PRIVATE_NETWORK=true LORE_PUBLIC_BASE_URL="" LORE_WEBHOOK_RETRY_SCHEDULE=1s \
  "$LORE_BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$WORK/data" > "$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 600); do
  if [ -s "$WORK/data/dev-key" ] && curl -fsS -o /dev/null "$LORE_URL/api/v1/openapi.json" 2>/dev/null; then break; fi
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log"; exit 1; }
  sleep 0.1
done
LORE_KEY="$(cat "$WORK/data/dev-key")"
export LORE_KEY

status=0
(cd integrations/zapier && NODE_ENV=test node --test test/) || status=$?
if [ "$status" != 0 ]; then
  echo "zapier-test: lore serve log (tail):" >&2
  tail -n 40 "$WORK/serve.log" >&2
fi
exit "$status"
