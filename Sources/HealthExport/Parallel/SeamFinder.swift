/// Finds where an export.xml may be cut into stretches that scan on their own.
///
/// A candidate seam is the byte just after a newline that is followed by
/// optional spaces or tabs and `<Record `: in an export Apple writes, the
/// start of a line holding a top-level record. A candidate is only a guess (the
/// same bytes may sit inside a comment, a CDATA section, the DTD or an
/// attribute value); ``ParallelExportReader`` verifies every seam it uses by
/// checking that the stretch before it ended there at top level.
enum SeamFinder {
  /// The most that is read at a time while looking for a seam.
  static let windowBytes = 64 << 10
  /// What is read first: a few record lines, where a seam nearly always is.
  static let firstWindowBytes = 4 << 10
  private static let record: [UInt8] = Array("<Record ".utf8)
  /// Spaces and tabs allowed before `<Record `.
  private static let maximumIndent = 64

  /// The seams to cut `file` at, in increasing order: the first at or after
  /// `headerBytes`, each next one at least `chunkBytes` after the one before;
  /// or, when `smallestChunkBytes` is more than 0, at least the bytes after
  /// it divided by twice `threads`, within `smallestChunkBytes ... chunkBytes`:
  /// stretches shrink towards the end, so that threads taking them in turn
  /// finish close together.
  ///
  /// - Returns: Offsets of candidate seams, none of them 0; empty when the
  ///   file has none past `headerBytes`.
  static func seams(
    in file: any RandomAccessByteSource, headerBytes: Int, chunkBytes: Int, smallestChunkBytes: Int = 0,
    threads: Int = 1
  ) throws -> [Int64] {
    var seams: [Int64] = []
    var from = Int64(max(headerBytes, 1))
    let size = file.byteCount
    let largest = Int64(max(chunkBytes, 1))
    func stride(after seam: Int64) -> Int64 {
      guard smallestChunkBytes > 0 else { return largest }
      let share = (size - seam) / Int64(2 * max(threads, 1))
      return min(largest, max(Int64(smallestChunkBytes), share))
    }
    while from < size {
      let limit = min(size, from + stride(after: from))
      if let seam = try firstSeam(in: file, from: from, before: limit) {
        seams.append(seam)
        from = seam + stride(after: seam)
      } else {
        from = limit
      }
    }
    return seams
  }

  /// The first candidate seam in `[from, limit)`, `from` ≥ 1.
  static func firstSeam(in file: any RandomAccessByteSource, from: Int64, before limit: Int64) throws
    -> Int64?
  {
    let lookahead = maximumIndent + record.count
    var window = [UInt8](repeating: 0, count: windowBytes + lookahead + 1)
    // Each window starts one byte early, at the byte that must be a newline;
    // they grow from a few KiB, read first, to `windowBytes`.
    var start = from - 1
    var size = min(firstWindowBytes, windowBytes)
    while start + 1 < limit {
      let got = try window.withUnsafeMutableBytes { raw in
        try readFully(
          file, at: start, into: UnsafeMutableRawBufferPointer(rebasing: raw[..<(size + lookahead + 1)]))
      }
      // Newlines at window indices [0, last) are judged here; the rest of the
      // window is the lookahead of the last of them.
      let last = min(got, size, Int(limit - start))
      guard last > 0 else { return nil }
      if let hit = window.withUnsafeBufferPointer({ bytes in seam(in: bytes, count: got, before: last) }) {
        return start + Int64(hit)
      }
      start += Int64(last)
      size = min(2 * size, windowBytes)
    }
    return nil
  }

  /// The index just after the first newline before `last` that starts a
  /// candidate record line among `bytes[0 ..< count]`.
  static func seam(in bytes: UnsafeBufferPointer<UInt8>, count: Int, before last: Int) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    var i = 0
    while i < last {
      guard let hit = Platform.firstByte(ASCII.lineFeed, in: base + i, count: last - i) else { return nil }
      let newline = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
      var j = newline + 1
      while j < count, j - newline <= maximumIndent, bytes[j] == ASCII.space || bytes[j] == ASCII.tab {
        j += 1
      }
      if j + record.count <= count, record.indices.allSatisfy({ bytes[j + $0] == record[$0] }) {
        return newline + 1
      }
      i = newline + 1
    }
    return nil
  }

  /// Reads as much of `buffer` as the file holds from `offset`.
  private static func readFully(
    _ file: any RandomAccessByteSource, at offset: Int64, into buffer: UnsafeMutableRawBufferPointer
  ) throws -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    var filled = 0
    while filled < buffer.count {
      let got = try file.read(
        at: offset + Int64(filled),
        into: UnsafeMutableRawBufferPointer(start: base + filled, count: buffer.count - filled))
      if got == 0 { break }
      filled += got
    }
    return filled
  }
}
