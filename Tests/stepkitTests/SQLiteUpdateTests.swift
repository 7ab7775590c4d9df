import CSQLite
import Foundation
import Testing

@testable import stepkit

/// `stepkit sqlite` into an existing cohort database: added, replaced and
/// skipped exports, one transaction each. The SHA-256 recorded is checked
/// against the system's `sha256sum`; the replaced rows against a fresh run on
/// the new export alone.
@Suite("SQLite cohort updates")
struct SQLiteUpdateTests {
  static let fixtures = StepkitRunner.fixtures
  static let demo = fixtures.appendingPathComponent("../../../Sources/stepkit/Resources/demo-export.xml")
    .standardizedFileURL

  /// Writes `source`'s bytes to `cohort/name` in `directory`, replacing what is there.
  static func place(_ source: URL, as name: String, in directory: URL) throws {
    let folder = directory.appendingPathComponent("cohort")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let target = folder.appendingPathComponent(name)
    // The bytes, not a copy of a symbolic link (some fixtures are links).
    try Data(contentsOf: source).write(to: target)
  }

  /// Every row of the tables of one export (the exports row without its import time).
  static func dump(_ path: String, _ export: String) throws -> [[String]] {
    try query(
      path,
      "SELECT export, file, samples, invalid, error, sha256, export_date FROM exports WHERE export = '\(export)'"
    )
      + query(path, "SELECT * FROM days WHERE export = '\(export)' ORDER BY date")
      + query(path, "SELECT * FROM summary WHERE export = '\(export)'")
      + query(path, "SELECT * FROM sources WHERE export = '\(export)' ORDER BY rank")
      + query(path, "SELECT * FROM samples WHERE export = '\(export)' ORDER BY id")
  }

  /// The SHA-256 that the system's `sha256sum` gives.
  static func systemSHA256(_ url: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sha256sum", url.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
  }

  @Test(
    "the same files twice change nothing; a new id is added, a newer export replaced, an older one skipped")
  func addReplaceSkip() throws {
    try withScratchDirectory { directory in
      try Self.place(
        Self.fixtures.appendingPathComponent("watch-and-phone.xml"), as: "p001.xml", in: directory)
      try Self.place(Self.fixtures.appendingPathComponent("cohort/dave.xml"), as: "p002.xml", in: directory)
      let db = directory.appendingPathComponent("cohort.db").path
      let first = try StepkitRunner.run(["sqlite", "cohort", "cohort.db"], in: directory)
      #expect(first.exitCode == 0)
      let shas = try query(db, "SELECT export, sha256 FROM exports ORDER BY export")
      #expect(
        shas == [
          ["p001", try Self.systemSHA256(directory.appendingPathComponent("cohort/p001.xml"))],
          ["p002", try Self.systemSHA256(directory.appendingPathComponent("cohort/p002.xml"))],
        ])
      #expect(
        try query(db, "SELECT export_date FROM exports WHERE export = 'p001'") == [["2026-03-12T01:00:00Z"]])
      let before = try Data(contentsOf: URL(fileURLWithPath: db))

      // Again: both skipped, unread, and the file is the same to the byte.
      let again = try StepkitRunner.run(["sqlite", "cohort", "cohort.db"], in: directory)
      #expect(again.exitCode == 0)
      #expect(again.standardError.contains("stepkit: p001: skipped: unchanged"))
      #expect(again.standardError.contains("stepkit: p002: skipped: unchanged"))
      #expect(again.standardError.hasSuffix("stepkit: updated cohort.db: 0 added, 0 replaced, 2 skipped\n"))
      #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)

      // A month later: p001 exports again (a later ExportDate), p003 joins.
      let p002 = try Self.dump(db, "p002")
      try Self.place(Self.demo, as: "p001.xml", in: directory)
      try Self.place(Self.fixtures.appendingPathComponent("cohort/alice.xml"), as: "p003.xml", in: directory)
      let later = try StepkitRunner.run(["sqlite", "cohort", "cohort.db", "--jobs", "2"], in: directory)
      #expect(later.exitCode == 0)
      #expect(later.standardError.contains("stepkit: p001: replaced ("))
      #expect(later.standardError.contains("stepkit: p003: added ("))
      #expect(later.standardError.hasSuffix("stepkit: updated cohort.db: 1 added, 1 replaced, 1 skipped\n"))
      #expect(try Self.dump(db, "p002") == p002)
      // p001's rows are those of a new database of the new export alone.
      let fresh = try StepkitRunner.run(["sqlite", "cohort/p001.xml", "fresh.db", "-q"], in: directory)
      #expect(fresh.exitCode == 0)
      let freshPath = directory.appendingPathComponent("fresh.db").path
      let days = "SELECT date, steps, distance_m, raw_steps, manual_steps, hours_with_data, valid FROM days"
      #expect(
        try query(db, days + " WHERE export = 'p001' ORDER BY date")
          == query(freshPath, days + " ORDER BY date"))
      #expect(
        try query(db, "SELECT COUNT(*), SUM(counted) FROM samples WHERE export = 'p001'")
          == query(freshPath, "SELECT COUNT(*), SUM(counted) FROM samples"))
      #expect(try query(db, "SELECT COUNT(DISTINCT id) = COUNT(*) FROM samples") == [["1"]])

      // The old export handed in again: older than the one imported, skipped.
      try Self.place(
        Self.fixtures.appendingPathComponent("watch-and-phone.xml"), as: "p001.xml", in: directory)
      let p001 = try Self.dump(db, "p001")
      let older = try StepkitRunner.run(["sqlite", "cohort/p001.xml", "cohort.db"], in: directory)
      #expect(older.exitCode == 0)
      #expect(older.standardError.contains("stepkit: p001: skipped: exported 2026-03-12T01:00:00Z, before"))
      #expect(try Self.dump(db, "p001") == p001)
    }
  }

  @Test("a replacement that fails half-way leaves the export's old rows; an unreadable one keeps them too")
  func failureLeavesOldRows() throws {
    try withScratchDirectory { directory in
      try Self.place(
        Self.fixtures.appendingPathComponent("watch-and-phone.xml"), as: "p001.xml", in: directory)
      let db = directory.appendingPathComponent("cohort.db").path
      #expect(try StepkitRunner.run(["sqlite", "cohort", "cohort.db", "-q"], in: directory).exitCode == 0)
      let old = try Self.dump(db, "p001")
      #expect(!old.isEmpty)
      // SQLite refuses the new export's 101st sample, after its old rows were deleted.
      do {
        var handle: OpaquePointer?
        #expect(sqlite3_open(db, &handle) == SQLITE_OK)
        #expect(
          sqlite3_exec(
            handle,
            "CREATE TRIGGER refuse BEFORE INSERT ON samples"
              + " WHEN (SELECT COUNT(*) FROM samples WHERE export = NEW.export) >= 100"
              + " BEGIN SELECT RAISE(ABORT, 'refused by a test'); END;", nil, nil, nil) == SQLITE_OK)
        sqlite3_close(handle)
      }
      try Self.place(Self.demo, as: "p001.xml", in: directory)
      let failed = try StepkitRunner.run(["sqlite", "cohort", "cohort.db"], in: directory)
      #expect(failed.exitCode == 1)
      #expect(failed.standardError.contains("refused by a test"))
      #expect(try Self.dump(db, "p001") == old)
      #expect(!FileManager.default.fileExists(atPath: db + "-journal"))
      // A cut-short export of the same id: reported, and the imported one kept.
      let cut = directory.appendingPathComponent("cut.xml")
      try Data(try Data(contentsOf: Self.demo).prefix(30_000)).write(to: cut)
      try Self.place(cut, as: "p001.xml", in: directory)
      let unreadable = try StepkitRunner.run(["sqlite", "cohort", "cohort.db"], in: directory)
      #expect(unreadable.exitCode == 1)
      #expect(
        unreadable.standardError.contains("stepkit: p001: skipped: could not be read; the export imported"))
      #expect(try Self.dump(db, "p001") == old)
    }
  }

  @Test("other options than the database's are refused before anything is read; --replace writes anew")
  func optionsMustMatch() throws {
    try withScratchDirectory { directory in
      try Self.place(
        Self.fixtures.appendingPathComponent("watch-and-phone.xml"), as: "p001.xml", in: directory)
      #expect(try StepkitRunner.run(["sqlite", "cohort", "cohort.db", "-q"], in: directory).exitCode == 0)
      let other = try StepkitRunner.run(
        ["sqlite", "cohort", "cohort.db", "--day-start", "04:00"], in: directory)
      #expect(other.exitCode == 2)
      #expect(
        other.standardError.hasPrefix(
          "stepkit: error: cohort.db was written with other options (--day-start 00:00 there, 04:00 here)"))
      let replaced = try StepkitRunner.run(
        ["sqlite", "cohort", "cohort.db", "--day-start", "04:00", "--replace", "-q"], in: directory)
      #expect(replaced.exitCode == 0)
      let db = directory.appendingPathComponent("cohort.db").path
      #expect(try query(db, "SELECT value FROM settings WHERE key = 'day_start'") == [["04:00"]])
    }
  }
}
