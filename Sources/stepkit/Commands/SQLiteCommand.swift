import Foundation
import HealthExport
import StepKitCore

/// `stepkit sqlite EXPORT out.db`: days, sources and every sample in an SQLite
/// database, for exploring with SQL; into an existing cohort database, each
/// export is added, replaced or skipped by its id.
struct SQLiteCommand: Subcommand {
  static let name = "sqlite"
  static let abstract = "Write days, sources, every sample and every record into an SQLite database."
  static let discussion = """
    Usage: stepkit sqlite EXPORT OUT.db [options]

    Writes these tables (an existing OUT.db is replaced once the new one is
    complete; after a failure it is left as it was):
      days     date, steps, distance_m, raw_steps, manual_steps,
               hours_with_data, valid (as --format csv)
      summary  the export's data yield, as `stepkit summary` prints it
      sources  rank, name, class, counted, device_models, sample counts, raw,
               counted and manual steps, distances, first_start, last_end
      samples  kind, start, end (UTC), utc_offset (seconds), local_date, value,
               source, device_model, user_entered, and counted: what the sample
               counted for after the merge
      settings the options the database was written with
      records  every record of every type: type, unit, value (value_text for
               a category such as a sleep stage), start, end (UTC),
               utc_offset, local_date, source, source_version, the device's
               name, manufacturer, model, hardware and software,
               creation_date, and metadata as one JSON object
      workouts activity, start, end, local_date, duration_min, distance_m,
               energy_kcal, route_path, source, device fields, metadata
               (JSON), with workout_statistics and workout_events
      activity_summaries  the Activity rings per local date
      correlations  blood pressure, food, with correlation_records
      me       the characteristics: date of birth, sex, blood type, ...
      daily_totals  date, type, value, raw_value, unit: every cumulative
               type (energy, flights, distances, exercise time, ...) merged
               per day as the Health app merges it, as `stepkit totals`
    For Datasette, DuckDB, pandas or the sqlite3 shell; every column is in
    docs/SQLITE.md. A record, workout, summary or correlation that cannot be
    read (a bad date or number, an attribute written twice) is left out and
    named with file, line and column. The export is read for the steps,
    whole for the records, then once more for daily_totals (every cumulative
    type at once); standard input is kept in a temporary file meanwhile.

    With several exports, or a folder of them (read in parallel, --jobs at a
    time), one database holds them all: an exports table (export, file,
    samples, invalid, error for an export that could not be read, sha256 of
    the file, export_date, imported_at) and an export column in every other
    table, indexed for queries per participant.

    When OUT.db is already such a cohort database, it is updated in place:
    an export whose id is new is added; one whose file has the SHA-256 of
    the imported one is skipped without being read; a newer export of an id
    (a later ExportDate) replaces that id's rows, in one transaction, so a
    failure leaves the database as it was; an older one is skipped. Each
    export gets a line saying what was done. The options must be those the
    database was written with; --replace writes it anew instead.

    Examples:
      stepkit sqlite export.zip health.db
      sqlite3 health.db "SELECT source, SUM(value), SUM(counted) FROM samples WHERE kind = 'steps' GROUP BY source"
      sqlite3 health.db "SELECT substr(local_date, 1, 7), COUNT(*) FROM workouts GROUP BY 1"
      stepkit sqlite cohort/ cohort.db
      stepkit sqlite cohort/ cohort.db          (again, a month later: adds and replaces)
      sqlite3 cohort.db "SELECT export, AVG(steps) FROM days WHERE valid GROUP BY export"
    """

  static let arguments = ArgumentSpec(
    options: CountingArguments.rangeOptions + [.by] + CountingArguments.policyOptions
      + CountingArguments.dayOptions + CountingArguments.cohortOptions,
    flags: [.quiet, .replace],
    positionals: [
      CountingArguments.exportsArgument,
      .init("OUT.db", help: "the SQLite database to write or update"),
    ])

  var settings: CountingArguments
  var databasePath: String
  /// `--replace`: write a new database even over a cohort database.
  var replaces: Bool

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    settings = try CountingArguments(parsed, trailingPositionals: 1)
    settings.counting.recordsCountedValues = true
    databasePath = parsed.positionals[parsed.positionals.count - 1]
    replaces = parsed.has(.replace)
  }

  /// The options the database records in `settings`, and must match to be updated.
  var databaseSettings: [(String, String)] {
    let options = settings.counting
    return [
      ("by", options.unit.rawValue), ("policy", options.policy.rawValue),
      ("time_zone", options.timeZone.description), ("day_start", options.dayStart.description),
      ("priority", options.ranking.explicitOrder.joined(separator: ",")),
      ("from", options.from?.description ?? ""), ("to", options.to?.description ?? ""),
      ("valid_day", settings.validDay.description),
    ]
  }

  func run(_ console: Console) throws(CommandError) {
    try CommandError.writing { () throws(OutputFileError) in try FileReplacement.checkTarget(databasePath) }
    let (members, isCohort, notes) = try Cohort.members(settings.exports, idRule: settings.idRule)
    if !settings.quiet { notes.forEach(console.error) }
    if !replaces,
      let existing = try CommandError.writing({ () throws(OutputFileError) in
        try SQLiteWriter.openExisting(databasePath)
      })
    {
      return try update(existing, members: members, console: console)
    }
    guard !isCohort else { return try runCohort(members, console: console) }
    Platform.returnLargeFreedBuffers()
    // The export is read twice (samples, then every record): standard input is kept in a file meanwhile.
    var settings = settings
    if settings.export == "-" { settings.standardInputCopy = try Self.copyStandardInput() }
    defer { if let copy = settings.standardInputCopy { Platform.removeFile(copy) } }
    // The samples and what each counted for wait for `samples`, written last, while every record
    // is read: a budget of 1 MiB each in memory, the rest in their temporary files.
    let (log, tally) = try ExportLoading.count(
      settings, storage: SampleStorage(memoryBudget: 1 << 20), console: console)
    // `records` and `samples` are written page by page into the new file first; SQLite opens it
    // afterwards and adds the other tables, the whole export's workouts and the like from a
    // scratch database. The export is read a third time for the daily totals.
    let file = try CommandError.writing { () throws(OutputFileError) in
      try FileReplacement(replacing: databasePath)
    }
    let scratch = try CommandError.writing { () throws(OutputFileError) in
      try SQLiteWriter(elementScratchFor: databasePath)
    }
    let days = LocalDayFinder(rule: settings.counting.timeZone, dayStart: settings.counting.dayStart)
    let input = ExportLoading.input(for: settings.export, standardInputCopy: settings.standardInputCopy)
    var rows: RecordPages?
    let written = try readWhole(settings.export, export: nil, console: console) {
      let read = try SQLiteWriter.writeRecordPages(
        from: input, into: file, scratch: scratch, days: days, threads: settings.jobs)
      rows = read.rows
      return read.written
    }
    // The daily totals of the cumulative types read meanwhile, on a thread of their own: what
    // is left to do here runs on one.
    let totalsWork = BackgroundWork { [settings] () throws(CommandError) -> [TypeTotals] in
      try typeTotals(
        of: written.cumulativeTypes, settings.export, standardInputCopy: settings.standardInputCopy,
        threads: 1)
    }
    let writer: SQLiteWriter
    do throws(CommandError) {
      writer = try CommandError.writing { () throws(OutputFileError) in
        try rows?.finish(samples: (tally, log))
        rows = nil
        return try SQLiteWriter(file, settings: databaseSettings, recordsWritten: true, samplesWritten: true)
      }
      try CommandError.writing { () throws(OutputFileError) in
        try writer.write(tally, log: log, rule: settings.validDay)
        try writer.copyElements(from: scratch)
      }
      // The samples and counted values were read again: never commit rows read wrong.
      try ExportLoading.checkStorage(log, tally.countedValues, quiet: true, console: console)
    } catch {
      // Its failure, if any, would come after this one.
      _ = try? totalsWork.wait()
      throw error
    }
    try writeDailyTotals(try totalsWork.wait(), writer, export: nil, console: console)
    let records = written.report
    let removed = try CommandError.writing { () throws(OutputFileError) in
      try writer.commit()
    }
    if !settings.quiet {
      if let note = FileReplacement.leftoversNote(writer.removedLeftovers) { console.error(note) }
      if let note = Self.removedNote(removed) { console.error(note) }
      console.error(
        "stepkit: wrote \(databasePath) (\(tally.buckets.count) \(settings.counting.unit.rawValue)s, "
          + "\(tally.sources.count) sources, \(log.count) samples, "
          + "\(TextFormatting.grouped(Int64(records.records))) records)\n")
    }
  }

  /// The note naming the journal files of the replaced database that were
  /// rolled back and removed; `nil` when there were none.
  static func removedNote(_ removed: [String]) -> String? {
    guard !removed.isEmpty else { return nil }
    return "stepkit: removed \(removed.joined(separator: ", ")), left by the database it replaced"
      + " (SQLite would have replayed \(removed.count == 1 ? "it" : "them") into the new one)\n"
  }

  /// Reads the export at `argument` once more, whole: every record into
  /// `records`, its workouts, activity summaries and correlations into their
  /// tables, and its `<Me>` into `me`; then, for each cumulative type its
  /// records hold, the merged totals per day into `daily_totals`. Notes
  /// about invalid records go to `console` unless `--quiet`.
  ///
  /// - Returns: What the whole-export reader found.
  /// - Throws: ``CommandError/export(_:)`` when it cannot be read,
  ///   ``CommandError/output(_:)`` when a row cannot be written.
  func writeRecords(
    _ writer: SQLiteWriter, _ argument: String, export: String?, standardInputCopy: String? = nil,
    console: Console
  ) throws(CommandError) -> WholeExportReport {
    let days = LocalDayFinder(rule: settings.counting.timeZone, dayStart: settings.counting.dayStart)
    let input = ExportLoading.input(for: argument, standardInputCopy: standardInputCopy)
    let written = try readWhole(argument, export: export, console: console) {
      try writer.writeRecords(from: input, export: export, days: days, threads: settings.jobs)
    }
    try writeDailyTotals(
      written, writer, argument, export: export, standardInputCopy: standardInputCopy, console: console)
    return written.report
  }

  /// Runs `write`, which reads the export at `argument` whole into the
  /// database, and notes its invalid records and repaired text on `console`
  /// unless `--quiet`.
  ///
  /// - Throws: ``CommandError/export(_:)`` when it cannot be read,
  ///   ``CommandError/output(_:)`` when a row cannot be written.
  private func readWhole(
    _ argument: String, export: String?, console: Console, _ write: () throws -> WholeExportWrite
  ) throws(CommandError) -> WholeExportWrite {
    let written: WholeExportWrite
    do {
      written = try write()
    } catch let error as HealthExportError {
      throw .export(error)
    } catch let error as OutputFileError {
      throw .output(error.description)
    } catch {
      throw .output("\(argument): \(error.localizedDescription)")
    }
    if !settings.quiet {
      if let note = ExportLoading.invalidNote(written.report.invalid, what: "not written to the database") {
        say(note, export: export, console: console)
      }
      for note in written.notes { say(note, export: export, console: console) }
    }
    return written
  }

  /// Writes `note` to `console`, naming the export in a cohort.
  private func say(_ note: String, export: String?, console: Console) {
    console.error(
      export.map {
        note.replacingOccurrences(of: "stepkit: ", with: "stepkit: \($0): ", options: .anchored)
      } ?? note)
  }

  /// For each cumulative type the export's records hold (`written`), the
  /// merged totals per day into `daily_totals`, from one more read of the
  /// export at `argument`.
  ///
  /// - Throws: ``CommandError/export(_:)`` when it cannot be read,
  ///   ``CommandError/output(_:)`` when a row cannot be written.
  private func writeDailyTotals(
    _ written: WholeExportWrite, _ writer: SQLiteWriter, _ argument: String, export: String?,
    standardInputCopy: String?, console: Console
  ) throws(CommandError) {
    let totals = try typeTotals(
      of: written.cumulativeTypes, argument, standardInputCopy: standardInputCopy, threads: settings.jobs)
    try writeDailyTotals(totals, writer, export: export, console: console)
  }

  /// The merged totals per day of one cumulative type (``typeTotals(of:_:standardInputCopy:threads:)``).
  typealias TypeTotals = (type: CumulativeType, tally: Tally)

  /// The merged totals per day of each of `types` in the export at
  /// `argument`, in the order of `types`, from one read of the export for
  /// them all on up to `threads` threads.
  ///
  /// - Throws: ``CommandError/export(_:)`` when it cannot be read.
  private func typeTotals(
    of types: [CumulativeType], _ argument: String, standardInputCopy: String?, threads: Int
  ) throws(CommandError) -> [TypeTotals] {
    var logs = try typeLogs(of: types, argument, standardInputCopy: standardInputCopy, threads: threads)
    var totals: [TypeTotals] = []
    for (index, type) in types.enumerated() {
      totals.append((type, dailyTotals(logs[index], argument, threads: threads)))
      logs[index] = SampleLog()  // each type's samples freed once counted
    }
    return totals
  }

  /// Writes the rows of `daily_totals` from `totals`, and notes each type's
  /// invalid records on `console` unless `--quiet`.
  ///
  /// - Throws: ``CommandError/output(_:)`` when a row cannot be written.
  private func writeDailyTotals(
    _ totals: [TypeTotals], _ writer: SQLiteWriter, export: String?, console: Console
  )
    throws(CommandError)
  {
    for (type, tally) in totals {
      try CommandError.writing { () throws(OutputFileError) in
        try writer.writeDailyTotals(tally, type: type, export: export)
      }
      let what = "of \(type.identifier) not counted in daily_totals"
      if !settings.quiet, let note = ExportLoading.invalidNote(tally.invalid, what: what) {
        say(note, export: export, console: console)
      }
    }
  }

  /// The records of each of `types` in the export at `argument`, each
  /// type's in a log of its own as `stepkit totals --type` reads them, from
  /// one more read of the export for them all
  /// (``SampleLog/init(countingEach:storage:)``).
  private func typeLogs(
    of types: [CumulativeType], _ argument: String, standardInputCopy: String?, threads: Int
  ) throws(CommandError) -> [SampleLog] {
    guard !types.isEmpty else { return [] }
    var logs = SampleLog(countingEach: types)
    do {
      // Every record of a type invalid is not an error here: the note names them.
      _ = try ExportReader.read(
        ExportLoading.input(for: argument, standardInputCopy: standardInputCopy), into: &logs,
        threads: threads)
    } catch let error as HealthExportError {
      throw .export(error)
    } catch {
      throw .output("\(argument): \(error.localizedDescription)")
    }
    return logs.typeLogs
  }

  /// The per-day totals of `log`, which holds one type of the export at
  /// `argument`, counted as `stepkit totals --type` counts them with this
  /// command's options.
  private func dailyTotals(_ log: SampleLog, _ argument: String, threads: Int) -> Tally {
    var counting = settings.counting
    counting.unit = .day
    counting.recordsCountedValues = false
    counting.includesSourceBreakdown = false
    // `--priority` names the step sources; a type whose sources lack a name ranks the rest by default.
    counting.ranking.explicitOrder = counting.ranking.explicitOrder.compactMap { name in
      try? PriorityNames.resolve([name], sources: log.sourceNames, export: argument).first
    }
    return log.tally(counting, threads: threads)
  }

  /// Copies standard input into a temporary file, in pieces of 1 MiB.
  ///
  /// - Returns: Its path; the caller removes it.
  /// - Throws: ``CommandError/output(_:)`` when it cannot be made or written.
  static func copyStandardInput() throws(CommandError) -> String {
    let path = NSTemporaryDirectory() + "/stepkit-stdin-\(Platform.randomSuffix())"
    let descriptor: Int32
    switch Platform.createNewFile(path) {
    case .success(let opened): descriptor = opened
    case .failure(let error): throw .output("cannot keep a copy of standard input in \(path): \(error)")
    }
    defer { _ = Platform.close(descriptor) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let got = read(0, buffer.baseAddress, buffer.count)
      if got < 0, errno == EINTR { continue }
      if got == 0 { return path }
      guard got > 0 else {
        Platform.removeFile(path)
        throw .output("<stdin>: cannot be read: \(String(cString: strerror(errno)))")
      }
      if let code = Platform.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: buffer[..<got])) {
        Platform.removeFile(path)
        throw .output("cannot keep a copy of standard input in \(path): \(Platform.FileError(code))")
      }
    }
  }

  /// Several exports in one new database, in the members' order.
  private func runCohort(_ members: [CohortMember], console: Console) throws(CommandError) {
    let writer = try CommandError.writing { () throws(OutputFileError) in
      try SQLiteWriter(replacing: databasePath, cohort: true, settings: databaseSettings)
    }
    var samples = 0
    var read = 0
    let importedAt = TextFormatting.isoUTC(Date())
    let allRead = try Cohort.run(
      members, settings: settings, keepsSamples: true, imported: [:], console: console
    ) { member, outcome throws(CommandError) in
      try CommandError.writing { () throws(OutputFileError) in
        switch outcome {
        case .counted(let tally, let log, let sampleCount, _, let fingerprint):
          try writer.recordExport(
            id: member.id, file: member.path, samples: sampleCount, invalid: tally.invalid.count, error: nil,
            fingerprint: fingerprint, importedAt: importedAt)
          if let log { try writer.write(tally, log: log, export: member.id, rule: settings.validDay) }
          samples += sampleCount
          read += 1
        case .failed(let message):
          try writer.recordExport(
            id: member.id, file: member.path, samples: 0, invalid: 0, error: message, importedAt: importedAt)
        case .unchanged:
          break  // Nothing was imported before: never given.
        }
      }
      // The samples and counted values were read again: never commit rows read wrong.
      if case .counted(let tally, let log?, _, _, _) = outcome {
        try ExportLoading.checkStorage(log, tally.countedValues, quiet: true, console: nil)
      }
      if case .counted = outcome {
        _ = try writeRecords(writer, member.path, export: member.id, console: console)
      }
    }
    let removed = try CommandError.writing { () throws(OutputFileError) in try writer.commit() }
    if !settings.quiet {
      if let note = FileReplacement.leftoversNote(writer.removedLeftovers) { console.error(note) }
      if let note = Self.removedNote(removed) { console.error(note) }
      console.error(
        "stepkit: wrote \(databasePath) (\(read) of \(members.count) exports, "
          + "\(TextFormatting.grouped(Int64(samples))) samples)\n")
    }
    if !allRead { throw .checkFailed }
  }

  /// Adds, replaces or skips each export in an existing cohort database, one
  /// transaction per export, and says which.
  private func update(_ existing: SQLiteWriter.Existing, members: [CohortMember], console: Console)
    throws(CommandError)
  {
    let writer = existing.writer
    defer { try? writer.close() }
    let differences = databaseSettings.filter { existing.settings[$0.0] != $0.1 }.map { key, value in
      "--\(key.replacingOccurrences(of: "_", with: "-")) \(existing.settings[key].map { $0.isEmpty ? "(none)" : $0 } ?? "(unknown)") there, \(value.isEmpty ? "(none)" : value) here"
    }
    guard differences.isEmpty else {
      throw .usage(
        UsageError(
          "\(databasePath) was written with other options (\(differences.joined(separator: "; "))): "
            + "run with its options, or add --replace to write it anew"))
    }
    guard !settings.exports.contains("-") else {
      throw .usage(
        UsageError("- (standard input) cannot be added to a cohort database: give the export's file"))
    }
    let imported = existing.exports.compactMapValues { $0.failed ? nil : $0.sha256 }
    let importedAt = TextFormatting.isoUTC(Date())
    var added = 0
    var replaced = 0
    var skipped = 0
    func note(_ line: String) { if !settings.quiet { console.error("stepkit: \(line)\n") } }
    /// Runs `body` as one transaction: all of it is in the database, or none.
    func transaction(_ body: () throws(CommandError) -> Void) throws(CommandError) {
      try CommandError.writing { () throws(OutputFileError) in try writer.beginExport() }
      do throws(CommandError) {
        try body()
        try CommandError.writing { () throws(OutputFileError) in try writer.commitExport() }
      } catch {
        writer.rollbackExport()
        throw error
      }
    }
    let allRead = try Cohort.run(
      members, settings: settings, keepsSamples: true, imported: imported, console: console
    ) { member, outcome throws(CommandError) in
      let previous = existing.exports[member.id]
      switch outcome {
      case .unchanged:
        skipped += 1
        note("\(member.id): skipped: unchanged (the file imported \(previous?.importedAt ?? "before"))")
      case .failed(let message):
        if let previous, !previous.failed {
          skipped += 1
          note("\(member.id): skipped: could not be read; the export imported \(previous.importedAt) is kept")
          return
        }
        try transaction { () throws(CommandError) in
          try CommandError.writing { () throws(OutputFileError) in
            if previous != nil { try writer.removeExport(member.id) }
            try writer.recordExport(
              id: member.id, file: member.path, samples: 0, invalid: 0, error: message, importedAt: importedAt
            )
          }
        }
        if previous == nil { added += 1 } else { replaced += 1 }
        note("\(member.id): \(previous == nil ? "added" : "replaced") as unreadable")
      case .counted(let tally, let log, let sampleCount, _, let fingerprint):
        if let previous, !previous.failed, let old = previous.exportDate, let new = fingerprint?.exportDate,
          new < old
        {
          skipped += 1
          note("\(member.id): skipped: exported \(new), before the export imported (\(old))")
          return
        }
        try transaction { () throws(CommandError) in
          try CommandError.writing { () throws(OutputFileError) in
            if previous != nil { try writer.removeExport(member.id) }
            try writer.recordExport(
              id: member.id, file: member.path, samples: sampleCount, invalid: tally.invalid.count,
              error: nil, fingerprint: fingerprint, importedAt: importedAt)
            if let log { try writer.write(tally, log: log, export: member.id, rule: settings.validDay) }
          }
          // The samples and counted values were read again: never commit rows read wrong.
          if let log { try ExportLoading.checkStorage(log, tally.countedValues, quiet: true, console: nil) }
          _ = try writeRecords(writer, member.path, export: member.id, console: console)
        }
        let what =
          "\(TextFormatting.grouped(Int64(sampleCount))) samples, exported \(fingerprint?.exportDate ?? "(no ExportDate)")"
        if let previous {
          replaced += 1
          note("\(member.id): replaced (\(what); was exported \(previous.exportDate ?? "(no ExportDate)"))")
        } else {
          added += 1
          note("\(member.id): added (\(what))")
        }
      }
    }
    try CommandError.writing { () throws(OutputFileError) in try writer.close() }
    note("updated \(databasePath): \(added) added, \(replaced) replaced, \(skipped) skipped")
    if !allRead { throw .checkFailed }
  }
}

extension ArgumentSpec.Flag {
  /// `--replace` of `stepkit sqlite`.
  static let replace = Self(
    "replace",
    help: "Write OUT.db anew even when it is a cohort database (default: add and replace exports in it).")
}
