#!/usr/bin/env bash
# Contract fuzzing: schemathesis (from PyPI) against the OpenAPI document `lore serve` serves.
#
#   bash scripts/schemathesis.sh                                 # the bounded run (scripts/test.sh)
#   LORE_SCHEMATHESIS_EXAMPLES=500 bash scripts/schemathesis.sh  # the long run
#
# Builds `lore` (`cargo build --workspace --bins`, reusing the test build), starts `lore serve --addr 127.0.0.1:0` on a fresh
# temporary data dir with the built-in lexical embedder, and runs every phase of schemathesis
# (examples, coverage, fuzzing, stateful) against <base>/api/v1/openapi.json with the dev key,
# checking that no response is a 5xx and that every status code, content type and body is the
# one the document declares. Exits non-zero on any failure; the server is stopped at the end.
#
# Two passes over every operation:
#   1. unknown ids: path ids are generated (mostly 404s and 400s);
#   2. known ids: a chatbot, a text source, a form and a Mind are created first and their ids are
#      used for the path parameters of the GET, POST and PATCH operations (DELETE keeps generated
#      ids, so the fixtures survive the pass).
# Key revocation (`DELETE /api/v1/keys/{keyId}`) is left out of both: the stateful phase can take
# the run's own key from `GET /api/v1/keys` and revoke it, and every later answer is then a 401.
# tests/api/keys.rs covers the route.
#
# Nothing leaves 127.0.0.1: the server's request protection only allows port 1
# (LORE_ALLOWED_PORTS=1), so generated URL sources and webhook URLs (ports 80/443 by default) are
# refused before any DNS lookup; schemathesis itself talks to the server only.
#
# Environment:
#   LORE_SCHEMATHESIS_EXAMPLES  test cases per operation and phase (default 15)
#   LORE_SCHEMATHESIS_SEED      the random seed (default 20261122): a failure replays with it
#   LORE_SCHEMATHESIS_VERSION   the schemathesis version (pinned, default 4.32.5)
#   LORE_SCHEMATHESIS_ARGS      extra arguments for `st run` (e.g. operation filters such as
#                               `--exclude-path-regex '^/api/v1/minds'`)
#   LORE_BIN                    an already built `lore` to use instead of building one
#   LORE_TOOLS_DIR              where the venv lives (default ~/.cache/lore/tools)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"

ST_VERSION="${LORE_SCHEMATHESIS_VERSION:-4.32.5}"
EXAMPLES="${LORE_SCHEMATHESIS_EXAMPLES:-15}"
SEED="${LORE_SCHEMATHESIS_SEED:-20261122}"
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
VENV="$TOOLS_DIR/schemathesis-venv"
CHECKS="not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"

# --- schemathesis, pinned, in its own venv (its dependencies do not meet moto's)
mkdir -p "$TOOLS_DIR"
if [ ! -x "$VENV/bin/st" ] \
   || [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" != "$ST_VERSION" ]; then
  echo "installing schemathesis==$ST_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$ST_VERSION" >&2
fi
PY="$VENV/bin/python"

# --- the server
if [ -n "${LORE_BIN:-}" ]; then
  LORE="$LORE_BIN"
else
  # `--workspace`: the package selection of scripts/test.sh's nextest run, so its build is reused.
  cargo build --workspace --bins --locked >&2
  LORE="$CARGO_TARGET_DIR/debug/lore"
fi

# From here on only 127.0.0.1 is spoken to, never through a proxy (curl and schemathesis honour these).
unset HTTP_PROXY HTTPS_PROXY ALL_PROXY http_proxy https_proxy all_proxy
export NO_PROXY='*' no_proxy='*'

WORK="$(mktemp -d "${TMPDIR:-/tmp}/lore-schemathesis.XXXXXX")"
DATA="$WORK/data"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# The server's environment: the embedded backend, the lexical embedder, no way out (see above).
LORE_CMD=(env -u LORE_DATA_DIR -u LORE_PUBLIC_BASE_URL -u LORE_ALLOW_PRIVATE_NETWORK
  LORE_BACKEND=local LORE_EMBEDDER=local LORE_ALLOWED_PORTS=1 LORE_WEBHOOK_TIMEOUT_SECS=1
  "$LORE" --data-dir "$DATA")

# Workspace `default` with limits no run reaches, before the server creates the dev key in it:
# the dev key's default 600 requests per minute would turn the run into 429s.
if ! out="$("${LORE_CMD[@]}" workspaces create --name default --rate-limit-per-minute 100000000 \
  --minds-limit 1000000 --sources-limit 1000000 --mind-source-limit 1000000 2>&1)"; then
  echo "$out" >&2
  exit 1
fi

# `env` execs `lore`: $! is the server's pid.
"${LORE_CMD[@]}" serve --addr 127.0.0.1:0 >"$WORK/serve.out" 2>"$WORK/serve.log" </dev/null &
SERVER_PID=$!
BASE=""
# Bounded wait: 240 tries of 0.25 s.
for _ in $(seq 1 240); do
  BASE="$(sed -n 's|^Lore is listening on \(http://[^ ]*\)$|\1|p' "$WORK/serve.out")"
  [ -n "$BASE" ] && [ -s "$DATA/dev-key" ] && break
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    break
  fi
  sleep 0.25
done
if [ -z "$BASE" ] || [ ! -s "$DATA/dev-key" ]; then
  echo "lore serve did not start; its output:" >&2
  cat "$WORK/serve.out" "$WORK/serve.log" >&2 || true
  exit 1
fi
KEY="$(head -n1 "$DATA/dev-key")"
echo "lore serve: $BASE (data dir $DATA)"

# --- fixtures for the known-ids pass
post() { # post PATH JSON FIELD -> prints .<FIELD>.id of the response
  curl -fsS -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' -d "$2" "$BASE$1" \
    | "$PY" -c "import json, sys; print(json.load(sys.stdin)['$3']['id'])"
}
CHATBOT="$(post /api/v1/chatbots '{"name":"Contract fixture"}' chatbot)"
SOURCE="$(post "/api/v1/chatbots/$CHATBOT/sources" \
  '{"type":"text","name":"notes","content":"Lore keeps knowledge bases, Minds and forms."}' source)"
FORM="$(post /api/v1/forms '{"name":"Contact","fields":[
  {"key":"email","label":"E-mail","type":"email","required":true},
  {"key":"topic","label":"Topic","type":"dropdown","options":["sales","support"]},
  {"key":"score","label":"Score","type":"rating"}]}' form)"
MIND="$(post /api/v1/minds '{"name":"Ada"}' mind)"

# No cache or example database: every run starts from the seed alone.
cat >"$WORK/unknown-ids.toml" <<EOF
[cache]
enabled = false
EOF
cat >"$WORK/known-ids.toml" <<EOF
[cache]
enabled = false

[[operations]]
include-method-regex = "^(GET|POST|PATCH)\$"
parameters = { "path.chatbotId" = "$CHATBOT", "path.sourceId" = "$SOURCE", "path.formId" = "$FORM", "path.mindId" = "$MIND" }
EOF

# --- the runs
status=0
for pass in unknown-ids known-ids; do
  echo "== schemathesis $ST_VERSION, $pass: $EXAMPLES examples per operation, seed $SEED"
  # shellcheck disable=SC2086 # LORE_SCHEMATHESIS_ARGS is a list of arguments
  (cd "$WORK" && "$VENV/bin/st" --config-file "$WORK/$pass.toml" --no-color run "$BASE/api/v1/openapi.json" \
    --header "Authorization: Bearer $KEY" \
    --checks "$CHECKS" \
    --max-examples "$EXAMPLES" \
    --seed "$SEED" \
    --generation-database none \
    --request-timeout 30 \
    --warnings off \
    --exclude-path-regex '^/api/v1/keys/' \
    ${LORE_SCHEMATHESIS_ARGS:-}) || status=$?
done

if [ "$status" -ne 0 ]; then
  echo "== schemathesis failed (exit $status); the server's log, last 40 lines:" >&2
  tail -n 40 "$WORK/serve.log" >&2 || true
fi
exit "$status"
