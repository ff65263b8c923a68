#!/usr/bin/env bash
# Makes the venv of the Python embedding peer (benches/embed/peer.py): sentence-transformers on
# PyTorch, CPU only, everything from PyPI with pinned versions.
#
#   bash scripts/st-venv.sh          # prints the venv's python on stdout when done
#
# PyPI's torch wheel for Linux x86_64 is the CUDA build: it cannot even be imported without the
# NVIDIA libraries (libcudart, libcublasLt, ... are loaded at `import torch`), and PyPI has no
# official CPU-only wheel, so they are installed with it (~5 GB); no GPU is used. Nothing here
# downloads model weights: peer.py loads the files of scripts/fetch-model.sh.
#
# Environment:
#   LORE_ST_VENV   where the venv goes (default ~/.cache/lore/st-venv)
#
# Idempotent: when the venv has the pinned versions it does nothing but print its python.
set -euo pipefail

PINS=(
  "torch==2.15.0"
  "sentence-transformers==6.2.0"
  "transformers==5.24.0"
  "tokenizers==0.23.3" # the tokenizer the reference embeddings were cross-checked against
)

VENV="${LORE_ST_VENV:-$HOME/.cache/lore/st-venv}"
PYTHON="${PYTHON:-python3}"

log() { echo "st-venv: $*" >&2; }

# True when the venv's packages have exactly the pinned versions.
complete() {
  [ -x "$VENV/bin/python" ] && "$VENV/bin/python" - "${PINS[@]}" 2>/dev/null <<'PY'
import sys
from importlib.metadata import version
sys.exit(any(version(name) != want for name, want in (p.split("==") for p in sys.argv[1:])))
PY
}

if complete; then
  log "the venv is already in place"
  echo "$VENV/bin/python"
  exit 0
fi

log "installing ${PINS[*]} into $VENV (several GB, mostly the NVIDIA libraries torch imports)"
mkdir -p "$(dirname "$VENV")"
"$PYTHON" -m venv "$VENV"
# nice: the machine has 2 cores and is usually building something else.
nice "$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}" >&2

complete || { log "error: the venv does not have ${PINS[*]}"; exit 1; }
log "ready ($(du -sh "$VENV" | cut -f1))"
echo "$VENV/bin/python"
