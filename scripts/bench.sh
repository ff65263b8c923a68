#!/usr/bin/env bash
# Every benchmark of docs/benchmarks.md, one after the other, each rewriting its own block there:
#
#   bash scripts/bench.sh
#
# 1. scripts/bench-retrieval.sh  retrieval quality and latency through the HTTP API (two corpora)
#    scripts/bench-late-interaction.sh  MiniLM's token states rescoring its candidates (an experiment, two corpora)
#    scripts/bench-extraction.sh extraction quality on real PDFs and DOCX files (vs pdftotext, pypdf, python-docx)
#    scripts/bench-crawl-book.sh crawling the offline Rust book (prints its table; docs/benchmarks.md quotes it)
# 2. scripts/bench-perf.sh       in-process budgets of the performance budgets (docs/benchmarks.md) (chunking, extraction, search, fan-out)
# 3. scripts/bench-process.sh    process budgets of the performance budgets (docs/benchmarks.md) (cold start, API overhead, memory)
# 4. scripts/bench-summary.py    the Summary table of docs/benchmarks.md, from the blocks above (each script also runs it)
#
# Each installs what it needs (Python peers in a venv, wrk from Debian) and builds with the
# `perf` profile, except the Lambda binaries of bench-process.sh, built as deployed (`lambda`:
# fat LTO, several minutes each on two cores). About 15 minutes once built; the first perf build
# takes about 20 more on two cores. Run it on an otherwise idle machine: the ratios are measured in one run, but a loaded
# machine still widens the tails.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for bench in bench-retrieval bench-late-interaction bench-extraction bench-crawl-book bench-perf bench-process; do
  echo "== scripts/$bench.sh"
  bash "scripts/$bench.sh" || status=$?
done
# The Summary of docs/benchmarks.md from every block (each script above also writes it after its own).
echo "== scripts/bench-summary.py"
python3 scripts/bench-summary.py || status=$?
exit "$status"
