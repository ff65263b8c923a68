#!/usr/bin/env bash
# Extraction quality (docs/benchmarks.md, "Extraction quality"): Lore's PDF and DOCX text against
# a reference (pdftotext; a DOCX's own w:t runs) and against pypdf / python-docx, on real files
# nobody here wrote: R's and gnuplot's PDF manuals (Debian packages r-doc-pdf, gnuplot-doc) and
# the DOCX test files of mammoth (npm package) and python-docx (PyPI sdist). One command;
# downloads once into ~/.cache/lore/bench-extraction, then rewrites the block in
# docs/benchmarks.md between the extraction-quality markers.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=${LORE_CACHE:-$HOME/.cache/lore}/bench-extraction
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}
PYPDF_VERSION=7.1.1
PYTHON_DOCX_VERSION=1.2.0
MAMMOTH_VERSION=1.13.0
mkdir -p "$CACHE/files"

# Tools: pdftotext (the PDF reference) from poppler-utils.
if ! command -v pdftotext >/dev/null; then
    apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null
fi

# PDFs from Debian's documentation packages.
if [ ! -f "$CACHE/files/gnuplot.pdf" ] || [ ! -f "$CACHE/files/R-intro.pdf" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download r-doc-pdf gnuplot-doc >/dev/null 2>&1 \
        || { apt-get update -qq && apt-get download r-doc-pdf gnuplot-doc >/dev/null; })
    for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/x"; done
    for f in R-intro R-data R-FAQ; do cp "$(find "$tmp/x" -name "$f.pdf" -type f | head -1)" "$CACHE/files/"; done
    cp "$(find "$tmp/x" -name gnuplot.pdf | head -1)" "$CACHE/files/"
    rm -rf "$tmp"
fi

# DOCX test files: mammoth.js (npm, BSD-2-Clause; its PyPI sdist ships no test data) and
# python-docx (PyPI sdist, MIT).
MAMMOTH_FILES="footnotes endnotes text-box tables simple-list comments"
DOCX_FILES="test sct-inner-content blk-inner-content hdr-header-footer doc-odd-even-hdrs"
if [ ! -f "$CACHE/files/mammoth-text-box.docx" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack "mammoth@$MAMMOTH_VERSION" --silent >/dev/null && tar xzf mammoth-*.tgz)
    for f in $MAMMOTH_FILES; do cp "$tmp/package/test/test-data/$f.docx" "$CACHE/files/mammoth-$f.docx"; done
    rm -rf "$tmp"
fi
if [ ! -f "$CACHE/files/python-docx-hdr-header-footer.docx" ]; then
    tmp=$(mktemp -d)
    python3 -m pip download -q --no-deps --no-binary :all: -d "$tmp" "python-docx==$PYTHON_DOCX_VERSION"
    tar xzf "$tmp"/python_docx-*.tar.gz -C "$tmp"
    for f in $DOCX_FILES; do
        cp "$(find "$tmp"/python_docx-* -path "*test_files/$f.docx" | head -1)" "$CACHE/files/python-docx-$f.docx"
    done
    rm -rf "$tmp"
fi

# Peers, pinned, in their own venv.
if [ ! -x "$CACHE/venv/bin/python" ]; then
    python3 -m venv "$CACHE/venv"
    "$CACHE/venv/bin/pip" install -q "pypdf==$PYPDF_VERSION" "python-docx==$PYTHON_DOCX_VERSION"
fi

# Lore's extraction, as an upload gets it (default limits).
cargo build -q --release -p lore-extract --example extract_text
BIN=$CARGO_TARGET_DIR/release/examples/extract_text

files=()
for f in R-intro R-data R-FAQ gnuplot; do files+=("$CACHE/files/$f.pdf"); done
for f in $MAMMOTH_FILES; do files+=("$CACHE/files/mammoth-$f.docx"); done
for f in $DOCX_FILES; do files+=("$CACHE/files/python-docx-$f.docx"); done
table=$(mktemp)
"$CACHE/venv/bin/python" "$ROOT/benches/extraction/measure.py" "$CACHE" "$BIN" "$table" "${files[@]}"

# The block in docs/benchmarks.md between the markers (appended at the end the first time).
block=$(mktemp)
{
    echo "<!-- extraction-quality:begin -->"
    echo "## Extraction quality"
    echo
    echo "How much of a PDF's or DOCX's text Lore extracts, and how clean it is, on real files nobody"
    echo "here wrote: R's and gnuplot's manuals (Debian packages \`r-doc-pdf\`, \`gnuplot-doc\`, typeset"
    echo "with pdfTeX) and the DOCX test files of mammoth (\`mammoth-*\`, npm package, BSD-2-Clause) and"
    echo "python-docx (\`python-docx-*\`, PyPI sdist, MIT). Reference: \`pdftotext\` (poppler) for a PDF;"
    echo "for a DOCX, every \`w:t\` run of the main document, footnotes, endnotes, headers and footers"
    echo "(one copy of content Word stores twice in \`mc:AlternateContent\`). Recall and precision are over"
    echo "multisets of lowercase word tokens (\`\\w+\`); a *line-end hyphen split* is a token ending in \`-\`"
    echo "followed by a lowercase token whose join is a reference word; an *accent split* is a spacing"
    echo "accent (U+00A8 ¨, U+00B4 ´, U+02C6 ˆ, …) left in the text. Lore runs as an upload does"
    echo "(\`lib/extract/examples/extract_text.rs\`, default limits). Targets: recall ≥ 0.99"
    echo "against pdftotext and no line-end hyphen split on the PDFs; footnotes and text boxes extracted."
    echo
    echo "\`\`\`sh"
    echo "bash scripts/bench-extraction.sh"
    echo "\`\`\`"
    echo
    echo "Run $(date -u +%Y-%m-%d) on $(nproc) cores ($(uname -m), $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo));"
    echo "pdftotext $(pdftotext -v 2>&1 | head -1 | awk '{print $3}'), pypdf $PYPDF_VERSION, python-docx $PYTHON_DOCX_VERSION,"
    echo "mammoth test files $MAMMOTH_VERSION, Lore $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- lib/extract || echo '+changes')."
    echo
    cat "$table"
    echo "<!-- extraction-quality:end -->"
} >"$block"
python3 - "$ROOT/docs/benchmarks.md" "$block" <<'PY'
import sys
path, block = sys.argv[1], open(sys.argv[2]).read()
doc = open(path).read()
begin, end = "<!-- extraction-quality:begin -->", "<!-- extraction-quality:end -->"
if begin in doc and end in doc:
    doc = doc[: doc.index(begin)] + block.rstrip("\n") + doc[doc.index(end) + len(end):]
else:
    doc = doc.rstrip("\n") + "\n\n" + block
open(path, "w").write(doc)
PY
rm -f "$table" "$block"
echo "docs/benchmarks.md: extraction-quality block rewritten"
# The Summary of docs/benchmarks.md, written from the blocks (this one included).
python3 "$ROOT/scripts/bench-summary.py"
