#!/usr/bin/env bash
# The Summary of docs/benchmarks.md is what scripts/bench-summary.py writes from the bench blocks
# (run by scripts/test.sh; under a second, no build):
# - it is up to date, and every budget is either generated or in the "not yet generated" list;
# - the generator is idempotent, and writes the same table into a page whose table was emptied
#   (so the table comes from the blocks, not from itself);
# - every budget the Summary had when it became generated (issue 58) still has its row.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/benchmarks.md
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "bench-summary-test: $*" >&2; exit 1; }

python3 scripts/bench-summary.py --check "$doc" || fail "$doc's Summary is out of date (python3 scripts/bench-summary.py)"

cp "$doc" "$tmp/once.md"
python3 scripts/bench-summary.py "$tmp/once.md" 2>/dev/null
cp "$tmp/once.md" "$tmp/twice.md"
python3 scripts/bench-summary.py "$tmp/twice.md" 2>/dev/null
cmp -s "$tmp/once.md" "$tmp/twice.md" || fail "a second run changes the page: not idempotent"

# The table emptied, markers kept: the generator must write it back as it was.
sed '/^<!-- summary:begin/,/^<!-- summary:end -->/{/^<!-- summary:/!d}' "$doc" >"$tmp/empty.md"
grep -q '^| hybrid nDCG' "$tmp/empty.md" && fail "emptying the table did not work"
python3 scripts/bench-summary.py "$tmp/empty.md" 2>/dev/null
cmp -s "$doc" "$tmp/empty.md" || fail "the table written into an emptied Summary differs from $doc's"

# Every budget row of the Summary as it was kept by hand (2026-12-08), by its budget text: in the
# generated table or in the "not yet generated" list.
rows="$(sed -n '/^<!-- summary:begin/,/^<!-- summary-pending:end -->/p' "$doc")"
missing=0
while IFS= read -r budget; do
  if ! grep -qF "| $budget |" <<<"$rows"; then
    echo "bench-summary-test: no Summary row for the budget: $budget" >&2
    missing=1
  fi
done <<'BUDGETS'
hybrid nDCG@10 ≥ better mode + 0.02 (MiniLM)
hybrid nDCG@10 ≥ 1.17 × BM25 (MiniLM)
PDF word recall ≥ 0.99 vs pdftotext, no hyphen split
DOCX footnotes, endnotes, text boxes extracted
chunking ≥ 10× LangChain, every size
PDF extraction ≥ 5× pypdf
DOCX extraction ≥ 5× python-docx
XLSX extraction ≥ 5× openpyxl (read-only)
PPTX extraction ≥ 5× python-pptx
EPUB extraction ≥ 5× ebooklib (+ lxml)
MiniLM ingest ≥ sentence-transformers
semantic search p99 ≤ 10 ms, exact, 10k / 100k
keyword search p99 ≤ 10 ms, 10k / 100k
pgvector keyword / hybrid p99 ≤ 50 ms, 100k chunks of one owner
pgvector semantic p99 ≤ 30 ms, 100k (HNSW)
pgvector keyword ranking = embedded index
AWS composition's nDCG@10 within 0.01 of the embedded backend's, every mode (MiniLM)
HTTP hybrid search p95 ≤ 50 ms, MiniLM, 10k
analytics report p99 ≤ 50 ms, 100k messages / 90 days, embedded
webhook fan-out ≥ 1,000/s
webhook fan-out ≥ 10,000/s (stretch)
webhook retries ≤ 1 s late
Lambda cold start ≤ 2× hello world, over floor
AWS cold start ≤ 2× hello + `GetItem`, over floor
AWS cold start of each route group ≤ 2× a hello world making the same DynamoDB calls, over floor
pgvector at 100k chunks of real text (MiniLM): semantic p99 ≤ 30 ms with recall@10 ≥ 0.95, keyword and hybrid p99 ≤ 50 ms
first `citations` of a streamed answer, p50, MiniLM, 10k chunks: embedded ≤ 30 ms / AWS ≤ 80 ms
API p99 ≤ 5 ms, 32 connections
API ≥ 10,000 req/s, 2 cores
API ≥ 50 % of the hello world's req/s
`lore serve` idle ≤ 50 MB
Lambda handler peak ≤ 128 MB, 10 MB PDF
MiniLM ingest peak ≤ 256 MiB, 10 MB PDF
e5 ingest peak ≤ 300 MiB, 10 MB PDF; `lore serve` with e5 idle ≤ 50 MB
MiniLM on Lambda (reported, no budget)
BUDGETS
[ "$missing" = 0 ] || fail "budget rows are missing"
echo "bench-summary-test: ok"
