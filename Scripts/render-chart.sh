#!/usr/bin/env bash
# Renders `stepkit chart` in headless Chromium and saves a screenshot, to look at
# the chart as a browser draws it.
#
#   Scripts/render-chart.sh [EXPORT] [OUT_DIR]
#
# EXPORT defaults to the bundled demo export; OUT_DIR to /tmp/stepkit-chart.
# Needs chromium (Debian: apt-get install chromium). docs/charts/ keeps one screenshot per
# length of history; others are not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${STEPKIT_SCRATCH_PATH:-.build}"
export_file="${1:-Sources/stepkit/Resources/demo-export.xml}"
out="${2:-/tmp/stepkit-chart}"
mkdir -p "$out"
swift build --scratch-path "$scratch" --product stepkit >/dev/null
stepkit="$scratch/debug/stepkit"
"$stepkit" chart "$export_file" -o "$out/steps.html"
"$stepkit" chart "$export_file" -o "$out/steps.svg"
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome)"
for page in steps.html steps.svg; do
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,700 \
    --screenshot="$out/${page%.*}-${page##*.}.png" "file://$(cd "$out" && pwd)/$page" 2>/dev/null
done
ls -l "$out"/*.png
