/// Builds one row in SQLite's record format (sqlite.org/fileformat2.html,
/// section 2.1): a header of serial types, each a varint, led by the
/// header's own length, then the values' bytes in the same order.
///
/// Values go in column by column; ``finish()`` joins the two parts into
/// ``bytes``. The buffers are kept from row to row, so a row costs no allocation.
struct SQLiteRecordEncoder: ~Copyable {
  /// The serial types, without the leading header length.
  private var header = ByteBuffer(capacity: 64)
  /// The values' bytes.
  private var body = ByteBuffer(capacity: 1024)
  /// The last record made by ``finish()``.
  private var record = ByteBuffer(capacity: 1024)

  init() {}

  /// The record ``finish()`` made, valid until the next.
  var bytes: UnsafeRawBufferPointer { record.bytes }

  /// Starts a new row.
  mutating func reset() {
    header.removeAll()
    body.removeAll()
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

  /// A value of a `REAL` column as SQLite stores one: an integer when the
  /// number is one within ±2⁵¹ (it reads back as the same double), NULL for
  /// NaN (as SQLite binds it), otherwise the IEEE 754 double, big-endian
  /// (serial type 7).
  mutating func real(_ value: Double) {
    guard !value.isNaN else { return null() }
    if value == value.rounded(.towardZero), value >= -2_251_799_813_685_248, value < 2_251_799_813_685_248 {
      integer(Int64(value))
      return
    }
    put(type: 7, Int64(bitPattern: value.bitPattern), bytes: 8)
  }

  /// Text, its UTF-8 bytes as they are (serial type 13 + 2n).
  mutating func text(_ bytes: UnsafeBufferPointer<UInt8>) {
    header.appendVarint(UInt64(13 + 2 * bytes.count))
    body.append(bytes)
  }

  /// Text, or NULL for `nil`.
  mutating func text(_ bytes: UnsafeBufferPointer<UInt8>?) {
    if let bytes { text(bytes) } else { null() }
  }

  /// Columns encoded before (``parts(_:)`` of another encoder): their serial types, then their values.
  mutating func encoded(types: UnsafeRawBufferPointer, values: UnsafeRawBufferPointer) {
    header.append(types)
    body.append(values)
  }

  /// Calls `body` with the serial types and the values of the columns so far, unjoined.
  func parts(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) {
    body(header.bytes, self.body.bytes)
  }

  /// Joins header and body into ``bytes``.
  mutating func finish() {
    record.removeAll()
    // The length counts its own varint: one byte up to 126 bytes of types.
    let length =
      header.count < 127 ? header.count + 1 : header.count + ByteBuffer.varintLength(UInt64(header.count + 2))
    record.appendVarint(UInt64(length))
    record.append(header.bytes)
    record.append(body.bytes)
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
}
