#!/usr/bin/env bash
# Puts the 4-bit multilingual-e5-small model where lore-embed's E5Embedder looks for it: see
# layers/minilm/fetch-e5.sh, which lives beside the Lambda layer's Makefile because `sam build`
# copies only that folder before running it.
exec bash "$(dirname "$0")/../layers/minilm/fetch-e5.sh" "$@"
