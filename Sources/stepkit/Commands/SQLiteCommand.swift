import StepKitCore

/// `stepkit sqlite EXPORT out.db`: days, sources and every sample in an SQLite
/// database, for exploring with SQL.
struct SQLiteCommand: Subcommand {
  static let name = "sqlite"
  static let abstract = "Write days, sources and every sample into an SQLite database."
  static let discussion = """
    Usage: stepkit sqlite EXPORT OUT.db [options]

    Writes three tables (an existing OUT.db is replaced once the new one is
    complete; after a failure it is left as it was):
      days     date, steps, distance_m, raw_steps, manual_steps (as --format csv)
      sources  rank, name, class, counted, device_models, sample counts, raw,
               counted and manual steps, distances, first_start, last_end
      samples  kind, start, end (UTC), utc_offset (seconds), local_date, value,
               source, device_model, user_entered, and counted: what the sample
               counted for after the merge
    For Datasette, DuckDB, pandas or the sqlite3 shell.

    Examples:
      stepkit sqlite export.zip health.db
      sqlite3 health.db "SELECT source, SUM(value), SUM(counted) FROM samples WHERE kind = 'steps' GROUP BY source"
    """

  static let arguments = ArgumentSpec(
    options: CountingArguments.rangeOptions + [
      .init("by", value: "hour|day|week|month", help: "Bucket length of the days table (default: day).")
    ] + CountingArguments.policyOptions,
    flags: [CountingArguments.quietFlag],
    positionals: [
      CountingArguments.exportArgument,
      .init("OUT.db", help: "the SQLite database to write"),
    ])

  var settings: CountingArguments
  var databasePath: String

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    settings = try CountingArguments(parsed)
    settings.counting.recordsCountedValues = true
    databasePath = parsed.positionals[1]
  }

  func run(_ console: Console) throws(CommandError) {
    do throws(OutputFileError) {
      try FileReplacement.checkTarget(databasePath)
    } catch {
      throw .output(error.description)
    }
    let (log, _) = try ExportLoading.load(settings.export, quiet: settings.quiet, console: console)
    let tally = log.tally(settings.counting)
    if !settings.quiet, let note = ExportLoading.invalidNote(tally.invalid) { console.error(note) }
    do throws(OutputFileError) {
      let writer = try SQLiteWriter(replacing: databasePath)
      try writer.write(tally, log: log)
      try writer.commit()
    } catch {
      throw .output(error.description)
    }
    if !settings.quiet {
      console.error(
        "stepkit: wrote \(databasePath) (\(tally.buckets.count) \(settings.counting.unit.rawValue)s, "
          + "\(tally.sources.count) sources, \(log.count) samples)\n")
    }
  }
}
