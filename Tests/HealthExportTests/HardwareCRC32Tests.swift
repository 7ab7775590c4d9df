import CZlib
import Testing

@testable @_spi(Benchmarks) import HealthExport

/// The CRC-32 export.zip entries are checked with by default — the CPU's instructions where it has
/// them (``HardwareCRC32``), the package's slicing-by-16 where not — against zlib's `crc32`, an
/// implementation the package did not write.
@Suite("CRC-32 with the CPU's instructions")
struct HardwareCRC32Tests {
  static func zlib(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(
      truncatingIfNeeded: CZlib.crc32(
        uLong(crc), bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
  }

  /// Both paths the default build can take: the CPU's (where it has the instructions) and the
  /// portable one, forced.
  static var paths: [(name: String, crc: (UInt32, UnsafeRawBufferPointer) -> UInt32)] {
    var paths: [(name: String, crc: (UInt32, UnsafeRawBufferPointer) -> UInt32)] = [
      ("portable", { crc32Update($0, $1, hardware: false) })
    ]
    if HardwareCRC32.isAvailable { paths.append(("hardware", HardwareCRC32.update)) }
    return paths
  }

  @Test("This CPU's instructions are found where every such CPU has them")
  func availability() {
    #if arch(x86_64) || arch(arm64)
      // Every x86-64 CPU since 2010 has PCLMULQDQ; every arm64 CPU Linux or Apple runs has CRC32.
      #expect(HardwareCRC32.isAvailable)
    #endif
  }

  @Test("Every length 0…1024 at every alignment 0…15 matches zlib's crc32")
  func lengthsAndAlignments() {
    let bytes = CRC32Tests.noise(1024 + 16, seed: 26)
    bytes.withUnsafeBytes { buffer in
      for path in Self.paths {
        for alignment in 0..<16 {
          for count in 0...1024 {
            let slice = UnsafeRawBufferPointer(rebasing: buffer[alignment..<(alignment + count)])
            let expected = Self.zlib(0x5EED_0000 &+ UInt32(count), slice)
            let actual = path.crc(0x5EED_0000 &+ UInt32(count), slice)
            if actual != expected {
              Issue.record("\(path.name): length \(count) at alignment \(alignment)")
              return
            }
          }
        }
      }
    }
  }

  @Test("Several MiB in one call and continued from random split points match zlib's crc32")
  func largeAndIncremental() {
    let count = 5 << 20 + 77
    let bytes = CRC32Tests.noise(count, seed: 2026)
    var random = SystemRandomNumberGenerator()
    bytes.withUnsafeBytes { buffer in
      let expected = Self.zlib(0, buffer)
      for path in Self.paths {
        #expect(path.crc(0, buffer) == expected, "\(path.name): one call")
        for _ in 0..<8 {
          var splits = (0..<Int.random(in: 1...6, using: &random)).map { _ in
            Int.random(in: 0...count, using: &random)
          }
          splits = ([0] + splits + [count]).sorted()
          var crc: UInt32 = 0
          for (start, end) in zip(splits, splits.dropFirst()) {
            crc = path.crc(crc, UnsafeRawBufferPointer(rebasing: buffer[start..<end]))
          }
          #expect(crc == expected, "\(path.name): split at \(splits)")
        }
      }
    }
  }
}
