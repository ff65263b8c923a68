#!/usr/bin/env bash
# Puts the all-MiniLM-L6-v2 embedding model where `lore` looks for it: see
# layers/minilm/fetch-model.sh, which lives beside the Lambda layer's Makefile because `sam build`
# copies only that folder before running it.
exec bash "$(dirname "$0")/../layers/minilm/fetch-model.sh" "$@"
