#!/usr/bin/env bash
# End to end: DuckDB reads what `stepkit` writes for a cohort of exports and finds the same
# per-export totals in the CSV (`stepkit steps FOLDER --format csv`) and in the SQLite database
# (`stepkit sqlite FOLDER cohort.db`), with a broken export among the good ones. Then the
# database's workouts, workout statistics and events, activity summaries, correlations and `me`
# per export, read through DuckDB and through Datasette (`datasette --get`), must equal what
# Python's own XML parser finds in each export's file.
#
# Installs the PyPI package `duckdb` when it is missing; DuckDB's SQLite extension comes from
# DuckDB's extension repository or, where only PyPI is reachable, from the PyPI package
# `duckdb-extension-sqlite-scanner` (DuckDB's signed build; DuckDB checks the signature when it
# loads it). Installs the PyPI package `datasette` when it is missing, and skips its part with a
# message where it cannot. Prints the reason and exits 0 where DuckDB cannot be installed (no network).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check=check-duckdb
# shellcheck source=Scripts/lib/check-common.sh
. Scripts/lib/check-common.sh
require_python_packages duckdb
offer_python_package datasette
version=$("$python" -c "import duckdb; print(duckdb.__version__)")
if ! "$python" -c "import duckdb; duckdb.connect().execute('INSTALL sqlite; LOAD sqlite')" 2>/dev/null &&
  ! "$python" -c "import duckdb_extension_sqlite_scanner" 2>/dev/null; then
  "$python" -m pip install --quiet --disable-pip-version-check "duckdb-extension-sqlite-scanner==$version" \
    >"$work/pip.txt" 2>&1 || echo "check-duckdb: no SQLite extension for DuckDB $version: $(tail -1 "$work/pip.txt")"
fi

build_release_tools

# Six participants, a folder each: exports of different lengths, zipped and not, and one cut short;
# p005's days cross iOS 16 (September 2022), from workout totals as attributes to WorkoutStatistics.
for n in 1 2 3 4 5 6; do
  mkdir -p "$work/cohort/p00$n"
  start=()
  [ "$n" = 5 ] && start=(--start-date 2022-08-25)
  if ((n % 2)); then
    "$generator" --seed "$n" --days $((10 + 5 * n)) "${start[@]}" --zip "$work/cohort/p00$n/export.zip" 2>/dev/null
  else
    "$generator" --seed "$n" --days $((10 + 5 * n)) "${start[@]}" -o "$work/cohort/p00$n/export.xml" 2>/dev/null
  fi
done
head -c 30000 "$work/cohort/p004/export.xml" >"$work/cut.xml" && mv "$work/cut.xml" "$work/cohort/p004/export.xml"

# Both runs must read five exports, report p004 with its line and column, and exit 1.
run() {
  local status=0
  "$bin/stepkit" "$@" --id-from parent --jobs 2 -q 2>"$work/stderr.txt" || status=$?
  if [ "$status" != 1 ] || ! grep -q "p004/export.xml:[0-9]*:[0-9]*: the file ends" "$work/stderr.txt" ||
    ! grep -q "^stepkit: 1 of 6 exports could not be read:" "$work/stderr.txt"; then
    echo "check-duckdb: stepkit $1 exited $status, expected 1 and p004 reported:" >&2
    cat "$work/stderr.txt" >&2
    exit 1
  fi
}
run steps "$work/cohort" --format csv >"$work/cohort.csv"
run sqlite "$work/cohort" "$work/cohort.db"

"$python" - "$work/cohort.csv" "$work/cohort.db" "$work/cohort" <<'PYTHON'
import collections, glob, json, os, shutil, sqlite3, subprocess, sys, urllib.parse, zipfile
import xml.etree.ElementTree as ElementTree
import duckdb

csv_path, db_path, cohort_dir = sys.argv[1], sys.argv[2], sys.argv[3]
con = duckdb.connect()
totals = """SELECT export, count(*) AS days, sum(steps) AS steps, sum(distance_m) AS distance_m,
                   sum(raw_steps) AS raw_steps, sum(manual_steps) AS manual_steps
            FROM {} GROUP BY export ORDER BY export"""
from_csv = con.execute(totals.format(f"read_csv('{csv_path}')")).fetchall()

def load_sqlite_extension():
    try:
        con.execute("LOAD sqlite")
        return "DuckDB's sqlite extension"
    except duckdb.Error:
        pass
    try:
        import duckdb_extension_sqlite_scanner as package
    except ImportError:
        return None
    for path in glob.glob(os.path.join(os.path.dirname(package.__file__), "extensions", "*", "*.duckdb_extension")):
        try:
            con.execute(f"LOAD '{path}'")
            return "DuckDB's sqlite extension (from PyPI)"
        except duckdb.Error:
            continue
    return None

reader = load_sqlite_extension()
if reader:
    con.execute(f"ATTACH '{db_path}' AS cohort (TYPE sqlite, READ_ONLY)")
    from_db = con.execute(totals.format("cohort.days")).fetchall()
    exports = con.execute("SELECT export, error IS NULL FROM cohort.exports ORDER BY export").fetchall()
    counted = dict(con.execute(
        "SELECT export, sum(counted) FROM cohort.samples WHERE kind = 'steps' GROUP BY export").fetchall())
    record_counts = con.execute("SELECT export, type, count(*) FROM cohort.records GROUP BY ALL").fetchall()
    metadata = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE json_valid(metadata)) FROM cohort.records WHERE metadata IS NOT NULL"
    ).fetchone()
    database = lambda sql: con.execute(sql.replace("FROM ", "FROM cohort.").replace("JOIN ", "JOIN cohort.")).fetchall()
else:
    print("check-duckdb: DuckDB has no SQLite extension here (no network); the database is read with Python's sqlite3")
    db = sqlite3.connect(db_path)
    from_db = db.execute(totals.format("days")).fetchall()
    exports = db.execute("SELECT export, error IS NULL FROM exports ORDER BY export").fetchall()
    counted = dict(db.execute("SELECT export, sum(counted) FROM samples WHERE kind = 'steps' GROUP BY export").fetchall())
    record_counts = db.execute("SELECT export, type, count(*) FROM records GROUP BY export, type").fetchall()
    metadata = db.execute(
        "SELECT count(*), sum(json_valid(metadata)) FROM records WHERE metadata IS NOT NULL").fetchone()
    database = lambda sql: db.execute(sql).fetchall()
    reader = "sqlite3"

# The reference: every top-level <Record> of each readable export, as Python's own XML parser reads it.
expected_records = collections.Counter()
for export in sorted(os.listdir(cohort_dir)):
    folder = os.path.join(cohort_dir, export)
    if os.path.exists(os.path.join(folder, "export.zip")):
        with zipfile.ZipFile(os.path.join(folder, "export.zip")) as archive:
            name = next(n for n in archive.namelist() if n.endswith("/export.xml"))
            stream = archive.open(name)
    else:
        stream = open(os.path.join(folder, "export.xml"), "rb")
    try:
        depth = 0
        for event, element in ElementTree.iterparse(stream, events=("start", "end")):
            if event == "start":
                depth += 1
                if depth == 2 and element.tag == "Record":
                    expected_records[(export, element.get("type"))] += 1
            else:
                depth -= 1
                if depth == 1:
                    element.clear()
    except ElementTree.ParseError:
        expected_records = collections.Counter({k: v for k, v in expected_records.items() if k[0] != export})
    stream.close()

failures = []
if [tuple(row) for row in from_csv] != [tuple(row) for row in from_db]:
    failures.append(f"per-export totals differ:\n  csv:    {from_csv}\n  sqlite: {from_db}")
expected_exports = [("p001", True), ("p002", True), ("p003", True), ("p004", False), ("p005", True), ("p006", True)]
if [tuple(row) for row in exports] != expected_exports:
    failures.append(f"exports table: {exports}, expected {expected_exports}")
for export, days, steps, *_ in from_csv:
    # Each day is rounded on its own: the samples' counted steps agree within half a step a day.
    if abs(counted.get(export, 0) - steps) > 0.5 * days:
        failures.append(f"{export}: days add up to {steps} steps, its samples counted {counted.get(export)}")
if collections.Counter({(e, t): n for e, t, n in record_counts}) != expected_records:
    failures.append(f"records per export and type differ from Python's XML parser: {sorted(record_counts)[:8]} …")
if not metadata[0] or metadata[0] != metadata[1]:
    failures.append(f"records.metadata: {metadata[1]} of {metadata[0]} values are valid JSON")
if len(from_csv) != 5:
    failures.append(f"expected 5 exports in the csv, found {len(from_csv)}")

# The other elements, counted by Python's own XML parser in each export's file (km and min as the
# generator writes them).
def top_level(export):
    path = glob.glob(os.path.join(cohort_dir, export, "export.*"))[0]
    if path.endswith(".zip"):
        with zipfile.ZipFile(path) as archive:
            name = next(n for n in archive.namelist() if n.endswith(".xml") and "cda" not in n)
            data = archive.read(name)
    else:
        data = open(path, "rb").read()
    return ElementTree.fromstring(data.replace(b"\x0b", b""))

def from_xml(export):
    root = top_level(export)
    workouts = root.findall("Workout")
    def distance_m(workout):
        if workout.get("totalDistance") is not None:
            return float(workout.get("totalDistance")) * 1000
        sums = [float(s.get("sum")) * 1000 for s in workout.findall("WorkoutStatistics")
                if s.get("type").startswith("HKQuantityTypeIdentifierDistance")]
        return sum(sums) if sums else 0.0
    summaries = root.findall("ActivitySummary")
    correlations = root.findall("Correlation")
    return (len(workouts), round(sum(float(w.get("duration")) for w in workouts), 3),
            round(sum(distance_m(w) for w in workouts), 1),
            sum(len(w.findall("WorkoutStatistics")) for w in workouts),
            sum(len(w.findall("WorkoutEvent")) for w in workouts),
            len(summaries), round(sum(float(s.get("appleExerciseTime")) for s in summaries), 3),
            len(correlations), sum(len(c.findall("Record")) for c in correlations),
            root.find("Me").get("HKCharacteristicTypeIdentifierDateOfBirth"))

element_queries = {
    "workouts": "SELECT export, count(*), round(sum(duration_min), 3), round(sum(coalesce(distance_m, 0)), 1) FROM workouts GROUP BY export",
    "statistics": "SELECT export, count(*) FROM workout_statistics GROUP BY export",
    "events": "SELECT export, count(*) FROM workout_events GROUP BY export",
    "summaries": "SELECT export, count(*), round(sum(exercise_time_min), 3) FROM activity_summaries GROUP BY export",
    "correlations": "SELECT export, count(*) FROM correlations GROUP BY export",
    "members": "SELECT export, count(*) FROM correlation_records GROUP BY export",
    "me": "SELECT export, date_of_birth FROM me",
}

def elements_from(run):
    results = {name: {row[0]: tuple(row[1:]) for row in run(sql)} for name, sql in element_queries.items()}
    def get(name, export, width):
        return results[name].get(export, (0,) * width)
    return {export: get("workouts", export, 3) + get("statistics", export, 1) + get("events", export, 1)
            + get("summaries", export, 2) + get("correlations", export, 1) + get("members", export, 1)
            + get("me", export, 1)
            for export in sorted({row[0] for row in from_csv})}

expected_elements = {export: from_xml(export) for export, *_ in from_csv}
found = elements_from(database)
if found != expected_elements:
    failures.append(f"workouts, summaries, correlations or me differ from the XML:\n  xml: {expected_elements}\n  {reader}: {found}")
if sum(e[3] for e in expected_elements.values()) == 0 or sum(e[0] for e in expected_elements.values()) == 0:
    failures.append(f"the generator wrote no workouts or no WorkoutStatistics: {expected_elements}")

def datasette(sql):
    out = subprocess.run(
        ["datasette", db_path, "--get", "/cohort.json?" + urllib.parse.urlencode({"sql": sql, "_shape": "array"})],
        capture_output=True, text=True, check=True).stdout
    return [tuple(row.values()) for row in json.loads(out)]

datasette_note = ""
if shutil.which("datasette"):
    try:
        if elements_from(datasette) != expected_elements:
            failures.append(f"Datasette reads other workouts, summaries, correlations or me: {elements_from(datasette)}")
        datasette_note = " and Datasette"
    except (subprocess.CalledProcessError, ValueError) as error:
        failures.append(f"datasette could not read the database: {error} {getattr(error, 'stderr', '')}")
else:
    print("check-duckdb: datasette is not installed (PyPI unreachable?): its check is skipped")

averages = con.execute(f"SELECT export, avg(steps) FROM read_csv('{csv_path}') GROUP BY export ORDER BY export").fetchall()
if failures:
    print("check-duckdb: FAILED\n" + "\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"check-duckdb: ok: DuckDB {duckdb.__version__} reads the same per-export totals from the csv and the database ({reader}),")
print(f"  and {sum(expected_records.values())} records of {len({t for _, t in expected_records})} types, as Python's XML parser counts them, {metadata[0]} with JSON metadata:")
for (export, days, steps, distance, raw, manual), (_, average) in zip(from_csv, averages):
    print(f"  {export}  {days:3d} days  {steps:8d} steps  avg {average:8.1f}  raw {raw:8d}  hand-typed {manual:6d}")
print(f"check-duckdb: ok: {reader}{datasette_note} read the workouts, statistics, events, summaries,"
      " correlations and me that Python's XML parser finds in each export:")
for export, row in expected_elements.items():
    print(f"  {export}  {row[0]:2d} workouts ({row[3]:2d} statistics, {row[4]:2d} events)  {row[5]:3d} summaries  {row[7]:2d} correlations")
PYTHON
