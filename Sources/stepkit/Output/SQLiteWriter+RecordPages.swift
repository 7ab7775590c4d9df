import CSQLite
import HealthExport
import StepKitCore

extension SQLiteWriter {
  /// A private temporary database (SQLite deletes it when closed) holding
  /// the element tables (workouts, activity summaries, correlations, `me`)
  /// while `records` is written page by page in the real one, which SQLite
  /// cannot open until then. ``copyElements(from:)`` moves the rows over.
  ///
  /// - Parameter path: The database, as errors name it.
  /// - Throws: ``OutputFileError`` when SQLite cannot make it.
  convenience init(elementScratchFor path: String) throws(OutputFileError) {
    SQLiteSetup.once
    var handle: OpaquePointer?
    // An empty name: a temporary database on disk, removed on close, its cache bounded.
    let status = sqlite3_open_v2("", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
    guard status == SQLITE_OK else {
      let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(handle)
      throw OutputFileError(path: path, message: "cannot make a temporary database: \(message)")
    }
    self.init(scratch: handle, path: path)
    try execute(Self.elementTables(cohort: false) + "BEGIN;")
  }

  /// Copies every row of the element tables from `scratch`, each as it is (ids too).
  ///
  /// - Throws: ``OutputFileError`` when a row cannot be read or written.
  func copyElements(from scratch: SQLiteWriter) throws(OutputFileError) {
    for table in Self.elementTableNames.reversed() {
      let select = try scratch.prepare("SELECT * FROM \(table)")
      defer { sqlite3_finalize(select) }
      let columns = sqlite3_column_count(select)
      let insert = try prepare("INSERT INTO \(table) VALUES (\(Self.placeholders(columns)))")
      defer { sqlite3_finalize(insert) }
      while true {
        let status = sqlite3_step(select)
        if status == SQLITE_DONE { break }
        guard status == SQLITE_ROW else {
          throw OutputFileError(path: path, message: String(cString: sqlite3_errmsg(scratch.database)))
        }
        for column in 0..<columns {
          sqlite3_bind_value(insert, column + 1, sqlite3_column_value(select, column))
        }
        try step(insert)
      }
    }
  }

  /// Reads `input` once, whole: each record as a row of `records`, written
  /// page by page into `file` (``RecordPages``), which must be empty; each
  /// workout, activity summary and correlation, and the `<Me>`
  /// characteristics, into `scratch` (``init(elementScratchFor:)``).
  ///
  /// - Parameters:
  ///   - days: Decides each row's `local_date`, as for the samples.
  ///   - threads: With more than 1, the export is read on a thread of its
  ///     own while the rows are written on this one.
  /// - Returns: The rows, for ``RecordPages/finish(samples:)`` to make a
  ///   database of, and what the reader found and what was written.
  /// - Throws: ``HealthExportError`` when the export cannot be read, ``OutputFileError`` when a row cannot be written.
  static func writeRecordPages(
    from input: ExportInput, into file: FileReplacement, scratch: SQLiteWriter, days: LocalDayFinder,
    threads: Int = 1
  ) throws -> (rows: RecordPages, written: WholeExportWrite) {
    let rows = try RecordPages(path: file.temporaryPath, name: file.path, days: days)
    let written = try readWholeExport(
      input, rows: rows, elements: ElementRows(scratch, export: nil, days: days), threads: threads)
    return (rows, written)
  }
}
