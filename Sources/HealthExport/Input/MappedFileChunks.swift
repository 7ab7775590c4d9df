/// A stretch of a regular file lent to the scanner where its bytes lie: in
/// windows mapped read-only from the page cache, so that the kernel copies
/// nothing into a buffer of ours.
///
/// Each window is a mapping of its own, up to `windowBytes` long and ending
/// at a multiple of it in the file, made when it is
/// borrowed and removed when it is given back, so the file's pages count in
/// the process's memory only while they are scanned (the scanner holds at
/// most two windows). A window's mapping starts up to ``headroom`` bytes
/// before its data: the bytes that came before it, which the
/// ``ChunkCarrier`` then finds there instead of copying an unfinished tag's
/// tail in front (``LentChunk/isInPlace``).
///
/// A mapping never reaches past the end of the file as it is when the window
/// is mapped (`fstat` before each one), and leaves room for the scanner's
/// ``ReadSlack``: the last bytes of the file, and any range the file
/// cannot map (a mapping that fails, a file whose size says nothing, as in
/// `/proc`), are read with `pread` into buffers of the source's own, and the
/// end of the file is where `pread` returns nothing, as for
/// ``RangeChunkSource``. The bytes delivered are the same either way.
///
/// A file shortened by another process after its window was mapped makes
/// the next access to the lost pages raise `SIGBUS`: the size is checked
/// before each mapping, but no check can close that window between two
/// processes.
final class MappedFileChunks: ChunkLender, ByteRangeSource {
  /// The bytes of the file before each window that its mapping includes.
  let headroom = 64 << 10
  /// The large pages the page cache may keep a file in. A mapping of a
  /// window of at least this size starts at a multiple of it in the file
  /// (the system places such a mapping at a multiple of it in memory too),
  /// and windows end at multiples of their size, so that whole large pages
  /// are mapped at once.
  static let largePageBytes = 2 << 20

  private let file: FileByteSource
  private let start: Int64
  /// The file offset of the next byte to deliver.
  private var offset: Int64
  private(set) var end: Int64?
  private let windowBytes: Int
  /// Set once a mapping failed: the rest of the range is copied.
  private var mappingFailed = false
  /// The chunks lent and not yet given back.
  private var leases: [Lease] = []
  /// Buffers for copied chunks, not lent now.
  private var spareBuffers: [UnsafeMutablePointer<UInt8>] = []
  private var nextIndex = 0

  /// What a lent chunk holds.
  private struct Lease {
    var index: Int
    /// A mapping to remove, with its length, or a buffer of ours to reuse.
    var mapping: (start: UnsafeMutableRawPointer, length: Int)?
    var buffer: UnsafeMutablePointer<UInt8>?
  }

  /// A source for `file`'s bytes `[start, end)`, or from `start` on when
  /// `end` is `nil`, lent in windows of `windowBytes` (tests use tiny ones).
  init(_ file: FileByteSource, from start: Int64, to end: Int64?, windowBytes: Int) {
    self.file = file
    self.start = start
    self.offset = start
    self.end = end
    self.windowBytes = max(windowBytes, 1)
  }

  deinit {
    for lease in leases { release(lease) }
    for buffer in spareBuffers { Platform.freeZeroedBytes(buffer) }
  }

  var displayName: String { file.displayName }
  var expectedByteCount: Int64? { (end ?? file.byteCount) - start }

  func extend(to newEnd: Int64?) {
    precondition(newEnd.map { old in end.map { old >= $0 } ?? false } ?? true, "a range only grows")
    end = newEnd
  }

  // MARK: - Lending

  func borrowChunk() throws -> LentChunk? {
    if let end, offset >= end { return nil }
    if !mappingFailed, let size = Platform.currentSize(of: file.descriptor) {
      // Only bytes the file holds now, the scanner's slack after them included.
      let next = (offset / Int64(windowBytes) + 1) * Int64(windowBytes)
      var stop = min(next, size - Int64(ReadSlack.bytes))
      if let end { stop = min(stop, end) }
      if stop > offset {
        if let chunk = map(upTo: stop) { return chunk }
        mappingFailed = true
      }
    }
    return try copy()
  }

  func giveBack(_ chunk: LentChunk) {
    guard let at = leases.firstIndex(where: { $0.index == chunk.index }) else { return }
    let lease = leases.remove(at: at)
    if let buffer = lease.buffer {
      spareBuffers.append(buffer)
    } else {
      release(lease)
    }
  }

  /// Lends `[offset, stop)` in place, from a mapping that starts up to
  /// ``headroom`` bytes before it; `nil` when the system does not map it.
  private func map(upTo stop: Int64) -> LentChunk? {
    let page = Int64(windowBytes >= Self.largePageBytes ? Self.largePageBytes : Platform.pageSize)
    let mappingStart = max(offset - Int64(headroom), 0) / page * page
    let length = Int(stop - mappingStart) + ReadSlack.bytes
    guard let mapping = Platform.mapForReading(file.descriptor, offset: mappingStart, length: length) else {
      return nil
    }
    let bytes = mapping.bindMemory(to: UInt8.self, capacity: length) + Int(offset - mappingStart)
    let chunk = LentChunk(index: nextIndex, bytes: bytes, count: Int(stop - offset), isInPlace: true)
    leases.append(Lease(index: nextIndex, mapping: (mapping, length), buffer: nil))
    nextIndex += 1
    offset = stop
    return chunk
  }

  /// Lends the next bytes copied with `pread` into a buffer of ours (with
  /// writable headroom and zeroed slack), or `nil` at the end.
  private func copy() throws -> LentChunk? {
    let buffer = spareBuffers.popLast() ?? Platform.zeroedBytes(headroom + windowBytes + ReadSlack.bytes)
    let filled: Int
    do {
      filled = try read(into: UnsafeMutableRawBufferPointer(start: buffer + headroom, count: windowBytes))
    } catch {
      spareBuffers.append(buffer)
      throw error
    }
    guard filled > 0 else {
      spareBuffers.append(buffer)
      return nil
    }
    let chunk = LentChunk(index: nextIndex, bytes: buffer + headroom, count: filled)
    leases.append(Lease(index: nextIndex, mapping: nil, buffer: buffer))
    nextIndex += 1
    return chunk
  }

  private func release(_ lease: Lease) {
    if let mapping = lease.mapping { Platform.unmap(mapping.start, length: mapping.length) }
    if let buffer = lease.buffer { Platform.freeZeroedBytes(buffer) }
  }

  // MARK: - Copying

  /// Copies the range's next bytes into `buffer` with `pread`, as
  /// ``RangeChunkSource`` does (for a borrower that does not borrow).
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    try file.read(from: &offset, to: end, into: buffer)
  }
}
