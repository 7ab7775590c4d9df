#!/usr/bin/env bash
# End to end on Apache Spark: Scripts/spark/stepkit_spark.py counts a generated cohort of 20
# exports (one of them cut short) in Spark local mode, and DuckDB, reading its Parquet, finds
# the same rows as `stepkit steps FOLDER --format csv` on one machine: per export and day
# (every column), per-export totals, and the summary as `stepkit summary`; the broken export
# is listed under failures with stepkit's own message.
#
# Installs the PyPI packages `pyspark` and `duckdb` when they are missing. Prints the reason
# and exits 0 where they (or Java) cannot be had.
#
# Usage: Scripts/check-spark.sh [--exports N] [--days D]
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
exports=20 days=8
while (($#)); do
  case "$1" in
  --exports) exports=$2 && shift ;;
  --days) days=$2 && shift ;;
  *) echo "unknown option $1" >&2 && exit 2 ;;
  esac
  shift
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check=check-spark
# shellcheck source=Scripts/lib/check-common.sh
. Scripts/lib/check-common.sh
command -v java >/dev/null || skip "no Java (Spark needs Java 17)"
require_python_packages pyspark duckdb
build_release_tools

# The cohort: small exports, zipped and not, one of them cut short.
mkdir -p "$work/cohort"
for ((n = 1; n <= exports; n++)); do
  name=$(printf "p%03d" "$n")
  if ((n % 3 == 0)); then
    "$generator" --seed "$n" --days "$days" --zip "$work/cohort/$name.zip" 2>/dev/null
  else
    "$generator" --seed "$n" --days "$days" -o "$work/cohort/$name.xml" 2>/dev/null
  fi
done
head -c 30000 "$work/cohort/p007.xml" >"$work/cut.xml" && mv "$work/cut.xml" "$work/cohort/p007.xml"

# One machine: the reference.
status=0
"$bin/stepkit" steps "$work/cohort" --format csv -q --jobs 2 >"$work/cohort.csv" 2>"$work/stderr.txt" || status=$?
[ "$status" = 1 ] || {
  echo "check-spark: stepkit steps exited $status, expected 1 (p007 is broken)" >&2
  exit 1
}
status=0
"$bin/stepkit" summary "$work/cohort" --format csv -q --jobs 2 >"$work/summary.csv" 2>/dev/null || status=$?

# Spark, local mode, two cores.
status=0
"$python" Scripts/spark/stepkit_spark.py --master "local[2]" --stepkit "$bin/stepkit" \
  "$work/cohort" "$work/out" >"$work/spark.txt" 2>&1 || status=$?
if [ "$status" != 1 ]; then
  cat "$work/spark.txt" >&2
  if grep -qE "JAVA_GATEWAY_EXITED|Java gateway process exited|UnsupportedClassVersionError" "$work/spark.txt"; then
    skip "Spark could not start its JVM (see above)"
  fi
  echo "check-spark: the Spark driver exited $status, expected 1 (p007 is broken)" >&2
  exit 1
fi
grep -a "stepkit_spark:" "$work/spark.txt" | sed 's/.*stepkit_spark:/stepkit_spark:/'

"$python" - "$work" "$exports" <<'PYTHON'
import sys
import duckdb

work, exports = sys.argv[1], int(sys.argv[2])
con = duckdb.connect()
con.execute(f"CREATE VIEW spark_days AS SELECT * FROM read_parquet('{work}/out/days/*/*.parquet', hive_partitioning = true)")
con.execute(f"CREATE VIEW spark_summary AS SELECT * FROM read_parquet('{work}/out/summary/*/*.parquet', hive_partitioning = true)")
con.execute(f"CREATE VIEW failures AS SELECT * FROM read_parquet('{work}/out/failures/*.parquet')")
con.execute(f"CREATE VIEW local_days AS SELECT * FROM read_csv('{work}/cohort.csv', header = true, all_varchar = true)")
con.execute(f"CREATE VIEW local_summary AS SELECT * FROM read_csv('{work}/summary.csv', header = true, all_varchar = true)")
columns = "date, steps, distance_m, raw_steps, manual_steps, hours_with_data, valid, sources"
as_text = ", ".join(
    "CASE WHEN valid THEN 'true' ELSE 'false' END" if c == "valid" else "nullif(sources, '')" if c == "sources"
    else f"CAST({c} AS VARCHAR)" for c in columns.split(", "))
failures = []
only_spark = con.execute(f"SELECT export, {as_text} FROM spark_days EXCEPT ALL SELECT export, {columns} FROM local_days").fetchall()
only_local = con.execute(f"SELECT export, {columns} FROM local_days EXCEPT ALL SELECT export, {as_text} FROM spark_days").fetchall()
if only_spark or only_local:
    failures.append(f"days differ: only in Spark {only_spark[:5]}, only on one machine {only_local[:5]}")
totals = """SELECT export, count(*) AS days, sum(CAST(steps AS BIGINT)), sum(CAST(distance_m AS BIGINT)),
                   sum(CAST(raw_steps AS BIGINT)), sum(CAST(manual_steps AS BIGINT)), sum(CAST(hours_with_data AS BIGINT))
            FROM {} GROUP BY export ORDER BY export"""
spark_totals = con.execute(totals.format("spark_days")).fetchall()
local_totals = con.execute(totals.format("local_days")).fetchall()
if spark_totals != local_totals:
    failures.append(f"per-export totals differ:\n  spark: {spark_totals}\n  local: {local_totals}")
if len(spark_totals) != exports - 1:
    failures.append(f"expected {exports - 1} exports in the Parquet, found {len(spark_totals)}")
summary_columns = ["first_day", "last_day", "days", "days_with_data", "valid_days", "steps", "typed_in_steps_left_out"]
spark_summary = con.execute(f"SELECT export, {', '.join(f'CAST({c} AS VARCHAR)' for c in summary_columns)} FROM spark_summary ORDER BY export").fetchall()
local_summary = con.execute(f"SELECT export, {', '.join(summary_columns)} FROM local_summary WHERE error IS NULL ORDER BY export").fetchall()
if spark_summary != local_summary:
    failures.append(f"summaries differ:\n  spark: {spark_summary}\n  local: {local_summary}")
failed = con.execute("SELECT export, error FROM failures").fetchall()
if [row[0] for row in failed] != ["p007"] or "p007.xml:" not in failed[0][1] or "the file ends" not in failed[0][1]:
    failures.append(f"failures: {failed}, expected p007 with its line and column")
if failures:
    print("check-spark: FAILED\n" + "\n".join(failures), file=sys.stderr)
    sys.exit(1)
rows = con.execute("SELECT count(*) FROM spark_days").fetchone()[0]
print(f"check-spark: ok: DuckDB {duckdb.__version__} reads the same {rows} days of {exports - 1} exports from Spark's Parquet"
      f" as stepkit steps gives on one machine (every column, per export and day), the same summaries,"
      f" and p007 listed as failed: {failed[0][1]}")
PYTHON
