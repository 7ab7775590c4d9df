#!/usr/bin/env bash
# Cohort throughput side by side: `stepkit steps FOLDER --format csv` with --jobs 1 and --jobs 2,
# and Scripts/spark/stepkit_spark.py in Spark local mode (local[2]) on the same folder of
# generated exports (the folder Benchmarks/cohort-benchmark.sh makes). Prints each run's wall
# time, the medians, exports per second and MB/s; for Spark also the time the driver reports for
# the job itself (without starting the JVM and the session).
#
# Usage: Benchmarks/spark-benchmark.sh [--exports N] [--days D] [--runs R]
#   defaults: 40 exports of 15 days (about 5 MB of XML each), 3 runs of each
set -euo pipefail
cd "$(dirname "$0")/.."
exports=40 days=15 runs=3
python=${PYTHON:-python3}
while (($#)); do
  case "$1" in
  --exports) exports=$2 && shift ;;
  --days) days=$2 && shift ;;
  --runs) runs=$2 && shift ;;
  *) echo "unknown option $1" >&2 && exit 2 ;;
  esac
  shift
done
"$python" -c "import pyspark" || {
  echo "spark-benchmark: needs pyspark (pip install pyspark) and Java 17" >&2
  exit 1
}
swift build -c release --product stepkit >/dev/null
swift build -c release --package-path Benchmarks --product export-generator >/dev/null
bin=$(swift build -c release --show-bin-path)
generator="$(swift build -c release --package-path Benchmarks --show-bin-path)/export-generator"
folder=.build/cohort-benchmark/xml-$exports-$days
if [ ! -d "$folder" ]; then
  mkdir -p "$folder.partial"
  for ((n = 1; n <= exports; n++)); do
    "$generator" --seed "$n" --days "$days" -o "$folder.partial/$(printf "p%03d" "$n").xml"
  done
  mv "$folder.partial" "$folder"
fi
bytes=$(cat "$folder"/* | wc -c)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "cohort: $exports exports, $days days each, $((bytes / 1000000)) MB of XML; $(nproc) cores;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"

seconds() { /usr/bin/time -f "%e" -o "$out/time" "$@" >/dev/null 2>"$out/stderr" && cat "$out/time"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
report() {
  awk -v label="$1" -v s="$2" -v n="$exports" -v b="$bytes" \
    'BEGIN { printf "%-34s median %6.2f s  %6.1f exports/s  %6.0f MB/s\n", label, s, n / s, b / 1e6 / s }'
}

seconds "$bin/stepkit" steps "$folder" --format csv -q --jobs 2 >/dev/null # warm the page cache
one=() two=() spark=() job=()
for ((run = 1; run <= runs; run++)); do
  one+=("$(seconds "$bin/stepkit" steps "$folder" --format csv -q --jobs 1)")
  two+=("$(seconds "$bin/stepkit" steps "$folder" --format csv -q --jobs 2)")
  spark+=("$(seconds "$python" Scripts/spark/stepkit_spark.py --master "local[2]" --stepkit "$bin/stepkit" \
    "$folder" "$out/parquet")")
  job+=("$(sed -n 's/.*exports counted in \([0-9.]*\) s.*/\1/p' "$out/stderr")")
  echo "run $run: --jobs 1 ${one[-1]} s, --jobs 2 ${two[-1]} s, Spark local[2] ${spark[-1]} s (job ${job[-1]} s)"
done
report "stepkit steps --jobs 1" "$(printf "%s\n" "${one[@]}" | median)"
report "stepkit steps --jobs 2" "$(printf "%s\n" "${two[@]}" | median)"
report "Spark local[2], whole run" "$(printf "%s\n" "${spark[@]}" | median)"
report "Spark local[2], job (JVM up)" "$(printf "%s\n" "${job[@]}" | median)"
