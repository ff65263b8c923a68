#!/usr/bin/env bash
# The full test suite: `bash scripts/test.sh` (what CI runs after its lint steps).
# Installs what the tests need, then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"

if ! cargo nextest --version >/dev/null 2>&1; then
  echo "cargo-nextest not found; installing it from crates.io"
  cargo install --locked cargo-nextest
fi

# Tests talk to servers on 127.0.0.1 only; no test reaches the internet.
cargo nextest run --workspace --locked --no-fail-fast "$@"
