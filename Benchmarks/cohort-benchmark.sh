#!/usr/bin/env bash
# Cohort throughput: `stepkit steps FOLDER --format csv` on a folder of small generated exports,
# one job at a time against --jobs J, in alternation. Prints the wall time of each run, the
# medians, the speed-up, exports per second, the CPU time and the share of the cores the run got
# (under load a run gets less than its threads could use: the speed-up then says little), and
# peak memory (GNU time's maximum resident set); then the peak memory of `stepkit sqlite` on
# the same folder, which keeps every sample, with one job and with J.
#
# Usage: Benchmarks/cohort-benchmark.sh [--exports N] [--days D] [--jobs J] [--runs R] [--zip]
#   --exports N  exports in the folder (default 40)
#   --days D     days per export (default 15: about 5 MB of XML each, heart rate included)
#   --jobs J     the parallel run's --jobs (default 2)
#   --runs R     runs of each (default 5)
#   --zip        export.zip files instead of export.xml
set -euo pipefail
cd "$(dirname "$0")/.."
exports=40 days=15 jobs=2 runs=5 kind=xml
while (($#)); do
  case "$1" in
  --exports) exports=$2 && shift ;;
  --days) days=$2 && shift ;;
  --jobs) jobs=$2 && shift ;;
  --runs) runs=$2 && shift ;;
  --zip) kind=zip ;;
  *) echo "unknown option $1" >&2 && exit 2 ;;
  esac
  shift
done

swift build -c release --product stepkit >/dev/null
swift build -c release --package-path Benchmarks --product export-generator >/dev/null
bin=$(swift build -c release --show-bin-path)
generator="$(swift build -c release --package-path Benchmarks --show-bin-path)/export-generator"
folder=.build/cohort-benchmark/$kind-$exports-$days
if [ ! -d "$folder" ]; then
  mkdir -p "$folder.partial"
  for ((n = 1; n <= exports; n++)); do
    name=$(printf "p%03d" "$n")
    if [ "$kind" = zip ]; then
      "$generator" --seed "$n" --days "$days" --zip "$folder.partial/$name.zip"
    else
      "$generator" --seed "$n" --days "$days" -o "$folder.partial/$name.xml"
    fi
  done
  mv "$folder.partial" "$folder"
fi
bytes=$(cat "$folder"/* | wc -c)
echo "cohort: $exports exports ($kind), $days days each, $((bytes / 1000000)) MB in all; $(nproc) cores"

# One run: prints "wall_seconds peak_kib cpu_seconds".
measure() {
  /usr/bin/time -f "%e %M %U %S" -o "$folder.time" "$bin/stepkit" steps "$folder" --format csv -q --jobs "$1" >/dev/null
  awk '{ print $1, $2, $3 + $4 }' "$folder.time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

measure 1 >/dev/null # warm the page cache
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
one=() many=() cpu_one=() cpu_many=() peak_one=0 peak_many=0
for ((run = 1; run <= runs; run++)); do
  read -r seconds peak cpu < <(measure 1)
  one+=("$seconds") && cpu_one+=("$cpu") && ((peak > peak_one)) && peak_one=$peak
  read -r seconds peak cpu < <(measure "$jobs")
  many+=("$seconds") && cpu_many+=("$cpu") && ((peak > peak_many)) && peak_many=$peak
  echo "run $run: --jobs 1 ${one[-1]} s, --jobs $jobs ${many[-1]} s"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
m1=$(printf "%s\n" "${one[@]}" | median)
mj=$(printf "%s\n" "${many[@]}" | median)
c1=$(printf "%s\n" "${cpu_one[@]}" | median)
cj=$(printf "%s\n" "${cpu_many[@]}" | median)
awk -v m1="$m1" -v mj="$mj" -v c1="$c1" -v cj="$cj" -v j="$jobs" -v n="$exports" -v b="$bytes" \
  -v p1="$peak_one" -v pj="$peak_many" 'BEGIN {
  f = "--jobs %d:  median %.2f s  %5.1f exports/s  %5.0f MB/s  cpu %.2f s (%3.0f%% of a core)  peak %d MiB\n"
  printf f, 1, m1, n / m1, b / 1e6 / m1, c1, 100 * c1 / m1, p1 / 1024
  printf f, j, mj, n / mj, b / 1e6 / mj, cj, 100 * cj / mj, pj / 1024
  printf "--jobs %d takes %.2f of the time of --jobs 1 (%.2fx faster)\n", j, mj / m1, m1 / mj
}'

# Memory when the samples are kept (`stepkit sqlite` holds at most --jobs exports at once).
for j in 1 "$jobs"; do
  /usr/bin/time -f "%e %M" -o "$folder.time" "$bin/stepkit" sqlite "$folder" "$folder.db" -q --jobs "$j"
  read -r seconds peak <"$folder.time"
  echo "sqlite --jobs $j: $seconds s, peak $((peak / 1024)) MiB, $(($(wc -c <"$folder.db") / 1000000)) MB database"
done
rm -f "$folder.time" "$folder.db"
