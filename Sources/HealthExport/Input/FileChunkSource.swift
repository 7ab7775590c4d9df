import Foundation

/// Reads a file (or standard input) front to back with large POSIX `read`s.
final class FileChunkSource: ByteChunkSource {
  let displayName: String
  let expectedByteCount: Int64?
  /// Whether the input is a regular file (not a pipe, socket or device).
  let isRegularFile: Bool
  private let descriptor: Int32
  private let ownsDescriptor: Bool

  /// Opens `path` for reading.
  ///
  /// - Parameters:
  ///   - path: The file's path.
  ///   - displayName: The name used in errors; the path when `nil`.
  /// - Throws: ``HealthExportError/cannotOpen(path:reason:)``.
  init(path: String, displayName: String? = nil) throws {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { throw HealthExportError.cannotOpen(path: path, reason: PlatformError.lastMessage()) }
    var info = stat()
    if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
      close(fd)
      throw HealthExportError.cannotOpen(path: path, reason: "is a directory")
    }
    descriptor = fd
    ownsDescriptor = true
    self.displayName = displayName ?? path
    isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
    expectedByteCount = isRegularFile ? Int64(info.st_size) : nil
  }

  private init(descriptor: Int32, displayName: String) {
    self.descriptor = descriptor
    self.ownsDescriptor = false
    self.displayName = displayName
    var info = stat()
    isRegularFile = fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    expectedByteCount = isRegularFile ? Int64(info.st_size) : nil
  }

  /// Standard input, named `<stdin>` in errors (left open when done).
  static func standardInput() -> FileChunkSource {
    FileChunkSource(descriptor: 0, displayName: "<stdin>")
  }

  deinit {
    if ownsDescriptor { close(descriptor) }
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    var filled = 0
    // Fill the whole buffer unless the input ends (pipes deliver small pieces).
    while filled < buffer.count {
      let got = posixRead(descriptor, base + filled, buffer.count - filled)
      if got > 0 {
        filled += got
      } else if got == 0 {
        break
      } else if errno == EINTR {
        continue
      } else {
        throw HealthExportError.readFailed(path: displayName, reason: PlatformError.lastMessage())
      }
    }
    return filled
  }
}

/// Delivers bytes held in memory, front to back.
struct MemoryChunkSource: ByteChunkSource {
  let bytes: Data
  let displayName: String
  private var position = 0
  var expectedByteCount: Int64? { Int64(bytes.count) }

  /// Creates a source over `bytes`.
  init(_ bytes: Data, displayName: String = "<memory>") {
    self.bytes = bytes
    self.displayName = displayName
  }

  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = min(buffer.count, bytes.count - position)
    guard count > 0 else { return 0 }
    let start = bytes.startIndex + position
    bytes.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<start + count)
    position += count
    return count
  }
}

/// `read(2)`, named apart from the sources' own `read(into:)`.
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(descriptor, buffer, count)
}
