/// Reads little-endian integers from a byte array, never past its end.
struct LittleEndianReader {
  let bytes: [UInt8]
  private(set) var position: Int

  init(_ bytes: [UInt8], position: Int = 0) {
    self.bytes = bytes
    self.position = position
  }

  var remaining: Int { bytes.count - position }

  mutating func u8() -> UInt8? { integer() }

  mutating func u16() -> UInt16? { integer() }

  mutating func u32() -> UInt32? { integer() }

  mutating func u64() -> UInt64? { integer() }

  /// The next `MemoryLayout<Integer>.size` bytes, least significant first.
  private mutating func integer<Integer: FixedWidthInteger & UnsignedInteger>() -> Integer? {
    let size = MemoryLayout<Integer>.size
    guard remaining >= size else { return nil }
    var value: Integer = 0
    for index in 0..<size { value |= Integer(bytes[position + index]) << (8 * index) }
    position += size
    return value
  }

  mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
    guard count >= 0, remaining >= count else { return nil }
    defer { position += count }
    return bytes[position..<position + count]
  }

  mutating func skip(_ count: Int) -> Bool {
    guard count >= 0, remaining >= count else { return false }
    position += count
    return true
  }
}
