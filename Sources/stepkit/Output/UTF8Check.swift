/// Checks UTF-8 as the Unicode standard defines it (no overlong forms, no
/// surrogates, nothing above U+10FFFF), for bytes an export holds that go
/// into SQLite text and JSON as they are: an export is UTF-8 by contract, but
/// a file edited by hand or cut short need not be.
enum UTF8Check {
  /// The length of the well-formed sequence starting at `bytes[index]`, or
  /// `nil` when none starts there (a stray continuation byte, a sequence cut
  /// short or overlong, a surrogate, beyond U+10FFFF).
  @inline(__always)
  static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
    let lead = bytes[index]
    if lead < 0x80 { return 1 }
    func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
      index + offset < bytes.count && (low...high).contains(bytes[index + offset])
    }
    switch lead {
    case 0xC2...0xDF: return continuation(1) ? 2 : nil
    case 0xE0: return continuation(1, 0xA0) && continuation(2) ? 3 : nil
    case 0xED: return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : nil
    case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : nil
    case 0xF0: return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : nil
    case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
    case 0xF4: return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : nil
    default: return nil
    }
  }

  /// Whether `bytes` is well-formed UTF-8 (ASCII is checked eight bytes at a
  /// time, without decoding).
  static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    while index < bytes.count {
      if bytes.count &- index >= 8,
        UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
      {
        index &+= 8
        continue
      }
      if bytes[index] < 0x80 {
        index += 1
        continue
      }
      guard let length = sequenceLength(bytes, at: index) else { return false }
      index += length
    }
    return true
  }

  /// `bytes` with each byte that starts no well-formed sequence replaced by
  /// U+FFFD (`EF BF BD`).
  static func repaired(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + 8)
    var index = 0
    while index < bytes.count {
      if let length = sequenceLength(bytes, at: index) {
        out.append(contentsOf: bytes[index..<index + length])
        index += length
      } else {
        out += [0xEF, 0xBF, 0xBD]
        index += 1
      }
    }
    return out
  }
}
