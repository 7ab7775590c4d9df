/// CRC-32 (ISO-HDLC: the zip and gzip checksum, reflected polynomial 0xEDB88320) in plain Swift,
/// by "slicing by 16": sixteen 256-entry tables let one step fold sixteen input bytes with sixteen
/// table lookups and no carry through the bytes in between.
///
/// This is what the default Linux build checks export.zip entries with, so that it needs no
/// library beyond zlib. It is several times faster than Debian's zlib `crc32` (its tables fold
/// one to five bytes a step); libdeflate's carry-less multiply is faster still, and a Linux build
/// with the `LIBDEFLATE` trait uses that instead (`Benchmarks/ZipBenchmark`, `--only crc`,
/// prints all three).
@_spi(Benchmarks)
public enum SlicingCRC32 {
  /// Table `k` (entries `256·k ..< 256·(k+1)`) maps a byte to its CRC after `k` more zero bytes.
  private static let tables: [UInt32] = {
    var tables = [UInt32](repeating: 0, count: 16 * 256)
    for byte in 0..<256 {
      var crc = UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
      tables[byte] = crc
    }
    for byte in 0..<256 {
      for table in 1..<16 {
        let previous = tables[(table - 1) * 256 + byte]
        tables[table * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
      }
    }
    return tables
  }()

  /// The CRC-32 continued from `crc` (0 to start) over `bytes`.
  ///
  /// Buffers of 64 KiB and more are folded as four quarters side by side (four independent
  /// chains of lookups keep the CPU busier than one) and the quarters' CRCs joined with zlib's
  /// `crc32_combine`.
  ///
  /// - Parameters:
  ///   - crc: The CRC-32 of the bytes before `bytes`, or 0.
  ///   - bytes: The next bytes.
  /// - Returns: The CRC-32 of everything so far; the same value as zlib's `crc32(crc, bytes)`.
  public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress else { return crc }
    return tables.withUnsafeBufferPointer { table in
      let t = table.baseAddress.unsafelyUnwrapped
      guard bytes.count >= 1 << 16 else { return ~fold(~crc, base, bytes.count, t) }
      let quarter = (bytes.count / 4) & ~15
      var first = ~crc
      var second: UInt32 = ~0
      var third: UInt32 = ~0
      var fourth: UInt32 = ~0
      var offset = 0
      while offset < quarter {
        first = step(first, base + offset, t)
        second = step(second, base + quarter + offset, t)
        third = step(third, base + 2 * quarter + offset, t)
        fourth = step(fourth, base + 3 * quarter + offset, t)
        offset += 16
      }
      fourth = fold(fourth, base + 4 * quarter, bytes.count - 4 * quarter, t)
      var value = crc32Combine(~first, ~second, count: quarter)
      value = crc32Combine(value, ~third, count: quarter)
      return crc32Combine(value, ~fourth, count: bytes.count - 3 * quarter)
    }
  }

  /// Folds `count` bytes at `pointer` into the inverted CRC `value`.
  @inline(__always)
  private static func fold(
    _ value: UInt32, _ pointer: UnsafeRawPointer, _ count: Int, _ t: UnsafePointer<UInt32>
  ) -> UInt32 {
    var value = value
    var pointer = pointer
    var remaining = count
    while remaining >= 16 {
      value = step(value, pointer, t)
      pointer += 16
      remaining -= 16
    }
    while remaining > 0 {
      value = t[Int((value ^ UInt32(pointer.load(as: UInt8.self))) & 0xFF)] ^ (value >> 8)
      pointer += 1
      remaining -= 1
    }
    return value
  }

  /// Folds the 16 bytes at `pointer` into the inverted CRC `value`.
  @inline(__always)
  private static func step(_ value: UInt32, _ pointer: UnsafeRawPointer, _ t: UnsafePointer<UInt32>) -> UInt32
  {
    let a = UInt32(littleEndian: pointer.loadUnaligned(as: UInt32.self)) ^ value
    let b = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
    let c = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
    let d = UInt32(littleEndian: pointer.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
    let first =
      t[15 * 256 + Int(a & 0xFF)] ^ t[14 * 256 + Int((a >> 8) & 0xFF)]
      ^ t[13 * 256 + Int((a >> 16) & 0xFF)] ^ t[12 * 256 + Int(a >> 24)]
    let second =
      t[11 * 256 + Int(b & 0xFF)] ^ t[10 * 256 + Int((b >> 8) & 0xFF)]
      ^ t[9 * 256 + Int((b >> 16) & 0xFF)] ^ t[8 * 256 + Int(b >> 24)]
    let third =
      t[7 * 256 + Int(c & 0xFF)] ^ t[6 * 256 + Int((c >> 8) & 0xFF)]
      ^ t[5 * 256 + Int((c >> 16) & 0xFF)] ^ t[4 * 256 + Int(c >> 24)]
    let fourth =
      t[3 * 256 + Int(d & 0xFF)] ^ t[2 * 256 + Int((d >> 8) & 0xFF)]
      ^ t[1 * 256 + Int((d >> 16) & 0xFF)] ^ t[Int(d >> 24)]
    return first ^ second ^ third ^ fourth
  }
}
