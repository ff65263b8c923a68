#!/usr/bin/env bash
# Puts a local embedding model (all-MiniLM-L6-v2, or with `e5` multilingual-e5-small) where
# `lore` looks for it: see layers/minilm/fetch-model.sh, which lives beside the Lambda layers'
# Makefile because `sam build` copies only that folder before running it.
exec bash "$(dirname "$0")/../layers/minilm/fetch-model.sh" "$@"
