import CZlib

#if LIBDEFLATE && os(Linux)
  import CLibdeflate
#endif

/// A raw deflate (RFC 1951) decompressor over zlib, fed and drained piecewise.
///
/// The `z_stream` lives at a fixed heap address, as zlib requires.
final class RawInflater: RawDeflateDecoder {
  private let stream: UnsafeMutablePointer<z_stream>
  private let entryName: String

  /// Prepares a raw inflater (window bits -15: no zlib or gzip wrapper).
  ///
  /// - Parameter entryName: The entry's name for errors.
  /// - Throws: ``HealthExportError/corruptCompressedData(entry:detail:)`` when
  ///   zlib cannot be initialised (out of memory).
  init(entryName: String) throws {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    // `inflateInit2` is a macro the importer cannot see; call what it expands to.
    let status = inflateInit2_(stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
    guard status == Z_OK else {
      // Nothing of `self` is initialized yet, so `deinit` will not run.
      stream.deinitialize(count: 1)
      stream.deallocate()
      throw HealthExportError.corruptCompressedData(
        entry: entryName, detail: "zlib could not start (status \(status))")
    }
    self.stream = stream
    self.entryName = entryName
  }

  deinit {
    inflateEnd(stream)
    stream.deinitialize(count: 1)
    stream.deallocate()
  }

  /// Inflates as much of `input` into `output` as fits.
  ///
  /// - Returns: How much was consumed and produced, and whether the stream ended.
  /// - Throws: ``HealthExportError/corruptCompressedData(entry:detail:)`` for
  ///   invalid deflate data.
  func inflate(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) throws
    -> InflateStep
  {
    let inCount = min(input.count, Int(UInt32.max))
    let outCount = min(output.count, Int(UInt32.max))
    guard outCount > 0 else { return InflateStep(consumed: 0, produced: 0, streamEnded: false) }
    stream.pointee.next_in = input.baseAddress.map {
      UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self))
    }
    stream.pointee.avail_in = uInt(inCount)
    stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
    stream.pointee.avail_out = uInt(outCount)
    let status = CZlib.inflate(stream, Z_NO_FLUSH)
    let consumed = inCount - Int(stream.pointee.avail_in)
    let produced = outCount - Int(stream.pointee.avail_out)
    stream.pointee.next_in = nil
    stream.pointee.next_out = nil
    switch status {
    case Z_OK, Z_BUF_ERROR:
      return InflateStep(consumed: consumed, produced: produced, streamEnded: false)
    case Z_STREAM_END:
      return InflateStep(consumed: consumed, produced: produced, streamEnded: true)
    case Z_NEED_DICT:
      throw HealthExportError.corruptCompressedData(
        entry: entryName, detail: "the deflate stream asks for a preset dictionary")
    case Z_MEM_ERROR:
      throw HealthExportError.corruptCompressedData(entry: entryName, detail: "out of memory while inflating")
    default:
      let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
      throw HealthExportError.corruptCompressedData(entry: entryName, detail: message)
    }
  }
}

/// CRC-32 (the zip and gzip checksum), continued from `crc` over `bytes`.
///
/// By default the package's own: ``HardwareCRC32`` (CCRC32: PCLMULQDQ folding on x86-64, the
/// CRC32 instructions on arm64) where the CPU has them, else ``SlicingCRC32`` (Debian's zlib
/// computes it a byte or a few at a time, at about a third of zlib's own inflate speed). With the
/// `LIBDEFLATE` trait on Linux, libdeflate's.
///
/// - Parameter hardware: Whether to use the CPU's instructions; tests pass `false` to check the
///   portable path on a CPU that has them.
func crc32Update(
  _ crc: UInt32, _ bytes: UnsafeRawBufferPointer, hardware: Bool = HardwareCRC32.isAvailable
) -> UInt32 {
  guard let base = bytes.baseAddress else { return crc }
  #if LIBDEFLATE && os(Linux)
    return libdeflate_crc32(crc, base, bytes.count)
  #else
    return hardware ? HardwareCRC32.update(crc, bytes) : SlicingCRC32.update(crc, bytes)
  #endif
}

/// The CRC-32 of two pieces joined, from each one's CRC-32 and the second's length.
func crc32Combine(_ first: UInt32, _ second: UInt32, count: Int) -> UInt32 {
  UInt32(truncatingIfNeeded: CZlib.crc32_combine(uLong(first), uLong(second), .init(count)))
}
