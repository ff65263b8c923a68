#!/usr/bin/env bash
# Lints the OpenAPI document with Redocly's recommended rules: 0 errors and 0 warnings, or it fails.
#
#   bash scripts/openapi-lint.sh
#
# The document is the one `lore serve` serves, printed by `lore openapi` (no server needed) to
# target/openapi.json. @redocly/cli is pinned and installed with npm under $LORE_TOOLS_DIR
# (default ~/.cache/lore/tools/redocly). LORE_BIN uses an already built `lore`.
set -euo pipefail
cd "$(dirname "$0")/.."

REDOCLY_VERSION="2.77.0"
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
PREFIX="$TOOLS_DIR/redocly"
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

if [ "$(node -p "try { require('$PREFIX/node_modules/@redocly/cli/package.json').version } catch (e) { '' }" 2>/dev/null)" \
   != "$REDOCLY_VERSION" ]; then
  echo "openapi-lint: installing @redocly/cli@$REDOCLY_VERSION into $PREFIX" >&2
  mkdir -p "$PREFIX"
  npm install --silent --no-audit --no-fund --prefix "$PREFIX" "@redocly/cli@$REDOCLY_VERSION" >&2
fi
if [ -z "${LORE_BIN:-}" ]; then
  # --workspace: the features of the test build (the functions turn on `aws`), so it is reused.
  cargo build -q --locked --workspace --bin lore
  LORE_BIN="$TARGET_DIR/debug/lore"
fi
mkdir -p target
"$LORE_BIN" openapi > target/openapi.json
# The recommended rules; warnings count as failures.
status=0
"$PREFIX/node_modules/.bin/redocly" lint target/openapi.json --extends recommended --max-problems 1000 \
  --format json > target/openapi-lint.json 2> target/openapi-lint.log || status=$?
python3 - target/openapi-lint.json "$status" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
totals = report["totals"]
for problem in report.get("problems", []):
    where = "; ".join(l.get("pointer", "") for l in problem.get("location", []))
    print(f"  {problem['severity']}: {problem['ruleId']}: {problem['message']} ({where})")
print(f"openapi-lint: {totals['errors']} errors, {totals['warnings']} warnings (redocly exit {sys.argv[2]})")
sys.exit(1 if totals["errors"] or totals["warnings"] or sys.argv[2] != "0" else 0)
PY
