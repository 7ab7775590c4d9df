/// A stretch of a random-access source read front to back, for one thread:
/// each thread that scans a part of a file reads its own byte range with
/// `pread` into its own buffer.
final class RangeChunkSource: ByteRangeSource {
  private let file: any RandomAccessByteSource
  private let start: Int64
  private var offset: Int64
  /// Where the range ends, or `nil` to read on to the end of the file (as the
  /// sequential reader does, even when a file grows while it is read).
  private(set) var end: Int64?

  /// A source for `file`'s bytes `[start, end)`, or from `start` on when `end` is `nil`.
  init(_ file: any RandomAccessByteSource, from start: Int64, to end: Int64?) {
    self.file = file
    self.start = start
    self.offset = start
    self.end = end
  }

  /// Moves the end of the range further on (`nil`: to the end of the file).
  func extend(to newEnd: Int64?) {
    precondition(newEnd.map { old in end.map { old >= $0 } ?? false } ?? true, "a range only grows")
    end = newEnd
  }

  var displayName: String { file.displayName }
  var expectedByteCount: Int64? { (end ?? file.byteCount) - start }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    try file.read(from: &offset, to: end, into: buffer)
  }
}
