#!/usr/bin/env bash
# Reads generated exports of both shapes with StepKit and with the usual alternatives, and prints
# one markdown table per shape (also written to Benchmarks/RESULTS.md), ready to paste.
#
#   Benchmarks/run-benchmarks.sh [--bytes N] [--shapes "watch dense"] [--runs N] [--work DIR]
#                                [--hk2sqlite-bytes N] [--rss-bytes "500000000 2000000000"] [--no-peers]
#                                [--zip-only] [--no-isal] [--order type|time]
#
# Shapes (export-generator --shape): watch, an Apple Watch wearer's mix (energy and heart rate
# dominate); dense, an iPhone and a Watch carried all day (steps and distance nearly every
# record). Every record's device carries its own HKDevice address, as on a real phone.
# --order (export-generator --order): type (default), every record grouped by type as an iPhone
# writes them; time, day by day with every type interleaved, the order of the figures measured
# before 2026-12-07. Generated files are kept in --work per shape and order.
#
# `stepkit records --type T` (heart rate, then steps) streams one type's records as CSV (read on a second thread).
# `stepkit steps` reads an export.xml on every core; the one-core row runs it with `--jobs 1`
# pinned to one processor (`taskset -c 0`), so that no thread of it (the tally's second pass
# included) runs on another core. Where ISA-L is installed (`libisal-dev`), a second build with
# `--traits ISAL` reads the export.zip too.
# healthkit-to-sqlite and `stepkit sqlite` write the whole export.xml into SQLite, side by side;
# --hk2sqlite-bytes N has the peer (about half a minute per 500 MB) and a second `stepkit sqlite`
# row read only its first N bytes, cut after a whole record.
# --rss-bytes adds a table of peak memory of `stepkit steps` on files of those sizes.
# --zip-only times just export.zip against the bare inflate loop (and the ISA-L build, unless
# --no-isal), a short run for the zip goal; it prints its tables and leaves RESULTS.md alone.
# Peers missing here are installed: lxml and healthkit-to-sqlite with pip, unzip and GNU time
# with apt-get. Every reader computes raw steps (all step records, summed); the check column
# shows they agree.
set -euo pipefail
# The command line, for the Reproduce line of the output.
invocation="Benchmarks/run-benchmarks.sh"
if [ $# -gt 0 ]; then invocation+=$(printf " %q" "$@"); fi

root="$(cd "$(dirname "$0")/.." && pwd)"
bytes=1000000000
shapes="watch dense"
work="${TMPDIR:-/tmp}/stepkit-bench"
runs=3
hk_bytes_limit=0
rss_sizes=""
peers_on=1
zip_only=0
isal_on=1
order=type
scratch="${SCRATCH_PATH:-$root/.build-bench}"
while [ $# -gt 0 ]; do
  case "$1" in
    --bytes) bytes="$2"; shift 2 ;;
    --shapes) shapes="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --hk2sqlite-bytes) hk_bytes_limit="$2"; shift 2 ;;
    --rss-bytes) rss_sizes="$2"; shift 2 ;;
    --no-peers) peers_on=0; shift ;;
    --zip-only) zip_only=1; peers_on=0; shift ;;
    --no-isal) isal_on=0; shift ;;
    --order) order="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$work"
peers="$root/Benchmarks/peers"

# Peers, installed where missing.
if [ ! -x /usr/bin/time ] || ! command -v unzip > /dev/null; then
  echo "== installing GNU time and unzip" >&2
  apt-get update -qq >&2 && apt-get install -y -qq time unzip >&2
fi
if [ "$peers_on" = 1 ]; then
  if ! python3 -c "import lxml" 2> /dev/null || ! command -v healthkit-to-sqlite > /dev/null; then
    echo "== installing lxml and healthkit-to-sqlite" >&2
    python3 -m pip install --quiet lxml healthkit-to-sqlite >&2
  fi
fi

# Built as `make` builds the command: on Linux with the Swift runtime linked in, as shipped (and
# the command's own `mktemp` for the static Foundation, as the Makefile links it).
link=()
if [ "$(uname -s)" = Linux ]; then link=(--static-swift-stdlib); fi
echo "== building (release${link:+, ${link[*]}})" >&2
wrap=()
if [ "$(uname -s)" = Linux ]; then wrap=(-Xlinker --wrap=mktemp); fi
swift build -c release ${link[@]+"${link[@]}"} ${wrap[@]+"${wrap[@]}"} --scratch-path "$scratch" --package-path "$root" \
  --product stepkit >&2
bin="$(swift build -c release ${link[@]+"${link[@]}"} --scratch-path "$scratch" --package-path "$root" --show-bin-path)"
# The generator and the reader's benchmark: the Benchmarks package, in a build folder of its own.
for product in reader-benchmark export-generator; do
  swift build -c release ${link[@]+"${link[@]}"} --scratch-path "$scratch-tools" --package-path "$root/Benchmarks" \
    --product "$product" >&2
done
tools="$(swift build -c release ${link[@]+"${link[@]}"} --scratch-path "$scratch-tools" --package-path "$root/Benchmarks" \
  --show-bin-path)"
one_core=()
if command -v taskset > /dev/null; then one_core=(taskset -c 0); fi
isal_bin=""
if [ "$isal_on" = 1 ] && { [ -f /usr/include/isa-l/igzip_lib.h ] || [ -f /usr/include/isa-l.h ]; }; then
  echo "== building (release, ISA-L)" >&2
  swift build -c release ${link[@]+"${link[@]}"} --scratch-path "$scratch-isal" --package-path "$root" --traits ISAL \
    --product stepkit >&2
  isal_bin="$(swift build -c release ${link[@]+"${link[@]}"} --scratch-path "$scratch-isal" --package-path "$root" --traits ISAL \
    --show-bin-path)"
fi
cc -O2 -o "$work/inflate" "$peers/inflate.c" -lz

# measure OUTPUT_FILE COMMAND...: runs COMMAND under GNU time (for the peak RSS), timing the wall
# clock to the nanosecond around it (GNU time's own reads in hundredths). Sets seconds, rss_kib, output.
measure() {
  local out="$1"; shift
  local start end
  start=$(date +%s%N)
  /usr/bin/time -v -o "$work/time.txt" "$@" > "$out"
  end=$(date +%s%N)
  seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
  rss_kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  output="$(cat "$out")"
}
# median OUTPUT_FILE COMMAND...: the median wall time of $runs runs, the largest peak RSS of them,
# and the last run's output.
median() {
  local out="$1"; shift
  local times=() peak=0
  for _ in $(seq "$runs"); do
    measure "$out" "$@"
    times+=("$seconds")
    [ "$rss_kib" -gt "$peak" ] && peak="$rss_kib"
  done
  seconds=$(median_of "${times[@]}")
  rss_kib="$peak"
}
median_of() { printf '%s\n' "$@" | sort -g | awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f", a / b }'; }
field() { echo "$output" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }
# The raw steps of `stepkit steps --format csv` output: the raw_steps column summed.
csv_raw_steps() { awk -F, 'NR > 1 { s += $4 } END { printf "%.0f", s }' "$1"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
# `sh -c "$sqlite_run" STEPKIT DB EXPORT`: `stepkit sqlite EXPORT DB` into a new DB (the shell
# removes the last one, then becomes stepkit, so GNU time measures stepkit alone).
# shellcheck disable=SC2016
sqlite_run='rm -f "$1"; exec "$0" sqlite "$2" "$1" --quiet'
# The rows of every table of $work/sqlite.db.
db_rows() {
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(sum(c.execute(f'select count(*) from [{t}]').fetchone()[0] for (t,) in c.execute(\"select name from sqlite_master where type='table'\")))" "$work/sqlite.db"
}

rows=()
# row TOOL INPUT SECONDS XML_BYTES RECORDS RSS_KIB CHECK
row() {
  local mbps rps
  mbps=$(awk -v b="$4" -v s="$3" 'BEGIN { printf "%\047.0f", b / 1e6 / s }')
  if [ -n "$5" ]; then
    rps=$(awk -v r="$5" -v s="$3" 'BEGIN { x = r / s; if (x >= 1e5) printf "%.2f M", x / 1e6; else printf "%.1f k", x / 1e3 }')
  else
    rps="–"
  fi
  rows+=("| $1 | $2 | $(printf %.3f "$3") | $mbps | $rps | $(mib "$6") | $7 |")
  echo "${rows[-1]}" >&2
}

summary=()
for shape in $shapes; do
  xml="$work/$shape-$order.xml"
  zip="$work/$shape-$order.zip"
  if [ ! -s "$xml" ] || [ ! -s "$zip" ] || [ "$(stat -c %s "$xml")" -lt "$bytes" ]; then
    echo "== generating $bytes bytes of the $shape shape" >&2
    "$tools/export-generator" --shape "$shape" --order "$order" --target-bytes "$bytes" -o "$xml" --zip "$zip" >&2
  fi
  xml_bytes=$(stat -c %s "$xml")
  zip_bytes=$(stat -c %s "$zip")
  cat "$xml" "$zip" > /dev/null   # warm the page cache
  rows=()

  measure "$work/check.txt" "$tools/reader-benchmark" --check "$xml"
  records=$(field records); samples=$(field samples); steps=$(field raw_steps)

  ours_xml_rss=""
  if [ "$zip_only" = 0 ]; then
    median "$work/steps.csv" "$bin/stepkit" steps "$xml" --format csv --quiet
    row "**StepKit** \`stepkit steps\`" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$(csv_raw_steps "$work/steps.csv") steps"
    ours_xml="$seconds"; ours_xml_rss="$rss_kib"
    median "$work/steps.csv" ${one_core[@]+"${one_core[@]}"} "$bin/stepkit" steps "$xml" --format csv --quiet --jobs 1
    row "**StepKit** \`stepkit steps --jobs 1\` (one core${one_core[*]:+, \`${one_core[*]}\`})" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$(csv_raw_steps "$work/steps.csv") steps"
    ours_xml_one="$seconds"
    # `stepkit records`: one type's raw records as CSV, every other record passed over on its type.
    for type in heartRate stepCount; do
      median "$work/records.csv" "$bin/stepkit" records "$xml" --type "$type" --format csv --quiet
      row "**StepKit** \`stepkit records --type $type\` (CSV)" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$(($(wc -l < "$work/records.csv") - 1)) rows"
    done
  fi
  # The zip readers and the bare inflate loop in turn, round by round (StepKit, inflate, StepKit
  # with ISA-L, StepKit, ...): a shared machine's speed drifts over a run, and the goals are
  # ratios, so each ratio is the median of its rounds' ratios, each round's runs seconds apart.
  read -r entry_offset entry_size < <(python3 "$peers/entry_offset.py" "$zip")
  zip_times=(); inflate_times=(); isal_times=(); inflate_ratios=(); isal_ratios=()
  zip_peak=0; inflate_peak=0; isal_peak=0
  for _ in $(seq "$runs"); do
    measure "$work/steps.csv" "$bin/stepkit" steps "$zip" --format csv --quiet
    zip_times+=("$seconds"); [ "$rss_kib" -gt "$zip_peak" ] && zip_peak="$rss_kib"; zip_round="$seconds"
    measure "$work/inflate.txt" "$work/inflate" "$zip" "$entry_offset" "$entry_size"
    inflate_times+=("$seconds"); [ "$rss_kib" -gt "$inflate_peak" ] && inflate_peak="$rss_kib"
    inflate_ratios+=("$(ratio_of "$seconds" "$zip_round")")
    if [ -n "$isal_bin" ]; then
      measure "$work/steps-isal.csv" "$isal_bin/stepkit" steps "$zip" --format csv --quiet
      isal_times+=("$seconds"); [ "$rss_kib" -gt "$isal_peak" ] && isal_peak="$rss_kib"
      isal_ratios+=("$(ratio_of "$zip_round" "$seconds")")
    fi
  done
  ours_zip=$(median_of "${zip_times[@]}"); ours_zip_rss="$zip_peak"
  row "**StepKit** \`stepkit steps\`" "export.zip" "$ours_zip" "$xml_bytes" "$records" "$zip_peak" "$(csv_raw_steps "$work/steps.csv") steps"
  ours_isal=""
  if [ -n "$isal_bin" ]; then
    ours_isal=$(median_of "${isal_times[@]}"); isal_ratio=$(median_of "${isal_ratios[@]}")
    row "**StepKit** \`stepkit steps\`, ISA-L build (\`--traits ISAL\`)" "export.zip" "$ours_isal" "$xml_bytes" "$records" "$isal_peak" "$(csv_raw_steps "$work/steps-isal.csv") steps"
  fi
  output="$(cat "$work/inflate.txt")"
  inflate_s=$(median_of "${inflate_times[@]}"); inflate_ratio=$(median_of "${inflate_ratios[@]}")
  row "bare zlib inflate of the entry (C, 4 MiB buffer)" "export.zip" "$inflate_s" "$xml_bytes" "" "$inflate_peak" "$(field inflated_bytes) bytes"
  if [ "$zip_only" = 0 ]; then
    measure /dev/null unzip -p "$zip" "*.xml" -x "*export_cda.xml"
    row "\`unzip -p > /dev/null\`" "export.zip" "$seconds" "$xml_bytes" "" "$rss_kib" "–"
  fi

  lxml_s=""
  if [ "$peers_on" = 1 ]; then
    measure "$work/inflate.txt" python3 "$peers/inflate.py" "$zip"
    row "bare zlib inflate of the entry (Python zlib, 1 MiB reads)" "export.zip" "$seconds" "$xml_bytes" "" "$rss_kib" "$(field inflated_bytes) bytes"
    measure "$work/lxml.txt" python3 "$peers/lxml_daily.py" "$xml"
    row "Python lxml \`iterparse\` + \`clear()\`" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$(field raw_steps) steps"
    lxml_s="$seconds"
    measure "$work/etree.txt" python3 "$peers/etree_daily.py" "$xml"
    row "Python \`xml.etree\` \`iterparse\` + \`clear()\`" "export.xml" "$seconds" "$xml_bytes" "$records" "$rss_kib" "$(field raw_steps) steps"

    # healthkit-to-sqlite writes every record to SQLite: the whole export.xml, or with
    # --hk2sqlite-bytes N its first N bytes (whole records, closed), which `stepkit sqlite` reads too.
    hk_xml="$xml"
    hk_input="export.xml"
    if [ "$hk_bytes_limit" -gt 0 ] && [ "$xml_bytes" -gt "$hk_bytes_limit" ]; then
      python3 "$peers/prefix.py" "$xml" "$work/$shape-prefix.xml" "$hk_bytes_limit"
      hk_xml="$work/$shape-prefix.xml"
      hk_input="first $(($(stat -c %s "$hk_xml") / 1000000)) MB of export.xml"
    fi
    hk_bytes=$(stat -c %s "$hk_xml")
    rm -f "$work/hk.db"
    measure /dev/null healthkit-to-sqlite --silent --xml "$hk_xml" "$work/hk.db"
    hk_records=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(sum(c.execute(f'select count(*) from [{t}]').fetchone()[0] for (t,) in c.execute(\"select name from sqlite_master where type='table' and name like 'r%'\")))" "$work/hk.db")
    row "healthkit-to-sqlite 1.0.1 (\`--xml\`)" "$hk_input" "$seconds" "$hk_bytes" "$hk_records" "$rss_kib" "writes SQLite"
    hk_s="$seconds"
    # `stepkit sqlite`: the whole export into SQLite, on the peer's prefix if it had one and on
    # the whole file; records/s is the rows written (every table) per second.
    if [ "$hk_xml" != "$xml" ]; then
      median "$work/sqlite.txt" sh -c "$sqlite_run" "$bin/stepkit" "$work/sqlite.db" "$hk_xml"
      row "**StepKit** \`stepkit sqlite\` (whole export)" "$hk_input" "$seconds" "$hk_bytes" "$(db_rows)" "$rss_kib" "$(db_rows) rows"
      sqlite_prefix_s="$seconds"
    fi
    median "$work/sqlite.txt" sh -c "$sqlite_run" "$bin/stepkit" "$work/sqlite.db" "$xml"
    row "**StepKit** \`stepkit sqlite\` (whole export)" "export.xml" "$seconds" "$xml_bytes" "$(db_rows)" "$rss_kib" "$(db_rows) rows"
    sqlite_s="$seconds"
    [ "$hk_xml" = "$xml" ] && sqlite_prefix_s="$seconds"
  fi

  {
    echo "### The $shape shape"
    echo
    echo "$xml_bytes bytes of XML ($records records, $samples step and distance samples), $zip_bytes bytes zipped"
    echo "(\`export-generator --shape $shape --order $order --target-bytes $bytes\`)."
    echo
    echo "| reader | input | seconds | MB/s | records/s | peak RSS (MiB) | check |"
    echo "|---|---|---:|---:|---:|---:|---|"
    printf '%s\n' "${rows[@]}"
    echo
    if [ -n "$lxml_s" ]; then
      same_input=$(awk -v a="$hk_s" -v b="$sqlite_prefix_s" 'BEGIN { printf "%.0f", a / b }')
      if [ "$hk_input" = "export.xml" ]; then
        echo "- \`stepkit sqlite\`: ${same_input}× healthkit-to-sqlite on the same export.xml."
      else
        echo "- \`stepkit sqlite\` on the peer's input ($hk_input): ${same_input}× healthkit-to-sqlite; on the whole export.xml, $(awk -v b="$xml_bytes" -v s="$sqlite_s" -v h="$hk_bytes" -v t="$hk_s" 'BEGIN { printf "%.0f", (b / s) / (h / t) }')× its MB/s."
      fi
    fi
    [ -n "$lxml_s" ] && echo "- StepKit on export.xml: $(awk -v a="$lxml_s" -v b="$ours_xml" 'BEGIN { printf "%.1f", a / b }')× the lxml job on $(nproc) cores, $(awk -v a="$lxml_s" -v b="$ours_xml_one" 'BEGIN { printf "%.1f", a / b }')× on one."
    echo "- StepKit on export.zip: $(awk -v r="$inflate_ratio" 'BEGIN { printf "%.0f", 100 * r }')% of the bare zlib inflate loop's speed (median of $runs rounds' ratios; of the medians: $(awk -v a="$inflate_s" -v b="$ours_zip" 'BEGIN { printf "%.0f", 100 * a / b }')%)."
    [ -n "$ours_isal" ] && echo "- StepKit on export.zip with ISA-L: $(awk -v r="$isal_ratio" 'BEGIN { printf "%.2f", r }')× the zlib build (median of $runs rounds' ratios; of the medians: $(awk -v a="$ours_zip" -v b="$ours_isal" 'BEGIN { printf "%.2f", a / b }')×)."
    echo "- Peak RSS: ${ours_xml_rss:+$(mib "$ours_xml_rss") MiB (xml), }$(mib "$ours_zip_rss") MiB (zip). Raw steps, all readers: $steps."
    echo
  } > "$work/$shape.md"
  summary+=("$work/$shape.md")
done

rss_table=""
if [ -n "$rss_sizes" ]; then
  rss_table="$work/rss.md"
  {
    echo "### Peak memory as the file grows (\`stepkit steps\`)"
    echo
    printf '| shape | input |'; for size in $rss_sizes; do printf ' %s MB |' "$((size / 1000000))"; done; echo
    printf '|---|---|'; for _ in $rss_sizes; do printf -- '---:|'; done; echo
    for shape in $shapes; do
      for input in xml zip; do
        printf '| %s | export.%s |' "$shape" "$input"
        for size in $rss_sizes; do
          file="$work/$shape-$order-$size.$input"
          if [ ! -s "$file" ]; then
            "$tools/export-generator" --shape "$shape" --order "$order" --target-bytes "$size" \
              -o "$work/$shape-$order-$size.xml" --zip "$work/$shape-$order-$size.zip" >&2
          fi
          measure /dev/null "$bin/stepkit" steps "$file" --format csv --quiet
          printf ' %s MiB |' "$(mib "$rss_kib")"
        done
        echo
      done
    done
    echo
  } > "$rss_table"
fi

if [ "$zip_only" = 1 ]; then
  cat "${summary[@]}"
  echo "Reproduce: \`$invocation\`."
  exit 0
fi
{
  echo "# Export reader benchmark"
  echo
  echo "Warm page cache, $(nproc) cores, $(date -u +%Y-%m-%d). Wall time of the whole process: StepKit and the"
  echo "bare inflate loop the median of $runs runs, the others one run. MB/s = XML bytes / s (10^6 bytes)."
  echo
  cat "${summary[@]}" ${rss_table:+"$rss_table"}
  echo "Reproduce: \`$invocation\`."
} > "$root/Benchmarks/RESULTS.md"
cat "$root/Benchmarks/RESULTS.md"
