#!/usr/bin/env bash
# Reads one generated export (≥ 1 GB of XML) with StepKit's reader and with the
# usual alternatives, and prints one table (also written to Benchmarks/RESULTS.md).
#
#   Benchmarks/run-benchmarks.sh [--bytes N] [--work DIR] [--runs N] [--hk2sqlite-timeout SECONDS]
#
# Needs: swift, python3 with lxml and healthkit-to-sqlite (pip install lxml healthkit-to-sqlite),
# GNU time (/usr/bin/time) and unzip. Every reader computes the same thing, raw steps per
# local start date, and the script checks that their totals agree.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bytes=1200000000
work="${TMPDIR:-/tmp}/stepkit-bench"
runs=3
hk_timeout=900
scratch="${SCRATCH_PATH:-$root/.build-bench}"
while [ $# -gt 0 ]; do
  case "$1" in
    --bytes) bytes="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --hk2sqlite-timeout) hk_timeout="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
peers="$root/Benchmarks/peers"

echo "== building (release)" >&2
swift build -c release --scratch-path "$scratch" --package-path "$root" --product reader-benchmark >&2
swift build -c release --scratch-path "$scratch" --package-path "$root" --product export-generator >&2
# (SCRATCH_PATH=.build-NAME reuses an existing build directory.)
bin="$(swift build -c release --scratch-path "$scratch" --package-path "$root" --show-bin-path)"

xml="$work/export.xml"
zip="$work/export.zip"
if [ ! -s "$xml" ] || [ ! -s "$zip" ] || [ "$(stat -c %s "$xml")" -lt "$bytes" ]; then
  echo "== generating $bytes bytes of export" >&2
  "$bin/export-generator" --target-bytes "$bytes" -o "$xml" --zip "$zip" >&2
fi
xml_bytes=$(stat -c %s "$xml")
zip_bytes=$(stat -c %s "$zip")
cat "$xml" "$zip" > /dev/null   # warm the page cache

rows=()
# measure NAME INPUT_LABEL OUTPUT_FILE COMMAND...: runs COMMAND under GNU time.
# Sets: seconds, rss_kib, output.
measure() {
  local out="$1"; shift
  /usr/bin/time -v -o "$work/time.txt" "$@" > "$out"
  seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$work/time.txt")
  rss_kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  output="$(cat "$out")"
}
field() { echo "$output" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
row() {  # tool, input, seconds, processed XML bytes, records, rss KiB, check
  local mbps rps
  mbps=$(awk -v b="$4" -v s="$3" 'BEGIN { printf "%.0f", b / 1e6 / s }')
  if [ -n "$5" ]; then
    rps=$(awk -v r="$5" -v s="$3" 'BEGIN { x = r / s; if (x >= 1e5) printf "%.2f M", x / 1e6; else printf "%.1f k", x / 1e3 }')
  else
    rps="–"
  fi
  rows+=("| $1 | $2 | $(printf %.2f "$3") | $mbps | $rps | $(awk -v k="$6" 'BEGIN { printf "%.0f", k / 1024 }') | $7 |")
  echo "${rows[-1]}" >&2
}

# StepKit's reader: best of N runs (wall time of the whole process, read + tally).
best_run() {
  local input="$1" best="" best_out="" best_rss=""
  for _ in $(seq "$runs"); do
    measure "$work/ours.txt" "$bin/reader-benchmark" "$input"
    if [ -z "$best" ] || awk -v a="$seconds" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best="$seconds"; best_out="$output"; best_rss="$rss_kib"
    fi
  done
  seconds="$best"; output="$best_out"; rss_kib="$best_rss"
}
measure "$work/check.txt" "$bin/reader-benchmark" --check "$xml"
steps=$(field raw_steps)
measure "$work/check.txt" "$bin/reader-benchmark" --check "$zip"
zip_steps=$(field raw_steps)
best_run "$xml"
records=$(field records)
samples=$(field samples)
budget_kib=$(( (32 * 1048576 + 48 * samples) / 1024 ))
row "StepKit ExportReader (+ daily tally)" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$steps steps"
ours_xml_seconds="$seconds"; ours_xml_rss="$rss_kib"
best_run "$zip"
row "StepKit ExportReader (+ daily tally)" "export.zip" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$zip_steps steps"
ours_zip_seconds="$seconds"; ours_zip_rss="$rss_kib"

measure "$work/inflate.txt" python3 "$peers/inflate.py" "$zip"
row "bare zlib inflate of the entry (python zlib, 1 MiB reads)" "export.zip" "$seconds" "$xml_bytes" "" "$rss_kib" "$(field inflated_bytes) bytes"
inflate_seconds="$seconds"
measure "$work/unzip.txt" unzip -p "$zip" "*.xml" -x "*export_cda.xml"
row "unzip -p > /dev/null" "export.zip" "$seconds" "$xml_bytes" "" "$rss_kib" "–"
rm -f "$work/unzip.txt"
unzip_seconds="$seconds"

measure "$work/lxml.txt" python3 "$peers/lxml_daily.py" "$xml"
row "Python lxml iterparse + clear" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$(field raw_steps) steps"
lxml_seconds="$seconds"
measure "$work/etree.txt" python3 "$peers/etree_daily.py" "$xml"
row "Python xml.etree iterparse + clear" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$(field raw_steps) steps"

# healthkit-to-sqlite: the whole file if it finishes within the timeout, else a prefix.
rm -f "$work/hk.db"
hk_note=""
if timeout "$hk_timeout" /usr/bin/time -v -o "$work/time.txt" healthkit-to-sqlite --silent --xml "$xml" "$work/hk.db" > /dev/null 2> "$work/hk.err"; then
  seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$work/time.txt")
  rss_kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  hk_bytes="$xml_bytes"; hk_label="export.xml"
else
  prefix_bytes=100000000
  python3 "$peers/prefix.py" "$xml" "$work/prefix.xml" "$prefix_bytes"
  hk_bytes=$(stat -c %s "$work/prefix.xml")
  rm -f "$work/hk.db"
  if /usr/bin/time -v -o "$work/time.txt" healthkit-to-sqlite --silent --xml "$work/prefix.xml" "$work/hk.db" > /dev/null 2> "$work/hk.err"; then
    seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,p,":"); s=0; for(i=1;i<=n;i++) s=s*60+p[i]; print s}' "$work/time.txt")
    rss_kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  else
    seconds=0; rss_kib=0
    hk_note=" (failed: $(tail -1 "$work/hk.err"))"
  fi
  hk_label="first $((hk_bytes / 1000000)) MB of export.xml"
  hk_note="$hk_note (did not finish the whole file within ${hk_timeout} s)"
fi
hk_records=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(sum(c.execute(f'select count(*) from [{t}]').fetchone()[0] for (t,) in c.execute(\"select name from sqlite_master where type='table' and name like 'r%'\")))" "$work/hk.db" 2>/dev/null || echo "")
if [ "$seconds" != "0" ]; then
  row "healthkit-to-sqlite 1.0.1 (--xml)$hk_note" "$hk_label" "$seconds" "$hk_bytes" "$hk_records" "$rss_kib" "writes SQLite"
else
  rows+=("| healthkit-to-sqlite 1.0.1 (--xml)$hk_note | $hk_label | – | – | – | – | – |")
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
{
  echo "# Export reader benchmark"
  echo
  echo "One generated export: $xml_bytes bytes of XML ($records records, $samples step and distance samples),"
  echo "$zip_bytes bytes zipped. Warm page cache, $(nproc) cores shared with other work, $(date -u +%Y-%m-%d)."
  echo "Wall time of the whole process (StepKit: best of $runs; the others: one run). MB/s = XML bytes / s"
  echo "(10^6 bytes). Every reader computes raw steps per local start date; the check column shows they agree."
  echo
  echo "| reader | input | seconds | MB/s | records/s | peak RSS (MiB) | check |"
  echo "|---|---|---:|---:|---:|---:|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "- StepKit on export.xml: $(ratio "$lxml_seconds" "$ours_xml_seconds")× lxml."
  echo "- StepKit on export.zip: $(awk -v a="$inflate_seconds" -v b="$ours_zip_seconds" 'BEGIN { printf "%.0f", 100 * a / b }')% of bare inflate speed; unzip -p: $(printf %.2f "$unzip_seconds") s."
  echo "- Peak RSS budget (32 MiB + 48 B × $samples samples) = $((budget_kib / 1024)) MiB;"
  echo "  StepKit used $((ours_xml_rss / 1024)) MiB (xml) and $((ours_zip_rss / 1024)) MiB (zip)."
  echo
  echo "Reproduce: \`Benchmarks/run-benchmarks.sh --bytes $bytes\`."
} > "$root/Benchmarks/RESULTS.md"
cat "$root/Benchmarks/RESULTS.md"
