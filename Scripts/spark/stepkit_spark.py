#!/usr/bin/env python3
"""Counts a cohort of Apple Health exports on Apache Spark with the `stepkit` command.

Spark schedules; `stepkit` counts. The driver lists the exports, ships the `stepkit` binary to
the executors with the job (SparkContext.addFile, read back with SparkFiles.get), and runs one
task per export: `stepkit steps EXPORT --format json --jobs 1 -q` with the counting options
given. It writes, under OUT:

  days/export=ID/*.parquet      one row per day: date, steps, distance_m, raw_steps,
                                manual_steps, hours_with_data, valid, sources (as `stepkit
                                steps` prints them for a cohort)
  summary/export=ID/*.parquet   one row per export: first_day, last_day, days, days_with_data,
                                valid_days, mean_valid_steps, median_valid_steps, steps, the
                                share of each source class, typed_in_steps_left_out, valid_day,
                                day_start (as `stepkit summary` prints)
  failures/*.parquet            export, file, exit_code, error: the exports stepkit could not read

Local run (pip install pyspark; Java 17):

  python3 Scripts/spark/stepkit_spark.py --stepkit .build/release/stepkit cohort/ out/

On a cluster (the exports on storage every executor sees: HDFS, S3, a shared mount; stepkit
built with `make` so that it carries the Swift runtime):

  spark-submit --master yarn Scripts/spark/stepkit_spark.py \
      --stepkit ./stepkit hdfs:///studies/cohort/ hdfs:///studies/cohort-out/

Exports given as a URI with a scheme (hdfs://, s3a://, file://) are read by Spark and handed
to stepkit through a temporary file on the executor; a local folder is read in place.
"""

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

DAY_FIELDS = ["date", "steps", "distance_m", "raw_steps", "manual_steps", "hours_with_data", "valid"]
SUMMARY_FIELDS = [
    "first_day", "last_day", "days", "days_with_data", "valid_days", "mean_valid_steps",
    "median_valid_steps", "steps", "share_apple_watch", "share_iphone", "share_other",
    "share_typed_in", "typed_in_steps_left_out", "valid_day", "day_start",
]


def export_id(path, rule):
    """The export's id as `stepkit --id-from` gives it: the file name without its extension, or
    the name of its folder (an `apple_health_export` folder looked through)."""
    path = path.rstrip("/")
    if rule == "parent":
        folder = os.path.dirname(path)
        if os.path.basename(folder) == "apple_health_export":
            folder = os.path.dirname(folder)
        return os.path.basename(folder)
    name = os.path.basename(path)
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def is_export_name(relative):
    """What `stepkit` takes from a folder: .zip and .xml files, hidden ones and Apple's
    export_cda.xml left out."""
    parts = relative.split("/")
    if any(part.startswith(".") for part in parts):
        return False
    name = parts[-1].lower()
    return (name.endswith(".zip") or name.endswith(".xml")) and name != "export_cda.xml"


def local_exports(folder):
    """Every export under a local folder, sorted by path, as `stepkit` finds them."""
    found = []
    for root, directories, files in os.walk(folder):
        directories[:] = [d for d in directories if not d.startswith(".")]
        for name in files:
            path = os.path.join(root, name)
            if is_export_name(os.path.relpath(path, folder)) and os.path.isfile(path):
                found.append(path)
    return sorted(found)


def stepkit_binary():
    """The binary shipped with the job, made executable on this executor."""
    from pyspark import SparkFiles

    path = SparkFiles.get("stepkit")
    mode = os.stat(path).st_mode
    if not mode & stat.S_IXUSR:
        os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def count_export(export, path, data, options):
    """Runs stepkit on one export; returns ("ok", days, summary) or ("failed", code, message)."""
    binary = stepkit_binary()
    scratch = None
    try:
        if data is not None:
            # Spark read the file (HDFS, S3): stepkit reads it from a temporary copy, same name.
            scratch = tempfile.mkdtemp(prefix="stepkit-spark-")
            local = os.path.join(scratch, os.path.basename(path))
            with open(local, "wb") as handle:
                handle.write(data)
        else:
            local = path
        command = [binary, "steps", local, "--format", "json", "--jobs", "1", "-q"] + options
        result = subprocess.run(command, capture_output=True)
        if result.returncode != 0:
            message = result.stderr.decode("utf-8", "replace").strip()
            prefix = "stepkit: error: "
            message = "\n".join(line[len(prefix):] if line.startswith(prefix) else line for line in message.splitlines())
            if scratch:
                message = message.replace(local, path)
            return (export, path, "failed", result.returncode, message)
        document = json.loads(result.stdout)
        # The sources that added to each day, as a cohort's csv rows write them.
        days = [tuple(day[field] for field in DAY_FIELDS) + ("; ".join(day["sources"]),) for day in document["days"]]
        summary = tuple(document["summary"][field] for field in SUMMARY_FIELDS)
        return (export, path, "ok", days, summary)
    except Exception as error:  # a task never fails the job: the export is listed as failed
        return (export, path, "failed", -1, f"{type(error).__name__}: {error}")
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("exports", help="a folder of exports (searched at any depth) or a URI such as hdfs:///cohort/")
    parser.add_argument("out", help="where to write days/, summary/ and failures/ (replaced)")
    parser.add_argument("--stepkit", required=True, help="the stepkit binary to ship to the executors")
    parser.add_argument("--id-from", choices=["name", "parent"], default="name", help="as stepkit --id-from")
    parser.add_argument("--master", default=None, help="Spark master when not run by spark-submit (e.g. local[2])")
    parser.add_argument(
        "--stepkit-options", default="",
        help='counting options for every export, e.g. "--policy health --day-start 04:00 --valid-day hours:10"')
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession
    from pyspark.sql import types as T

    # Only the driver's own lines on standard error: no progress bars, warnings or below.
    builder = SparkSession.builder.appName("stepkit-cohort").config("spark.ui.showConsoleProgress", "false")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    context = spark.sparkContext
    context.setLogLevel("ERROR")
    context.addFile(os.path.abspath(args.stepkit))
    options = args.stepkit_options.split()
    started = time.monotonic()

    if "://" in args.exports:
        files = context.binaryFiles(args.exports.rstrip("/") + "/*")
        names = files.map(lambda item: (item[0], item[1]))
        # Spark names them `file:/…`, `hdfs://host/…`: the last part is the file's name.
        members = names.filter(lambda item: is_export_name(item[0].rsplit("/", 1)[-1]))
        tasks = members.map(lambda item: (export_id(item[0], args.id_from), item[0], bytes(item[1])))
    else:
        paths = local_exports(args.exports)
        if not paths:
            sys.exit(f"stepkit_spark: {args.exports} holds no export.zip or export.xml")
        ids = [export_id(path, args.id_from) for path in paths]
        if len(set(ids)) != len(ids):
            sys.exit("stepkit_spark: two exports would get the same id; use --id-from parent or rename them")
        # One task per export, so that the executors share them out as they come free.
        tasks = context.parallelize([(i, p, None) for i, p in zip(ids, paths)], numSlices=len(paths))

    results = tasks.map(lambda task: count_export(task[0], task[1], task[2], options)).cache()
    day_schema = T.StructType([
        T.StructField("export", T.StringType()), T.StructField("date", T.StringType()),
        T.StructField("steps", T.LongType()), T.StructField("distance_m", T.LongType()),
        T.StructField("raw_steps", T.LongType()), T.StructField("manual_steps", T.LongType()),
        T.StructField("hours_with_data", T.IntegerType()), T.StructField("valid", T.BooleanType()),
        T.StructField("sources", T.StringType()),
    ])
    summary_schema = T.StructType(
        [T.StructField("export", T.StringType()), T.StructField("file", T.StringType())]
        + [T.StructField(name, T.StringType()) for name in ["first_day", "last_day"]]
        + [T.StructField(name, T.LongType()) for name in ["days", "days_with_data", "valid_days"]]
        + [T.StructField(name, T.DoubleType()) for name in ["mean_valid_steps", "median_valid_steps"]]
        + [T.StructField("steps", T.LongType())]
        + [T.StructField(name, T.DoubleType()) for name in ["share_apple_watch", "share_iphone", "share_other", "share_typed_in"]]
        + [T.StructField("typed_in_steps_left_out", T.LongType())]
        + [T.StructField(name, T.StringType()) for name in ["valid_day", "day_start"]])
    failure_schema = T.StructType([
        T.StructField("export", T.StringType()), T.StructField("file", T.StringType()),
        T.StructField("exit_code", T.IntegerType()), T.StructField("error", T.StringType()),
    ])
    ok = results.filter(lambda r: r[2] == "ok")
    days = ok.flatMap(lambda r: [(r[0],) + day for day in r[3]])
    summaries = ok.map(lambda r: (r[0], r[1]) + tuple(
        float(v) if isinstance(v, int) and name in ("mean_valid_steps", "median_valid_steps", "share_apple_watch",
                                                     "share_iphone", "share_other", "share_typed_in") else v
        for name, v in zip(SUMMARY_FIELDS, r[4])))
    failures = results.filter(lambda r: r[2] == "failed").map(lambda r: (r[0], r[1], int(r[3]), r[4]))

    out = args.out.rstrip("/")
    spark.createDataFrame(days, day_schema).write.mode("overwrite").partitionBy("export").parquet(out + "/days")
    spark.createDataFrame(summaries, summary_schema).write.mode("overwrite").partitionBy("export").parquet(
        out + "/summary")
    failed = failures.collect()
    spark.createDataFrame(failed, failure_schema).coalesce(1).write.mode("overwrite").parquet(out + "/failures")
    total = results.count()
    seconds = time.monotonic() - started
    print(f"stepkit_spark: {total - len(failed)} of {total} exports counted in {seconds:.1f} s; wrote {out}/days, "
          f"{out}/summary and {out}/failures", file=sys.stderr)
    for export, path, code, message in failed:
        print(f"  {export}: {message}", file=sys.stderr)
    spark.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
