import Foundation
import HealthExport
import StepKitCore

/// The fields of one record's row, worked out in one place for every output
/// of records: the `records` table of `stepkit sqlite` and the rows of
/// `stepkit records` (CSV, JSON).
///
/// Reuses its text buffers from record to record, and each device's fields
/// by its description less the object address (real exports give every
/// record's device a fresh one), so that a row costs no allocation.
struct RecordFields: ~Copyable {
  /// The columns, in order, as `stepkit sqlite` names them (after `id` and
  /// `export`) and `stepkit records` heads them.
  static let columns = [
    "type", "unit", "value", "value_text", "start", "end", "utc_offset", "local_date", "source",
    "source_version", "device_name", "device_manufacturer", "device_model", "device_hardware",
    "device_software", "creation_date", "metadata",
  ]

  /// One record's fields: spans into the record and into the ``RecordFields``
  /// that made them, valid until its next ``RecordFields/row(_:)``.
  struct Row {
    /// `type`.
    var type: UnsafeBufferPointer<UInt8>?
    /// `unit`.
    var unit: UnsafeBufferPointer<UInt8>?
    /// The value, when it is a number.
    var number: Double?
    /// The value's bytes as written (a number's digits, or a category's name).
    var valueBytes: UnsafeBufferPointer<UInt8>?
    /// The start and end in UTC, `2026-11-29T08:30:00Z`.
    var start: UnsafeBufferPointer<UInt8>
    var end: UnsafeBufferPointer<UInt8>
    /// The UTC offset the start was written with, in seconds.
    var utcOffsetSeconds: Int
    /// The start's local day, `yyyy-MM-dd`, by the command's time-zone rule and day start.
    var localDate: UnsafeBufferPointer<UInt8>
    /// The day itself, for `--from` and `--to`.
    var localDay: LocalDate
    /// `sourceName` (iOS 8 and 9: `source`).
    var source: UnsafeBufferPointer<UInt8>?
    /// `sourceVersion`.
    var sourceVersion: UnsafeBufferPointer<UInt8>?
    /// The device's name, manufacturer, model, hardware and software; `nil`
    /// without a device. Unretained: the ``RecordFields`` that made the row
    /// keeps every device's fields for its life, and a row that compares its
    /// device with the last row's (`toOpaque()`) costs no retain and release.
    var device: Unmanaged<DeviceFields>?
    /// The creation date in UTC, when the record has one.
    var creation: UnsafeBufferPointer<UInt8>?
    /// The metadata entries and iOS 8's metadata attributes as one JSON
    /// object, made UTF-8; `nil` when there are none.
    var metadata: UnsafeBufferPointer<UInt8>?
    /// How many bytes of the metadata were not UTF-8 and are U+FFFD in ``metadata``.
    var metadataReplacedBytes: Int
    /// Whether a metadata key was named twice (``metadata`` holds its first value).
    var repeatedKey: Bool

    /// The value's text when it is not a number (a category's name).
    var valueText: UnsafeBufferPointer<UInt8>? { number == nil ? valueBytes : nil }
  }

  /// The fields of one device, each its own NUL-free UTF-8, kept for the run,
  /// with the text `stepkit records` writes for them, worked out once.
  final class DeviceFields {
    /// Name, manufacturer, model, hardware, software: `nil` for a field the description lacks.
    let values: [[UInt8]?]
    /// The five fields as CSV, each followed by a `,` (an absent one empty).
    let csv: [UInt8]
    /// The five fields as JSON members, `"device_name":"…",` each followed by a `,` (an absent one `null`).
    let json: [UInt8]

    /// The JSON names of the five fields, in order.
    private static let jsonNames = [
      "device_name", "device_manufacturer", "device_model", "device_hardware", "device_software",
    ]

    init(_ device: Device?) {
      values = [device?.name, device?.manufacturer, device?.model, device?.hardware, device?.software].map {
        $0.map { Array($0.utf8) }
      }
      var text = RecordText(capacity: 256)
      for value in values {
        // Made from a `String`: UTF-8, nothing replaced.
        if let value { value.withUnsafeBufferPointer { _ = text.csvField($0) } }
        text.ascii(44)
      }
      csv = Array(UnsafeBufferPointer(start: text.bytes, count: text.count))
      text.reset()
      for (name, value) in zip(Self.jsonNames, values) {
        text.ascii(34)
        var key = name
        key.withUTF8 { text.append($0) }
        text.ascii(34)
        text.ascii(58)
        if let value {
          text.ascii(34)
          value.withUnsafeBufferPointer { _ = text.jsonStringContent($0) }
          text.ascii(34)
        } else {
          text.ascii("null")
        }
        text.ascii(44)
      }
      json = Array(UnsafeBufferPointer(start: text.bytes, count: text.count))
    }
  }

  private var text = RecordText()
  private var json = RecordText()
  private var days: LocalDayFinder
  /// The last record's metadata as ``metadataObject(_:)`` made it (its JSON in ``json``).
  private var metadata: (UnsafeBufferPointer<UInt8>?, Int, Bool) = (nil, 0, false)
  /// What that was made from: each key's and value's length (a word) and bytes, in order.
  private var metadataSource: [UInt8] = []
  private var metadataEntries = 0
  private var metadataOthers = 0
  private var recentDevices: [(key: [UInt8], fields: DeviceFields)] = []
  private var devices: [[UInt8]: DeviceFields] = [:]
  /// The last record's device description (less the object address) and its fields: most
  /// records have the device of the record before.
  private var lastDeviceKey = ByteBuffer(capacity: 256)
  private var lastDevice: Unmanaged<DeviceFields>?

  /// Fields whose `local_date` `days` decides.
  init(days: LocalDayFinder) { self.days = days }

  /// The fields of `record`.
  mutating func row(_ record: RawRecord) -> Row {
    text.reset()
    let start = text.utcInstant(record.startMilliseconds)
    // Heart rate, body mass and most other discrete samples end as they start.
    let end =
      record.endMilliseconds == record.startMilliseconds
      ? text.repeatText(from: start, to: text.count) : text.utcInstant(record.endMilliseconds)
    let day = days.day(of: record.startMilliseconds, recordedOffsetSeconds: record.utcOffsetSeconds)
    let localDate = text.date(day)
    let creation = record.creationMilliseconds.map { text.utcInstant($0) }
    let textEnd = text.count
    let base = UnsafePointer(text.bytes)
    func span(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
      UnsafeBufferPointer(start: base + from, count: to - from)
    }
    if !metadataIsUnchanged(record) { metadata = metadataObject(record) }
    let (metadata, replaced, repeated) = self.metadata
    var device: Unmanaged<DeviceFields>?
    if let description = record.bytes(.device) { device = fields(of: description) }
    return Row(
      type: record.bytes(.type), unit: record.bytes(.unit), number: record.numericValue,
      valueBytes: record.bytes(.value), start: span(start, end), end: span(end, localDate),
      utcOffsetSeconds: record.utcOffsetSeconds, localDate: span(localDate, creation ?? textEnd),
      localDay: day,
      source: record.bytes(.sourceName), sourceVersion: record.bytes(.sourceVersion),
      device: device, creation: creation.map { span($0, textEnd) },
      metadata: metadata, metadataReplacedBytes: replaced, repeatedKey: repeated)
  }

  /// Whether `record` has the metadata entries and other attributes of the
  /// record before it, byte for byte (``metadataSource``), so that ``metadata``
  /// holds its JSON object already; if not, remembers them for the next.
  /// Records of a type mostly repeat a few (heart rate's motion context is 0,
  /// 1 or 2): comparing costs a fraction of making the object again.
  private mutating func metadataIsUnchanged(_ record: RawRecord) -> Bool {
    let entries = record.metadataCount
    let others = record.otherAttributeCount
    // Before the first record, the source is that of a record with no metadata (whose object `nil`
    // is ``metadata``'s first value).
    if entries == metadataEntries && others == metadataOthers {
      var at = 0
      var same = true
      Self.forEachMetadataPiece(of: record) { bytes in
        guard same else { return }
        same = metadataSource.withUnsafeBytes { known in
          guard at + 8 + bytes.count <= known.count else { return false }
          return known.loadUnaligned(fromByteOffset: at, as: Int.self) == bytes.count
            && (bytes.isEmpty || memcmp(known.baseAddress! + at + 8, bytes.baseAddress!, bytes.count) == 0)
        }
        at += 8 + bytes.count
      }
      if same && at == metadataSource.count { return true }
    }
    metadataSource.removeAll(keepingCapacity: true)
    Self.forEachMetadataPiece(of: record) { bytes in
      withUnsafeBytes(of: bytes.count) { metadataSource.append(contentsOf: $0) }
      metadataSource.append(contentsOf: bytes)
    }
    metadataEntries = entries
    metadataOthers = others
    return false
  }

  /// Calls `body` with each metadata entry's key and value, then each other
  /// attribute's name and value, in order.
  @inline(__always)
  private static func forEachMetadataPiece(of record: RawRecord, _ body: (UnsafeBufferPointer<UInt8>) -> Void)
  {
    for index in 0..<record.metadataCount {
      body(record.metadataKey(index))
      body(record.metadataValue(index))
    }
    for index in 0..<record.otherAttributeCount {
      body(record.otherAttributeName(index))
      body(record.otherAttributeValue(index))
    }
  }

  /// The record's metadata as one JSON object (`nil` when it has none), how
  /// many bytes were replaced by U+FFFD, and whether a key was named twice.
  private mutating func metadataObject(_ record: RawRecord) -> (UnsafeBufferPointer<UInt8>?, Int, Bool) {
    json.reset()
    var members = 0
    var replaced = 0
    var repeated = false
    json.brace(open: true)
    // A key named twice (a hand-edited file; iOS 8's attribute beside its metadata entry) is one
    // member, its first value: JSON readers differ on which of two they return.
    func isRepeated(_ key: UnsafeBufferPointer<UInt8>, metadataBefore: Int, attributesBefore: Int) -> Bool {
      for index in 0..<metadataBefore where Self.equal(record.metadataKey(index), key) { return true }
      for index in 0..<attributesBefore where Self.equal(record.otherAttributeName(index), key) {
        return true
      }
      return false
    }
    for index in 0..<record.metadataCount {
      let key = record.metadataKey(index)
      if isRepeated(key, metadataBefore: index, attributesBefore: 0) {
        repeated = true
        continue
      }
      replaced += json.jsonMember(key: key, value: record.metadataValue(index), first: members == 0)
      members += 1
    }
    for index in 0..<record.otherAttributeCount {
      let name = record.otherAttributeName(index)
      // iOS 8's `source` is the source column.
      if name.count == 6, name.elementsEqual("source".utf8) { continue }
      if isRepeated(name, metadataBefore: record.metadataCount, attributesBefore: index) {
        repeated = true
        continue
      }
      replaced += json.jsonMember(key: name, value: record.otherAttributeValue(index), first: members == 0)
      members += 1
    }
    json.brace(open: false)
    guard members > 0 else { return (nil, replaced, repeated) }
    return (UnsafeBufferPointer(start: json.bytes, count: json.count), replaced, repeated)
  }

  /// Whether `a` and `b` hold the same bytes.
  @inline(__always)
  static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let x = a.baseAddress, let y = b.baseAddress else { return true }
    return memcmp(x, y, a.count) == 0
  }

  /// Whether `bytes` are those `known` keeps (both `nil`, or the same bytes):
  /// a field of this row against the one the row before was written with.
  @inline(__always)
  static func same(_ bytes: UnsafeBufferPointer<UInt8>?, _ known: [UInt8]?) -> Bool {
    guard let bytes, let known else { return bytes == nil && known == nil }
    return known.withUnsafeBufferPointer { equal($0, bytes) }
  }

  /// The fields of the device `description` describes, parsed once per device.
  private mutating func fields(of description: UnsafeBufferPointer<UInt8>) -> Unmanaged<DeviceFields> {
    // `<<HKDevice: 0x…>, name:…>`: what follows the first `>` names the device.
    let key: UnsafeBufferPointer<UInt8>
    if let close = description.firstIndex(of: UInt8(ascii: ">")) {
      key = UnsafeBufferPointer(rebasing: description[(close + 1)...])
    } else {
      key = description
    }
    if let lastDevice, lastDeviceKey.count == key.count,
      key.isEmpty || memcmp(lastDeviceKey.base, key.baseAddress!, key.count) == 0
    {
      return lastDevice
    }
    let fields = Unmanaged.passUnretained(knownFields(of: description, key: key))
    lastDeviceKey.removeAll()
    lastDeviceKey.append(key)
    lastDevice = fields
    return fields
  }

  /// The fields of the device `description` (whose name part is `key`),
  /// from the few devices met last, the run's devices, or parsed anew.
  private mutating func knownFields(
    of description: UnsafeBufferPointer<UInt8>, key: UnsafeBufferPointer<UInt8>
  )
    -> DeviceFields
  {
    for (index, entry) in recentDevices.enumerated()
    where entry.key.withUnsafeBufferPointer({ Self.equal($0, key) }) {
      if index > 0 { recentDevices.swapAt(index, 0) }
      return entry.fields
    }
    let owned = Array(key)
    let fields: DeviceFields
    if let known = devices[owned] {
      fields = known
    } else {
      fields = DeviceFields(Device(hkDeviceDescription: String(decoding: description, as: UTF8.self)))
      devices[owned] = fields
    }
    recentDevices.insert((owned, fields), at: 0)
    if recentDevices.count > 4 { recentDevices.removeLast() }
    return fields
  }
}
