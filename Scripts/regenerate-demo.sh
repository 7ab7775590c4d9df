#!/usr/bin/env bash
# Regenerates the export that `stepkit` (no arguments) shows: the project's own
# generator's demo preset (an iPhone and an Apple Watch overlapping, a
# third-party step app, hand-typed entries, a trip across time zones and a DST
# change). The generator is deterministic, so the file only changes when the
# generator does; re-record the golden files afterwards:
#
#   Scripts/regenerate-demo.sh && STEPKIT_RECORD_GOLDEN=1 swift test --filter stepkitTests
set -euo pipefail
cd "$(dirname "$0")/.."
# The generator is the Benchmarks package's; STEPKIT_SCRATCH_PATH names its build folder (never the
# one StepKit itself builds in: a build folder holds one package).
scratch="${STEPKIT_SCRATCH_PATH:-Benchmarks/.build}"
# The bundled demo stays in the generator's day-by-day order (`--order time`), the order its
# golden files were recorded on.
swift run --package-path Benchmarks --scratch-path "$scratch" export-generator --preset demo --order time \
  -o Sources/stepkit/Resources/demo-export.xml
ls -l Sources/stepkit/Resources/demo-export.xml
