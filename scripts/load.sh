#!/usr/bin/env bash
# The long load run: tests/load.rs (sustained mixed traffic against `lore serve`, then a
# consistency check of stats, lists and the database) for longer than CI's 20 s.
#
#   bash scripts/load.sh                          # 5 minutes, 8 clients
#   LORE_LOAD_SECS=900 LORE_LOAD_CLIENTS=32 bash scripts/load.sh
#
# Environment:
#   LORE_LOAD_SECS       how long the traffic lasts (default here 300; the test's own default is 20)
#   LORE_LOAD_CLIENTS    concurrent clients (default 8), plus one rate-limited client
#   LORE_LOAD_EMBEDDER   the server's embedder (default `local`; `minilm` needs scripts/fetch-model.sh)
#   LORE_LOAD_PROFILE    the cargo profile of the test and of `lore` (default `perf`: release
#                        optimisation without fat LTO, see Cargo.toml; `dev` is what CI runs)
# Prints the report (requests per operation, statuses, latency percentiles) and exits non-zero
# when the test fails. Results of a run: docs/fault-and-load.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"
export LORE_LOAD_SECS="${LORE_LOAD_SECS:-300}"
export LORE_LOAD_CLIENTS="${LORE_LOAD_CLIENTS:-8}"
PROFILE="${LORE_LOAD_PROFILE:-perf}"

if ! cargo nextest --version >/dev/null 2>&1; then
  echo "cargo-nextest not found; installing it from crates.io"
  cargo install --locked cargo-nextest
fi
echo "load: ${LORE_LOAD_SECS} s, ${LORE_LOAD_CLIENTS} clients, profile ${PROFILE}"
exec cargo nextest run -p lore --test load --cargo-profile "$PROFILE" --locked --no-capture "$@"
