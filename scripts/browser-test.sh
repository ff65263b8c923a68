#!/usr/bin/env bash
# The public chat page (GET /m/{slug}, /c/{slug}) and the widget that embeds it on other sites
# (GET /widget.js) in a real browser: Debian's Chromium, driven headlessly by
# Debian's ChromeDriver through Selenium (PyPI), against `lore serve` answering with a local
# OpenAI-compatible stub model (tests/browser/stub_model.py, streamed answers and speech).
#
#   bash scripts/browser-test.sh
#
# What it checks is in tests/browser/chat_page.py (the page), tests/browser/widget.py (the
# widget on host pages of other origins), tests/browser/languages.py (the page and the widget in
# the visitor's language, right to left for Arabic) and tests/browser/console.py (the owners'
# console); all run, and the script fails when any fails.
# Screenshots (desktop and phone width) are written to target/browser/ in the repository (the CI
# artifacts), or to $LORE_SCREENSHOTS.
#
# Installs what is missing: the chromium and chromium-driver packages (apt-get, as root) and
# Selenium into a venv under $LORE_TOOLS_DIR (default ~/.cache/lore/tools). LORE_BIN uses an
# already built `lore` instead of `cargo build`; LORE_CHROMIUM / LORE_CHROMEDRIVER override the
# browser and its driver.
set -euo pipefail
cd "$(dirname "$0")/.."

SELENIUM_VERSION="4.51.0"
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
VENV="$TOOLS_DIR/browser-venv"
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
export LORE_CHROMIUM="${LORE_CHROMIUM:-/usr/bin/chromium}"
export LORE_CHROMEDRIVER="${LORE_CHROMEDRIVER:-/usr/bin/chromedriver}"

if [ ! -x "$LORE_CHROMIUM" ] || [ ! -x "$LORE_CHROMEDRIVER" ]; then
  echo "browser-test: installing Debian's chromium and chromium-driver" >&2
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q chromium chromium-driver >/dev/null \
    || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q chromium chromium-driver >/dev/null; }
fi

if ! "$VENV/bin/python" -c "import selenium, sys; sys.exit(selenium.__version__ != '$SELENIUM_VERSION')" 2>/dev/null; then
  echo "browser-test: installing selenium==$SELENIUM_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "selenium==$SELENIUM_VERSION" >&2
fi

# axe-core (npm, MPL-2.0), pinned: the console's accessibility check injects it into each view.
AXE_VERSION="4.14.1"
AXE_DIR="$TOOLS_DIR/axe-core-$AXE_VERSION"
if [ ! -f "$AXE_DIR/package/axe.min.js" ]; then
  echo "browser-test: fetching axe-core@$AXE_VERSION" >&2
  mkdir -p "$AXE_DIR"
  (cd "$AXE_DIR" && npm pack --silent "axe-core@$AXE_VERSION" >/dev/null && tar xzf "axe-core-$AXE_VERSION.tgz")
fi
export LORE_AXE_JS="$AXE_DIR/package/axe.min.js"

if [ -z "${LORE_BIN:-}" ]; then
  # --workspace: the features of the test build (the functions turn on `aws`), so it is reused.
  cargo build -q --locked --workspace --bin lore
  LORE_BIN="$TARGET_DIR/debug/lore"
fi
export LORE_BIN
export LORE_SCREENSHOTS="${LORE_SCREENSHOTS:-$PWD/target/browser}"
mkdir -p "$LORE_SCREENSHOTS"

export PYTHONDONTWRITEBYTECODE=1 # the tests import each other: no __pycache__ left in the tree
failed=0
for test in chat_page widget languages console; do
  echo "browser-test: $test" >&2
  if ! "$VENV/bin/python" "tests/browser/$test.py"; then
    echo "browser-test: $test FAILED" >&2
    failed=1
  fi
done
exit "$failed"
