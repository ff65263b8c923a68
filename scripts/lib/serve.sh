# Sourced by the test scripts that need a running `lore serve` (scripts/sdk-test.sh,
# scripts/zapier-test.sh):
#
#   start_lore_serve [NAME=value ...]   # extra environment for the server
#
# Starts "$LORE_BIN" serve on a free port of 127.0.0.1 with a fresh data dir and the built-in
# embedder, waits (bounded) until it answers and has written its dev key, and stops it when the
# script exits. Exports LORE_URL and LORE_KEY; the server's output is in "$LORE_SERVE_LOG".
# Readiness is probed with an unauthenticated API request (401), which no budget meters.

stop_lore_serve() {
  if [ -n "${LORE_SERVE_PID:-}" ]; then
    kill "$LORE_SERVE_PID" 2>/dev/null || true
    wait "$LORE_SERVE_PID" 2>/dev/null || true
  fi
  if [ -n "${LORE_SERVE_WORK:-}" ]; then rm -rf "$LORE_SERVE_WORK"; fi
}

start_lore_serve() {
  LORE_SERVE_WORK="$(mktemp -d)"
  LORE_SERVE_LOG="$LORE_SERVE_WORK/serve.log"
  trap stop_lore_serve EXIT
  local port
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  export LORE_URL="http://127.0.0.1:$port"
  env LORE_EMBEDDER=local LORE_PUBLIC_BASE_URL="" "$@" \
    "$LORE_BIN" serve --addr "127.0.0.1:$port" --data-dir "$LORE_SERVE_WORK/data" > "$LORE_SERVE_LOG" 2>&1 &
  LORE_SERVE_PID=$!
  for _ in $(seq 1 600); do
    if [ -s "$LORE_SERVE_WORK/data/dev-key" ] \
       && [ "$(curl -s -o /dev/null -w '%{http_code}' "$LORE_URL/api/v1/chatbots" 2>/dev/null)" = 401 ]; then
      LORE_KEY="$(cat "$LORE_SERVE_WORK/data/dev-key")"
      export LORE_KEY
      return 0
    fi
    if ! kill -0 "$LORE_SERVE_PID" 2>/dev/null; then
      echo "lore serve exited:" >&2
      cat "$LORE_SERVE_LOG" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "lore serve did not answer within 60 s:" >&2
  cat "$LORE_SERVE_LOG" >&2
  return 1
}
