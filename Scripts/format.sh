#!/usr/bin/env bash
# Formats the package's Swift sources with the toolchain's `swift format`
# and the committed .swift-format, or only checks them with --lint.
#
#   Scripts/format.sh          rewrite files in place
#   Scripts/format.sh --lint   report what differs; exit 1 if anything does
set -euo pipefail
cd "$(dirname "$0")/.."
if ! swift format --version >/dev/null 2>&1; then
  echo "format.sh: this Swift toolchain has no 'swift format' (Swift 6 toolchains ship it)" >&2
  exit 2
fi
paths=(Package.swift Sources Tests Benchmarks Examples)
existing=()
for p in "${paths[@]}"; do [ -e "$p" ] && existing+=("$p"); done
if [ "${1:-}" = "--lint" ]; then
  swift format lint --strict --recursive --parallel "${existing[@]}"
else
  swift format format --in-place --recursive --parallel "${existing[@]}"
fi
