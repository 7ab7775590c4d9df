import StepKitCore

/// Writes the `samples` table of a new single-export database and its three
/// indexes page by page (``SQLitePageFile``), as ``SQLiteWriter`` inserts
/// them into a cohort's database: the same ids, columns, values and storage
/// classes, each index's entries in SQLite's order.
///
/// SQLite's inserts and its sort of the three indexes took about 200 M
/// instructions for a 50 MB Watch export's 13,700 samples, after the rest of
/// the database was written; the rows made here cost a tenth of that.
struct SamplePages: ~Copyable {
  private let file: SQLitePageFile
  private let directory: String
  private var row = SQLiteRecordEncoder()
  private var entry = SQLiteRecordEncoder()
  private var key = ByteBuffer()
  private var text = RecordText(capacity: 64)

  /// The `sqlite_schema` rows of `samples` and its indexes, roots aside.
  static let schema = SQLitePageFile.schemaRows(
    table: "samples", create: SQLiteWriter.samplesTable(cohort: false),
    indexes: SQLiteWriter.sampleIndexes(cohort: false))

  /// Writes into `file`; the sorts' temporary files go to `directory`.
  init(file: SQLitePageFile, directory: String) {
    self.file = file
    self.directory = directory
  }

  /// Writes every sample of `log` as a row of `samples`, with the value each
  /// counted for in `tally` (made with ``CountingOptions/recordsCountedValues``),
  /// then the three indexes.
  ///
  /// - Parameter sortMemory: Bytes each index's sort holds before it writes a run to a temporary file.
  /// - Returns: The `sqlite_schema` rows of the table and its indexes.
  /// - Throws: ``OutputFileError`` when a page or a sort's temporary file cannot be written.
  mutating func write(_ tally: Tally, log: SampleLog, sortMemory: Int = 2 << 20) throws(OutputFileError)
    -> [(type: String, name: String, table: String, root: UInt32, sql: String)]
  {
    let table = SQLiteTableTree(file: file)
    // samples_by_start (kind, start), samples_by_local_date (local_date), samples_by_source (source, kind).
    let sorters = (0..<3).map { _ in ExternalSorter(memoryBudget: sortMemory, directory: directory) }
    let origins = log.origins.map { origin in
      (source: Array(origin.source.utf8), model: origin.device?.model.map { Array($0.utf8) })
    }
    let steps = Array("steps".utf8)
    let distance = Array("distance".utf8)
    // As the days table: the same day rule, --time-zone included.
    var days = LocalDayFinder(rule: tally.options.timeZone, dayStart: tally.options.dayStart)
    var counted = tally.countedValues.makeIterator()
    var rowid: Int64 = 0
    try log.forEachEntry { (_, sample) throws(OutputFileError) in
      rowid += 1
      text.reset()
      let start = text.utcInstant(sample.startMs)
      let end = text.utcInstant(sample.endMs)
      let day = text.date(days.day(of: sample.startMs, recordedOffsetSeconds: sample.utcOffsetSeconds))
      let base = UnsafePointer(text.bytes)
      let startText = UnsafeBufferPointer(start: base + start, count: end - start)
      let endText = UnsafeBufferPointer(start: base + end, count: day - end)
      let dayText = UnsafeBufferPointer(start: base + day, count: text.count - day)
      let kind = sample.kind == .steps ? steps : distance
      let origin = origins[Int(sample.origin.rawValue)]
      row.reset()
      row.null()  // id: the rowid
      kind.withUnsafeBufferPointer { row.text($0) }
      row.text(startText)
      row.text(endText)
      row.integer(Int64(sample.utcOffsetSeconds))
      row.text(dayText)
      row.real(sample.value)
      origin.source.withUnsafeBufferPointer { row.text($0) }
      if let model = origin.model { model.withUnsafeBufferPointer { row.text($0) } } else { row.null() }
      row.integer(sample.isUserEntered ? 1 : 0)
      row.real(counted.next() ?? 0)
      row.finish()
      try table.append(rowid: rowid, payload: row.bytes)

      entry.reset()
      kind.withUnsafeBufferPointer { entry.text($0) }
      entry.text(startText)
      entry.integer(rowid)
      entry.finish()
      key.removeAll()
      kind.withUnsafeBufferPointer { SQLiteIndexKey.append($0, to: &key, last: false) }
      SQLiteIndexKey.append(startText, to: &key, last: true)
      try sorters[0].append(key: key.bytes, payload: entry.bytes)

      entry.reset()
      entry.text(dayText)
      entry.integer(rowid)
      entry.finish()
      key.removeAll()
      SQLiteIndexKey.append(dayText, to: &key, last: true)
      try sorters[1].append(key: key.bytes, payload: entry.bytes)

      entry.reset()
      origin.source.withUnsafeBufferPointer { entry.text($0) }
      kind.withUnsafeBufferPointer { entry.text($0) }
      entry.integer(rowid)
      entry.finish()
      key.removeAll()
      origin.source.withUnsafeBufferPointer { SQLiteIndexKey.append($0, to: &key, last: false) }
      kind.withUnsafeBufferPointer { SQLiteIndexKey.append($0, to: &key, last: true) }
      try sorters[2].append(key: key.bytes, payload: entry.bytes)
    }
    var roots = [try table.finish()]
    for sorter in sorters {
      let index = SQLiteIndexTree(file: file)
      try sorter.finish { payload throws(OutputFileError) in try index.append(payload) }
      roots.append(try index.finish())
    }
    return zip(Self.schema, roots).map { ($0.type, $0.name, $0.table, $1, $0.sql) }
  }
}

/// The sort key of an index entry: its text columns' bytes, compared with
/// `memcmp`, in the order SQLite's `BINARY` collation gives the columns one
/// after another (the rowid, which breaks ties, is left to the stable sort).
enum SQLiteIndexKey {
  /// Appends a text column's bytes to `key`. A column followed by another
  /// ends in a 0, with each byte 0 or 1 in it escaped as 1 1 and 1 2, so that
  /// a text that is a prefix of another sorts first whatever follows it.
  static func append(_ text: UnsafeBufferPointer<UInt8>, to key: inout ByteBuffer, last: Bool) {
    if last {
      key.append(text)
      return
    }
    for byte in text {
      if byte < 2 {
        key.append(1)
        key.append(byte + 1)
      } else {
        key.append(byte)
      }
    }
    key.append(0)
  }
}
