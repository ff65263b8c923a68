#!/usr/bin/env bash
# In-process performance budgets (the performance budgets (docs/benchmarks.md)): chunking, extraction, MiniLM
# embedding, embedded and pgvector search (the test PostgreSQL, started here), webhook fan-out and
# conversation answers (embedded, and the AWS composition on the test moto server and PostgreSQL,
# both started here), each measured against its peer or baseline in the same run (benches/perf/main.rs).
# One command reproduces the "Performance budgets (in process)" block of docs/benchmarks.md.
#
#   bash scripts/bench-perf.sh                          # everything, rewrites docs/benchmarks.md
#   bash scripts/bench-perf.sh --only chunking,search   # extra arguments go to the bench
#   LORE_BENCH_NO_WRITE=1 bash scripts/bench-perf.sh    # print only
#
# 1. Creates the Python peers' venv ($HOME/.cache/lore/tools/bench-venv) with pinned versions of
#    langchain-text-splitters, pypdf, python-docx, openpyxl, python-pptx and EbookLib (once; checked by a stamp file), and the
#    sentence-transformers venv of scripts/st-venv.sh (once, ~6 GB) when the embedding section runs.
# 2. Builds the bench with the `perf` profile (release without LTO) and runs it. About 5 minutes
#    once built on 2 cores; most of it is writing 100k chunks into the index and the Python peers.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"

venv="${LORE_BENCH_VENV:-$HOME/.cache/lore/tools/bench-venv}"
# lxml comes with python-docx and EbookLib; the EPUB peer parses with it (its version is reported).
pins=(langchain-text-splitters==1.1.3 pypdf==7.1.0 python-docx==1.2.0 openpyxl==3.1.5 python-pptx==1.0.2 EbookLib==0.20)
stamp="$venv/.lore-pins"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}"
  echo "${pins[*]}" >"$stamp"
fi
export LORE_BENCH_PYTHON="$venv/bin/python"
# The embedding section's peer (sentence-transformers on PyTorch) lives in a venv of its own: it is
# ~6 GB (torch's PyPI wheel imports the NVIDIA libraries). Made once, when the section runs.
# The MiniLM weights serve that section, `http-search` and `conversations`.
case " $* " in
  *" --only "*)
    wants_embedding=$(echo "$*" | grep -c embedding || true)
    wants_model=$(echo "$*" | grep -Ec 'embedding|http-search|conversations|pg-real' || true) ;;
  *) wants_embedding=1 wants_model=1 ;;
esac
# The pgvector row and the AWS row of `conversations` run against the test PostgreSQL, that row
# also against the test moto server (both started here, as the tests do).
case " $* " in
  *" --only "*)
    wants_pg=$(echo "$*" | grep -Ec 'pg-search|pg-real|conversations' || true)
    wants_moto=$(echo "$*" | grep -c conversations || true) ;;
  *) wants_pg=1 wants_moto=1 ;;
esac
if [ "$wants_pg" != 0 ] && [ -z "${LORE_BENCH_DATABASE_URL:-}" ]; then
  bash scripts/postgres.sh start >/dev/null
  LORE_BENCH_DATABASE_URL="$(bash scripts/postgres.sh url)"
  export LORE_BENCH_DATABASE_URL
fi
if [ "$wants_moto" != 0 ] && [ -z "${LORE_BENCH_MOTO_URL:-}" ]; then
  bash scripts/moto.sh start >/dev/null
  LORE_BENCH_MOTO_URL="$(bash scripts/moto.sh url)"
  export LORE_BENCH_MOTO_URL
fi
if [ "$wants_model" != 0 ]; then
  bash scripts/fetch-model.sh >/dev/null
fi
# `pg-real` indexes 100k passages of documentation already on this machine (the Rust docs, the
# crates' docs), cut once by scripts/build-scale-corpus.py (~1.5 min) into a file outside the
# repository; the bench embeds them once with MiniLM (~40 min on 2 cores) and caches the vectors beside it.
scale_corpus="${LORE_BENCH_SCALE_CORPUS:-$HOME/.cache/lore/bench/scale-corpus.jsonl}"
case " $* " in
  *" --only "*) wants_real=$(echo "$*" | grep -c pg-real || true) ;;
  *) wants_real=1 ;;
esac
if [ "$wants_real" != 0 ] && [ ! -s "$scale_corpus" ]; then
  python3 scripts/build-scale-corpus.py --out "$scale_corpus"
fi
if [ "$wants_embedding" != 0 ] && [ -z "${LORE_BENCH_ST_PYTHON:-}" ]; then
  LORE_BENCH_ST_PYTHON="$(bash scripts/st-venv.sh)"
  export LORE_BENCH_ST_PYTHON
fi

args=()
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  args+=(--write "$PWD/docs/benchmarks.md") # absolute: the bench runs in its package directory
fi
export LORE_BENCH_COMMAND="bash scripts/bench-perf.sh${*:+ $*}"
start=$(date +%s)
cargo bench --profile perf --bench perf -- "${args[@]}" "$@"
# The Summary of docs/benchmarks.md, written from the blocks (this one included).
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  python3 scripts/bench-summary.py
fi
echo "bench-perf: finished in $(($(date +%s) - start)) s (build included)" >&2
