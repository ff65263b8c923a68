#!/usr/bin/env bash
# Process-level performance budgets of the performance budgets (docs/benchmarks.md) (benches/process/README.md): one command builds
# everything (the Lambda binaries with the `lambda` profile, as deployed), runs it, and rewrites the
# "Performance budgets (processes)" block of docs/benchmarks.md (between <!-- perf-process:begin -->
# and <!-- perf-process:end -->).
#
#   bash scripts/bench-process.sh                          # every row, rewrites docs/benchmarks.md
#   bash scripts/bench-process.sh --reps 50 --duration 5   # extra arguments go to the bench
#   bash scripts/bench-process.sh --only cold,api          # rows: cold, aws-cold, api, idle, pdf
#   LORE_BENCH_NO_WRITE=1 bash scripts/bench-process.sh    # print only
#
# Needs `wrk` (installed from Debian when missing and apt-get is available).
# 1. Builds the Lambda functions (`api-chatbots`, `api-minds`, `api-forms`, `api-integrations`,
#    `ingest-worker`) and their peers (examples `process-hello-lambda`, `process-floor-lambda`,
#    `process-hello-dynamo`) with the `lambda` profile (fat LTO, one codegen unit: the deployed
#    binaries, several minutes each on 2 cores), and `lore` and its peer (`process-hello-http`) with
#    `perf` (release, incremental).
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
# `lore serve` and its peer as the benches of the code are built (`perf`: release, incremental).
cargo build --profile perf -p lore --bin lore --example process-hello-http
# The Lambda binaries as deployed (`lambda`: fat LTO, one codegen unit, stripped; the root Makefile
# builds them so for `sam build`), and their peers with the same profile: cold start and size are
# properties of the deployed artefact. Cargo puts them in $CARGO_TARGET_DIR/lambda.
cargo build --profile lambda -p lore \
  --example process-hello-lambda --example process-floor-lambda --example process-hello-dynamo
# Two builds, as `sam build` builds each function alone: the functions that embed link the MiniLM
# model code (`lore/minilm`), and built together with them the records-only ones would too.
cargo build --profile lambda -p api-chatbots -p api-minds -p ingest-worker
cargo build --profile lambda -p api-forms -p api-integrations

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

args=(--bin-dir "$CARGO_TARGET_DIR/perf" --lambda-bin-dir "$CARGO_TARGET_DIR/lambda")
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  args+=(--write "$PWD/docs/benchmarks.md") # absolute: the bench runs in its package directory
fi
export LORE_BENCH_COMMAND="bash scripts/bench-process.sh${*:+ $*}"
cargo bench --profile perf --bench process -- "${args[@]}" "$@"
# The Summary of docs/benchmarks.md, written from the blocks (this one included).
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  python3 scripts/bench-summary.py
fi
echo "bench-process: finished in $(($(date +%s) - start)) s (build included)" >&2
