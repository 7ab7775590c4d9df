import CSQLite
import Foundation
import StepKitCore

/// Why an SQLite database could not be written.
struct SQLiteError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The database file.
  var path: String
  /// SQLite's message.
  var message: String

  var description: String { "cannot write \(path): \(message)" }
}

/// Writes a tally and its samples into an SQLite database through the system
/// `libsqlite3`: tables `days`, `sources` and `samples`, with indexes.
final class SQLiteWriter {
  private var database: OpaquePointer?
  private let path: String

  /// SQLite copies bound text at once (`SQLITE_TRANSIENT`).
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// Creates (replacing) the database at `path`.
  ///
  /// - Throws: ``SQLiteError`` when the file cannot be created.
  init(path: String) throws(SQLiteError) {
    self.path = path
    if FileManager.default.fileExists(atPath: path) {
      do {
        try FileManager.default.removeItem(atPath: path)
      } catch {
        throw SQLiteError(path: path, message: "cannot replace the existing file")
      }
    }
    var handle: OpaquePointer?
    let status = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
    database = handle
    guard status == SQLITE_OK else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      throw SQLiteError(path: path, message: message)
    }
  }

  deinit { sqlite3_close(database) }

  static let schema = """
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    CREATE TABLE days (
      date TEXT PRIMARY KEY,
      steps INTEGER NOT NULL,
      distance_m INTEGER NOT NULL,
      raw_steps INTEGER NOT NULL,
      manual_steps INTEGER NOT NULL
    );
    CREATE TABLE sources (
      rank INTEGER PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
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
      last_end TEXT
    );
    CREATE TABLE samples (
      id INTEGER PRIMARY KEY,
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

  static let indexes = """
    CREATE INDEX samples_by_start ON samples (kind, start);
    CREATE INDEX samples_by_local_date ON samples (local_date);
    CREATE INDEX samples_by_source ON samples (source, kind);
    """

  /// Writes everything in one transaction.
  ///
  /// - Parameters:
  ///   - tally: A tally made with ``CountingOptions/recordsCountedValues``.
  ///   - log: The log the tally was made from.
  /// - Throws: ``SQLiteError``.
  func write(_ tally: Tally, log: SampleLog) throws(SQLiteError) {
    try execute(Self.schema)
    try execute("BEGIN")
    let dayInsert = try prepare("INSERT INTO days VALUES (?, ?, ?, ?, ?)")
    defer { sqlite3_finalize(dayInsert) }
    for bucket in tally.buckets {
      bind(dayInsert, 1, bucket.label(unit: tally.options.unit))
      sqlite3_bind_int64(dayInsert, 2, bucket.roundedSteps)
      sqlite3_bind_int64(dayInsert, 3, bucket.roundedDistanceMeters)
      sqlite3_bind_int64(dayInsert, 4, bucket.roundedRawSteps)
      sqlite3_bind_int64(dayInsert, 5, bucket.roundedManualSteps)
      try step(dayInsert)
    }
    let sourceInsert = try prepare(
      "INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    defer { sqlite3_finalize(sourceInsert) }
    for row in tally.sources {
      sqlite3_bind_int64(sourceInsert, 1, Int64(row.rank))
      bind(sourceInsert, 2, row.name)
      bind(sourceInsert, 3, row.classLabel)
      sqlite3_bind_int64(sourceInsert, 4, row.isCounted ? 1 : 0)
      bind(sourceInsert, 5, row.deviceModels.joined(separator: " "))
      sqlite3_bind_int64(sourceInsert, 6, Int64(row.stepSamples))
      sqlite3_bind_int64(sourceInsert, 7, Int64(row.distanceSamples))
      sqlite3_bind_int64(sourceInsert, 8, roundedForOutput(row.rawSteps))
      sqlite3_bind_int64(sourceInsert, 9, roundedForOutput(row.countedSteps))
      sqlite3_bind_int64(sourceInsert, 10, roundedForOutput(row.manualSteps))
      sqlite3_bind_int64(sourceInsert, 11, roundedForOutput(row.rawDistanceMeters))
      sqlite3_bind_int64(sourceInsert, 12, roundedForOutput(row.countedDistanceMeters))
      bind(sourceInsert, 13, row.firstStart.map(TextFormatting.isoUTC))
      bind(sourceInsert, 14, row.lastEnd.map(TextFormatting.isoUTC))
      try step(sourceInsert)
    }
    let sampleInsert = try prepare(
      "INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    defer { sqlite3_finalize(sampleInsert) }
    let origins = log.origins
    // The same day rule as the days table, --time-zone included.
    var days = LocalDayFinder(rule: tally.options.timeZone)
    for index in 0..<log.count {
      let sample = log.sample(at: index)
      let origin = origins[Int(log.originOfSample(at: index).rawValue)]
      let startMs = sample.start.epochMilliseconds
      sqlite3_bind_int64(sampleInsert, 1, Int64(index + 1))
      bind(sampleInsert, 2, sample.kind == .steps ? "steps" : "distance")
      bind(sampleInsert, 3, TextFormatting.localDateTime(startMs, offsetSeconds: 0))
      bind(sampleInsert, 4, TextFormatting.localDateTime(sample.end.epochMilliseconds, offsetSeconds: 0))
      sqlite3_bind_int64(sampleInsert, 5, Int64(sample.utcOffsetSeconds))
      bind(sampleInsert, 6, days.day(of: startMs, recordedOffsetSeconds: sample.utcOffsetSeconds).description)
      sqlite3_bind_double(sampleInsert, 7, sample.value)
      bind(sampleInsert, 8, origin.source)
      bind(sampleInsert, 9, origin.device?.model)
      sqlite3_bind_int64(sampleInsert, 10, sample.isUserEntered ? 1 : 0)
      sqlite3_bind_double(
        sampleInsert, 11, index < tally.countedValues.count ? tally.countedValues[index] : 0)
      try step(sampleInsert)
    }
    try execute(Self.indexes)
    try execute("COMMIT")
  }

  private func execute(_ sql: String) throws(SQLiteError) {
    var message: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(database, sql, nil, nil, &message) == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? "unknown error"
      sqlite3_free(message)
      throw SQLiteError(path: path, message: text)
    }
  }

  private func prepare(_ sql: String) throws(SQLiteError) -> OpaquePointer? {
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
      throw SQLiteError(path: path, message: String(cString: sqlite3_errmsg(database)))
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

  private func step(_ statement: OpaquePointer?) throws(SQLiteError) {
    guard sqlite3_step(statement) == SQLITE_DONE else {
      throw SQLiteError(path: path, message: String(cString: sqlite3_errmsg(database)))
    }
    sqlite3_reset(statement)
  }
}
