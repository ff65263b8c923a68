#!/usr/bin/env bash
# Bounded fuzzing of Lore's parsers (docs/fuzzing.md): builds the cargo-fuzz targets in fuzz/
# and runs each for a fixed time. Exits non-zero when a target crashes, hangs or runs out of
# memory, and prints the reproducer.
#
#   scripts/fuzz.sh [seconds-per-target] [target...]      (default: 30 s; pdf docx html rtf bodies)
#
# Environment:
#   LORE_FUZZ_TARGET_DIR  build directory (default ~/.cache/lore/fuzz-target; not the main
#                         build's, so the two never wait for each other's lock)
#   LORE_FUZZ_WORK_DIR    where the growing corpora and the crash artifacts live
#                         (default ~/.cache/lore/fuzz; the checked-in seeds are fuzz/seeds/)
#   LORE_FUZZ_TOOLCHAIN   toolchain for the build (default nightly, needed for AddressSanitizer;
#                         without a nightly the build falls back to stable without sanitizer)
#   LORE_FUZZ_SANITIZER   address (default with nightly) or none
#   LORE_FUZZ_ALL_PANICS  1: panics of third-party parsers count as crashes too (by default they
#                         are contained, as the service's isolation layer contains them)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(pdf docx html rtf bodies)

target_dir="${LORE_FUZZ_TARGET_DIR:-$HOME/.cache/lore/fuzz-target}"
work_dir="${LORE_FUZZ_WORK_DIR:-$HOME/.cache/lore/fuzz}"
toolchain="${LORE_FUZZ_TOOLCHAIN:-nightly}"
sanitizer="${LORE_FUZZ_SANITIZER:-}"
# Per input: a parse of a few KiB that takes seconds is a hang; the service's own budget is
# 60 s per document. Memory: the service's parsers must stay far below this.
timeout_s=10
rss_mb=2048

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
if ! rustup run "$toolchain" rustc --version >/dev/null 2>&1; then
    echo "toolchain $toolchain is not installed: building with stable, without sanitizer" >&2
    toolchain=stable
    sanitizer=none
fi
sanitizer="${sanitizer:-address}"
if [ "$toolchain" = stable ] || [[ "$toolchain" == 1.* ]]; then
    # -Zsanitizer is nightly-only; cargo-fuzz's other flags work on stable with this escape.
    export RUSTC_BOOTSTRAP=1
fi

echo "cargo-fuzz: $(cargo fuzz --version); toolchain: $(rustup run "$toolchain" rustc --version); sanitizer: $sanitizer"
build=(cargo "+$toolchain" fuzz build --fuzz-dir fuzz --target-dir "$target_dir" --sanitizer "$sanitizer")
start=$(date +%s)
set +e
"${build[@]}" 2>&1 | grep -v '^ *Compiling '
build_status=${PIPESTATUS[0]}
set -e
[ "$build_status" -eq 0 ] || { echo "fuzz build failed" >&2; exit 1; }
echo "build: $(($(date +%s) - start)) s"

failed=()
for target in "${targets[@]}"; do
    corpus="$work_dir/corpus/$target"
    artifacts="$work_dir/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    before=$(ls "$artifacts" | wc -l)
    echo "== fuzz $target for ${seconds} s"
    set +e
    cargo "+$toolchain" fuzz run --fuzz-dir fuzz --target-dir "$target_dir" --sanitizer "$sanitizer" \
        "$target" "$corpus" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -timeout="$timeout_s" -rss_limit_mb="$rss_mb" \
        -dict="fuzz/dicts/$target.dict" -artifact_prefix="$artifacts/" \
        -print_final_stats=1 -close_fd_mask=1 2>&1 |
        grep -v -E '^(#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)|[[:space:]]+NEW_FUNC|"|INFO: Loaded)'
    status=${PIPESTATUS[0]}
    set -e
    after=$(ls "$artifacts" | wc -l)
    if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
        failed+=("$target")
        echo "!! $target failed (exit $status). Reproducers:"
        ls -t "$artifacts" | head -n $((after - before > 0 ? after - before : 1)) | sed "s|^|   $artifacts/|"
        echo "   replay: cargo +$toolchain fuzz run --fuzz-dir fuzz --target-dir $target_dir $target <file>"
        echo "   minimise: cargo +$toolchain fuzz tmin --fuzz-dir fuzz --target-dir $target_dir $target <file>"
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzzing found problems in: ${failed[*]}" >&2
    exit 1
fi
echo "fuzzing: no crash in ${targets[*]} (${seconds} s each)"
