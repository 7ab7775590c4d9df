import Testing

@testable @_spi(Benchmarks) import HealthExport

/// The package's own CRC-32 (what the default Linux build checks export.zip entries with) against
/// the published check value and a bit-at-a-time implementation written from the polynomial.
@Suite("CRC-32")
struct CRC32Tests {
  /// The definition: one bit at a time, reflected polynomial 0xEDB88320, inverted in and out.
  static func bitwise(_ crc: UInt32, _ bytes: [UInt8]) -> UInt32 {
    var value = ~crc
    for byte in bytes {
      value ^= UInt32(byte)
      for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
    }
    return ~value
  }

  static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 56)
    }
  }

  static func slicing(_ crc: UInt32, _ bytes: [UInt8]) -> UInt32 {
    bytes.withUnsafeBytes { SlicingCRC32.update(crc, $0) }
  }

  @Test("The CRC catalogue's check value: CRC-32/ISO-HDLC of \"123456789\" is 0xCBF43926")
  func checkValue() {
    #expect(Self.slicing(0, Array("123456789".utf8)) == 0xCBF4_3926)
    #expect(Self.slicing(0, []) == 0)
    #expect(Self.slicing(0x1234_5678, []) == 0x1234_5678)
  }

  @Test("Every length around the 16-byte steps and the two-halves threshold matches the definition")
  func lengths() {
    let bytes = Self.noise((1 << 16) + 100, seed: 3)
    for count in Array(0...70) + [(1 << 16) - 1, 1 << 16, (1 << 16) + 1, (1 << 16) + 15, (1 << 16) + 17] {
      let slice = Array(bytes[..<count])
      #expect(Self.slicing(0, slice) == Self.bitwise(0, slice), "length \(count)")
    }
  }

  @Test("Continuing from a CRC matches one pass over the joined bytes, at any split and alignment")
  func continuation() {
    let bytes = Self.noise(200_003, seed: 11)
    let whole = Self.bitwise(0, bytes)
    for split in [0, 1, 7, 16, 65_535, 65_536, 100_001, 200_003] {
      let first = Self.slicing(0, Array(bytes[..<split]))
      // An odd start address: the loads are unaligned.
      let second = bytes.withUnsafeBytes { buffer in
        SlicingCRC32.update(first, UnsafeRawBufferPointer(rebasing: buffer[split...]))
      }
      #expect(second == whole, "split at \(split)")
    }
  }

  @Test("The engine's CRC-32 is the package's own in the default Linux build and agrees with it everywhere")
  func engineAgrees() {
    let bytes = Self.noise(300_000, seed: 5)
    let expected = Self.bitwise(0, bytes)
    for engine in InflateEngine.allCases {
      #expect(bytes.withUnsafeBytes { engine.crc32(0, $0) } == expected, "\(engine)")
    }
  }
}
