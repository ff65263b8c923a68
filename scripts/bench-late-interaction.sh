#!/usr/bin/env bash
# Late interaction with all-MiniLM-L6-v2's token states against its sentence vectors, on both
# retrieval corpora (benches/retrieval/late_interaction.py explains the method). One command:
# embeds the corpora (lib/embed/examples/token_states.rs, `perf` profile), scores them with numpy
# and rewrites the block of docs/benchmarks.md between <!-- late-interaction:begin --> and
# <!-- late-interaction:end -->.
#
#   bash scripts/bench-late-interaction.sh
#   LORE_BENCH_NO_WRITE=1 bash scripts/bench-late-interaction.sh   # print only
#
# About 4 minutes on 2 cores once built (embedding the Cargo book's chunks is most of it).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"
bash scripts/fetch-model.sh >/dev/null

# numpy, through the BM25 anchor's venv (rank_bm25 depends on it), as scripts/bench-retrieval.sh makes it.
venv="$HOME/.cache/lore/bm25-venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check rank_bm25==0.2.2
fi

cargo build --profile perf -p lore-embed --features minilm --example token_states
data="$HOME/.cache/lore/late-interaction"
args=()
for corpus in cpython:benches/retrieval cargo-book:benches/retrieval/cargo-book; do
  name="${corpus%%:*}" dir="${corpus#*:}"
  "$CARGO_TARGET_DIR/perf/examples/token_states" "$dir/corpus.jsonl" "$dir/queries.jsonl" "$data/$name"
  args+=(--corpus "$name" "$data/$name" "$dir/queries.jsonl")
done

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- lib benches || echo ' + uncommitted changes')"
header="Measured $(date -u +%Y-%m-%d) on $cpu ($(nproc) CPUs), revision $rev. Reproduce with \`bash scripts/bench-late-interaction.sh\`."
block="$("$venv/bin/python" benches/retrieval/late_interaction.py "${args[@]}" --header "$header")"
echo "$block"
if [ -z "${LORE_BENCH_NO_WRITE:-}" ]; then
  BLOCK="$block" python3 - docs/benchmarks.md <<'PY'
import os, re, sys
path = sys.argv[1]
text = open(path).read()
begin, end = "<!-- late-interaction:begin (written by scripts/bench-late-interaction.sh) -->", "<!-- late-interaction:end -->"
if begin not in text or end not in text:
    sys.exit(f"{path} has no late-interaction markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + "\n" + os.environ["BLOCK"] + "\n" + end + tail)
PY
  # The Summary of docs/benchmarks.md, written from the blocks (this one included).
  python3 scripts/bench-summary.py
fi
