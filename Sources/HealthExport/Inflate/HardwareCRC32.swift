#if canImport(CCRC32)
  import CCRC32
#endif

/// CRC-32 (ISO-HDLC, the zip and gzip checksum) with the CPU's own instructions: folding with the
/// carry-less multiply PCLMULQDQ on x86-64, the ARMv8 CRC32 instructions on arm64 (every Apple
/// arm64 CPU has them). The C is in the CCRC32 target; the value is zlib's `crc32`.
@_spi(Benchmarks)
public enum HardwareCRC32 {
  /// Whether this CPU has the instructions (asked once).
  public static let isAvailable: Bool = {
    #if canImport(CCRC32)
      stepkit_crc32_hardware_available() != 0
    #else
      false
    #endif
  }()

  /// The CRC-32 continued from `crc` (0 to start) over `bytes`.
  ///
  /// - Precondition: ``isAvailable``.
  /// - Parameters:
  ///   - crc: The CRC-32 of the bytes before `bytes`, or 0.
  ///   - bytes: The next bytes.
  /// - Returns: The CRC-32 of everything so far; the same value as zlib's `crc32(crc, bytes)`.
  public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    precondition(isAvailable, "HardwareCRC32: this CPU lacks the CRC instructions")
    #if canImport(CCRC32)
      guard let base = bytes.baseAddress else { return crc }
      return stepkit_crc32_hardware(crc, base, bytes.count)
    #else
      return SlicingCRC32.update(crc, bytes)
    #endif
  }
}
