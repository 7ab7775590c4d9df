import CSQLite
import Foundation
import Testing

/// Crafted inputs run through the built `stepkit` binary, so that a crash is
/// a failed expectation (a signal's exit status), never the end of the tests.
@Suite("Hostile inputs, end to end")
struct HostileInputTests {
  /// One step record line.
  static func record(
    _ value: String, start: String = "2024-02-29 08:00:00 +0800", end: String = "2024-02-29 08:10:00 +0800",
    unit: String = "count"
  ) -> String {
    " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"\(unit)\""
      + " startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"/>\n"
  }

  /// An export around `records`, with an export date unless `exportDate` is `nil`.
  static func export(_ records: String, exportDate: String? = "2024-03-01 09:00:00 +0800") -> String {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
      + (exportDate.map { " <ExportDate value=\"\($0)\"/>\n" } ?? "") + records + "</HealthData>\n"
  }

  /// Writes `text` to `name` in `directory` and returns its path.
  @discardableResult
  static func put(_ text: String, _ name: String, in directory: URL) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  // MARK: 1. A zip entry declaring a size it does not have

  /// A zip holding `contents` as `name`, deflated into stored blocks (no zlib
  /// needed), with a ZIP64 directory declaring `declaredSize` bytes.
  static func lyingZip(_ name: String, _ contents: [UInt8], declaredSize: UInt64) -> [UInt8] {
    var deflated: [UInt8] = []
    var rest = contents[...]
    repeat {
      let block = rest.prefix(65_535)
      rest = rest.dropFirst(block.count)
      let length = UInt16(block.count)
      deflated += [rest.isEmpty ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8)]
      deflated += [UInt8(~length & 0xFF), UInt8(~length >> 8)]
      deflated += block
    } while !rest.isEmpty
    var out: [UInt8] = []
    func u16(_ v: Int) { out += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    func u32(_ v: UInt32) { out += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    func u64(_ v: UInt64) { out += (0..<8).map { UInt8((v >> (8 * UInt64($0))) & 0xFF) } }
    let nameBytes = Array(name.utf8)
    let crc = crc32(contents)
    // The fields both headers share, from the flags to the extra field's length.
    func sharedFields() {
      for field in [0x0800, 8, 0, 0] { u16(field) }
      u32(crc)
      u32(0xFFFF_FFFF)
      u32(0xFFFF_FFFF)
      u16(nameBytes.count)
      u16(20)
    }
    // The name, then the ZIP64 field holding both sizes.
    func nameAndSizes() {
      out += nameBytes
      for field in [1, 16] { u16(field) }
      u64(declaredSize)
      u64(UInt64(deflated.count))
    }
    u32(0x0403_4b50)
    u16(45)
    sharedFields()
    nameAndSizes()
    out += deflated
    let directoryStart = out.count
    u32(0x0201_4b50)
    u16(45)
    u16(45)
    sharedFields()
    for field in [0, 0, 0] { u16(field) }  // comment length, disk, internal attributes
    u32(0)  // external attributes
    u32(0)  // local header offset
    nameAndSizes()
    let directorySize = out.count - directoryStart
    u32(0x0605_4b50)
    u16(0)
    u16(0)
    u16(1)
    u16(1)
    u32(UInt32(directorySize))
    u32(UInt32(directoryStart))
    u16(0)
    return out
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }

  @Test(
    "a zip entry declaring 2^63−1 or 2^48 bytes is exit 1 naming the lie, and ends no cohort run",
    arguments: [UInt64(Int64.max), 1 << 48])
  func lyingSize(declared: UInt64) throws {
    try withScratchDirectory { directory in
      // Large enough (3,000 records) that the reader goes past its first buffer, where the
      // declared size once overflowed (2^63-1) or sized a reservation (2^48).
      let xml = Array(Self.export(String(repeating: Self.record("120"), count: 3000)).utf8)
      let zip = Self.lyingZip("apple_health_export/export.xml", xml, declaredSize: declared)
      let path = directory.appendingPathComponent("export.zip").path
      try Data(zip).write(to: URL(fileURLWithPath: path))
      let result = try StepkitRunner.run(["steps", path, "-q"])
      #expect(result.exitCode == 1)
      #expect(result.standardError.contains("declares \(declared) bytes uncompressed"))
      // In a cohort folder beside a good export: the good one is printed, the bad one listed.
      let cohort = directory.appendingPathComponent("cohort")
      try FileManager.default.createDirectory(at: cohort, withIntermediateDirectories: true)
      try Data(zip).write(to: cohort.appendingPathComponent("a.zip"))
      try Self.put(Self.export(Self.record("120")), "b.xml", in: cohort)
      let run = try StepkitRunner.run(["steps", cohort.path, "--format", "csv", "-q"])
      #expect(run.exitCode == 1)
      #expect(run.standardOutput.contains("b,2024-02-29,120"))
      #expect(run.standardError.contains("1 of 2 exports could not be read"))
    }
  }

  // MARK: 2. Values no walk makes

  @Test(
    "a value of 2^63 or more is an invalid record with its place, in every command, and leaves no temporary file",
    arguments: [["steps"], ["sources"], ["chart", "-o", "OUT"], ["sqlite", "OUT"]])
  func hugeValue(command: [String]) throws {
    try withScratchDirectory { directory in
      let records =
        Self.record("120")
        + Self.record(
          "9223372036854775808", start: "2024-02-29 09:00:00 +0800",
          end: "2024-02-29 09:10:00 +0800")
      let path = try Self.put(Self.export(records), "export.xml", in: directory)
      let out = directory.appendingPathComponent(command[0] == "chart" ? "chart.html" : "out.db").path
      let arguments = [command[0], path] + command.dropFirst().map { $0 == "OUT" ? out : $0 }
      let result = try StepkitRunner.run(arguments, in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      #expect(result.standardError.contains("export.xml:5:2 (more than 1,000,000 a minute, not a walk)"))
      #expect(try contents(directory).allSatisfy { !$0.contains(".stepkit-") })
    }
  }

  @Test("values each within the limit whose sum passes 2^53 are refused with a message, not printed wrong")
  func hugeSum() throws {
    try withScratchDirectory { directory in
      // 136 years at 900,000 a minute each: 6.4e13 a record, 200 records.
      var records = ""
      for _ in 0..<200 {
        records += Self.record(
          "64000000000000", start: "2000-01-01 00:00:00 +0000", end: "2136-01-01 00:00:00 +0000")
      }
      let path = try Self.put(Self.export(records, exportDate: nil), "export.xml", in: directory)
      let result = try StepkitRunner.run(["steps", path, "--by", "month", "-q"], in: directory)
      #expect(result.exitCode == 1)
      #expect(result.standardError.contains("beyond what prints exactly"))
    }
  }

  // MARK: 4. Dates far from the others

  /// A record of 120 steps in 2024, and one of 5 steps on `day`.
  static func withStray(day: String) -> String {
    record("120") + record("5", start: "\(day) 08:00:00 +0000", end: "\(day) 08:10:00 +0000")
  }

  @Test("a record in year 0001 is invalid (before 2000), and the range stays the export's")
  func yearOne() throws {
    try withScratchDirectory { directory in
      let records = Self.withStray(day: "0001-01-01")
      let path = try Self.put(Self.export(records), "export.xml", in: directory)
      let result = try StepkitRunner.run(["steps", path, "--by", "hour", "--format", "csv"], in: directory)
      #expect(result.exitCode == 0)
      #expect(result.standardOutput.split(separator: "\n").count == 2)
      #expect(result.standardError.contains("export.xml:5:2 (starts before 2000"))
    }
  }

  @Test("a record in 9999 with no export date is refused with the span and --from/--to advice")
  func yearNineThousand() throws {
    try withScratchDirectory { directory in
      let records = Self.withStray(day: "9999-01-01")
      let path = try Self.put(Self.export(records, exportDate: nil), "export.xml", in: directory)
      for by in ["hour", "day"] {
        let result = try StepkitRunner.run(["steps", path, "--by", by, "-q"], in: directory)
        #expect(result.exitCode == 1)
        #expect(result.standardError.contains("the samples run from 2024-02-29 to 9999-01-01 (UTC)"))
        #expect(result.standardError.contains("choose a part with --from and --to"))
        let narrowed = try StepkitRunner.run(
          ["steps", path, "--by", by, "--from", "2024-02-29", "--to", "2024-02-29", "--format", "csv", "-q"],
          in: directory)
        #expect(narrowed.exitCode == 0)
        #expect(narrowed.standardOutput.contains(",120,"))
      }
      let wide = try StepkitRunner.run(
        ["steps", path, "--by", "hour", "--from", "0001-01-01", "--to", "9999-12-31", "-q"], in: directory)
      #expect(wide.exitCode == 1)
      #expect(wide.standardError.contains("--from and --to span"))
    }
  }

  // MARK: 5. The database a new one replaces

  /// Runs `sql` on the database at `path`; returns SQLite's error message, or `nil`.
  static func execute(_ path: String, _ sql: String, on database: OpaquePointer? = nil) -> String? {
    var handle = database
    if handle == nil, sqlite3_open(path, &handle) != SQLITE_OK { return "cannot open" }
    defer { if database == nil { sqlite3_close(handle) } }
    var error: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
      defer { sqlite3_free(error) }
      return error.map { String(cString: $0) } ?? "error"
    }
    return nil
  }

  /// Leaves at `path` the database of a writer killed in the middle of a
  /// transaction, in `mode` (`DELETE`: a hot rollback journal; `WAL`: a
  /// write-ahead log not checkpointed): the files are copied while it writes.
  static func killedWriter(_ path: String, mode: String) throws {
    let scratch = path + ".making"
    var database: OpaquePointer?
    #expect(sqlite3_open(scratch, &database) == SQLITE_OK)
    #expect(
      execute(
        scratch,
        "PRAGMA journal_mode=\(mode); PRAGMA cache_size=1;"
          + " CREATE TABLE old (x TEXT); INSERT INTO old VALUES (zeroblob(100000));", on: database) == nil)
    if mode == "WAL" {
      #expect(
        execute(scratch, "PRAGMA wal_autocheckpoint=0; INSERT INTO old SELECT x FROM old;", on: database)
          == nil)
    } else {
      #expect(
        execute(
          scratch, "BEGIN; INSERT INTO old SELECT x FROM old; UPDATE old SET x = zeroblob(90000);",
          on: database) == nil)
    }
    for suffix in ["", "-journal", "-wal", "-shm"]
    where FileManager.default.fileExists(atPath: scratch + suffix) {
      try FileManager.default.copyItem(atPath: scratch + suffix, toPath: path + suffix)
    }
    sqlite3_close(database)
  }

  @Test(
    "replacing a database whose writer was killed leaves no journal: SQLite reads the new file",
    arguments: ["DELETE", "WAL"])
  func killedWriterJournal(mode: String) throws {
    try withScratchDirectory { directory in
      let db = directory.appendingPathComponent("out.db").path
      try Self.killedWriter(db, mode: mode)
      let sidecars = (mode == "WAL" ? ["-wal", "-shm"] : ["-journal"]).filter {
        FileManager.default.fileExists(atPath: db + $0)
      }
      #expect(!sidecars.isEmpty)
      let result = try StepkitRunner.run(
        ["sqlite", StepkitRunner.fixtures.appendingPathComponent("watch-and-phone.xml").path, db])
      #expect(result.exitCode == 0, "\(result.standardError)")
      #expect(result.standardError.contains("wrote \(db)"))
      for suffix in ["-journal", "-wal", "-shm"] {
        #expect(!FileManager.default.fileExists(atPath: db + suffix))
      }
      #expect(try query(db, "PRAGMA integrity_check") == [["ok"]])
      #expect(Self.execute(db, "SELECT count(*) FROM days") == nil)
      #expect(try query(db, "SELECT count(*) FROM sqlite_master WHERE name = 'old'") == [["0"]])
    }
  }

  @Test("a database another process holds a lock on is not replaced: exit 1, saying so")
  func lockedDatabase() throws {
    try withScratchDirectory { directory in
      let db = directory.appendingPathComponent("out.db").path
      #expect(Self.execute(db, "CREATE TABLE old (x); INSERT INTO old VALUES (1);") == nil)
      var holder: OpaquePointer?
      #expect(sqlite3_open(db, &holder) == SQLITE_OK)
      defer { sqlite3_close(holder) }
      #expect(Self.execute(db, "BEGIN EXCLUSIVE; INSERT INTO old VALUES (2);", on: holder) == nil)
      let result = try StepkitRunner.run(
        ["sqlite", StepkitRunner.fixtures.appendingPathComponent("watch-and-phone.xml").path, db])
      #expect(result.exitCode == 1)
      #expect(result.standardError.contains("another program is using it"))
      #expect(Self.execute(db, "ROLLBACK", on: holder) == nil)
      #expect(try query(db, "SELECT count(*) FROM old") == [["1"]])
      #expect(try contents(directory) == ["out.db"])
    }
  }

  // MARK: Clear messages

  @Test("temporary files of a killed run (nobody holds them, older than the run) are removed and named")
  func leftoverTemporaryFiles() throws {
    try withScratchDirectory { directory in
      let db = directory.appendingPathComponent("out.db").path
      let stale = directory.appendingPathComponent(".out.db.stepkit-killed1").path
      let busy = directory.appendingPathComponent(".out.db.stepkit-busy22").path
      for path in [stale, busy] {
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        try FileManager.default.setAttributes(
          [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
      }
      // Another run still writing holds its file with a lock.
      let holder = open(busy, O_RDONLY)
      defer { close(holder) }
      #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
      let result = try StepkitRunner.run(
        ["sqlite", StepkitRunner.fixtures.appendingPathComponent("watch-and-phone.xml").path, db])
      #expect(result.exitCode == 0)
      #expect(result.standardError.contains("removed \(stale), left by an earlier run that was killed"))
      #expect(try contents(directory) == [".out.db.stepkit-busy22", "out.db"])
    }
  }

  @Test("control characters and bidi overrides in a source name are escaped in the sources table")
  func terminalEscapes() throws {
    try withScratchDirectory { directory in
      let records = Self.record("120").replacingOccurrences(
        of: "sourceName=\"iPhone\"", with: "sourceName=\"Evil&#x1B;[2J\u{202E}enohPi\"")
      let path = try Self.put(Self.export(records), "export.xml", in: directory)
      let result = try StepkitRunner.run(["sources", path, "--format", "table", "-q"], in: directory)
      #expect(result.exitCode == 0)
      #expect(result.standardOutput.contains("Evil\\u{1B}[2J\\u{202E}enohPi"))
      #expect(!result.standardOutput.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E })
    }
  }
}
