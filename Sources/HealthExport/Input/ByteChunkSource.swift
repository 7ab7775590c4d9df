/// A sequential source of bytes the XML scanner pulls from.
///
/// Implementations: ``FileChunkSource`` (a file or standard input),
/// ``MemoryChunkSource`` (bytes in memory) and ``ZipEntryChunkSource``
/// (an entry of a zip archive, inflated on its own thread).
protocol ByteChunkSource {
  /// Fills `buffer` from the start with the next bytes; returns how many (0 only at the end).
  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
  /// Total bytes this source will deliver, when known (for progress).
  var expectedByteCount: Int64? { get }
  /// A name for errors (`export.zip:apple_health_export/export.xml`, `export.xml`, `<stdin>`).
  var displayName: String { get }
}

/// The bytes kept readable (zeroed, or the file's own) after every buffer a
/// scanner reads, so that word-wide searches (``ByteScanning/findNear(_:in:from:to:)``)
/// may read past a token's end without a bounds check. Every source that lends
/// its buffers (``ChunkLender``, ``MappedFileChunks``) leaves this much after them;
/// ``XMLScanner/slack`` is the same number, seen from the scanner.
enum ReadSlack {
  /// 16 bytes: one 16-byte vector load starting at the last byte of a buffer.
  static let bytes = 16
}
