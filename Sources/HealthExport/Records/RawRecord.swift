import StepKitCore

/// A top-level element of an export, as ``ExportReader/forEachElement(in:_:)``
/// hands it out, in file order.
///
/// Its contents are byte spans into the reader's buffers: they are valid
/// only during the call that receives the element. Copy what must outlive it.
public enum ExportElement {
  /// A top-level `<Record>` (records repeated inside a `<Correlation>` are not
  /// handed out again).
  case record(RawRecord)
  /// A `<Workout>` with its events, statistics, routes and metadata.
  case workout(ExportWorkout)
  /// An `<ActivitySummary>`: one day of the Activity rings.
  case activitySummary(ExportActivitySummary)
  /// A `<Correlation>` (blood pressure, food) with its member records.
  case correlation(ExportCorrelation)
}

/// One top-level `<Record>` of an export: its attributes as UTF-8 bytes with
/// entity references decoded, its dates parsed, and its metadata.
///
/// Every span points into a buffer the reader reuses for the next record:
/// read it (or copy it) during the call that received the record.
public struct RawRecord {
  /// The attributes Apple writes on a `<Record>`, in the order it writes them.
  public enum Field: Int, CaseIterable, Sendable {
    /// `type`: `HKQuantityTypeIdentifierHeartRate`, `HKCategoryTypeIdentifierSleepAnalysis`, …
    case type
    /// `sourceName` (iOS 8 and 9 exports: `source`).
    case sourceName
    /// `sourceVersion`.
    case sourceVersion
    /// `device`: an `HKDevice` description (`<<HKDevice: 0x…>, name:Apple Watch, …>`).
    case device
    /// `unit`: `count/min`, `kcal`, …; none for category records.
    case unit
    /// `creationDate`.
    case creationDate
    /// `startDate`.
    case startDate
    /// `endDate`.
    case endDate
    /// `value`: a number, or a category's value (`HKCategoryValueSleepAnalysisAsleepCore`).
    case value
  }

  let arena: UnsafePointer<UInt8>
  /// Two entries (start, end) per ``Field``, offsets into `arena`; -1 for an absent field.
  let fields: UnsafePointer<Int>
  /// Four entries per metadata entry: key start and end, value start and end.
  let metadataSpans: UnsafeBufferPointer<Int>
  /// Four entries per attribute of another name: name start and end, value start and end.
  let otherSpans: UnsafeBufferPointer<Int>

  /// The start, in milliseconds since 1970 (UTC).
  public let startMilliseconds: Int64
  /// The end, in milliseconds since 1970 (UTC).
  public let endMilliseconds: Int64
  /// The UTC offset the start was written with, in seconds.
  public let utcOffsetSeconds: Int
  /// The creation date in milliseconds since 1970, when the record has one that parses.
  public let creationMilliseconds: Int64?
  /// The value as a number, when it is one (category values such as
  /// `HKCategoryValueSleepAnalysisAsleepCore` are not).
  public let numericValue: Double?

  /// The decoded bytes of `field`, or `nil` when the record lacks it.
  public func bytes(_ field: Field) -> UnsafeBufferPointer<UInt8>? {
    let start = fields[2 * field.rawValue]
    guard start >= 0 else { return nil }
    return UnsafeBufferPointer(start: arena + start, count: fields[2 * field.rawValue + 1] - start)
  }

  /// `field` as a string, or `nil` when the record lacks it.
  public func string(_ field: Field) -> String? {
    bytes(field).map { String(decoding: $0, as: UTF8.self) }
  }

  /// How many `<MetadataEntry>` children the record has.
  public var metadataCount: Int { metadataSpans.count / 4 }

  /// The key of metadata entry `index` (keys may repeat, or differ only by case).
  public func metadataKey(_ index: Int) -> UnsafeBufferPointer<UInt8> { span(metadataSpans, 4 * index) }

  /// The value of metadata entry `index` (empty when it has none).
  public func metadataValue(_ index: Int) -> UnsafeBufferPointer<UInt8> { span(metadataSpans, 4 * index + 2) }

  /// How many attributes of other names the record has: iOS 8 and 9 wrote
  /// `HKWasUserEntered` and third-party metadata (`Health Mate App Version`) as attributes.
  public var otherAttributeCount: Int { otherSpans.count / 4 }

  /// The name of other attribute `index`.
  public func otherAttributeName(_ index: Int) -> UnsafeBufferPointer<UInt8> { span(otherSpans, 4 * index) }

  /// The value of other attribute `index`.
  public func otherAttributeValue(_ index: Int) -> UnsafeBufferPointer<UInt8> {
    span(otherSpans, 4 * index + 2)
  }

  private func span(_ spans: UnsafeBufferPointer<Int>, _ at: Int) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: arena + spans[at], count: spans[at + 1] - spans[at])
  }
}

/// What ``ExportReader/forEachElement(in:_:)`` found besides the elements it handed out.
public struct WholeExportReport: Sendable {
  /// What the export says about itself (its ``ExportInfo/recordCount`` counts
  /// every top-level `<Record>`, valid or not).
  public var info: ExportInfo
  /// Records handed out.
  public var records: Int = 0
  /// Records that were not handed out, with the reason and where they are:
  /// a missing `type` or date, a date that does not parse, an end before the
  /// start, a quantity whose value is not a number, an attribute written twice.
  public var invalid = InvalidSampleReport()
  /// Records of the types asked for that were read straight from their bytes
  /// (``ExportReader/forEachRecord(in:ofTypes:threads:progress:_:)``), for tests.
  var recordsDecodedStraight = 0
}

/// The bytes of the record being read in ``ExportDecoder``'s whole-export
/// mode: every attribute value and metadata entry copied, decoded, into one
/// buffer that the next record reuses, so that the record survives the
/// scanner's refills while its children are read.
///
/// Its stored properties are read and changed on the one thread that reads
/// the record, in calls that never overlap, so they go without Swift's
/// dynamic exclusivity checks (`swift_beginAccess` with its thread-local
/// access set, about 150 instructions each, several a record).
final class RecordArena {
  @exclusivity(unchecked) private(set) var bytes: UnsafeMutablePointer<UInt8>
  @exclusivity(unchecked) private(set) var capacity: Int
  @exclusivity(unchecked) private(set) var count = 0
  /// Two offsets per ``RawRecord/Field``.
  let fields = UnsafeMutablePointer<Int>.allocate(capacity: 2 * RawRecord.Field.allCases.count)
  /// The metadata entries' spans, four words each: the key's start and end, the value's.
  @exclusivity(unchecked) private(set) var metadata = SpanList(capacity: 64)
  /// The spans of the attributes outside the known fields, as ``metadata``'s.
  @exclusivity(unchecked) private(set) var others = SpanList(capacity: 16)

  init() {
    capacity = 1 << 12
    bytes = .allocate(capacity: capacity)
  }

  deinit {
    bytes.deallocate()
    fields.deallocate()
    metadata.deallocate()
    others.deallocate()
  }

  /// Empties the arena for the next record.
  func reset() {
    count = 0
    for k in 0..<(2 * RawRecord.Field.allCases.count) { fields[k] = -1 }
    metadata.count = 0
    others.count = 0
  }

  /// Copies `source` to the end; returns its start and end offsets.
  @inline(__always)
  func append(_ source: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
    let start = count
    reserve(source.count)
    if let base = source.baseAddress { (bytes + count).update(from: base, count: source.count) }
    count += source.count
    return (start, count)
  }

  /// Copies `text`'s UTF-8 to the end; returns its start and end offsets.
  func append(_ text: String) -> (Int, Int) {
    var text = text
    return text.withUTF8 { append($0) }
  }

  // Grows as the command's `RecordText` does, apart on purpose: HealthExport exports no byte
  // buffer for a caller to write into, and each owner frees its own memory.
  private func reserve(_ extra: Int) {
    guard count + extra > capacity else { return }
    var newCapacity = capacity * 2
    while newCapacity < count + extra { newCapacity *= 2 }
    let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    grown.update(from: bytes, count: count)
    bytes.deallocate()
    bytes = grown
    capacity = newCapacity
  }

  /// Adds a metadata entry: its key's and its value's spans.
  @inline(__always)
  func appendMetadata(key: (Int, Int), value: (Int, Int)) { metadata.append(key, value) }

  /// Forgets the metadata entries added since ``reset()`` (their bytes stay, unused).
  @inline(__always)
  func removeMetadata() { metadata.count = 0 }

  /// Adds an attribute outside the known fields: its name's and its value's spans.
  @inline(__always)
  func appendOther(name: (Int, Int), value: (Int, Int)) { others.append(name, value) }

  /// Sets `field`'s span.
  @inline(__always)
  func set(_ field: RawRecord.Field, _ span: (Int, Int)) {
    fields[2 * field.rawValue] = span.0
    fields[2 * field.rawValue + 1] = span.1
  }

  /// The bytes of `field` (`nil` when absent).
  @inline(__always)
  func field(_ field: RawRecord.Field) -> UnsafeBufferPointer<UInt8>? {
    let start = fields[2 * field.rawValue]
    guard start >= 0 else { return nil }
    return UnsafeBufferPointer(start: bytes + start, count: fields[2 * field.rawValue + 1] - start)
  }
}

/// A growable list of spans in memory of its own, four words an entry (or,
/// for a batch of records, of any words).
///
/// ``RecordArena`` held these as two `[Int]`s; each change of an array stored in a class
/// costs a dynamic exclusivity check (`swift_beginAccess`, about 200 instructions with its
/// thread-local access set), three a record, about 7 % of the reading thread of `stepkit
/// records`. Writing through a pointer in inlined code needs none.
struct SpanList {
  private(set) var words: UnsafeMutablePointer<Int>
  private var capacity: Int
  /// How many words are written (four per entry).
  var count = 0

  init(capacity: Int) {
    self.capacity = capacity
    words = .allocate(capacity: capacity)
  }

  /// Frees the words; the owner calls it once, from its `deinit`.
  func deallocate() { words.deallocate() }

  /// The words written.
  var buffer: UnsafeBufferPointer<Int> { UnsafeBufferPointer(start: words, count: count) }

  /// Adds an entry: the first span's start and end, then the second's.
  @inline(__always)
  mutating func append(_ first: (Int, Int), _ second: (Int, Int)) {
    if count + 4 > capacity { grow() }
    words[count] = first.0
    words[count + 1] = first.1
    words[count + 2] = second.0
    words[count + 3] = second.1
    count += 4
  }

  /// Makes room for `n` more words at the end and counts them written; returns where they start,
  /// for the caller to write every one of them.
  @inline(__always)
  mutating func appendUninitialized(_ n: Int) -> UnsafeMutablePointer<Int> {
    while count + n > capacity { grow() }
    defer { count += n }
    return words + count
  }

  private mutating func grow() {
    let grown = UnsafeMutablePointer<Int>.allocate(capacity: capacity * 2)
    grown.update(from: words, count: count)
    words.deallocate()
    words = grown
    capacity *= 2
  }
}
