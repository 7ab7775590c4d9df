import Foundation

/// Bytes that can be read at any offset: a file read with `pread`, or bytes in
/// memory. The zip reader works on these; any thread may read concurrently.
protocol RandomAccessByteSource: Sendable {
  /// The total number of bytes.
  var byteCount: Int64 { get }
  /// A name for errors (`export.zip`).
  var displayName: String { get }
  /// Copies up to `buffer.count` bytes starting at `offset` into `buffer`.
  ///
  /// - Returns: How many bytes were copied; fewer than asked only at the end.
  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int
  /// The bytes `[start, end)` (from `start` on to the end when `end` is
  /// `nil`) as a source to scan front to back, on one thread.
  func range(from start: Int64, to end: Int64?) -> any ByteRangeSource
}

/// A stretch of a random-access source read front to back, whose end can be
/// moved further on (``RangeChunkSource``, or ``MappedFileChunks`` for a file
/// scanned in place).
protocol ByteRangeSource: ByteChunkSource, AnyObject {
  /// Where the range ends, or `nil` when it runs to the end of the source.
  var end: Int64? { get }
  /// Moves the end of the range further on (`nil`: to the end of the source).
  func extend(to newEnd: Int64?)
}

extension RandomAccessByteSource {
  /// The bytes `[start, end)` copied out with ``read(at:into:)``.
  func range(from start: Int64, to end: Int64?) -> any ByteRangeSource {
    RangeChunkSource(self, from: start, to: end)
  }

  /// Fills `buffer` with the bytes from `offset` on, never past `end` (the
  /// end of the source when `nil`), and moves `offset` past them: what a
  /// range read front to back copies each time it is asked for bytes.
  ///
  /// - Returns: How many bytes were copied; fewer than asked only at the end.
  func read(from offset: inout Int64, to end: Int64?, into buffer: UnsafeMutableRawBufferPointer) throws
    -> Int
  {
    guard let base = buffer.baseAddress else { return 0 }
    var filled = 0
    while filled < buffer.count {
      var wanted = buffer.count - filled
      if let end {
        guard offset < end else { break }
        wanted = Int(min(Int64(wanted), end - offset))
      }
      let got = try read(at: offset, into: UnsafeMutableRawBufferPointer(start: base + filled, count: wanted))
      if got == 0 { break }
      filled += got
      offset += Int64(got)
    }
    return filled
  }

  /// Reads exactly `count` bytes at `offset`.
  ///
  /// - Throws: ``HealthExportError/corruptZip(path:detail:byteOffset:)`` when
  ///   the bytes run out first (`what` names the structure being read).
  func readBytes(at offset: Int64, count: Int, what: String) throws -> [UInt8] {
    guard offset >= 0, count >= 0, offset <= byteCount, Int64(count) <= byteCount - offset else {
      throw HealthExportError.corruptZip(
        path: displayName, detail: "\(what) runs past the end of the file", byteOffset: offset)
    }
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let result = bytes.withUnsafeMutableBytes { raw in
        Result { () throws -> Int in
          try read(at: offset + Int64(filled), into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
        }
      }
      let got = try result.get()
      if got == 0 {
        throw HealthExportError.corruptZip(
          path: displayName, detail: "\(what) runs past the end of the file", byteOffset: offset)
      }
      filled += got
    }
    return bytes
  }
}

/// How the bytes of a regular file reach the XML scanner.
enum FileReading: Sendable, Equatable {
  /// Scanned where they lie, from read-only mappings of `windowBytes` each
  /// (``MappedFileChunks``), with no copy.
  case mapped(windowBytes: Int)
  /// Copied into the scanner's own buffer with `pread`.
  case copied

  /// What the reader uses: windows of 4 MiB, each starting and ending on a
  /// 2 MiB boundary of the file (``MappedFileChunks/largePageBytes``), so
  /// that the system can map the page cache's 2 MiB pages whole: a fault
  /// and a TLB entry for 2 MiB instead of one for every 64 KiB or 4 KiB.
  /// On the 500 MB exports that took the whole run 4-9% less time than 1 MiB
  /// windows (which could only map small pages), on one thread and on two;
  /// the peak memory of a 2 GB export read on two threads went from 39 to 42 MiB.
  static let standard = FileReading.mapped(windowBytes: 4 << 20)
}

/// A file read with `pread`, or scanned in place from mappings (see
/// ``FileReading``); safe to share between threads.
final class FileByteSource: RandomAccessByteSource {
  let displayName: String
  let byteCount: Int64
  /// How its ranges (``range(from:to:)``) deliver their bytes.
  let reading: FileReading
  /// The open file.
  let descriptor: Int32

  /// Opens `path` for reading.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - displayName: The name used in errors; the path when `nil`.
  ///   - reading: How ranges of it are scanned; the tests compare both ways.
  /// - Throws: ``HealthExportError/cannotOpen(path:reason:)``.
  init(path: String, displayName: String? = nil, reading: FileReading = .standard) throws {
    self.displayName = displayName ?? path
    self.reading = reading
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw HealthExportError.cannotOpen(path: path, reason: PlatformError.lastMessage()) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let reason = PlatformError.lastMessage()
      close(fd)
      throw HealthExportError.cannotOpen(path: path, reason: reason)
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      close(fd)
      throw HealthExportError.cannotOpen(path: path, reason: "not a regular file")
    }
    descriptor = fd
    byteCount = Int64(info.st_size)
  }

  deinit { close(descriptor) }

  func range(from start: Int64, to end: Int64?) -> any ByteRangeSource {
    switch reading {
    case .mapped(let windowBytes): MappedFileChunks(self, from: start, to: end, windowBytes: windowBytes)
    case .copied: RangeChunkSource(self, from: start, to: end)
    }
  }

  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    while true {
      let got = pread(descriptor, base, buffer.count, off_t(offset))
      if got >= 0 { return got }
      if errno == EINTR { continue }
      throw HealthExportError.readFailed(path: displayName, reason: PlatformError.lastMessage())
    }
  }
}

/// Bytes in memory (tests, fuzzing, small downloads).
struct MemoryByteSource: RandomAccessByteSource {
  let bytes: Data
  let displayName: String
  var byteCount: Int64 { Int64(bytes.count) }

  init(_ bytes: Data, displayName: String) {
    self.bytes = bytes
    self.displayName = displayName
  }

  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard offset >= 0, offset < byteCount else { return 0 }
    let count = min(buffer.count, bytes.count - Int(offset))
    let start = bytes.startIndex + Int(offset)
    bytes.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<start + count)
    return count
  }
}

/// Error text from `errno`.
enum PlatformError {
  static func lastMessage() -> String {
    String(cString: strerror(errno))
  }
}
