import CSQLite
import Foundation
import StepKitCore
import Testing

@testable import stepkit

/// Runs a query and returns every row as text cells.
func query(_ path: String, _ sql: String) throws -> [[String]] {
  var database: OpaquePointer?
  guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
    throw OutputFileError(path: path, message: "cannot open")
  }
  defer { sqlite3_close(database) }
  var statement: OpaquePointer?
  guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
    throw OutputFileError(path: path, message: String(cString: sqlite3_errmsg(database)))
  }
  defer { sqlite3_finalize(statement) }
  var rows: [[String]] = []
  while sqlite3_step(statement) == SQLITE_ROW {
    var row: [String] = []
    for column in 0..<sqlite3_column_count(statement) {
      row.append(sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL")
    }
    rows.append(row)
  }
  return rows
}

/// Writes one export's database at `path`, replacing what is there.
private func write(_ tally: Tally, _ log: SampleLog, to path: String) throws {
  let writer = try SQLiteWriter(replacing: path)
  try writer.write(tally, log: log)
  try writer.commit()
}

@Suite("SQLite output")
struct SQLiteWriterTests {
  @Test("days, sources and samples with what each sample counted for")
  func writesTables() throws {
    let (log, tally) = sampleTally(CountingOptions(recordsCountedValues: true))
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-\(UUID().uuidString).db").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try write(tally, log, to: path)
    #expect(
      try query(path, "SELECT * FROM days ORDER BY date") == [
        // 2026-11-30 holds only the typed-in 2,500, which the policy drops: it does not close the range.
        ["2026-11-29", "1400", "750", "1800", "0", "1", "0"]
      ])
    #expect(
      try query(path, "SELECT rank, name, class, counted_steps FROM sources ORDER BY rank") == [
        ["1", "Health", "typed-in", "0"], ["2", "Watch", "Apple Watch", "1000"],
        ["3", "Phone", "iPhone", "400"],
      ])
    #expect(
      try query(
        path,
        "SELECT kind, start, end, utc_offset, local_date, value, source, device_model, user_entered, counted FROM samples ORDER BY id"
      ) == [
        [
          "steps", "2026-11-29T00:00:00Z", "2026-11-29T00:10:00Z", "28800", "2026-11-29", "1000.0", "Watch",
          "Watch", "0", "1000.0",
        ],
        [
          "steps", "2026-11-29T00:05:00Z", "2026-11-29T00:15:00Z", "28800", "2026-11-29", "800.0", "Phone",
          "iPhone", "0", "400.0",
        ],
        [
          "distance", "2026-11-29T00:00:00Z", "2026-11-29T00:10:00Z", "28800", "2026-11-29", "750.4", "Watch",
          "Watch", "0", "750.4",
        ],
        [
          "steps", "2026-11-30T00:00:00Z", "2026-11-30T00:30:00Z", "28800", "2026-11-30", "2500.0", "Health",
          "NULL", "1", "0.0",
        ],
      ])
    #expect(
      try query(
        path, "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'samples_%' ORDER BY name")
        == [["samples_by_local_date"], ["samples_by_source"], ["samples_by_start"]])
    // Writing again replaces the file rather than failing on existing tables.
    try write(tally, log, to: path)
    #expect(try query(path, "SELECT COUNT(*) FROM samples") == [["4"]])
  }

  @Test("an unwritable path is an error that names it")
  func unwritable() {
    #expect(
      throws: OutputFileError(
        path: "/nonexistent-dir/out.db", message: "the directory /nonexistent-dir does not exist")
    ) {
      try write(sampleTally().1, sampleTally().0, to: "/nonexistent-dir/out.db")
    }
  }
}
