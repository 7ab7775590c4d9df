/// One buffer a ``ChunkLender`` lends: `count` bytes at `bytes`, preceded by
/// the lender's ``ChunkLender/headroom`` bytes that the borrower may write
/// and followed by at least ``ReadSlack`` readable ones (the scanner's
/// word-wide searches may read a few bytes past the end).
///
/// A chunk *in place* is a view of the source itself (a mapped file): the
/// bytes in front of it are not free room but the source's own bytes before
/// the chunk (as many as the headroom, or as came before, if fewer), and
/// none of its bytes may be written.
struct LentChunk {
  /// Identifies the buffer when it is given back.
  let index: Int
  /// The first byte of the chunk's data.
  let bytes: UnsafeMutablePointer<UInt8>
  /// How many bytes of data follow `bytes`.
  let count: Int
  /// Whether the headroom already holds the bytes before the chunk, read-only.
  let isInPlace: Bool

  init(index: Int, bytes: UnsafeMutablePointer<UInt8>, count: Int, isInPlace: Bool = false) {
    self.index = index
    self.bytes = bytes
    self.count = count
    self.isInPlace = isInPlace
  }
}

/// A source that lends its own buffers instead of copying into the reader's.
///
/// The zip entry source inflates into a ring of buffers; a scanner borrowing
/// them reads the inflated bytes where they were written. A borrower holds at
/// most two chunks at once (the one it scans and the next, while it joins a
/// token across them) and gives each back when done. A borrower uses either
/// this interface or ``ByteChunkSource/read(into:)``, never both.
protocol ChunkLender: ByteChunkSource, AnyObject {
  /// Writable bytes in front of every lent chunk.
  var headroom: Int { get }
  /// Waits for the next chunk; `nil` at the end.
  ///
  /// - Throws: The source's error, after every chunk before it was lent.
  func borrowChunk() throws -> LentChunk?
  /// Hands `chunk` back to be refilled; its bytes must not be touched after.
  func giveBack(_ chunk: LentChunk)
}

/// Keeps a scanner's window of bytes over chunks borrowed from a
/// ``ChunkLender``, copying only what straddles two chunks.
///
/// The window is normally a stretch of one lent chunk: when the scanner needs
/// more, the unfinished tail (a partial tag, usually a few hundred bytes) is
/// copied into the next chunk's headroom, just in front of its data, and the
/// window continues there, so the chunk's own bytes are never moved. A tail
/// longer than the headroom (a huge comment, a DTD, a giant attribute) is
/// gathered in a buffer of the carrier's own instead, grown as needed up to
/// the token limit, and the window returns to the lent chunk as soon as the
/// tail fits in front of the bytes not yet gathered.
///
/// In front of a chunk in place (``LentChunk/isInPlace``) the tail's bytes
/// are already there, the source's own: the window just moves back over
/// them, and nothing is copied or written.
final class ChunkCarrier {
  /// What ``refill(window:keep:end:maximumTokenBytes:)`` did.
  enum Refill {
    /// The window now starts at `base`: the kept bytes first, then new ones, `end` in all.
    case window(base: UnsafeMutablePointer<UInt8>, end: Int)
    /// The source has no more bytes; the window is unchanged.
    case endOfSource
    /// The kept bytes already reach the token limit.
    case tokenTooLarge
  }

  private let lender: any ChunkLender
  /// The chunk being scanned (or gathered from).
  private var current: LentChunk?
  /// How many of `current`'s bytes have entered the window.
  private var currentUsed = 0
  /// The carrier's own buffer, for tails that do not fit in a headroom.
  private var owned: UnsafeMutablePointer<UInt8>
  private var ownedCapacity: Int
  private var windowIsOwned = true

  /// A carrier over `source` when it lends its buffers, otherwise `nil`.
  init?(source: any ByteChunkSource) {
    guard let lender = source as? any ChunkLender else { return nil }
    self.lender = lender
    ownedCapacity = max(2 * lender.headroom, 4096)
    owned = Self.allocate(ownedCapacity)
  }

  /// A zeroed buffer of `capacity` bytes and the scanner's slack after them.
  private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + ReadSlack.bytes)
    buffer.initialize(repeating: 0, count: capacity + ReadSlack.bytes)
    return buffer
  }

  deinit {
    owned.deallocate()
    // Any chunk still held goes back with the source (which the scanner drops next).
  }

  /// An empty window to start from.
  var initialWindow: UnsafeMutablePointer<UInt8> { owned }

  /// Keeps `window[keep ..< end]` at the front of a window and adds bytes after it.
  ///
  /// - Throws: The source's error.
  func refill(
    window: UnsafeMutablePointer<UInt8>, keep: Int, end: Int, maximumTokenBytes: Int
  ) throws -> Refill {
    let live = end - keep
    if live >= maximumTokenBytes { return .tokenTooLarge }
    let tail = window + keep
    if let current, currentUsed < current.count {
      // Gathering into the own buffer; return to the chunk once the tail fits before its rest.
      if live <= currentUsed + lender.headroom {
        let base = current.bytes + currentUsed - live
        carry(tail, to: base, count: live, inPlace: current.isInPlace)
        let end = live + current.count - currentUsed
        currentUsed = current.count
        windowIsOwned = false
        return .window(base: base, end: end)
      }
      return gather(tail: tail, live: live, from: current, maximumTokenBytes: maximumTokenBytes)
    }
    guard let next = try lender.borrowChunk() else { return .endOfSource }
    if live <= lender.headroom {
      let base = next.bytes - live
      carry(tail, to: base, count: live, inPlace: next.isInPlace)
      release()
      current = next
      currentUsed = next.count
      windowIsOwned = false
      return .window(base: base, end: live + next.count)
    }
    // A long token: gather it in the own buffer, moving its start there before its chunk goes.
    if windowIsOwned {
      if keep > 0 { owned.update(from: tail, count: live) }
    } else {
      reserve(live, copying: 0, maximumTokenBytes: maximumTokenBytes)
      owned.update(from: tail, count: live)
      windowIsOwned = true
    }
    release()
    current = next
    currentUsed = 0
    return gather(tail: owned, live: live, from: next, maximumTokenBytes: maximumTokenBytes)
  }

  /// Puts the `count` tail bytes at `tail` just in front of a chunk's bytes,
  /// at `base`: a copy, unless they are already there (the same bytes, or a
  /// chunk in place, whose bytes in front are the tail's own and read-only).
  private func carry(
    _ tail: UnsafeMutablePointer<UInt8>, to base: UnsafeMutablePointer<UInt8>, count: Int, inPlace: Bool
  ) {
    if inPlace {
      assert(
        Platform.bytesEqual(base, tail, count: count), "a chunk in place is preceded by its source's bytes")
      return
    }
    if base != tail { base.update(from: tail, count: count) }
  }

  /// With the window in the own buffer: moves the tail to its front (growing
  /// it when the tail fills it) and copies in what fits of `chunk`, the current one.
  private func gather(
    tail: UnsafeMutablePointer<UInt8>, live: Int, from chunk: LentChunk, maximumTokenBytes: Int
  ) -> Refill {
    // `update` handles the overlap.
    if tail != owned { owned.update(from: tail, count: live) }
    if live == ownedCapacity {
      reserve(min(ownedCapacity * 2, maximumTokenBytes), copying: live, maximumTokenBytes: maximumTokenBytes)
    }
    let count = min(ownedCapacity - live, chunk.count - currentUsed)
    (owned + live).update(from: chunk.bytes + currentUsed, count: count)
    currentUsed += count
    return .window(base: owned, end: live + count)
  }

  /// Makes the own buffer hold at least `capacity` bytes, keeping its first `copying`.
  private func reserve(_ capacity: Int, copying: Int, maximumTokenBytes: Int) {
    guard capacity > ownedCapacity else { return }
    var newCapacity = ownedCapacity
    while newCapacity < capacity { newCapacity *= 2 }
    newCapacity = max(min(newCapacity, maximumTokenBytes), capacity)
    let grown = Self.allocate(newCapacity)
    grown.update(from: owned, count: copying)
    owned.deallocate()
    owned = grown
    ownedCapacity = newCapacity
  }

  private func release() {
    if let current { lender.giveBack(current) }
    current = nil
  }
}
