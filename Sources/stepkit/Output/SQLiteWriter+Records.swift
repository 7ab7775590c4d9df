import CSQLite
import HealthExport
import StepKitCore

extension SQLiteWriter {
  /// The `records` table: every top-level `<Record>` of every type; with
  /// `cohort`, led by the export id.
  static func recordsTable(cohort: Bool) -> String {
    """
    CREATE TABLE IF NOT EXISTS records (
      id INTEGER PRIMARY KEY,\(cohort ? "\n  export TEXT NOT NULL REFERENCES exports (export)," : "")
      type TEXT NOT NULL,
      unit TEXT,
      value REAL,
      value_text TEXT,
      \(spanColumns),
      \(originColumns),
      metadata TEXT
    );
    """
  }

  /// The `records` indexes, made once every row is in.
  static func recordIndexes(cohort: Bool) -> String {
    let export = cohort ? "export, " : ""
    return """
      CREATE INDEX IF NOT EXISTS records_by_type ON records (\(export)type, start);
      CREATE INDEX IF NOT EXISTS records_by_local_date ON records (\(export)local_date);
      """
  }

  /// Reads `input` once more, whole, in one pass: each record as a row of
  /// `records`, each workout, activity summary and correlation into its
  /// tables, and the `<Me>` characteristics into `me`.
  ///
  /// - Parameters:
  ///   - input: The export.
  ///   - export: The export id, in a cohort database.
  ///   - days: Decides each row's `local_date`, as for the samples.
  ///   - threads: With more than 1, the export is read on a thread of its
  ///     own while the rows are written on this one.
  /// - Returns: What the reader found and what was written.
  /// - Throws: ``HealthExportError`` when the export cannot be read, ``OutputFileError`` when a row cannot be written.
  func writeRecords(from input: ExportInput, export: String?, days: LocalDayFinder, threads: Int = 1) throws
    -> WholeExportWrite
  {
    try Self.readWholeExport(
      input, rows: RecordRows(self, export: export, days: days),
      elements: ElementRows(self, export: export, days: days), threads: threads)
  }

  /// Reads `input` whole, handing each record to `rows` and each workout,
  /// activity summary, correlation and the `<Me>` characteristics to
  /// `elements`: the one read behind ``writeRecords(from:export:days:threads:)``
  /// and ``writeRecordPages(from:into:scratch:days:threads:)``.
  static func readWholeExport(
    _ input: ExportInput, rows: some RecordRowWriter, elements: ElementRows, threads: Int
  ) throws -> WholeExportWrite {
    let report = try ExportReader.forEachElement(in: input, threads: threads) { element in
      switch element {
      case .record(let record): try rows.insert(record)
      case .workout, .activitySummary, .correlation: try elements.insert(element)
      }
    }
    try elements.insert(report.info.me)
    return WholeExportWrite(
      report: report, types: rows.types, recordsWithInvalidUTF8: rows.recordsWithInvalidUTF8,
      recordsWithRepeatedKeys: rows.recordsWithRepeatedKeys)
  }
}

/// Writes each record of the whole export as a row of `records`: through
/// SQLite's inserts (``RecordRows``) or as pages of a new file (``RecordPages``).
protocol RecordRowWriter: AnyObject {
  /// Writes `record` as the next row.
  func insert(_ record: RawRecord) throws(OutputFileError)
  /// Every `type` written, each once, as the export spells it.
  var types: [[UInt8]] { get }
  /// Records that held bytes that are not UTF-8, written with U+FFFD in their place.
  var recordsWithInvalidUTF8: Int { get }
  /// Records that named a metadata key twice, written with the first value.
  var recordsWithRepeatedKeys: Int { get }
}

/// What ``SQLiteWriter/writeRecords(from:export:days:threads:)`` read and wrote.
struct WholeExportWrite {
  /// What the reader found, its invalid records among it.
  var report: WholeExportReport
  /// The cumulative types the export's records hold, in ``CumulativeType/known`` order.
  var cumulativeTypes: [CumulativeType]
  /// Records that held bytes that are not UTF-8, written with U+FFFD in their place.
  var recordsWithInvalidUTF8: Int
  /// Records that named a metadata key twice, written with the first value.
  var recordsWithRepeatedKeys: Int

  /// What was written, with the cumulative types among the record `types` written.
  init(report: WholeExportReport, types: [[UInt8]], recordsWithInvalidUTF8: Int, recordsWithRepeatedKeys: Int)
  {
    self.report = report
    let present = Set(types.map { String(decoding: $0, as: UTF8.self) })
    cumulativeTypes = CumulativeType.known.filter { present.contains($0.identifier) }
    self.recordsWithInvalidUTF8 = recordsWithInvalidUTF8
    self.recordsWithRepeatedKeys = recordsWithRepeatedKeys
  }

  /// The notes about the two, `stepkit: ` first, or none.
  var notes: [String] {
    Self.notes(
      invalidUTF8: recordsWithInvalidUTF8, repeatedKeys: recordsWithRepeatedKeys, writtenTo: "the database")
  }

  /// The notes about records written with U+FFFD for bytes that are not
  /// UTF-8 and about records that named a metadata key twice, or none.
  static func notes(invalidUTF8: Int, repeatedKeys: Int, writtenTo place: String) -> [String] {
    var notes: [String] = []
    if invalidUTF8 > 0 {
      notes.append(
        "stepkit: \(invalidUTF8) \(invalidUTF8 == 1 ? "record holds" : "records hold")"
          + " bytes that are not UTF-8; each is written to \(place) as U+FFFD\n")
    }
    if repeatedKeys > 0 {
      notes.append(
        "stepkit: \(repeatedKeys) \(repeatedKeys == 1 ? "record names" : "records name")"
          + " a metadata key twice; its metadata holds the first value\n")
    }
    return notes
  }
}

/// The prepared insert of `records`; each row's fields come from
/// ``RecordFields``, which `stepkit records` prints too.
///
/// Used on one thread, row after row, so its stored properties go without
/// dynamic exclusivity checks (three a row, 2 % of the writing thread).
final class RecordRows: RecordRowWriter {
  private let writer: SQLiteWriter
  private let insert: OpaquePointer?
  /// 1 in a cohort database, where column 2 is the export id.
  private let first: Int32
  @exclusivity(unchecked) private var fields: RecordFields
  private let exportID: [UInt8]?
  /// Every `type` written, each once (an export writes a type's records one after another).
  @exclusivity(unchecked) private(set) var types: [[UInt8]] = []

  init(_ writer: SQLiteWriter, export: String?, days: LocalDayFinder) throws(OutputFileError) {
    self.writer = writer
    fields = RecordFields(days: days)
    first = writer.isCohort ? 1 : 0
    insert = try writer.prepare("INSERT INTO records VALUES (\(SQLiteWriter.placeholders(18 + first)))")
    exportID = export.map { Array($0.utf8) }
  }

  deinit {
    sqlite3_finalize(insert)
    empty.deallocate()
  }

  /// Records that held bytes that are not UTF-8, written with U+FFFD in their place.
  @exclusivity(unchecked) private(set) var recordsWithInvalidUTF8 = 0
  /// Records that named a metadata key twice; the first value is in `metadata`.
  @exclusivity(unchecked) private(set) var recordsWithRepeatedKeys = 0
  /// Whether the record being written held a byte that is not UTF-8.
  @exclusivity(unchecked) private var replacedUTF8 = false

  /// Binds `bytes`, or NULL; bytes that are not UTF-8 as U+FFFD, in a copy.
  ///
  /// - Parameters:
  ///   - checked: The bytes are known to be UTF-8.
  ///   - copied: SQLite copies them, for a value that stays bound while later
  ///     rows repeat it; otherwise it reads them when the row is stepped, at once.
  /// - Returns: Whether the bytes were not UTF-8.
  @inline(__always)
  @discardableResult
  private func bind(
    _ column: Int32, _ bytes: UnsafeBufferPointer<UInt8>?, checked: Bool = false, copied: Bool = false
  ) -> Bool {
    guard let bytes else {
      sqlite3_bind_null(insert, column)
      return false
    }
    guard checked || UTF8Check.isValid(bytes) else {
      replacedUTF8 = true
      let repaired = UTF8Check.repaired(bytes)
      repaired.withUnsafeBufferPointer {
        let pointer = UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)
        sqlite3_bind_text(insert, column, pointer, Int32($0.count), SQLiteWriter.transient)
      }
      return true
    }
    let pointer = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(empty))
    sqlite3_bind_text(
      insert, column, pointer.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
      copied ? SQLiteWriter.transient : nil)
    return false
  }

  /// Where an empty value points (SQLite takes a null pointer for NULL).
  private let empty = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

  /// What each column that rows mostly repeat (type, unit, source, its
  /// version) was last bound to, by parameter number, and whether its bytes
  /// were not UTF-8. SQLite keeps a binding from row to row, so a value the
  /// last row had is not bound again: a bind costs about 180 instructions, a
  /// comparison a few dozen, and an export writes a type's records, mostly
  /// from one source, one after another.
  @exclusivity(unchecked) private var repeated = [(bytes: [UInt8]?, replaced: Bool)?](
    repeating: nil, count: 20)
  /// The device whose fields were bound last (``RecordFields/DeviceFields``
  /// are made once per device), or `nil` before the first row and for NULLs.
  @exclusivity(unchecked) private var boundDevice: RecordFields.DeviceFields?
  @exclusivity(unchecked) private var boundNoDevice = false

  /// Binds `bytes` unless the last row bound the same (see ``repeated``),
  /// as a copy that SQLite keeps; returns whether it was the same.
  @inline(__always)
  @discardableResult
  private func bindRepeated(_ column: Int32, _ bytes: UnsafeBufferPointer<UInt8>?) -> Bool {
    if let last = repeated[Int(column)] {
      if RecordFields.same(bytes, last.bytes) {
        if last.replaced { replacedUTF8 = true }
        return true
      }
    }
    let replaced = bind(column, bytes, copied: true)
    // The record's bytes, not the repair, are what the next row is compared with.
    repeated[Int(column)] = (bytes.map(Array.init), replaced)
    return false
  }

  /// Binds the device's five fields unless the last row had the same device.
  @inline(__always)
  private func bindDevice(_ device: RecordFields.DeviceFields?) {
    if let device {
      guard device !== boundDevice else { return }
      for k in 0..<5 {
        // Each field its own UTF-8 (``RecordFields/DeviceFields``).
        if let value = device.values[k] {
          _ = value.withUnsafeBufferPointer { bind(first + 12 + Int32(k), $0, checked: true, copied: true) }
        } else {
          bind(first + 12 + Int32(k), nil)
        }
      }
      boundDevice = device
      boundNoDevice = false
    } else {
      guard !boundNoDevice else { return }
      for k in 0..<5 { sqlite3_bind_null(insert, first + 12 + Int32(k)) }
      boundDevice = nil
      boundNoDevice = true
    }
  }

  /// Writes `record` as one row.
  func insert(_ record: RawRecord) throws(OutputFileError) {
    replacedUTF8 = false
    sqlite3_bind_null(insert, 1)
    if let exportID {
      _ = exportID.withUnsafeBufferPointer { bind(2, $0) }
    }
    let row = fields.row(record)
    // A type the row before had is in the list already: one comparison serves the binding and the list.
    if !bindRepeated(first + 2, row.type), let type = row.type,
      !types.contains(where: { Self.equal($0, type) })
    {
      types.append(Array(type))
    }
    bindRepeated(first + 3, row.unit)
    if let number = row.number {
      sqlite3_bind_double(insert, first + 4, number)
      sqlite3_bind_null(insert, first + 5)
    } else {
      sqlite3_bind_null(insert, first + 4)
      bind(first + 5, row.valueText)
    }
    // The instants and the day: ASCII of our own making.
    bind(first + 6, row.start, checked: true)
    bind(first + 7, row.end, checked: true)
    sqlite3_bind_int64(insert, first + 8, Int64(row.utcOffsetSeconds))
    bind(first + 9, row.localDate, checked: true)
    bindRepeated(first + 10, row.source)
    bindRepeated(first + 11, row.sourceVersion)
    bindDevice(row.device?.takeUnretainedValue())
    bind(first + 17, row.creation, checked: true)
    // Made UTF-8 as it was written (``RecordText/jsonStringContent(_:)``).
    bind(first + 18, row.metadata, checked: true)
    if row.metadataReplacedBytes > 0 || replacedUTF8 { recordsWithInvalidUTF8 += 1 }
    if row.repeatedKey { recordsWithRepeatedKeys += 1 }
    try writer.step(insert)
  }

  /// Whether `known` holds the bytes of `type`: `memcmp`, where the generic
  /// `elementsEqual` took about 1,000 instructions a record.
  @inline(__always)
  private static func equal(_ known: [UInt8], _ type: UnsafeBufferPointer<UInt8>) -> Bool {
    known.withUnsafeBufferPointer { RecordFields.equal($0, type) }
  }
}
