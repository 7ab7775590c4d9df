#!/usr/bin/env bash
# End to end: DuckDB reads what `stepkit` writes for a cohort of exports and finds the same
# per-export totals in the CSV (`stepkit steps FOLDER --format csv`) and in the SQLite database
# (`stepkit sqlite FOLDER cohort.db`), with a broken export among the good ones.
#
# Installs the PyPI package `duckdb` when it is missing; DuckDB's SQLite extension comes from
# DuckDB's extension repository or, where only PyPI is reachable, from the PyPI package
# `duckdb-extension-sqlite-scanner` (DuckDB's signed build; DuckDB checks the signature when it
# loads it). Prints the reason and exits 0 where they cannot be installed (no network).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check=check-duckdb
# shellcheck source=Scripts/lib/check-common.sh
. Scripts/lib/check-common.sh
require_python_packages duckdb
version=$("$python" -c "import duckdb; print(duckdb.__version__)")
if ! "$python" -c "import duckdb; duckdb.connect().execute('INSTALL sqlite; LOAD sqlite')" 2>/dev/null &&
  ! "$python" -c "import duckdb_extension_sqlite_scanner" 2>/dev/null; then
  "$python" -m pip install --quiet --disable-pip-version-check "duckdb-extension-sqlite-scanner==$version" \
    >"$work/pip.txt" 2>&1 || echo "check-duckdb: no SQLite extension for DuckDB $version: $(tail -1 "$work/pip.txt")"
fi

build_release_tools

# Six participants, a folder each: exports of different lengths, zipped and not, and one cut short.
for n in 1 2 3 4 5 6; do
  mkdir -p "$work/cohort/p00$n"
  if ((n % 2)); then
    "$bin/export-generator" --seed "$n" --days $((10 + 5 * n)) --zip "$work/cohort/p00$n/export.zip" 2>/dev/null
  else
    "$bin/export-generator" --seed "$n" --days $((10 + 5 * n)) -o "$work/cohort/p00$n/export.xml" 2>/dev/null
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
import collections, glob, os, sqlite3, sys, zipfile
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
else:
    print("check-duckdb: DuckDB has no SQLite extension here (no network); the database is read with Python's sqlite3")
    db = sqlite3.connect(db_path)
    from_db = db.execute(totals.format("days")).fetchall()
    exports = db.execute("SELECT export, error IS NULL FROM exports ORDER BY export").fetchall()
    counted = dict(db.execute("SELECT export, sum(counted) FROM samples WHERE kind = 'steps' GROUP BY export").fetchall())
    record_counts = db.execute("SELECT export, type, count(*) FROM records GROUP BY export, type").fetchall()
    metadata = db.execute(
        "SELECT count(*), sum(json_valid(metadata)) FROM records WHERE metadata IS NOT NULL").fetchone()
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
averages = con.execute(f"SELECT export, avg(steps) FROM read_csv('{csv_path}') GROUP BY export ORDER BY export").fetchall()
if failures:
    print("check-duckdb: FAILED\n" + "\n".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"check-duckdb: ok: DuckDB {duckdb.__version__} reads the same per-export totals from the csv and the database ({reader}),")
print(f"  and {sum(expected_records.values())} records of {len({t for _, t in expected_records})} types, as Python's XML parser counts them, {metadata[0]} with JSON metadata:")
for (export, days, steps, distance, raw, manual), (_, average) in zip(from_csv, averages):
    print(f"  {export}  {days:3d} days  {steps:8d} steps  avg {average:8.1f}  raw {raw:8d}  hand-typed {manual:6d}")
PYTHON
