/// The attributes of a `<Record>` in the order Apple's exports write them,
/// any of them left out; the raw value is an attribute's slot in that order.
///
/// One enumeration serves every place that names a slot: the names the
/// scanner expects (``ExportDecoder/recordAttributeNames``), the bit of a slot
/// in the `present` mask that ``XMLScanner/readAttributes(expecting:first:)``
/// returns (bit `k` for slot `k`), and the two entries of a slot in the fast
/// path's value bounds (start at `2k`, end at `2k + 1`).
enum RecordAttribute: Int, CaseIterable {
  case type, sourceName, sourceVersion, device, unit, creationDate, startDate, endDate, value

  /// The attribute's name as written.
  var name: StaticString {
    switch self {
    case .type: "type"
    case .sourceName: "sourceName"
    case .sourceVersion: "sourceVersion"
    case .device: "device"
    case .unit: "unit"
    case .creationDate: "creationDate"
    case .startDate: "startDate"
    case .endDate: "endDate"
    case .value: "value"
    }
  }

  /// The attribute's bit in a mask of the attributes a record has.
  @inline(__always)
  var bit: UInt32 { 1 &<< UInt32(truncatingIfNeeded: rawValue) }

  /// Where the attribute's value starts in the fast path's bounds; it ends at the next entry.
  @inline(__always)
  var boundsIndex: Int { 2 &* rawValue }

  /// What every step or distance record must have: its type, source, dates and value.
  @inline(__always)
  static var requiredForSample: UInt32 {
    type.bit | sourceName.bit | startDate.bit | endDate.bit | value.bit
  }

  /// The value bounds of the attributes that a record may leave out and that
  /// the fast path reads, which are emptied before each record: `sourceVersion`,
  /// `device`, `unit` and `creationDate`, the slots between `sourceName` and `startDate`.
  @inline(__always)
  static var optionalBounds: Range<Int> { sourceVersion.boundsIndex..<startDate.boundsIndex }
}
