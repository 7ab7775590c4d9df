import HealthExport
import StepKitCore

/// Writes the `records` table and its two indexes of a new database page by
/// page (``SQLitePageFile``), as SQLite would hold the rows
/// ``RecordRows`` inserts: the same columns, values and text, with bytes
/// that are not UTF-8 as U+FFFD.
///
/// Rows go into the table's b-tree as they come (rowids 1, 2, …); each
/// index's entries are sorted in bounded memory (``ExternalSorter``) and
/// written once every row is in. SQLite opens the file afterwards and adds
/// the other tables.
///
/// Used on one thread, row after row, so its stored properties go without
/// dynamic exclusivity checks.
final class RecordPages: RecordRowWriter {
  private let file: SQLitePageFile
  private let table: SQLiteTableTree
  /// Entries of `records_by_type (type, start)` and `records_by_local_date (local_date)`.
  private let byType: ExternalSorter
  private let byDate: ExternalSorter
  /// Where the sorts' temporary files go: the database's directory.
  private let directory: String
  @exclusivity(unchecked) private var fields: RecordFields
  @exclusivity(unchecked) private var row = SQLiteRecordEncoder()
  @exclusivity(unchecked) private var entry = SQLiteRecordEncoder()
  @exclusivity(unchecked) private var key = ByteBuffer()
  /// The types met so far, the last row's first: each as the export spells
  /// it, as written (made UTF-8), and its sort key's prefix. An export
  /// written in time order interleaves a few types, row after row.
  @exclusivity(unchecked) private var known: [KnownType] = []
  /// `known[0]`'s bytes, read without a retain and release each row.
  @exclusivity(unchecked) private var current = KnownType.Bytes()
  /// The last row's device (``RecordFields/Row/device``), and its five
  /// columns as the record format has them: serial types, then values.
  @exclusivity(unchecked) private var device: UnsafeMutableRawPointer?
  @exclusivity(unchecked) private var deviceTypes = ByteBuffer(capacity: 16)
  @exclusivity(unchecked) private var deviceValues = ByteBuffer(capacity: 256)
  @exclusivity(unchecked) private var nextRowid: Int64 = 1
  /// Every `type` written, each once, as the export spells it.
  var types: [[UInt8]] { known.map { Array($0.bytes.spelled) } }
  /// Records that held bytes that are not UTF-8, written with U+FFFD in their place.
  @exclusivity(unchecked) private(set) var recordsWithInvalidUTF8 = 0
  /// Records that named a metadata key twice; the first value is in `metadata`.
  @exclusivity(unchecked) private(set) var recordsWithRepeatedKeys = 0
  /// Whether the record being written held a byte that is not UTF-8.
  @exclusivity(unchecked) private var replacedUTF8 = false

  /// The `sqlite_schema` rows of the table and its indexes, roots aside.
  static let schema = SQLitePageFile.schemaRows(
    table: "records", create: SQLiteWriter.recordsTable(cohort: false),
    indexes: SQLiteWriter.recordIndexes(cohort: false))

  /// Starts the file at `path`, which must exist and be empty.
  ///
  /// - Parameters:
  ///   - name: The database as errors name it.
  ///   - sortMemory: Bytes each index's sort holds before it writes a run to a temporary file.
  /// - Throws: ``OutputFileError`` when the file cannot be opened.
  init(path: String, name: String, days: LocalDayFinder, sortMemory: Int = 6 << 20) throws(OutputFileError) {
    file = try SQLitePageFile(path: path, name: name)
    table = SQLiteTableTree(file: file)
    directory = FileReplacement.directory(of: path)
    byType = ExternalSorter(memoryBudget: sortMemory, directory: directory)
    byDate = ExternalSorter(memoryBudget: sortMemory / 2, directory: directory)
    fields = RecordFields(days: days)
  }

  /// `bytes` as text, U+FFFD for bytes that are not UTF-8 (noted in ``replacedUTF8``).
  @inline(__always)
  private func text(_ bytes: UnsafeBufferPointer<UInt8>?) {
    guard let bytes else { return row.null() }
    guard UTF8Check.isValid(bytes) else {
      replacedUTF8 = true
      return UTF8Check.repaired(bytes).withUnsafeBufferPointer { row.text($0) }
    }
    row.text(bytes)
  }

  /// Writes `record` as the next row.
  func insert(_ record: RawRecord) throws(OutputFileError) {
    replacedUTF8 = false
    let rowid = nextRowid
    let fields = self.fields.row(record)
    row.reset()
    row.null()  // id: the rowid
    guard let type = fields.type else {
      // What SQLite answers for the row (a record without a type never gets this far).
      throw OutputFileError(path: file.path, message: "NOT NULL constraint failed: records.type")
    }
    if known.isEmpty || !RecordFields.equal(type, current.spelled) { find(type) }
    if current.replaced { replacedUTF8 = true }
    row.text(current.text)
    text(fields.unit)
    if let number = fields.number {
      row.real(number)
      row.null()
    } else {
      row.null()
      text(fields.valueText)
    }
    row.text(fields.start)
    row.text(fields.end)
    row.integer(Int64(fields.utcOffsetSeconds))
    row.text(fields.localDate)
    text(fields.source)
    text(fields.sourceVersion)
    let rowDevice = fields.device?.toOpaque()
    if rowDevice != device || deviceTypes.count == 0 { encodeDevice(fields.device) }
    row.encoded(types: deviceTypes.bytes, values: deviceValues.bytes)
    row.text(fields.creation)
    row.text(fields.metadata)
    row.finish()
    if fields.metadataReplacedBytes > 0 || replacedUTF8 { recordsWithInvalidUTF8 += 1 }
    if fields.repeatedKey { recordsWithRepeatedKeys += 1 }
    try table.append(rowid: rowid, payload: row.bytes)

    // records_by_type: (type, start, rowid), sorted on the type's key and the start.
    entry.reset()
    entry.text(current.text)
    entry.text(fields.start)
    entry.integer(rowid)
    entry.finish()
    key.removeAll()
    key.append(current.key)
    key.append(fields.start)
    try sort(into: byType)
    // records_by_local_date: (local_date, rowid).
    entry.reset()
    entry.text(fields.localDate)
    entry.integer(rowid)
    entry.finish()
    key.removeAll()
    key.append(fields.localDate)
    try sort(into: byDate)
    nextRowid += 1
  }

  private func sort(into sorter: ExternalSorter) throws(OutputFileError) {
    try sorter.append(key: key.bytes, payload: entry.bytes)
  }

  /// A record type as the export spells it, as it is written, and the
  /// prefix of its sort key (``SQLiteIndexKey``), which the start follows.
  private final class KnownType {
    /// The three, in memory of the type's own for the run.
    struct Bytes {
      var spelled = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
      var text = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
      var key = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
      var replaced = false
    }
    let bytes: Bytes

    init(_ type: UnsafeBufferPointer<UInt8>) {
      let replaced = !UTF8Check.isValid(type)
      let text = replaced ? UTF8Check.repaired(type) : Array(type)
      var key = ByteBuffer()
      text.withUnsafeBufferPointer { SQLiteIndexKey.append($0, to: &key, last: false) }
      func kept(_ bytes: some Collection<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let memory = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = memory.initialize(from: bytes)
        return UnsafeBufferPointer(rebasing: memory[..<bytes.count])
      }
      bytes = Bytes(
        spelled: kept(type), text: kept(text), key: kept(key.bytes.assumingMemoryBound(to: UInt8.self)),
        replaced: replaced)
    }

    deinit {
      for part in [bytes.spelled, bytes.text, bytes.key] {
        UnsafeMutablePointer(mutating: part.baseAddress)?.deallocate()
      }
    }
  }

  /// Moves `type` to the front of ``known``, adding it when it is new.
  private func find(_ type: UnsafeBufferPointer<UInt8>) {
    if let index = known.firstIndex(where: { RecordFields.equal(type, $0.bytes.spelled) }) {
      known.swapAt(0, index)
    } else {
      known.append(KnownType(type))
      known.swapAt(0, known.count - 1)
    }
    current = known[0].bytes
  }

  /// Makes ``deviceTypes`` and ``deviceValues`` those of `fields`, the row's device.
  private func encodeDevice(_ fields: Unmanaged<RecordFields.DeviceFields>?) {
    device = fields?.toOpaque()
    var columns = SQLiteRecordEncoder()
    if let fields = fields?.takeUnretainedValue() {
      // Each field its own UTF-8 (``RecordFields/DeviceFields``).
      for value in fields.values {
        if let value { value.withUnsafeBufferPointer { columns.text($0) } } else { columns.null() }
      }
    } else {
      for _ in 0..<5 { columns.null() }
    }
    deviceTypes.removeAll()
    deviceValues.removeAll()
    columns.parts { types, values in
      deviceTypes.append(types)
      deviceValues.append(values)
    }
  }

  /// Writes the indexes and the schema: the file is then a database holding
  /// `records` and its indexes, and `samples` and its indexes when `samples`
  /// gives them (``SamplePages``), for SQLite to open and add to.
  ///
  /// - Parameter samples: A tally made with ``CountingOptions/recordsCountedValues`` and its log.
  /// - Throws: ``OutputFileError`` when a page or a sort's temporary file cannot be written.
  func finish(samples: (tally: Tally, log: SampleLog)? = nil) throws(OutputFileError) {
    let tableRoot = try table.finish()
    var roots = [tableRoot]
    for sorter in [byType, byDate] {
      let index = SQLiteIndexTree(file: file)
      try sorter.finish { payload throws(OutputFileError) in try index.append(payload) }
      roots.append(try index.finish())
    }
    var schema = zip(Self.schema, roots).map { ($0.type, $0.name, $0.table, $1, $0.sql) }
    if let samples {
      var pages = SamplePages(file: file, directory: directory)
      schema += try pages.write(samples.tally, log: samples.log)
    }
    try file.finish(schema: schema)
  }
}
