/// Reads little-endian integers from a byte array, never past its end.
struct LittleEndianReader {
  let bytes: [UInt8]
  private(set) var position: Int

  init(_ bytes: [UInt8], position: Int = 0) {
    self.bytes = bytes
    self.position = position
  }

  var remaining: Int { bytes.count - position }

  mutating func u8() -> UInt8? {
    guard remaining >= 1 else { return nil }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func u16() -> UInt16? {
    guard remaining >= 2 else { return nil }
    defer { position += 2 }
    return UInt16(bytes[position]) | UInt16(bytes[position + 1]) << 8
  }

  mutating func u32() -> UInt32? {
    guard remaining >= 4 else { return nil }
    var value: UInt32 = 0
    for index in 0..<4 { value |= UInt32(bytes[position + index]) << (8 * index) }
    position += 4
    return value
  }

  mutating func u64() -> UInt64? {
    guard remaining >= 8 else { return nil }
    var value: UInt64 = 0
    for index in 0..<8 { value |= UInt64(bytes[position + index]) << (8 * index) }
    position += 8
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
