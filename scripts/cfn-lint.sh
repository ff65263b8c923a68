#!/usr/bin/env bash
# Lints the SAM template with cfn-lint (pinned, from PyPI, in a venv under ~/.cache/lore/tools).
#   bash scripts/cfn-lint.sh            # lints template.yaml
set -euo pipefail
cd "$(dirname "$0")/.."

CFN_LINT_VERSION="${LORE_CFN_LINT_VERSION:-1.58.0}"
TOOLS_DIR="${LORE_TOOLS_DIR:-$HOME/.cache/lore/tools}"
VENV="$TOOLS_DIR/cfn-lint-venv"

if [ ! -x "$VENV/bin/cfn-lint" ] || [ "$("$VENV/bin/cfn-lint" --version 2>/dev/null)" != "cfn-lint $CFN_LINT_VERSION" ]; then
  echo "installing cfn-lint==$CFN_LINT_VERSION into $VENV" >&2
  mkdir -p "$TOOLS_DIR"
  python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "cfn-lint==$CFN_LINT_VERSION" >&2
fi
"$VENV/bin/cfn-lint" template.yaml
echo "cfn-lint $CFN_LINT_VERSION: template.yaml is clean"
