import StepKitCore

/// `stepkit sqlite EXPORT out.db`: days, sources and every sample in an SQLite
/// database, for exploring with SQL.
struct SQLiteCommand: Subcommand {
  static let name = "sqlite"
  static let abstract = "Write days, sources and every sample into an SQLite database."
  static let discussion = """
    Usage: stepkit sqlite EXPORT OUT.db [options]

    Writes four tables (an existing OUT.db is replaced once the new one is
    complete; after a failure it is left as it was):
      days     date, steps, distance_m, raw_steps, manual_steps,
               hours_with_data, valid (as --format csv)
      summary  the export's data yield, as `stepkit summary` prints it
      sources  rank, name, class, counted, device_models, sample counts, raw,
               counted and manual steps, distances, first_start, last_end
      samples  kind, start, end (UTC), utc_offset (seconds), local_date, value,
               source, device_model, user_entered, and counted: what the sample
               counted for after the merge
    For Datasette, DuckDB, pandas or the sqlite3 shell.

    With several exports, or a folder of them (read in parallel, --jobs at a
    time), one database holds them all: an exports table (export, file,
    samples, invalid, and error for an export that could not be read) and an
    export column leading days, sources and samples, indexed for queries per
    participant.

    Examples:
      stepkit sqlite export.zip health.db
      sqlite3 health.db "SELECT source, SUM(value), SUM(counted) FROM samples WHERE kind = 'steps' GROUP BY source"
      stepkit sqlite cohort/ cohort.db
      sqlite3 cohort.db "SELECT export, AVG(steps) FROM days GROUP BY export"
    """

  static let arguments = ArgumentSpec(
    options: CountingArguments.rangeOptions + [.by] + CountingArguments.policyOptions
      + CountingArguments.dayOptions + CountingArguments.cohortOptions,
    flags: [.quiet],
    positionals: [
      CountingArguments.exportsArgument,
      .init("OUT.db", help: "the SQLite database to write"),
    ])

  var settings: CountingArguments
  var databasePath: String

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    settings = try CountingArguments(parsed, trailingPositionals: 1)
    settings.counting.recordsCountedValues = true
    databasePath = parsed.positionals[parsed.positionals.count - 1]
  }

  func run(_ console: Console) throws(CommandError) {
    try CommandError.writing { () throws(OutputFileError) in try FileReplacement.checkTarget(databasePath) }
    let (members, isCohort) = try Cohort.members(settings.exports, idRule: settings.idRule)
    guard !isCohort else { return try runCohort(members, console: console) }
    let (log, tally) = try ExportLoading.count(settings, console: console)
    let writer = try CommandError.writing { () throws(OutputFileError) in
      try SQLiteWriter(replacing: databasePath)
    }
    try CommandError.writing { () throws(OutputFileError) in
      try writer.write(tally, log: log, rule: settings.validDay)
    }
    // The samples and counted values were read again: never commit rows read wrong.
    try ExportLoading.checkStorage(log, tally.countedValues, quiet: true, console: console)
    try CommandError.writing { () throws(OutputFileError) in
      try writer.commit()
    }
    if !settings.quiet {
      console.error(
        "stepkit: wrote \(databasePath) (\(tally.buckets.count) \(settings.counting.unit.rawValue)s, "
          + "\(tally.sources.count) sources, \(log.count) samples)\n")
    }
  }

  /// Several exports in one database, in the members' order.
  private func runCohort(_ members: [CohortMember], console: Console) throws(CommandError) {
    let writer = try CommandError.writing { () throws(OutputFileError) in
      try SQLiteWriter(replacing: databasePath, cohort: true)
    }
    var samples = 0
    var read = 0
    let allRead = try Cohort.run(members, settings: settings, keepsSamples: true, console: console) {
      member, outcome throws(CommandError) in
      try CommandError.writing { () throws(OutputFileError) in
        switch outcome {
        case .counted(let tally, let log, let sampleCount, _):
          try writer.recordExport(
            id: member.id, file: member.path, samples: sampleCount, invalid: tally.invalid.count, error: nil)
          if let log { try writer.write(tally, log: log, export: member.id, rule: settings.validDay) }
          samples += sampleCount
          read += 1
        case .failed(let message):
          try writer.recordExport(id: member.id, file: member.path, samples: 0, invalid: 0, error: message)
        }
      }
      // The samples and counted values were read again: never commit rows read wrong.
      if case .counted(let tally, let log?, _, _) = outcome {
        try ExportLoading.checkStorage(log, tally.countedValues, quiet: true, console: nil)
      }
    }
    try CommandError.writing { () throws(OutputFileError) in try writer.commit() }
    if !settings.quiet {
      console.error(
        "stepkit: wrote \(databasePath) (\(read) of \(members.count) exports, "
          + "\(TextFormatting.grouped(Int64(samples))) samples)\n")
    }
    if !allRead { throw .checkFailed }
  }
}
