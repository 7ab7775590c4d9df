import CSQLite
import Foundation
import StepKitCore

/// Writes tallies and their samples into an SQLite database through the system
/// `libsqlite3`: tables `days`, `sources` and `samples`, with indexes, and for a
/// cohort of exports an `exports` table and an `export` column in the others.
///
/// A new database is built in a temporary file beside the target and renamed
/// over it by ``commit()`` (see ``FileReplacement``): until then, and after any
/// failure, an existing database at the path is left exactly as it was. An
/// existing cohort database is updated in place instead
/// (``update(_:settings:)``), one export per transaction.
final class SQLiteWriter {
  private(set) var database: OpaquePointer?
  /// The replacement being built; `nil` when updating in place.
  private let file: FileReplacement?
  /// The database, as the command line named it.
  let path: String
  let isCohort: Bool
  /// Whether `records` and its indexes were written page by page before SQLite opened the file.
  private let recordsWritten: Bool
  /// Whether `samples` and its indexes were, too.
  private let samplesWritten: Bool
  private var nextSampleID: Int64 = 1

  /// SQLite copies bound text at once (`SQLITE_TRANSIENT`).
  static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// Starts a new database that will replace `path`.
  ///
  /// - Parameters:
  ///   - path: The database file to create or replace.
  ///   - cohort: Whether the database holds several exports (an `exports`
  ///     table, and the export id in `days`, `sources` and `samples`).
  /// - Throws: ``OutputFileError`` when the path is not a regular file or the
  ///   temporary file cannot be created.
  convenience init(replacing path: String, cohort: Bool = false, settings: [(String, String)] = [])
    throws(OutputFileError)
  {
    try self.init(FileReplacement(replacing: path), cohort: cohort, settings: settings)
  }

  /// Starts a new database in `file`'s temporary file, which will replace its target.
  ///
  /// - Parameters:
  ///   - file: The replacement; its temporary file is empty, or holds
  ///     `records` and its indexes written by ``RecordPages`` when
  ///     `recordsWritten`, and every other table is added.
  ///   - cohort: Whether the database holds several exports.
  ///   - settings: The `settings` rows.
  ///   - recordsWritten: `records` is in the file already.
  ///   - samplesWritten: `samples` is too (``SamplePages``): ``write(_:log:export:rule:)``
  ///     then writes the days, the summary and the sources only.
  /// - Throws: ``OutputFileError`` when the database cannot be opened or its tables made.
  init(
    _ file: FileReplacement, cohort: Bool = false, settings: [(String, String)] = [],
    recordsWritten: Bool = false, samplesWritten: Bool = false
  ) throws(OutputFileError) {
    self.file = file
    path = file.path
    isCohort = cohort
    self.recordsWritten = recordsWritten
    self.samplesWritten = samplesWritten
    SQLiteSetup.once
    var handle: OpaquePointer?
    // Used from one thread only (a cohort's exports are delivered in turn on the calling
    // thread): no mutex around each call.
    let status = sqlite3_open_v2(
      file.temporaryPath, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
    database = handle
    guard status == SQLITE_OK else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      throw OutputFileError(path: path, message: message)
    }
    try execute(Self.schema(cohort: cohort, records: !recordsWritten, samples: !samplesWritten))
    try execute("BEGIN")
    let insert = try prepare("INSERT INTO settings VALUES (?, ?)")
    defer { sqlite3_finalize(insert) }
    for (key, value) in settings {
      bind(insert, 1, key)
      bind(insert, 2, value)
      try step(insert)
    }
  }

  /// Wraps an open temporary database (``init(elementScratchFor:)``); errors name `path`.
  init(scratch database: OpaquePointer?, path: String) {
    file = nil
    self.path = path
    self.database = database
    isCohort = false
    recordsWritten = false
    samplesWritten = false
  }

  /// Opens an existing cohort database to update in place.
  private init(updating path: String, database: OpaquePointer?) throws(OutputFileError) {
    file = nil
    self.path = path
    self.database = database
    isCohort = true
    recordsWritten = false
    samplesWritten = false
    // A rollback journal, synced: a transaction is all or nothing, even across a crash.
    try execute("PRAGMA journal_mode = DELETE; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;")
  }

  /// The temporary files of killed runs removed beside the target (``FileReplacement/removedLeftovers``).
  var removedLeftovers: [String] { file?.removedLeftovers ?? [] }

  deinit {
    sqlite3_close(database)
    // The replacement removes its temporary file unless committed.
  }

  /// The tables; with `cohort`, every table but `exports` starts with the export id.
  static func schema(cohort: Bool, records: Bool = true, samples: Bool = true) -> String {
    let export = cohort ? "\n  export TEXT NOT NULL REFERENCES exports (export)," : ""
    var sql = """
      PRAGMA page_size = 16384;
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
          error TEXT,
          sha256 TEXT,
          export_date TEXT,
          imported_at TEXT NOT NULL
        );

        """
    }
    sql += """
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );

      """
    sql += """
      CREATE TABLE days (\(export)
        date TEXT \(cohort ? "NOT NULL" : "PRIMARY KEY"),
        steps INTEGER,
        distance_m INTEGER,
        raw_steps INTEGER,
        manual_steps INTEGER,
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
      """
    return sql + (samples ? samplesTable(cohort: cohort) : "")
      + (records ? recordsTable(cohort: cohort) + "\n" : "") + elementTables(cohort: cohort)
      + dailyTotalsTable(cohort: cohort)
  }

  /// The `samples` table; with `cohort`, its rows carry the export id.
  static func samplesTable(cohort: Bool) -> String {
    """
    CREATE TABLE samples (
      id INTEGER PRIMARY KEY,\(cohort ? "\n  export TEXT NOT NULL REFERENCES exports (export)," : "")
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
  }

  /// The indexes, made once every row is in; a cohort's lead with the export id.
  static func indexes(cohort: Bool, records: Bool = true, samples: Bool = true) -> String {
    (samples ? sampleIndexes(cohort: cohort) : "") + (records ? recordIndexes(cohort: cohort) : "")
      + elementIndexes(cohort: cohort) + dailyTotalsIndexes(cohort: cohort)
  }

  /// The indexes of `samples`, a statement a line.
  static func sampleIndexes(cohort: Bool) -> String {
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
  ///   - fingerprint: The file's SHA-256 and `ExportDate`, when known.
  ///   - importedAt: When it was imported (ISO 8601, UTC).
  func recordExport(
    id: String, file path: String, samples: Int, invalid: Int, error: String?,
    fingerprint: ExportFingerprint? = nil, importedAt: String
  ) throws(OutputFileError) {
    let insert = try prepare("INSERT INTO exports VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    defer { sqlite3_finalize(insert) }
    bind(insert, 1, id)
    bind(insert, 2, path)
    sqlite3_bind_int64(insert, 3, Int64(samples))
    sqlite3_bind_int64(insert, 4, Int64(invalid))
    bind(insert, 5, error)
    bind(insert, 6, fingerprint?.sha256)
    bind(insert, 7, fingerprint?.exportDate)
    bind(insert, 8, importedAt)
    try step(insert)
  }

  /// Closes the database, flushes it to disk and renames it over the target.
  ///
  /// - Throws: ``OutputFileError``; the target is then left as it was.
  ///
  /// - Returns: The files SQLite had left beside the database it replaced
  ///   (`OUT.db-journal`, `OUT.db-wal`, `OUT.db-shm`), which were rolled back
  ///   or checkpointed into it and removed, so that none is replayed into the
  ///   new one (see ``ReplacedDatabase``).
  /// - Throws: ``OutputFileError``, also when another program holds a lock on
  ///   the database at the path; the target is then left as it was.
  @discardableResult
  func commit() throws(OutputFileError) -> [String] {
    guard let file else {
      try close()
      return []
    }
    try execute(Self.indexes(cohort: isCohort, records: !recordsWritten, samples: !samplesWritten))
    try execute("COMMIT")
    let status = sqlite3_close(database)
    database = nil
    guard status == SQLITE_OK else {
      file.discard()
      throw OutputFileError(path: file.path, message: "cannot close the database (SQLite error \(status))")
    }
    var replaced: ReplacedDatabase
    do throws(OutputFileError) {
      replaced = try ReplacedDatabase(locking: file.target, path: file.path)
    } catch {
      file.discard()
      throw error
    }
    do throws(OutputFileError) {
      try file.commit()
    } catch {
      replaced.close()
      throw error
    }
    return replaced.finish()
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
      // A day without any sample is NULL in the four counts, unlike a day of 0 counted steps.
      let values = [
        bucket.roundedSteps, bucket.roundedDistanceMeters, bucket.roundedRawSteps, bucket.roundedManualSteps,
      ]
      for (column, value) in values.enumerated() {
        if bucket.hasSamples {
          sqlite3_bind_int64(dayInsert, first + 2 + Int32(column), value)
        } else {
          sqlite3_bind_null(dayInsert, first + 2 + Int32(column))
        }
      }
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
    guard !samplesWritten else { return }
    let sampleInsert = try prepare("INSERT INTO samples VALUES (\(Self.placeholders(11 + first)))")
    defer { sqlite3_finalize(sampleInsert) }
    if isCohort { bind(sampleInsert, 2, export) }
    // The ids go on from the database's highest when it is updated.
    let origins = log.origins
    // The same day rule as the days table, --time-zone included.
    var days = LocalDayFinder(rule: tally.options.timeZone, dayStart: tally.options.dayStart)
    // In order, so that each block of the log and each page of the counted
    // values is read once.
    var counted = tally.countedValues.makeIterator()
    // The dates as bytes in one reused buffer rather than a String each (a sample cost
    // about 28,000 instructions with them); the kind, source and device model bound only
    // when they change, since SQLite keeps a binding from row to row.
    var text = RecordText(capacity: 64)
    var boundKind: QuantityKind?
    var boundOrigin: OriginID?
    try log.forEachEntry { (_, sample) throws(OutputFileError) in
      let startMs = sample.startMs
      sqlite3_bind_int64(sampleInsert, 1, nextSampleID)
      nextSampleID += 1
      if sample.kind != boundKind {
        bind(sampleInsert, first + 2, sample.kind == .steps ? "steps" : "distance")
        boundKind = sample.kind
      }
      text.reset()
      let start = text.utcInstant(startMs)
      let end = text.utcInstant(sample.endMs)
      let day = text.date(days.day(of: startMs, recordedOffsetSeconds: sample.utcOffsetSeconds))
      // Bound once all three are written: a write may move the buffer.
      let bytes = UnsafeRawPointer(text.bytes).assumingMemoryBound(to: CChar.self)
      sqlite3_bind_text(sampleInsert, first + 3, bytes + start, Int32(end - start), nil)
      sqlite3_bind_text(sampleInsert, first + 4, bytes + end, Int32(day - end), nil)
      sqlite3_bind_text(sampleInsert, first + 6, bytes + day, Int32(text.count - day), nil)
      sqlite3_bind_int64(sampleInsert, first + 5, Int64(sample.utcOffsetSeconds))
      sqlite3_bind_double(sampleInsert, first + 7, sample.value)
      if sample.origin != boundOrigin {
        let origin = origins[Int(sample.origin.rawValue)]
        bind(sampleInsert, first + 8, origin.source)
        bind(sampleInsert, first + 9, origin.device?.model)
        boundOrigin = sample.origin
      }
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

  /// Binds `value`, or NULL for `nil`.
  func bind(_ statement: OpaquePointer?, _ index: Int32, _ value: Double?) {
    bind(statement, index, value, sqlite3_bind_double)
  }

  /// Binds `value`, or NULL for `nil`.
  func bind(_ statement: OpaquePointer?, _ index: Int32, _ value: Int64?) {
    bind(statement, index, value, sqlite3_bind_int64)
  }

  /// Binds `value` with `bindValue`, or NULL for `nil`: the one place that says what a
  /// missing number becomes.
  private func bind<Value>(
    _ statement: OpaquePointer?, _ index: Int32, _ value: Value?,
    _ bindValue: (OpaquePointer?, Int32, Value) -> Int32
  ) {
    if let value {
      _ = bindValue(statement, index, value)
    } else {
      sqlite3_bind_null(statement, index)
    }
  }

  /// `?, ?, ?` for `count` columns.
  static func placeholders(_ count: Int32) -> String {
    Array(repeating: "?", count: Int(count)).joined(separator: ", ")
  }

  func execute(_ sql: String) throws(OutputFileError) {
    var message: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(database, sql, nil, nil, &message) == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? "unknown error"
      sqlite3_free(message)
      throw OutputFileError(path: path, message: text)
    }
  }

  func prepare(_ sql: String) throws(OutputFileError) -> OpaquePointer? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
      throw OutputFileError(path: path, message: String(cString: sqlite3_errmsg(database)))
    }
    return statement
  }

  func bind(_ statement: OpaquePointer?, _ index: Int32, _ text: String?) {
    if let text {
      sqlite3_bind_text(statement, index, text, -1, Self.transient)
    } else {
      sqlite3_bind_null(statement, index)
    }
  }

  func step(_ statement: OpaquePointer?) throws(OutputFileError) {
    guard sqlite3_step(statement) == SQLITE_DONE else {
      throw OutputFileError(path: path, message: String(cString: sqlite3_errmsg(database)))
    }
    sqlite3_reset(statement)
  }
}

// MARK: - Updating a cohort database in place

extension SQLiteWriter {
  /// An export as a cohort database records it.
  struct ImportedExport: Equatable, Sendable {
    /// The imported file's SHA-256 (`nil` in a row written without one).
    var sha256: String?
    /// Its `ExportDate`.
    var exportDate: String?
    /// When it was imported.
    var importedAt: String
    /// Whether it could not be read then (its `error`).
    var failed: Bool
  }

  /// A cohort database opened for update, with what it holds.
  struct Existing {
    /// The writer, in place.
    var writer: SQLiteWriter
    /// Its exports by id.
    var exports: [String: ImportedExport]
    /// The options it was written with (its `settings` table).
    var settings: [String: String]
  }

  /// Opens `path` for update when it is a cohort database `stepkit sqlite`
  /// wrote (an SQLite file with an `exports` and a `settings` table).
  ///
  /// - Returns: The database and what it holds; `nil` when there is no file
  ///   or it is another kind of file (then it is replaced as before).
  /// - Throws: ``OutputFileError`` when it cannot be opened, or when it is a
  ///   cohort database from an earlier `stepkit` (no SHA-256 recorded).
  static func openExisting(_ path: String) throws(OutputFileError) -> Existing? {
    guard Platform.fileKind(path).kind == .regular, let handle = FileHandle(forReadingAtPath: path) else {
      return nil
    }
    let header = (try? handle.read(upToCount: 16)) ?? Data()
    try? handle.close()
    guard header == Data("SQLite format 3\u{0}".utf8) else { return nil }
    var database: OpaquePointer?
    SQLiteSetup.once
    guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
      let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(database)
      throw OutputFileError(path: path, message: message)
    }
    let writer: SQLiteWriter
    do throws(OutputFileError) {
      writer = try SQLiteWriter(updating: path, database: database)
    } catch {
      // Another program holds a lock on it (SQLITE_BUSY, whose message this is; the
      // handle is closed by now): say so, as a replacement would.
      if error.message == String(cString: sqlite3_errstr(SQLITE_BUSY)) { throw ReplacedDatabase.inUse(path) }
      throw error
    }
    let tables = Set(
      try writer.rows("SELECT name FROM sqlite_master WHERE type = 'table'").map { $0[0] ?? "" })
    guard tables.contains("exports") else {
      try writer.close()
      return nil
    }
    let columns = Set(try writer.rows("PRAGMA table_info(exports)").map { $0[1] ?? "" })
    guard columns.contains("sha256"), tables.contains("settings") else {
      try? writer.close()
      throw OutputFileError(
        path: path,
        message:
          "it is a cohort database from an earlier stepkit, without the SHA-256 of its exports; "
          + "add --replace to write it anew")
    }
    // Days without data are NULL (COUNTING.md, Outputs); an earlier stepkit's `days` refuses NULL.
    let stepsColumn = try writer.rows("PRAGMA table_info(days)").first { $0[1] == "steps" }
    if stepsColumn?[3] == "1" {
      try? writer.close()
      throw OutputFileError(
        path: path,
        message:
          "it is a cohort database from an earlier stepkit, whose days table cannot hold the NULL "
          + "of a day without data; add --replace to write it anew")
    }
    // A cohort database written before the records, element or daily_totals tables has none yet.
    try writer.execute(
      recordsTable(cohort: true) + recordIndexes(cohort: true) + elementTables(cohort: true)
        + elementIndexes(cohort: true) + dailyTotalsTable(cohort: true) + dailyTotalsIndexes(cohort: true))
    writer.nextSampleID = try writer.queryInt("SELECT COALESCE(MAX(id), 0) + 1 FROM samples")
    var exports: [String: ImportedExport] = [:]
    for row in try writer.rows(
      "SELECT export, sha256, export_date, imported_at, error IS NOT NULL FROM exports")
    {
      exports[row[0] ?? ""] = ImportedExport(
        sha256: row[1], exportDate: row[2], importedAt: row[3] ?? "", failed: row[4] == "1")
    }
    var settings: [String: String] = [:]
    for row in try writer.rows("SELECT key, value FROM settings") { settings[row[0] ?? ""] = row[1] ?? "" }
    return Existing(writer: writer, exports: exports, settings: settings)
  }

  /// Starts one export's transaction (updating in place).
  func beginExport() throws(OutputFileError) { try execute("BEGIN IMMEDIATE") }

  /// Commits one export's transaction: its rows are in the database on disk.
  func commitExport() throws(OutputFileError) { try execute("COMMIT") }

  /// Undoes one export's transaction after a failure: the database is as before it began.
  func rollbackExport() { sqlite3_exec(database, "ROLLBACK", nil, nil, nil) }

  /// Removes every row of export `id` (inside an export's transaction).
  func removeExport(_ id: String) throws(OutputFileError) {
    let tables =
      ["days", "summary", "sources", "samples", "records", "daily_totals"] + Self.elementTableNames
    for table in tables + ["exports"] {
      let delete = try prepare("DELETE FROM \(table) WHERE export = ?")
      defer { sqlite3_finalize(delete) }
      bind(delete, 1, id)
      try step(delete)
    }
  }

  /// Closes a database updated in place.
  func close() throws(OutputFileError) {
    let status = sqlite3_close(database)
    database = nil
    guard status == SQLITE_OK else {
      throw OutputFileError(path: path, message: "cannot close the database (SQLite error \(status))")
    }
  }

  /// The rows `sql` returns, as text (`nil` for NULL).
  private func rows(_ sql: String) throws(OutputFileError) -> [[String?]] {
    let statement = try prepare(sql)
    defer { sqlite3_finalize(statement) }
    var result: [[String?]] = []
    while sqlite3_step(statement) == SQLITE_ROW {
      result.append(
        (0..<sqlite3_column_count(statement)).map { column in
          sqlite3_column_text(statement, column).map { String(cString: $0) }
        })
    }
    return result
  }

  /// The integer the one-row, one-column `sql` returns.
  private func queryInt(_ sql: String) throws(OutputFileError) -> Int64 {
    let statement = try prepare(sql)
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else {
      throw OutputFileError(path: path, message: String(cString: sqlite3_errmsg(database)))
    }
    return sqlite3_column_int64(statement, 0)
  }
}
