import HealthExport
import StepKitCore

/// The rows of `stepkit records`: each record's ``RecordFields`` as a CSV
/// line or a JSON object, handed on about 64 KiB at a time, so that no more
/// than one piece of the output is ever held.
struct RecordsOutput: ~Copyable {
  /// How the rows are written.
  enum Format: String, CaseIterable, Sendable {
    /// A header of ``RecordFields/columns``, then one RFC 4180 line per record.
    case csv
    /// One JSON array, one object per record on a line of its own.
    case json
  }

  /// The bytes handed on at a time.
  static let pieceBytes = 1 << 16

  private let format: Format
  private var fields: RecordFields
  private let from: LocalDate?
  private let to: LocalDate?
  private let emit: (UnsafeBufferPointer<UInt8>) throws -> Void
  private var out = RecordText(capacity: pieceBytes + (1 << 12))
  /// The text of the last written row's type and unit, and of its source and version.
  private var typeAndUnit: RepeatedFields
  private var sourceAndVersion: RepeatedFields
  /// The last metadata object written to a CSV row (never empty: at least `{}`), and its quoted text.
  private var quotedMetadataSource: [UInt8] = []
  private var quotedMetadata: [UInt8] = []
  /// The device columns of a record without a device: empty, or `null`.
  private let noDevice = RecordFields.DeviceFields(nil)
  private var started = false

  /// Rows written.
  private(set) var rows = 0
  /// Records left out by `--from` and `--to`.
  private(set) var outsideRange = 0
  /// Records that held bytes that are not UTF-8, written with U+FFFD in their place.
  private(set) var recordsWithInvalidUTF8 = 0
  /// Records that named a metadata key twice, written with the first value.
  private(set) var recordsWithRepeatedKeys = 0

  /// An output of `format` whose rows' `local_date` `days` decides, keeping
  /// the records whose local date lies from `from` to `to`, handing its
  /// bytes to `emit` (which may throw to stop the reading).
  init(
    format: Format, days: LocalDayFinder, from: LocalDate?, to: LocalDate?,
    emit: @escaping (UnsafeBufferPointer<UInt8>) throws -> Void
  ) {
    self.format = format
    typeAndUnit = RepeatedFields(format, names: "type", "unit")
    sourceAndVersion = RepeatedFields(format, names: "source", "source_version")
    fields = RecordFields(days: days)
    self.from = from
    self.to = to
    self.emit = emit
  }

  /// Writes `record`'s row, unless its local date lies outside the range.
  ///
  /// - Throws: What `emit` throws.
  mutating func write(_ record: RawRecord) throws {
    let row = fields.row(record)
    if let from, row.localDay < from {
      outsideRange += 1
      return
    }
    if let to, row.localDay > to {
      outsideRange += 1
      return
    }
    if !started { start() }
    let replaced: Int
    switch format {
    case .csv: replaced = csvRow(row)
    case .json: replaced = jsonRow(row)
    }
    if replaced > 0 || row.metadataReplacedBytes > 0 { recordsWithInvalidUTF8 += 1 }
    if row.repeatedKey { recordsWithRepeatedKeys += 1 }
    rows += 1
    if out.count >= Self.pieceBytes { try flush() }
  }

  /// Ends the output (the header alone, or `[]`, when no row was written) and hands on the rest.
  ///
  /// - Throws: What `emit` throws.
  mutating func finish() throws {
    if !started { start() }
    if format == .json { out.ascii(rows == 0 ? "]\n" : "\n]\n") }
    try flush()
  }

  private mutating func start() {
    started = true
    switch format {
    case .csv:
      for (index, column) in RecordFields.columns.enumerated() {
        if index > 0 { out.ascii(44) }
        var name = column
        name.withUTF8 { out.append($0) }
      }
      out.ascii(10)
    case .json:
      out.ascii(91)
    }
  }

  private mutating func flush() throws {
    guard out.count > 0 else { return }
    try emit(UnsafeBufferPointer(start: out.bytes, count: out.count))
    out.reset()
  }

  /// Writes a number: its digits as the export wrote them when they are a
  /// JSON number (nearly always), otherwise as Swift prints the value.
  private mutating func number(_ value: Double, written: UnsafeBufferPointer<UInt8>?) {
    if let written, Self.isJSONNumber(written) {
      out.append(written)
    } else {
      var text = "\(value)"
      text.withUTF8 { out.append($0) }
    }
  }

  /// Whether `bytes` is a number as JSON writes one (RFC 8259, section 6):
  /// `-`, digits without a leading zero, a fraction, an exponent.
  static func isJSONNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var i = 0
    let n = bytes.count
    func isDigit(_ k: Int) -> Bool { k < n && bytes[k] &- 48 < 10 }
    if i < n, bytes[i] == 45 { i += 1 }
    guard isDigit(i) else { return false }
    if bytes[i] == 48 {
      i += 1
    } else {
      while isDigit(i) { i += 1 }
    }
    if i < n, bytes[i] == 46 {
      i += 1
      guard isDigit(i) else { return false }
      while isDigit(i) { i += 1 }
    }
    if i < n, bytes[i] == 101 || bytes[i] == 69 {
      i += 1
      if i < n, bytes[i] == 43 || bytes[i] == 45 { i += 1 }
      guard isDigit(i) else { return false }
      while isDigit(i) { i += 1 }
    }
    return i == n
  }

  // MARK: - CSV

  /// Writes `row` as a CSV line; returns how many bytes were replaced by U+FFFD.
  private mutating func csvRow(_ row: RecordFields.Row) -> Int {
    var replaced = typeAndUnit.write(row.type, row.unit, to: &out)
    if let value = row.number { number(value, written: row.valueBytes) }
    out.ascii(44)
    replaced += csvField(row.valueText)
    // The instants and the day are digits and ASCII punctuation of our own making.
    plainField(row.start)
    plainField(row.end)
    out.integer(row.utcOffsetSeconds)
    out.ascii(44)
    plainField(row.localDate)
    replaced += sourceAndVersion.write(row.source, row.sourceVersion, to: &out)
    (row.device?.takeUnretainedValue() ?? noDevice).csv.withUnsafeBufferPointer { out.append($0) }
    if let creation = row.creation { out.append(creation) }
    out.ascii(44)
    // Made UTF-8 already, and never without a `"`; quoted once while rows repeat it (compared
    // here, as rows outside --from/--to are made but not written).
    if let metadata = row.metadata {
      if RecordFields.same(metadata, quotedMetadataSource) {
        quotedMetadata.withUnsafeBufferPointer { out.append($0) }
      } else {
        let start = out.count
        out.quotedCSVField(utf8: metadata)
        quotedMetadataSource.removeAll(keepingCapacity: true)
        quotedMetadataSource.append(contentsOf: metadata)
        quotedMetadata.removeAll(keepingCapacity: true)
        quotedMetadata.append(
          contentsOf: UnsafeBufferPointer(start: out.bytes + start, count: out.count - start))
      }
    }
    out.ascii(10)
    return replaced
  }

  /// Writes text that needs no quotes, and the `,` after it.
  @inline(__always)
  private mutating func plainField(_ bytes: UnsafeBufferPointer<UInt8>) {
    out.append(bytes)
    out.ascii(44)
  }

  /// Writes a CSV field (nothing for `nil`) and the `,` after it; returns how many bytes were replaced by U+FFFD.
  @inline(__always)
  private mutating func csvField(_ bytes: UnsafeBufferPointer<UInt8>?) -> Int {
    let replaced = bytes.map { out.csvField($0) } ?? 0
    out.ascii(44)
    return replaced
  }

  // MARK: - JSON

  /// Writes `row` as a JSON object; returns how many bytes were replaced by U+FFFD.
  private mutating func jsonRow(_ row: RecordFields.Row) -> Int {
    out.ascii(rows == 0 ? "\n{" : ",\n{")
    var replaced = typeAndUnit.write(row.type, row.unit, to: &out)
    jsonKey("value")
    if let value = row.number {
      number(value, written: row.valueBytes)
    } else {
      out.ascii("null")
    }
    out.ascii(44)
    replaced += out.jsonStringMember("value_text", row.valueText)
    // The instants and the day are digits and ASCII punctuation of our own making.
    jsonPlain("start", row.start)
    jsonPlain("end", row.end)
    jsonKey("utc_offset")
    out.integer(row.utcOffsetSeconds)
    out.ascii(44)
    jsonPlain("local_date", row.localDate)
    replaced += sourceAndVersion.write(row.source, row.sourceVersion, to: &out)
    (row.device?.takeUnretainedValue() ?? noDevice).json.withUnsafeBufferPointer { out.append($0) }
    if let creation = row.creation {
      jsonPlain("creation_date", creation)
    } else {
      out.ascii("\"creation_date\":null,")
    }
    jsonKey("metadata")
    if let metadata = row.metadata {
      // Already JSON, made UTF-8 as it was written: copied as it is, with nothing to escape again.
      out.append(metadata)
    } else {
      out.ascii("null")
    }
    out.ascii(125)
    return replaced
  }

  /// Writes `"name":`.
  @inline(__always)
  private mutating func jsonKey(_ name: StaticString) {
    out.ascii(34)
    out.ascii(name)
    out.ascii("\":")
  }

  /// Writes `"name":"…",` for text that needs no escape.
  @inline(__always)
  private mutating func jsonPlain(_ name: StaticString, _ bytes: UnsafeBufferPointer<UInt8>) {
    jsonKey(name)
    out.ascii(34)
    out.append(bytes)
    out.ascii("\",")
  }
}
