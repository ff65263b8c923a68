#!/usr/bin/env bash
# The Zapier integration (integrations/zapier) tested as Zapier runs it: zapier-platform-core's
# createAppTester against `lore serve` and a local receiver standing in for Zapier's hook URLs,
# plus the platform's own schema validation of the app definition.
#
#   bash scripts/zapier-test.sh
#
# Installs the app's locked dependencies (`npm ci`, into integrations/zapier/node_modules), builds
# and starts `lore serve` on a free port with a fresh data dir (private addresses allowed, so that
# hooks and URL sources may name 127.0.0.1; the extractive responder), runs `node --test`, and
# stops the server. LORE_BIN uses an already built `lore`.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

(cd integrations/zapier && npm ci --silent --no-audit --no-fund >/dev/null)
if [ -z "${LORE_BIN:-}" ]; then
  # --workspace: the features of the test build (the functions turn on `aws`), so it is reused.
  cargo build -q --locked --workspace --bin lore
  LORE_BIN="$TARGET_DIR/debug/lore"
fi

# Private addresses allowed, so that hooks and URL sources may name the local receiver; retries
# after 1 s; the extractive responder whatever the environment holds (OPENAI_API_KEY, …), so that
# "Ask a Mind or Chatbot" gets the deterministic answers the tests check and calls no model.
source scripts/lib/serve.sh
start_lore_serve LORE_ALLOW_PRIVATE_NETWORK=true LORE_WEBHOOK_RETRY_SCHEDULE=1s LORE_RESPONDER=extractive

status=0
(cd integrations/zapier && NODE_ENV=test node --test test/) || status=$?
if [ "$status" != 0 ]; then
  echo "zapier-test: lore serve log (tail):" >&2
  tail -n 40 "$LORE_SERVE_LOG" >&2
fi
exit "$status"
