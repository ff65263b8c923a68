#!/usr/bin/env bash
# The same as `bash scripts/fetch-model.sh e5`: puts multilingual-e5-small (4-bit) where
# LORE_EMBEDDER=e5 reads it, and prints its directory.
exec bash "$(dirname "$0")/fetch-model.sh" e5 "$@"
