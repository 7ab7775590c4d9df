/// Which raw deflate (RFC 1951) implementation inflates zip entries.
///
/// zlib is the default everywhere and the only one on Apple platforms. A
/// Linux build with the package's `ISAL` trait (`swift build --traits ISAL`)
/// adds Intel ISA-L's igzip, which inflates about twice as fast, and makes it
/// the preferred engine. Both give the same bytes; the CRC-32 of every entry
/// is checked either way.
enum InflateEngine: Sendable, Hashable, CaseIterable {
  /// zlib's `inflate` (system zlib; the SDK's libz on Apple platforms).
  case zlib
  #if ISAL && os(Linux)
    /// Intel ISA-L's `isal_inflate` (Debian libisal-dev).
    case isal
  #endif

  /// The engine readers use unless told otherwise: ISA-L when built in, else zlib.
  static var preferred: InflateEngine {
    #if ISAL && os(Linux)
      return .isal
    #else
      return .zlib
    #endif
  }

  /// A fresh decoder for one deflate stream.
  ///
  /// - Parameter entryName: The entry's name for errors.
  /// - Throws: ``HealthExportError/corruptCompressedData(entry:detail:)`` when
  ///   the decoder cannot start (out of memory).
  func makeDecoder(entryName: String) throws -> any RawDeflateDecoder {
    switch self {
    case .zlib: return try RawInflater(entryName: entryName)
    #if ISAL && os(Linux)
      case .isal: return ISALInflater(entryName: entryName)
    #endif
    }
  }

  /// The CRC-32 (zip's checksum) continued from `crc` over `bytes`.
  func crc32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    switch self {
    case .zlib: return crc32Update(crc, bytes)
    #if ISAL && os(Linux)
      case .isal: return isalCRC32Update(crc, bytes)
    #endif
    }
  }
}

/// What one ``RawDeflateDecoder/inflate(input:output:)`` step did.
struct InflateStep {
  /// Input bytes consumed.
  var consumed: Int
  /// Output bytes produced.
  var produced: Int
  /// Whether the deflate stream's final block has ended (and all its bytes are out).
  var streamEnded: Bool
}

/// A raw deflate decompressor, fed and drained piecewise.
protocol RawDeflateDecoder: AnyObject {
  /// Inflates as much of `input` into `output` as fits.
  ///
  /// - Returns: How much was consumed and produced, and whether the stream ended.
  /// - Throws: ``HealthExportError/corruptCompressedData(entry:detail:)`` for
  ///   invalid deflate data.
  func inflate(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer) throws -> InflateStep
}
