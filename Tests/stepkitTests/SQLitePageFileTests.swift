import CSQLite
import Foundation
import Testing

@testable import stepkit

/// Databases written page by page (``SQLitePageFile``, ``SQLiteTableTree``,
/// ``SQLiteIndexTree``), read back by SQLite itself: `PRAGMA integrity_check`
/// checks every page, the tree's depth, key order, and that the index holds
/// exactly the table's rows; the rows are compared with what went in.
@Suite struct SQLitePageFileTests {
  /// One row of the test table `t (a TEXT, b INTEGER, c REAL, d TEXT)`.
  struct Row: Equatable {
    var rowid: Int64
    var a: [UInt8]
    var b: Int64?
    var c: Double?
    var d: [UInt8]?
  }

  /// Rows with texts of every length up to `longest` (some past a page,
  /// so overflow pages), shared prefixes and repeats, integers of every
  /// width, integral and fractional reals, and NULLs; rowids ascending with gaps.
  static func rows(count: Int, longest: Int, seed: UInt64) -> [Row] {
    var random = SeededGenerator(state: seed)
    var rowid: Int64 = 0
    return (0..<count).map { index in
      rowid += Int64(1 + random.next() % 3)
      let prefix = Array("HKQuantityTypeIdentifier".utf8.prefix(Int(random.next() % 25)))
      let tail = (0..<Int(random.next() % UInt64(longest / 4 + 1))).map { _ in UInt8(0x61 + random.next() % 3)
      }
      var a = prefix + tail
      if random.next() % 50 == 0 { a = (0..<Int(random.next() % UInt64(longest + 1))).map { _ in 0x7A } }
      let widths: [Int64] = [0, 1, -1, 127, -129, 32767, 8_388_607, -2_147_483_649, 1 << 47, .max, .min]
      let b: Int64? =
        index % 7 == 0 ? nil : widths[Int(random.next() % UInt64(widths.count))] &+ Int64(index % 3)
      let c: Double? =
        index % 5 == 0 ? nil : (index % 2 == 0 ? Double(index) : Double(index) / 7 - 3.25)
      let d: [UInt8]? =
        index % 3 == 0 ? nil : Array(String(repeating: "é\(index)", count: Int(random.next() % 40)).utf8)
      return Row(rowid: rowid, a: a, b: b, c: c, d: d)
    }
  }

  /// The record of `row` and of its index entry `(a, rowid)`.
  static func records(_ row: Row) -> (table: [UInt8], index: [UInt8]) {
    var encoder = SQLiteRecordEncoder()
    encoder.reset()
    row.a.withUnsafeBufferPointer { encoder.text($0) }
    if let b = row.b { encoder.integer(b) } else { encoder.null() }
    if let c = row.c { encoder.real(c) } else { encoder.null() }
    if let d = row.d { d.withUnsafeBufferPointer { encoder.text($0) } } else { encoder.null() }
    encoder.finish()
    let table = Array(encoder.bytes)
    encoder.reset()
    row.a.withUnsafeBufferPointer { encoder.text($0) }
    encoder.integer(row.rowid)
    encoder.finish()
    return (table, Array(encoder.bytes))
  }

  /// Writes `rows` as table `t` with index `t_a`; returns the file's path.
  static func write(_ rows: [Row], pageSize: Int) throws -> String {
    let path = NSTemporaryDirectory() + "stepkit-pages-\(UUID().uuidString).db"
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let file = try SQLitePageFile(path: path, pageSize: pageSize)
    let table = SQLiteTableTree(file: file)
    let index = SQLiteIndexTree(file: file)
    for row in rows {
      try records(row).table.withUnsafeBytes { try table.append(rowid: row.rowid, payload: $0) }
    }
    // The independent order: Swift's own byte-wise comparison, then the rowid.
    let sorted = rows.sorted { $0.a.lexicographicallyPrecedes($1.a) || ($0.a == $1.a && $0.rowid < $1.rowid) }
    for row in sorted { try records(row).index.withUnsafeBytes { try index.append($0) } }
    let tableRoot = try table.finish()
    let indexRoot = try index.finish()
    try file.finish(schema: [
      ("table", "t", "t", tableRoot, "CREATE TABLE t (a TEXT, b INTEGER, c REAL, d TEXT)"),
      ("index", "t_a", "t", indexRoot, "CREATE INDEX t_a ON t (a)"),
    ])
    return path
  }

  /// The rows SQLite reads from `path`, by rowid, and the integrity check's answer.
  static func read(_ path: String) -> (rows: [Row], check: [String], byIndex: [Int64]) {
    var database: OpaquePointer?
    sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil)
    defer { sqlite3_close(database) }
    func query(_ sql: String, _ each: (OpaquePointer?) -> Void) {
      var statement: OpaquePointer?
      sqlite3_prepare_v2(database, sql, -1, &statement, nil)
      defer { sqlite3_finalize(statement) }
      while sqlite3_step(statement) == SQLITE_ROW { each(statement) }
    }
    func bytes(_ statement: OpaquePointer?, _ column: Int32) -> [UInt8]? {
      guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
      let count = Int(sqlite3_column_bytes(statement, column))
      guard let text = sqlite3_column_text(statement, column) else { return [] }
      return Array(UnsafeBufferPointer(start: text, count: count))
    }
    var check: [String] = []
    query("PRAGMA integrity_check") { check.append(String(cString: sqlite3_column_text($0, 0))) }
    var rows: [Row] = []
    query("SELECT rowid, a, b, c, d FROM t NOT INDEXED ORDER BY rowid") { statement in
      rows.append(
        Row(
          rowid: sqlite3_column_int64(statement, 0), a: bytes(statement, 1) ?? [],
          b: sqlite3_column_type(statement, 2) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 2),
          c: sqlite3_column_type(statement, 3) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 3),
          d: bytes(statement, 4)))
    }
    var byIndex: [Int64] = []
    query("SELECT rowid FROM t INDEXED BY t_a WHERE a >= '' ORDER BY a, rowid") {
      byIndex.append(sqlite3_column_int64($0, 0))
    }
    return (rows, check, byIndex)
  }

  @Test(arguments: [(0, 512), (1, 512), (2, 512), (3000, 512), (20000, 512), (5000, 4096), (4000, 16384)])
  func readBackBySQLite(count: Int, pageSize: Int) throws {
    // Under a sanitizer, a fraction of the larger tables: still several levels deep.
    let count = count > 1000 ? count / SanitizerRun.step(thread: 4, address: 2) : count
    let rows = Self.rows(count: count, longest: pageSize * 3, seed: UInt64(count * 31 + pageSize))
    let path = try Self.write(rows, pageSize: pageSize)
    let read = Self.read(path)
    if read.check == ["ok"] {
      try? FileManager.default.removeItem(atPath: path)
    } else {
      print("KEPT \(path)")
    }
    #expect(read.check == ["ok"])
    #expect(read.rows.count == rows.count)
    let wrong = zip(read.rows, rows).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    #expect(wrong == nil, "row \(wrong ?? 0) differs")
    let expectedOrder = rows.sorted {
      $0.a.lexicographicallyPrecedes($1.a) || ($0.a == $1.a && $0.rowid < $1.rowid)
    }.map(\.rowid)
    #expect(read.byIndex.count == expectedOrder.count)
    #expect(read.byIndex == expectedOrder, "the index's order")
  }

  /// Every row count up to where a tree has four levels, with keys long
  /// enough that a 512-byte page holds about seven: the last page of a level
  /// may get only one entry, which then needs an entry of the page before it. Under a
  /// sanitizer, a sample of the counts (the run without one takes them all).
  @Test func everyCountAroundFullPages() throws {
    for count in stride(from: 1, through: 400, by: SanitizerRun.step(thread: 7, address: 3)) {
      let rows = (1...count).map {
        Row(rowid: Int64($0), a: Array(String(format: "%060d", $0).utf8), b: nil, c: nil, d: nil)
      }
      let path = try Self.write(rows, pageSize: 512)
      defer { try? FileManager.default.removeItem(atPath: path) }
      let read = Self.read(path)
      #expect(read.check == ["ok"], "\(count) rows")
      #expect(read.rows.count == count)
      #expect(read.byIndex == rows.map(\.rowid), "\(count) rows")
    }
  }

  /// SQLite writes on after the pages: a new table, rows, an index, all checked.
  @Test func sqliteAddsToTheFile() throws {
    let rows = Self.rows(count: 2000, longest: 600, seed: 7)
    let path = try Self.write(rows, pageSize: 4096)
    defer { try? FileManager.default.removeItem(atPath: path) }
    var database: OpaquePointer?
    #expect(sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK)
    let sql = """
      CREATE TABLE u (x TEXT); INSERT INTO u SELECT a FROM t; CREATE INDEX u_x ON u (x);
      INSERT INTO t (a, b) VALUES ('zzz', 5); DELETE FROM t WHERE rowid % 3 = 0;
      """
    #expect(sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK)
    sqlite3_close(database)
    let read = Self.read(path)
    #expect(read.check == ["ok"])
    let added = rows.last!.rowid + 1
    #expect(read.rows.map(\.rowid) == (rows.map(\.rowid) + [added]).filter { $0 % 3 != 0 })
    #expect(read.rows.last?.a == (added % 3 == 0 ? rows.last { $0.rowid % 3 != 0 }!.a : Array("zzz".utf8)))
  }

  @Test func recordEncoding() {
    var encoder = SQLiteRecordEncoder()
    encoder.reset()
    encoder.null()
    encoder.integer(0)
    encoder.integer(1)
    encoder.integer(-2)
    encoder.integer(300)
    encoder.real(2.0)
    encoder.real(0.5)
    "hé".utf8CString.withUnsafeBufferPointer { chars in
      chars.withMemoryRebound(to: UInt8.self) { encoder.text(UnsafeBufferPointer(rebasing: $0.dropLast())) }
    }
    encoder.finish()
    // Header 9 bytes: itself, NULL, 0, 1, int8, int16, int8 (2.0 as integer), real, text of 3 bytes (19).
    #expect(
      Array(encoder.bytes) == [
        9, 0, 8, 9, 1, 2, 1, 7, 19, 0xFE, 0x01, 0x2C, 2, 0x3F, 0xE0, 0, 0, 0, 0, 0, 0, 0x68, 0xC3, 0xA9,
      ])
    var varint = ByteBuffer()
    varint.appendVarint(0x80)
    varint.appendVarint(.max)
    varint.appendVarint(0x3FFF)
    varint.appendVarint(0x4000)
    #expect(
      Array(varint.bytes) == [0x81, 0x00] + [UInt8](repeating: 0xFF, count: 9) + [
        0xFF, 0x7F, 0x81, 0x80, 0x00,
      ])
  }
}
