#!/usr/bin/env bash
# Process-level performance budgets of the performance budgets (docs/benchmarks.md) (benches/process/README.md): one command builds
# everything with the `perf` profile, runs it, and rewrites the "Performance budgets (processes)"
# block of docs/benchmarks.md (between <!-- perf-process:begin --> and <!-- perf-process:end -->).
#
#   bash scripts/bench-process.sh                          # every row, rewrites docs/benchmarks.md
#   bash scripts/bench-process.sh --reps 50 --duration 5   # extra arguments go to the bench
#   bash scripts/bench-process.sh --only cold,api          # rows: cold, aws-cold, api, idle, pdf
#   LORE_BENCH_NO_WRITE=1 bash scripts/bench-process.sh    # print only
#
# Needs `wrk` (installed from Debian when missing and apt-get is available).
# 1. Builds, with the same profile (`perf`: release without fat LTO), our binaries (`lore`,
#    `api-chatbots`, `ingest-worker`) and the peers (examples `process-hello-lambda`,
#    `process-floor-lambda`, `process-hello-http`).
# 2. Runs the bench (benches/process/main.rs): cold starts against a local Runtime API emulator,
#    wrk against `lore serve` and the axum hello world, RSS from /proc/<pid>/status.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"

if ! command -v wrk >/dev/null; then
  if command -v apt-get >/dev/null; then
    echo "bench-process: installing wrk (apt-get)" >&2
    apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
  else
    echo "bench-process: wrk is needed (the API-overhead row); install it and run again" >&2
    exit 1
  fi
fi

start=$(date +%s)
cargo build --profile perf -p lore --bin lore \
  --example process-hello-lambda --example process-floor-lambda --example process-hello-http \
  --example process-hello-dynamo
# Two builds, as `sam build` builds each function alone: the functions that embed link the MiniLM
# model code (`lore/minilm`), and built together with them the records-only ones would too.
cargo build --profile perf -p api-chatbots -p api-minds -p ingest-worker
cargo build --profile perf -p api-forms -p api-integrations

# The AWS composition row runs against moto and the test PostgreSQL (started here, as the tests do).
case " $* " in
  *" --only "*) wants_aws=$(echo "$*" | grep -cE "aws-cold|minilm-lambda" || true) ;;
  *) wants_aws=1 ;;
esac
if [ "$wants_aws" != 0 ]; then
  bash scripts/moto.sh start >/dev/null
  bash scripts/postgres.sh start >/dev/null
  LORE_BENCH_MOTO_URL="$(bash scripts/moto.sh url)"
  LORE_BENCH_DATABASE_URL="$(bash scripts/postgres.sh url)"
  export LORE_BENCH_MOTO_URL LORE_BENCH_DATABASE_URL
fi

args=(--bin-dir "$CARGO_TARGET_DIR/perf")
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  args+=(--write "$PWD/docs/benchmarks.md") # absolute: the bench runs in its package directory
fi
export LORE_BENCH_COMMAND="bash scripts/bench-process.sh${*:+ $*}"
cargo bench --profile perf --bench process -- "${args[@]}" "$@"
echo "bench-process: finished in $(($(date +%s) - start)) s (build included)" >&2
