#!/usr/bin/env bash
# Generated SDKs as tests: a Python client (openapi-python-client, PyPI) and TypeScript types
# (openapi-typescript, npm) with the openapi-fetch client are generated from the document `lore
# openapi` prints — exactly what GET /api/v1/openapi.json serves — and each drives the main flow
# against `lore serve` (tests/sdk/python_flow.py, tests/sdk/ts_flow.ts). No generated file is edited
# or committed.
#
#   bash scripts/sdk-test.sh
#
# Checks: the Python generator reports no unusable schema, every generated Python module imports,
# the TypeScript flow type-checks (tsc --strict) against the generated types, and both flows pass.
# Tools are pinned and installed under $LORE_TOOLS_DIR (default ~/.cache/lore/tools). LORE_BIN uses
# an already built `lore`. The generated clients are left in target/sdk/ for inspection.
set -euo pipefail
cd "$(dirname "$0")/.."

PY_GENERATOR_VERSION="0.29.1"
# Slack's official SDK checks our Slack signature verification (tests/sdk/slack_signature.py).
SLACK_SDK_VERSION="3.47.0"
NODE_PACKAGES=(openapi-typescript@7.13.0 openapi-fetch@0.17.0 typescript@5.9.3 @types/node@20.19.43)
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
VENV="$TOOLS_DIR/sdk-venv"
NODE_PREFIX="$TOOLS_DIR/sdk-node"
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
OUT="$PWD/target/sdk"

if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('openapi-python-client') != '$PY_GENERATOR_VERSION' or m.version('slack_sdk') != '$SLACK_SDK_VERSION')" 2>/dev/null; then
  echo "sdk-test: installing openapi-python-client==$PY_GENERATOR_VERSION slack_sdk==$SLACK_SDK_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "openapi-python-client==$PY_GENERATOR_VERSION" "slack_sdk==$SLACK_SDK_VERSION" >&2
fi
if [ "$(cat "$NODE_PREFIX/.installed" 2>/dev/null)" != "${NODE_PACKAGES[*]}" ]; then
  echo "sdk-test: installing ${NODE_PACKAGES[*]} into $NODE_PREFIX" >&2
  mkdir -p "$NODE_PREFIX"
  npm install --silent --no-audit --no-fund --prefix "$NODE_PREFIX" "${NODE_PACKAGES[@]}" >&2
  echo "${NODE_PACKAGES[*]}" > "$NODE_PREFIX/.installed"
fi
if [ -z "${LORE_BIN:-}" ]; then
  # --workspace: the features of the test build (the functions turn on `aws`), so it is reused.
  cargo build -q --locked --workspace --bin lore
  LORE_BIN="$TARGET_DIR/debug/lore"
fi

rm -rf "$OUT"
mkdir -p "$OUT/py" "$OUT/ts"
"$LORE_BIN" openapi > "$OUT/openapi.json"

# --- the Python client, generated and imported module by module
"$VENV/bin/openapi-python-client" generate --path "$OUT/openapi.json" --meta none \
  --output-path "$OUT/py/lore_client" > "$OUT/py/generate.log" 2>&1 || { cat "$OUT/py/generate.log"; exit 1; }
# The generator cannot type an audio response (the two speech operations return the raw response,
# whose `content` is the MP3): that warning is expected; any other is a failure.
if grep -v "speech\|audio/mpeg" "$OUT/py/generate.log" | grep -qi "unable to\|cannot parse\|duplicate"; then
  cat "$OUT/py/generate.log"
  echo "sdk-test: openapi-python-client could not use part of the document" >&2
  exit 1
fi
(cd "$OUT/py" && "$VENV/bin/python" - <<'PY'
import importlib, pathlib
modules = sorted(str(p.with_suffix("")).replace("/", ".") for p in pathlib.Path("lore_client").rglob("*.py"))
for name in modules:
    importlib.import_module(name.removesuffix(".__init__"))
print(f"sdk-test: all {len(modules)} generated Python modules import")
PY
)

# --- the TypeScript types, and the flow type-checked against them
"$NODE_PREFIX/node_modules/.bin/openapi-typescript" "$OUT/openapi.json" -o "$OUT/ts/lore.d.ts" >/dev/null
cp tests/sdk/ts_flow.ts tests/sdk/shipping.md "$OUT/ts/"
ln -s "$NODE_PREFIX/node_modules" "$OUT/ts/node_modules"
printf '{"type": "module"}\n' > "$OUT/ts/package.json"
cat > "$OUT/ts/tsconfig.json" <<'JSON'
{
  "compilerOptions": {
    "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "strict": true,
    "noEmitOnError": true, "skipLibCheck": true, "types": ["node"], "outDir": "out"
  },
  "files": ["ts_flow.ts"]
}
JSON
(cd "$OUT/ts" && node_modules/.bin/tsc -p tsconfig.json)
cp "$OUT/ts/shipping.md" "$OUT/ts/out/"

# --- a server for both flows (private addresses allowed: hooks name the local receivers; the
# extractive responder whatever the environment holds, so that the answers the flows check are
# deterministic and no model is called)
# Slack's Web API is a local stand-in (tests/sdk/slack_signature.py), so a Slack channel connects.
source scripts/lib/serve.sh
SLACK_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$VENV/bin/python" tests/sdk/slack_signature.py stub "$SLACK_PORT" &
SLACK_STUB_PID=$!
start_lore_serve LORE_ALLOW_PRIVATE_NETWORK=true LORE_RESPONDER=extractive \
  LORE_SLACK_API_URL="http://127.0.0.1:$SLACK_PORT/api"
trap 'kill "$SLACK_STUB_PID" 2>/dev/null || true; stop_lore_serve' EXIT
for _ in $(seq 1 100); do
  curl -s -o /dev/null -X POST "http://127.0.0.1:$SLACK_PORT/api/auth.test" && break
  sleep 0.1
done

status=0
PYTHONPATH="$OUT/py" "$VENV/bin/python" tests/sdk/python_flow.py || status=$?
node "$OUT/ts/out/ts_flow.js" || status=$?
"$VENV/bin/python" tests/sdk/slack_signature.py check || status=$?
if [ "$status" != 0 ]; then
  echo "sdk-test: lore serve log (tail):" >&2
  tail -n 40 "$LORE_SERVE_LOG" >&2
fi
exit "$status"
