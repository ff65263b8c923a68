#!/usr/bin/env bash
# The browser JavaScript: the console's and the chat page's ES modules and widget.js, linted with
# ESLint (eslint.config.mjs: the recommended rules, and at most 600 lines a file), then the unit tests of their pure modules (tests/js/*.test.mjs) under
# node's own test runner. Fails on any lint error or warning and on any failed test.
#
#   bash scripts/js-test.sh
#
# ESLint, its recommended rules (@eslint/js) and the `globals` lists are pinned and installed with
# npm once under $LORE_TOOLS_DIR (default ~/.cache/lore/tools/eslint); later runs use that copy
# and need no network. Needs node 20.19 or newer.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_PACKAGES=(eslint@10.16.0 @eslint/js@10.0.1 globals@17.15.0)
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
NODE_PREFIX="$TOOLS_DIR/eslint"

if [ "$(cat "$NODE_PREFIX/.installed" 2>/dev/null)" != "${NODE_PACKAGES[*]}" ]; then
  echo "js-test: installing ${NODE_PACKAGES[*]} into $NODE_PREFIX" >&2
  mkdir -p "$NODE_PREFIX"
  npm install --silent --no-audit --no-fund --prefix "$NODE_PREFIX" "${NODE_PACKAGES[@]}" >&2
  echo "${NODE_PACKAGES[*]}" > "$NODE_PREFIX/.installed"
fi

# Every script a browser runs: the console's and the page's modules, and the widget.
FILES=(lib/http/src/console/js lib/http/src/public_page/js lib/http/src/public_page/widget.js tests/js eslint.config.mjs)

status=0
echo "js-test: eslint" >&2
# eslint.config.mjs finds @eslint/js and globals next to this eslint (it resolves them from
# the running binary), so nothing is installed in the repository.
"$NODE_PREFIX/node_modules/.bin/eslint" --max-warnings 0 --no-warn-ignored "${FILES[@]}" || status=1

echo "js-test: node --test" >&2
node --test tests/js/ || status=1

exit "$status"
