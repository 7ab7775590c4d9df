/// Builds one row in SQLite's record format (sqlite.org/fileformat2.html,
/// section 2.1): a header of serial types, each a varint, led by the
/// header's own length, then the values' bytes in the same order.
///
/// Values go in column by column; ``finish()`` joins the two parts. The
/// buffers are kept from row to row, so a row costs no allocation.
struct SQLiteRecordEncoder {
  /// The serial types, without the leading header length.
  private var header: [UInt8] = []
  /// The values' bytes.
  private var body: [UInt8] = []
  /// The last record made by ``finish()``.
  private(set) var record: [UInt8] = []

  init() {
    header.reserveCapacity(32)
    body.reserveCapacity(1024)
    record.reserveCapacity(1024)
  }

  /// Starts a new row.
  mutating func reset() {
    header.removeAll(keepingCapacity: true)
    body.removeAll(keepingCapacity: true)
  }

  /// NULL (serial type 0), as an `INTEGER PRIMARY KEY` column is stored too.
  mutating func null() { header.append(0) }

  /// An integer in the fewest bytes (serial types 1–6), or none for 0 and 1
  /// (types 8 and 9, schema format 4).
  mutating func integer(_ value: Int64) {
    switch value {
    case 0: header.append(8)
    case 1: header.append(9)
    case -128...127: put(type: 1, value, bytes: 1)
    case -32768...32767: put(type: 2, value, bytes: 2)
    case -8_388_608...8_388_607: put(type: 3, value, bytes: 3)
    case -2_147_483_648...2_147_483_647: put(type: 4, value, bytes: 4)
    case -140_737_488_355_328...140_737_488_355_327: put(type: 5, value, bytes: 6)
    default: put(type: 6, value, bytes: 8)
    }
  }

  /// A value of a `REAL` column: as SQLite stores one, an integer when the
  /// number is one within ±2⁵¹ (it reads back as the same double), otherwise
  /// the IEEE 754 double, big-endian (serial type 7).
  mutating func real(_ value: Double) {
    // SQLite binds NaN as NULL.
    guard !value.isNaN else { return null() }
    if value == value.rounded(.towardZero), value >= -2_251_799_813_685_248, value < 2_251_799_813_685_248 {
      integer(Int64(value))
      return
    }
    put(type: 7, Int64(bitPattern: value.bitPattern), bytes: 8)
  }

  /// Text, its UTF-8 bytes as they are (serial type 13 + 2n).
  mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
    Self.appendVarint(UInt64(13 + 2 * bytes.count), to: &header)
    body.append(contentsOf: bytes)
  }

  /// Text, or NULL for `nil`.
  mutating func text(_ bytes: UnsafeBufferPointer<UInt8>?) {
    if let bytes { text(bytes) } else { null() }
  }

  /// Joins header and body into ``record``.
  mutating func finish() {
    record.removeAll(keepingCapacity: true)
    // The length counts its own varint: one byte up to 126 bytes of types.
    var length = header.count + 1
    if Self.varintLength(UInt64(length)) > 1 {
      length = header.count + Self.varintLength(UInt64(header.count + 2))
    }
    Self.appendVarint(UInt64(length), to: &record)
    record.append(contentsOf: header)
    record.append(contentsOf: body)
  }

  @inline(__always)
  private mutating func put(type: UInt8, _ value: Int64, bytes: Int) {
    header.append(type)
    var shift = (bytes - 1) * 8
    while shift >= 0 {
      body.append(UInt8(truncatingIfNeeded: value >> Int64(shift)))
      shift -= 8
    }
  }

  /// Appends `value` as SQLite's varint: big-endian groups of 7 bits, the
  /// high bit set on all but the last, and the ninth byte carrying 8 bits.
  static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
    if value <= 0x7F {
      out.append(UInt8(value))
      return
    }
    if value > 0x00FF_FFFF_FFFF_FFFF {
      // Nine bytes: eight groups of 7 bits, then the low 8 bits whole.
      var high = value >> 8
      var groups = [UInt8](repeating: 0, count: 8)
      for k in stride(from: 7, through: 0, by: -1) {
        groups[k] = UInt8(high & 0x7F) | 0x80
        high >>= 7
      }
      out.append(contentsOf: groups)
      out.append(UInt8(truncatingIfNeeded: value))
      return
    }
    let count = varintLength(value)
    for k in stride(from: count - 1, through: 0, by: -1) {
      let group = UInt8((value >> UInt64(7 * k)) & 0x7F)
      out.append(k == 0 ? group : group | 0x80)
    }
  }

  /// How many bytes ``appendVarint(_:to:)`` writes for `value`.
  static func varintLength(_ value: UInt64) -> Int {
    if value > 0x00FF_FFFF_FFFF_FFFF { return 9 }
    var count = 1
    var rest = value >> 7
    while rest != 0 {
      count += 1
      rest >>= 7
    }
    return count
  }
}
