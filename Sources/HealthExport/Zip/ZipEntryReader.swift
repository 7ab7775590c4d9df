/// Streams one zip entry's uncompressed bytes on the calling thread.
///
/// Stored entries are copied; deflated ones inflated with the chosen
/// ``InflateEngine`` (zlib, or ISA-L when built with it). At
/// the end the size is checked against the central directory and, when
/// `verifiesChecksum` is set, the CRC-32 too. Compressed data that stops
/// before the deflate stream ends is an error, never a silent short read.
final class ZipEntryReader {
  let entry: ZipEntry
  /// `export.zip:apple_health_export/export.xml`.
  let displayName: String
  private let source: any RandomAccessByteSource
  private let verifiesChecksum: Bool
  private var inputOffset: Int64
  private var inputRemaining: Int64
  private let engine: InflateEngine
  private let inflater: (any RawDeflateDecoder)?
  private let input: UnsafeMutableRawBufferPointer
  private var inputStart = 0
  private var inputEnd = 0
  private var produced: Int64 = 0
  private var crc: UInt32 = 0
  private var ended = false

  /// Prepares to read `entry` of `archive`.
  ///
  /// - Parameters:
  ///   - archive: The archive holding the entry.
  ///   - entry: The entry to read.
  ///   - verifiesChecksum: Whether to compute and check the CRC-32 (the
  ///     content locator, which reads only a prefix, turns it off).
  ///   - inputChunkSize: How many compressed bytes to read at a time.
  ///   - engine: The deflate implementation (and CRC-32) to use.
  /// - Throws: ``HealthExportError/encryptedEntry(entry:)``,
  ///   ``HealthExportError/unsupportedCompression(entry:method:)``,
  ///   ``HealthExportError/corruptZip(path:detail:byteOffset:)``.
  init(
    archive: ZipArchive, entry: ZipEntry, verifiesChecksum: Bool = true, inputChunkSize: Int = 1 << 20,
    engine: InflateEngine = .preferred
  ) throws {
    self.entry = entry
    self.engine = engine
    self.source = archive.source
    self.displayName = archive.displayName(of: entry)
    self.verifiesChecksum = verifiesChecksum
    guard !entry.isEncrypted else { throw HealthExportError.encryptedEntry(entry: displayName) }
    switch entry.method {
    case 0:
      guard entry.compressedSize == entry.uncompressedSize else {
        throw HealthExportError.corruptZip(
          path: archive.displayName,
          detail: "stored entry \(entry.name) has different compressed and uncompressed sizes",
          byteOffset: entry.centralDirectoryOffset)
      }
      inflater = nil
    case 8:
      // A declared size is a claim about the data, never a budget: one that
      // deflate cannot make of the compressed bytes is the lie it is.
      let most = Self.mostInflatedBytes(fromCompressed: entry.compressedSize)
      guard entry.uncompressedSize <= most else {
        throw HealthExportError.corruptZip(
          path: archive.displayName,
          detail: "\(entry.name) declares \(entry.uncompressedSize) bytes uncompressed, more than the"
            + " \(most) that deflate can make of its \(entry.compressedSize) compressed bytes",
          byteOffset: entry.centralDirectoryOffset)
      }
      inflater = try engine.makeDecoder(entryName: displayName)
    default:
      throw HealthExportError.unsupportedCompression(entry: displayName, method: Int(entry.method))
    }
    inputOffset = try archive.dataOffset(of: entry)
    inputRemaining = entry.compressedSize
    let capacity = inflater == nil ? 0 : Int(min(Int64(max(inputChunkSize, 1)), max(entry.compressedSize, 1)))
    input = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
  }

  deinit { input.deallocate() }

  /// The most bytes deflate can inflate `compressed` bytes to: a 258-byte
  /// match coded in two bits, 1032 bytes a byte (RFC 1951), and a little
  /// for a stream shorter than its block header.
  static func mostInflatedBytes(fromCompressed compressed: Int64) -> Int64 {
    let (product, overflow) = max(compressed, 0).multipliedReportingOverflow(by: 1032)
    return overflow ? Int64.max : product + 1032
  }

  /// Bytes delivered so far.
  var bytesProduced: Int64 { produced }
  /// Whether the entry's last byte was delivered (and its size verified).
  var isFinished: Bool { ended }

  /// Fills `buffer` with the next bytes; returns how many, filling it
  /// completely except at the end (0 once the entry is done and verified).
  ///
  /// - Throws: ``HealthExportError/corruptCompressedData(entry:detail:)`` for
  ///   invalid or truncated data or a wrong size,
  ///   ``HealthExportError/checksumMismatch(entry:)``, or a read error.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard !ended, buffer.count > 0 else { return 0 }
    let filled = inflater == nil ? try copyStored(into: buffer) : try inflate(into: buffer)
    if verifiesChecksum, filled > 0 {
      crc = engine.crc32(crc, UnsafeRawBufferPointer(rebasing: buffer[..<filled]))
    }
    produced += Int64(filled)
    if ended {
      try verifyEnd()
    }
    return filled
  }

  private func copyStored(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    var filled = 0
    while filled < buffer.count, inputRemaining > 0 {
      let want = Int(min(Int64(buffer.count - filled), inputRemaining))
      let got = try source.read(
        at: inputOffset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<filled + want]))
      guard got > 0 else {
        throw HealthExportError.corruptCompressedData(
          entry: displayName, detail: "the file ends inside the entry's data")
      }
      filled += got
      inputOffset += Int64(got)
      inputRemaining -= Int64(got)
    }
    if inputRemaining == 0 { ended = true }
    return filled
  }

  private func inflate(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let inflater else { return 0 }
    var filled = 0
    while filled < buffer.count {
      if inputStart == inputEnd, inputRemaining > 0 {
        let want = Int(min(Int64(input.count), inputRemaining))
        let got = try source.read(
          at: inputOffset, into: UnsafeMutableRawBufferPointer(rebasing: input[..<want]))
        guard got > 0 else {
          throw HealthExportError.corruptCompressedData(
            entry: displayName, detail: "the file ends inside the entry's data")
        }
        inputStart = 0
        inputEnd = got
        inputOffset += Int64(got)
        inputRemaining -= Int64(got)
      }
      // With the input used up the decoder is still called: it may hold output
      // it could not write yet (ISA-L keeps up to 64 KiB in its own buffer).
      let step = try inflater.inflate(
        input: UnsafeRawBufferPointer(rebasing: input[inputStart..<inputEnd]),
        output: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
      inputStart += step.consumed
      filled += step.produced
      if produced + Int64(filled) > entry.uncompressedSize {
        throw HealthExportError.corruptCompressedData(
          entry: displayName,
          detail: "inflates to more than the \(entry.uncompressedSize) bytes the directory declares")
      }
      if step.streamEnded {
        ended = true
        break
      }
      if step.consumed == 0, step.produced == 0 {
        if inputStart == inputEnd, inputRemaining == 0 {
          throw HealthExportError.corruptCompressedData(
            entry: displayName, detail: "the compressed data ends before the deflate stream does (truncated)")
        }
        if inputStart < inputEnd {
          throw HealthExportError.corruptCompressedData(
            entry: displayName, detail: "inflating made no progress")
        }
      }
    }
    return filled
  }

  private func verifyEnd() throws {
    guard produced == entry.uncompressedSize else {
      throw HealthExportError.corruptCompressedData(
        entry: displayName,
        detail: "inflates to \(produced) bytes, but the directory declares \(entry.uncompressedSize)")
    }
    if verifiesChecksum, crc != entry.crc32 {
      throw HealthExportError.checksumMismatch(entry: displayName)
    }
  }
}
