import Foundation

/// A stream whose first bytes were already read to look at them: hands those
/// out first, then the rest of the stream.
final class PrefixedChunkSource: ByteChunkSource {
  private let prefix: [UInt8]
  private var position = 0
  private let rest: FileChunkSource

  var expectedByteCount: Int64? { rest.expectedByteCount }
  var displayName: String { rest.displayName }

  init(prefix: [UInt8], rest: FileChunkSource) {
    self.prefix = prefix
    self.rest = rest
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard position < prefix.count else { return try rest.read(into: buffer) }
    let count = min(buffer.count, prefix.count - position)
    prefix.withUnsafeBytes { bytes in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)]))
    }
    position += count
    return count
  }
}

/// Turns a stream (standard input, a pipe) that holds a zip archive into a
/// file the zip reader can seek in.
///
/// A zip's directory sits at its end, so an archive piped in is copied to an
/// unnamed temporary file first: disk use is the archive's compressed size,
/// memory stays at one buffer.
enum StreamSpooling {
  /// Reads up to `count` bytes from the front of `source` (fewer only at its end).
  static func head(of source: FileChunkSource, count: Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let got = try bytes.withUnsafeMutableBytes { try source.read(into: $0) }
    return Array(bytes[..<got])
  }

  /// Copies `head` and the rest of `source` into a temporary file that is
  /// deleted at once (it lives while the returned source holds it open).
  ///
  /// - Throws: ``HealthExportError/readFailed(path:reason:)`` when the
  ///   stream or the temporary file fails.
  static func spool(head: [UInt8], rest source: FileChunkSource) throws -> FileByteSource {
    var template = Array((NSTemporaryDirectory() + "/stepkit-stdin-XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard descriptor >= 0 else {
      throw HealthExportError.readFailed(
        path: source.displayName, reason: "cannot create a temporary file: \(PlatformError.lastMessage())")
    }
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    defer {
      close(descriptor)
      unlink(path)
    }
    func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
      var offset = 0
      while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else {
          throw HealthExportError.readFailed(
            path: source.displayName,
            reason: "cannot write the temporary copy: \(PlatformError.lastMessage())")
        }
        offset += written
      }
    }
    try head.withUnsafeBytes { try writeAll($0) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let got = try source.read(into: buffer)
      if got == 0 { break }
      try writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<got]))
    }
    return try FileByteSource(path: path, displayName: source.displayName)
  }
}
