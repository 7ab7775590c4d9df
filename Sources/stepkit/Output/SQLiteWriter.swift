import CSQLite
import Foundation
import StepKitCore

/// Writes tallies and their samples into an SQLite database through the system
/// `libsqlite3`: tables `days`, `sources` and `samples`, with indexes, and for a
/// cohort of exports an `exports` table and an `export` column in the others.
///
/// The database is built in a temporary file beside the target and renamed over
/// it by ``commit()`` (see ``FileReplacement``): until then, and after any
/// failure, an existing database at the path is left exactly as it was.
final class SQLiteWriter {
  private var database: OpaquePointer?
  private let file: FileReplacement
  private let isCohort: Bool
  private var nextSampleID: Int64 = 1

  /// SQLite copies bound text at once (`SQLITE_TRANSIENT`).
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// Starts a new database that will replace `path`.
  ///
  /// - Parameters:
  ///   - path: The database file to create or replace.
  ///   - cohort: Whether the database holds several exports (an `exports`
  ///     table, and the export id in `days`, `sources` and `samples`).
  /// - Throws: ``OutputFileError`` when the path is not a regular file or the
  ///   temporary file cannot be created.
  init(replacing path: String, cohort: Bool = false) throws(OutputFileError) {
    file = try FileReplacement(replacing: path)
    isCohort = cohort
    var handle: OpaquePointer?
    let status = sqlite3_open_v2(file.temporaryPath, &handle, SQLITE_OPEN_READWRITE, nil)
    database = handle
    guard status == SQLITE_OK else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      throw OutputFileError(path: path, message: message)
    }
    try execute(Self.schema(cohort: cohort))
    try execute("BEGIN")
  }

  deinit {
    sqlite3_close(database)
    // The replacement removes its temporary file unless committed.
  }

  /// The tables; with `cohort`, every table but `exports` starts with the export id.
  static func schema(cohort: Bool) -> String {
    let export = cohort ? "\n  export TEXT NOT NULL REFERENCES exports (export)," : ""
    var sql = """
      PRAGMA journal_mode = OFF;
      PRAGMA synchronous = OFF;

      """
    if cohort {
      sql += """
        CREATE TABLE exports (
          export TEXT PRIMARY KEY,
          file TEXT NOT NULL,
          samples INTEGER NOT NULL,
          invalid INTEGER NOT NULL,
          error TEXT
        );

        """
    }
    sql += """
      CREATE TABLE days (\(export)
        date TEXT \(cohort ? "NOT NULL" : "PRIMARY KEY"),
        steps INTEGER NOT NULL,
        distance_m INTEGER NOT NULL,
        raw_steps INTEGER NOT NULL,
        manual_steps INTEGER NOT NULL,
        hours_with_data INTEGER NOT NULL,
        valid INTEGER\(cohort ? ",\n  sources TEXT NOT NULL,\n  PRIMARY KEY (export, date)" : "")
      );
      CREATE TABLE summary (\(export)
        first_day TEXT,
        last_day TEXT,
        days INTEGER NOT NULL,
        days_with_data INTEGER NOT NULL,
        valid_days INTEGER NOT NULL,
        mean_valid_steps REAL,
        median_valid_steps REAL,
        steps INTEGER NOT NULL,
        share_apple_watch REAL NOT NULL,
        share_iphone REAL NOT NULL,
        share_other REAL NOT NULL,
        share_typed_in REAL NOT NULL,
        typed_in_steps_left_out INTEGER NOT NULL,
        valid_day TEXT NOT NULL,
        day_start TEXT NOT NULL\(cohort ? ",\n  PRIMARY KEY (export)" : "")
      );
      CREATE TABLE sources (\(export)
        rank INTEGER \(cohort ? "NOT NULL" : "PRIMARY KEY"),
        name TEXT NOT NULL\(cohort ? "" : " UNIQUE"),
        class TEXT NOT NULL,
        counted INTEGER NOT NULL,
        device_models TEXT NOT NULL,
        step_samples INTEGER NOT NULL,
        distance_samples INTEGER NOT NULL,
        raw_steps INTEGER NOT NULL,
        counted_steps INTEGER NOT NULL,
        manual_steps INTEGER NOT NULL,
        raw_distance_m INTEGER NOT NULL,
        counted_distance_m INTEGER NOT NULL,
        first_start TEXT,
        last_end TEXT\(cohort ? ",\n  PRIMARY KEY (export, rank),\n  UNIQUE (export, name)" : "")
      );
      CREATE TABLE samples (
        id INTEGER PRIMARY KEY,\(export)
        kind TEXT NOT NULL,
        start TEXT NOT NULL,
        end TEXT NOT NULL,
        utc_offset INTEGER NOT NULL,
        local_date TEXT NOT NULL,
        value REAL NOT NULL,
        source TEXT NOT NULL,
        device_model TEXT,
        user_entered INTEGER NOT NULL,
        counted REAL NOT NULL
      );
      """
    return sql
  }

  /// The sample indexes, made once every row is in; a cohort's lead with the export id.
  static func indexes(cohort: Bool) -> String {
    let export = cohort ? "export, " : ""
    return """
      CREATE INDEX samples_by_start ON samples (\(export)kind, start);
      CREATE INDEX samples_by_local_date ON samples (\(export)local_date);
      CREATE INDEX samples_by_source ON samples (\(export)source, kind);
      """
  }

  /// Records one export of a cohort in the `exports` table.
  ///
  /// - Parameters:
  ///   - id: The export id (the `export` column of the other tables).
  ///   - file: The export's path.
  ///   - samples: Its step and distance samples; 0 when it failed.
  ///   - invalid: Its invalid records; 0 when it failed.
  ///   - error: Why it could not be read, or `nil`.
  /// - Throws: ``OutputFileError``.
  func recordExport(id: String, file path: String, samples: Int, invalid: Int, error: String?)
    throws(OutputFileError)
  {
    let insert = try prepare("INSERT INTO exports VALUES (?, ?, ?, ?, ?)")
    defer { sqlite3_finalize(insert) }
    bind(insert, 1, id)
    bind(insert, 2, path)
    sqlite3_bind_int64(insert, 3, Int64(samples))
    sqlite3_bind_int64(insert, 4, Int64(invalid))
    bind(insert, 5, error)
    try step(insert)
  }

  /// Closes the database, flushes it to disk and renames it over the target.
  ///
  /// - Throws: ``OutputFileError``; the target is then left as it was.
  func commit() throws(OutputFileError) {
    try execute(Self.indexes(cohort: isCohort))
    try execute("COMMIT")
    let status = sqlite3_close(database)
    database = nil
    guard status == SQLITE_OK else {
      file.discard()
      throw OutputFileError(path: file.path, message: "cannot close the database (SQLite error \(status))")
    }
    try file.commit()
  }

  /// Writes one export's days, sources and samples (one transaction for all, committed by ``commit()``).
  ///
  /// - Parameters:
  ///   - tally: A tally made with ``CountingOptions/recordsCountedValues``.
  ///   - log: The log the tally was made from.
  ///   - export: The export id, in a cohort database (after ``recordExport(id:file:samples:invalid:error:)``).
  /// - Throws: ``OutputFileError``.
  func write(_ tally: Tally, log: SampleLog, export: String? = nil, rule: ValidDayRule = .default)
    throws(OutputFileError)
  {
    // In a cohort, column 1 of days, sources and samples (after samples.id) is the export id.
    let first: Int32 = isCohort ? 1 : 0
    let dayInsert = try prepare("INSERT INTO days VALUES (\(Self.placeholders(7 + 2 * first)))")
    defer { sqlite3_finalize(dayInsert) }
    if isCohort { bind(dayInsert, 1, export) }
    let isDays = tally.options.unit == .day
    for bucket in tally.buckets {
      bind(dayInsert, first + 1, bucket.label(unit: tally.options.unit))
      sqlite3_bind_int64(dayInsert, first + 2, bucket.roundedSteps)
      sqlite3_bind_int64(dayInsert, first + 3, bucket.roundedDistanceMeters)
      sqlite3_bind_int64(dayInsert, first + 4, bucket.roundedRawSteps)
      sqlite3_bind_int64(dayInsert, first + 5, bucket.roundedManualSteps)
      sqlite3_bind_int64(dayInsert, first + 6, Int64(bucket.hoursWithData))
      if isDays {
        sqlite3_bind_int64(dayInsert, first + 7, rule.isValid(bucket) ? 1 : 0)
      } else {
        sqlite3_bind_null(dayInsert, first + 7)
      }
      if isCohort { bind(dayInsert, first + 8, CSVFormatter.sourceList(tally.stepContributors(of: bucket))) }
      try step(dayInsert)
    }
    if isDays { try writeSummary(DaySummary(tally, rule: rule), options: tally.options, export: export) }
    let sourceInsert = try prepare("INSERT INTO sources VALUES (\(Self.placeholders(14 + first)))")
    defer { sqlite3_finalize(sourceInsert) }
    if isCohort { bind(sourceInsert, 1, export) }
    for row in tally.sources {
      sqlite3_bind_int64(sourceInsert, first + 1, Int64(row.rank))
      bind(sourceInsert, first + 2, row.name)
      bind(sourceInsert, first + 3, row.classLabel)
      sqlite3_bind_int64(sourceInsert, first + 4, row.isCounted ? 1 : 0)
      bind(sourceInsert, first + 5, row.deviceModels.joined(separator: " "))
      sqlite3_bind_int64(sourceInsert, first + 6, Int64(row.stepSamples))
      sqlite3_bind_int64(sourceInsert, first + 7, Int64(row.distanceSamples))
      sqlite3_bind_int64(sourceInsert, first + 8, roundedForOutput(row.rawSteps))
      sqlite3_bind_int64(sourceInsert, first + 9, roundedForOutput(row.countedSteps))
      sqlite3_bind_int64(sourceInsert, first + 10, roundedForOutput(row.manualSteps))
      sqlite3_bind_int64(sourceInsert, first + 11, roundedForOutput(row.rawDistanceMeters))
      sqlite3_bind_int64(sourceInsert, first + 12, roundedForOutput(row.countedDistanceMeters))
      bind(sourceInsert, first + 13, row.firstStart.map(TextFormatting.isoUTC))
      bind(sourceInsert, first + 14, row.lastEnd.map(TextFormatting.isoUTC))
      try step(sourceInsert)
    }
    let sampleInsert = try prepare("INSERT INTO samples VALUES (\(Self.placeholders(11 + first)))")
    defer { sqlite3_finalize(sampleInsert) }
    if isCohort { bind(sampleInsert, 2, export) }
    let origins = log.origins
    // The same day rule as the days table, --time-zone included.
    var days = LocalDayFinder(rule: tally.options.timeZone, dayStart: tally.options.dayStart)
    // In order, so that each block of the log and each page of the counted
    // values is read once.
    var counted = tally.countedValues.makeIterator()
    try log.forEachEntry { (_, sample) throws(OutputFileError) in
      let origin = origins[Int(sample.origin.rawValue)]
      let startMs = sample.startMs
      sqlite3_bind_int64(sampleInsert, 1, nextSampleID)
      nextSampleID += 1
      bind(sampleInsert, first + 2, sample.kind == .steps ? "steps" : "distance")
      bind(sampleInsert, first + 3, TextFormatting.localDateTime(startMs, offsetSeconds: 0))
      bind(sampleInsert, first + 4, TextFormatting.localDateTime(sample.endMs, offsetSeconds: 0))
      sqlite3_bind_int64(sampleInsert, first + 5, Int64(sample.utcOffsetSeconds))
      bind(
        sampleInsert, first + 6,
        days.day(of: startMs, recordedOffsetSeconds: sample.utcOffsetSeconds).description)
      sqlite3_bind_double(sampleInsert, first + 7, sample.value)
      bind(sampleInsert, first + 8, origin.source)
      bind(sampleInsert, first + 9, origin.device?.model)
      sqlite3_bind_int64(sampleInsert, first + 10, sample.isUserEntered ? 1 : 0)
      sqlite3_bind_double(sampleInsert, first + 11, counted.next() ?? 0)
      try step(sampleInsert)
    }
  }

  /// One row of `summary`.
  private func writeSummary(_ summary: DaySummary, options: CountingOptions, export: String?)
    throws(OutputFileError)
  {
    let first: Int32 = isCohort ? 1 : 0
    let insert = try prepare("INSERT INTO summary VALUES (\(Self.placeholders(15 + first)))")
    defer { sqlite3_finalize(insert) }
    if isCohort { bind(insert, 1, export) }
    bind(insert, first + 1, summary.firstDay?.description)
    bind(insert, first + 2, summary.lastDay?.description)
    sqlite3_bind_int64(insert, first + 3, Int64(summary.days))
    sqlite3_bind_int64(insert, first + 4, Int64(summary.daysWithData))
    sqlite3_bind_int64(insert, first + 5, Int64(summary.validDays))
    bind(insert, first + 6, summary.meanValidSteps)
    bind(insert, first + 7, summary.medianValidSteps)
    sqlite3_bind_int64(insert, first + 8, summary.steps)
    for (offset, (sourceClass, _)) in SummaryFormatter.shareClasses.enumerated() {
      sqlite3_bind_double(insert, first + 9 + Int32(offset), summary.stepShares[sourceClass] ?? 0)
    }
    sqlite3_bind_int64(insert, first + 13, summary.typedInStepsLeftOut)
    bind(insert, first + 14, summary.rule.description)
    bind(insert, first + 15, options.dayStart.description)
    try step(insert)
  }

  private func bind(_ statement: OpaquePointer?, _ index: Int32, _ value: Double?) {
    if let value {
      sqlite3_bind_double(statement, index, value)
    } else {
      sqlite3_bind_null(statement, index)
    }
  }

  /// `?, ?, ?` for `count` columns.
  private static func placeholders(_ count: Int32) -> String {
    Array(repeating: "?", count: Int(count)).joined(separator: ", ")
  }

  private func execute(_ sql: String) throws(OutputFileError) {
    var message: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(database, sql, nil, nil, &message) == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? "unknown error"
      sqlite3_free(message)
      throw OutputFileError(path: file.path, message: text)
    }
  }

  private func prepare(_ sql: String) throws(OutputFileError) -> OpaquePointer? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
      throw OutputFileError(path: file.path, message: String(cString: sqlite3_errmsg(database)))
    }
    return statement
  }

  private func bind(_ statement: OpaquePointer?, _ index: Int32, _ text: String?) {
    if let text {
      sqlite3_bind_text(statement, index, text, -1, Self.transient)
    } else {
      sqlite3_bind_null(statement, index)
    }
  }

  private func step(_ statement: OpaquePointer?) throws(OutputFileError) {
    guard sqlite3_step(statement) == SQLITE_DONE else {
      throw OutputFileError(path: file.path, message: String(cString: sqlite3_errmsg(database)))
    }
    sqlite3_reset(statement)
  }
}
