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
