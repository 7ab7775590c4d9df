#!/bin/sh
# Builds one libFuzzer target with the fuzzer and address sanitizers and runs it.
#
#   ./run.sh TARGET SECONDS     e.g. ./run.sh FuzzZip 600
#
# Seeds come from corpus/<name>/ (FuzzZip -> corpus/zip); FuzzXML also starts
# from the real exports the tests use, stored once in
# ../Tests/HealthExportTests/Fixtures, and FuzzParallel from both. Inputs libFuzzer finds go to work/<name>/
# and crashes to artifacts/<TARGET>/ (both git-ignored).
# FUZZ_SCRATCH sets the build directory (default .build-fuzz), so several
# people can fuzz from one checkout.
#
# How the build works on Linux: toolset.json adds `-sanitize=fuzzer,address`
# to every compile and link, and links with lld (gold crashes on the sanitizer
# runtime). SwiftPM gives each executable its own `main`, so the targets'
# main.swift hands the test function to libFuzzer's LLVMFuzzerRunDriver
# instead of building with `-parse-as-library` and libFuzzer's `main`.
set -eu
cd "$(dirname "$0")"
TARGET=${1:?usage: run.sh TARGET SECONDS}
DURATION=${2:?usage: run.sh TARGET SECONDS}
NAME=$(printf '%s' "${TARGET#Fuzz}" | tr '[:upper:]' '[:lower:]')
SCRATCH=${FUZZ_SCRATCH:-.build-fuzz}

swift build -c release --scratch-path "$SCRATCH" --product "$TARGET" --toolset "$PWD/toolset.json"

SEEDS="corpus/$NAME"
if [ "$NAME" = xml ]; then SEEDS="$SEEDS ../Tests/HealthExportTests/Fixtures"; fi
if [ "$NAME" = parallel ]; then SEEDS="$SEEDS corpus/xml ../Tests/HealthExportTests/Fixtures"; fi

mkdir -p "corpus/$NAME" "work/$NAME" "artifacts/$TARGET"
# shellcheck disable=SC2086 # SEEDS is a list of folders without spaces.
exec "$SCRATCH/release/$TARGET" "work/$NAME" $SEEDS \
  -max_total_time="$DURATION" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="artifacts/$TARGET/" -print_final_stats=1
