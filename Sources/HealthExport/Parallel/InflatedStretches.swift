import Foundation
import StepKitCore

/// A zip entry's XML inflated on a thread of its own into a ring of
/// stretch-sized buffers, each stretch cut at a candidate seam, for
/// ``ParallelExportReader/join(_:entryName:into:settings:progress:run:)``.
///
/// The inflating thread fills one buffer at a time. A full buffer is cut
/// at the first candidate seam (``SeamFinder``) near its end: the bytes
/// before it are the stretch, the bytes after it start the next buffer. The
/// last bytes of every stretch are also put in front of the next buffer (in
/// its headroom), so that each buffer is lent in place
/// (``LentChunk/isInPlace``): scanners only read the ring, and several may
/// read one buffer at once. A buffer with no seam near its end is handed
/// over whole; the stretch after it starts mid-record and is never scanned
/// ahead.
///
/// The joining thread reads the stretches in order, scanning each itself
/// from the exact state at its start, unless the inflating thread already
/// scanned it ahead: that thread scans when it has nothing to inflate into
/// (every buffer holds a stretch not yet joined, or the entry is done),
/// taking the furthest stretch not yet taken, so that the joining thread
/// reaches it last. Scanning is then the slower side, and both cores scan.
///
/// A buffer is refilled once its stretch is joined and no scan reads it,
/// so memory is the ring's, whatever the entry's size. The CRC-32 of each
/// stretch is computed by the inflating thread, unless the joining thread
/// is waiting for it, and otherwise when the stretch is joined; the parts
/// are combined in order and checked when the last byte is read (by a
/// reader that reads on to the end) or after the last stretch is joined.
/// Inflation errors arrive after every stretch delivered before them.
final class InflatedStretches: StretchSupply {
  /// When the inflating thread scans stretches.
  enum Helping: Sendable {
    /// When it has nothing to inflate into: scanning is the slower side.
    case whenIdle
    /// Every stretch that starts at a seam, as soon as it is delivered (tests).
    case always
    /// Never: the joining thread reads every stretch (tests: the reference).
    case never
  }

  /// Room in front of each buffer for the bytes before it: 4 KiB, several
  /// times a record's tag. A scanner joins a longer token across two buffers
  /// in a buffer of its own; every KiB more is copied twice per stretch.
  static let headroom = 4 << 10

  private let ring: StretchRing
  private let producer: ProducerThread

  /// Starts inflating `entry` of `archive` on a new thread.
  ///
  /// - Parameters:
  ///   - archive: The archive holding the entry.
  ///   - entry: The entry to read.
  ///   - stretchBytes: Bytes per buffer, so about per stretch (at least 256;
  ///     tests use tiny ones). Each stretch the inflating thread scans costs
  ///     a decoder of its own: 2 MiB ones measured faster than 512 KiB ones.
  ///   - stretchCount: Buffers in the ring (at least 2).
  ///   - engine: The deflate implementation to inflate with.
  ///   - helping: When the inflating thread scans stretches.
  /// - Throws: What ``ZipEntryReader/init(archive:entry:verifiesChecksum:inputChunkSize:engine:)``
  ///   throws; later errors arrive through the stretches.
  init(
    archive: ZipArchive, entry: ZipEntry, stretchBytes: Int = 2 << 20, stretchCount: Int = 4,
    engine: InflateEngine = .preferred, helping: Helping = .whenIdle
  ) throws {
    let reader = try ZipEntryReader(archive: archive, entry: entry, verifiesChecksum: false, engine: engine)
    let ring = StretchRing(
      displayName: reader.displayName, expectedByteCount: entry.uncompressedSize, expectedCRC: entry.crc32,
      engine: engine, stretchBytes: stretchBytes, stretchCount: stretchCount, helping: helping)
    self.ring = ring
    let transfer = TransferredOwnership(value: reader)
    guard let producer = ProducerThread({ ring.produce(transfer.value) }) else {
      throw HealthExportError.readFailed(
        path: reader.displayName, reason: "cannot start the inflating thread")
    }
    self.producer = producer
  }

  deinit { stopScanning() }

  /// How many stretches the inflating thread scanned ahead.
  var stretchesScannedByInflater: Int { ring.helperScans }

  var expectedByteCount: Int64 { ring.expectedByteCount }
  var scansAhead: Bool { true }
  var knownCount: Int { ring.deliveredCount }
  func hasStretch(_ index: Int) -> Bool { ring.hasStretch(index) }
  func isKnownLast(_ index: Int) -> Bool { ring.isKnownLast(index) }
  func start(of index: Int) -> Int64 { ring.start(of: index) }
  func end(of index: Int) -> Int64 { ring.end(of: index) }

  func range(from index: Int, toEnd: Bool, consuming: Bool) -> any ByteRangeSource {
    StretchRange(ring, from: index, toEnd: toEnd, consuming: consuming)
  }

  func startScanning(context: ParallelExportReader.Context, settings: ParallelExportReader.Settings) {
    ring.startHelping(context: context, settings: settings)
  }

  func stopScanning() {
    ring.cancel()
    producer.join()
  }

  func publishOrigins(of log: SampleLog) { ring.publishOrigins(of: log) }
  func result(_ index: Int) -> ParallelExportReader.Chunk? { ring.result(index) }
  func claimForReading(_ index: Int) -> Bool { ring.claimForReading(index) }
  var readsOnItself: Bool { true }
  func discard(_ index: Int) { ring.discard(index) }
  func joined(before index: Int) { ring.consume(before: index) }
  func verifyEnd() throws { try ring.verifyEnd() }
}

/// The ring and every stretch in it, shared by the inflating thread and the
/// readers of ``InflatedStretches``. Every mutable field is guarded by
/// `condition`; a buffer's bytes are written only by the inflating thread,
/// before its stretch is delivered.
final class StretchRing: @unchecked Sendable {
  // Safe to share: every mutable field is read and written only under `condition`; a buffer's
  // bytes are written by the inflating thread only before its stretch is delivered, read only after.
  /// What a reader of stretch `index` finds.
  enum Lookup {
    case stretch(LentChunk)
    case end
    case failure(HealthExportError)
  }

  private enum Claim { case open, reader, helper, discarded }

  private struct Stretch {
    var slot: Int
    var count: Int
    var isLast: Bool
    var startsAtSeam: Bool
    var crc: UInt32?
    var claim = Claim.open
    /// The inflating thread is scanning it now.
    var scanning = false
    var scannedAsLast = false
    var result: ParallelExportReader.Chunk?
    var joined = false
  }

  let displayName: String
  let expectedByteCount: Int64
  private let expectedCRC: UInt32
  private let engine: InflateEngine
  private let stretchBytes: Int
  private let helping: InflatedStretches.Helping
  private let headroom = InflatedStretches.headroom
  /// The longest tail a cut leaves for the next buffer.
  private let cutWindow: Int
  private let allocations: [UnsafeMutablePointer<UInt8>]
  /// The first data byte of each buffer.
  private let starts: [UnsafeMutablePointer<UInt8>]

  private let condition = NSCondition()
  private var freeSlots: [Int]
  /// The stretches delivered and not yet refilled, by index.
  private var alive: [Int: Stretch] = [:]
  /// Where each delivered stretch starts, and where the last one ends.
  private var offsets: [Int64] = [0]
  private var ending: Result<Void, HealthExportError>?
  private var cancelled = false
  private var helperDone = false
  private var readerWaiting = false
  private var context: (ParallelExportReader.Context, ParallelExportReader.Settings)?
  /// Stretches before this are joined; `joinedCRC` is their CRC-32.
  private var joinedBefore = 0
  private var joinedCRC: UInt32 = 0
  private var scans = 0

  init(
    displayName: String, expectedByteCount: Int64, expectedCRC: UInt32, engine: InflateEngine,
    stretchBytes: Int, stretchCount: Int, helping: InflatedStretches.Helping
  ) {
    self.displayName = displayName
    self.expectedByteCount = expectedByteCount
    self.expectedCRC = expectedCRC
    self.engine = engine
    self.helping = helping
    let size = max(stretchBytes, 256)
    self.stretchBytes = size
    cutWindow = min(64 << 10, size / 4)
    let count = max(stretchCount, 2)
    let total = headroom + size + InflatePipeline.trailingSlack
    allocations = (0..<count).map { _ in Platform.zeroedBytes(total) }
    starts = allocations.map { $0 + InflatedStretches.headroom }
    freeSlots = Array(0..<count)
  }

  deinit {
    for allocation in allocations { Platform.freeZeroedBytes(allocation) }
  }

  // MARK: Inflating thread

  /// Inflates the entry stretch by stretch until it ends, fails or the
  /// readers cancel, scanning stretches when it has nothing to inflate into.
  func produce(_ reader: ZipEntryReader) {
    // The bytes before the next buffer (at most `headroom`), then those that start it.
    let carry = UnsafeMutablePointer<UInt8>.allocate(capacity: headroom + cutWindow)
    defer { carry.deallocate() }
    var prefixCount = 0
    var tailCount = 0
    var startsAtSeam = true
    while let slot = nextSlot() {
      let data = starts[slot]
      (data - prefixCount).update(from: carry, count: prefixCount)
      data.update(from: carry + headroom, count: tailCount)
      var count = tailCount
      var ended = false
      var failure: HealthExportError?
      do {
        while count < stretchBytes {
          count += try reader.read(
            into: UnsafeMutableRawBufferPointer(start: data + count, count: stretchBytes - count))
          if reader.isFinished {
            ended = true
            break
          }
        }
      } catch {
        failure = HealthExportError(wrapping: error, path: reader.displayName)
      }
      if failure != nil || ended {
        if count > 0 {
          deliver(slot: slot, count: count, isLast: failure == nil, startsAtSeam: startsAtSeam)
        } else {
          returnSlot(slot)
        }
        finish(failure.map { .failure($0) } ?? .success(()))
        helpUntilDone()
        return
      }
      let (cut, atSeam) = self.cut(data, count: count)
      let prefix = min(headroom, prefixCount + cut)
      carry.update(from: data + cut - prefix, count: prefix)
      (carry + headroom).update(from: data + cut, count: count - cut)
      deliver(slot: slot, count: cut, isLast: false, startsAtSeam: startsAtSeam)
      prefixCount = prefix
      tailCount = count - cut
      startsAtSeam = atSeam
    }
  }

  /// Where to end a full buffer of `count` bytes: at the first candidate seam
  /// in its last KiB (or, failing that, its last 4 KiB or `cutWindow`), else
  /// at its end. The bytes after the cut are copied to the next buffer.
  private func cut(_ data: UnsafeMutablePointer<UInt8>, count: Int) -> (Int, Bool) {
    for window in [min(1024, cutWindow), min(4096, cutWindow), cutWindow] where window < count {
      let from = count - window
      // The byte before `from` must be the newline.
      let bytes = UnsafeBufferPointer(start: data + from - 1, count: window + 1)
      if let hit = SeamFinder.seam(in: bytes, count: window + 1, before: window + 1) {
        return (from - 1 + hit, true)
      }
    }
    return (count, false)
  }

  /// A free buffer to inflate into, scanning stretches while there is none
  /// (or always, when helping `.always`); `nil` once the readers cancelled.
  private func nextSlot() -> Int? {
    condition.lock()
    defer { condition.unlock() }
    while !cancelled {
      if let index = stretchToScan(idle: freeSlots.isEmpty) {
        scan(index)
        continue
      }
      if !freeSlots.isEmpty { return freeSlots.removeFirst() }
      condition.wait()
    }
    return nil
  }

  /// After the last stretch: scans what is left to scan, then lets readers
  /// that wait for a scan know that none will come.
  private func helpUntilDone() {
    condition.lock()
    defer { condition.unlock() }
    while !cancelled, let index = stretchToScan(idle: true) { scan(index) }
    helperDone = true
    condition.broadcast()
  }

  /// The stretch to scan next, if any: one that starts at a seam after the
  /// header and that nobody took. When idle, the furthest (the joining
  /// thread reaches it last); with `.always`, the first.
  private func stretchToScan(idle: Bool) -> Int? {
    guard context != nil, helping != .never, helping == .always || idle else { return nil }
    let open = alive.filter { $0.key >= 1 && $0.value.claim == .open && $0.value.startsAtSeam }.map(\.key)
    return helping == .always ? open.min() : open.max()
  }

  /// Scans stretch `index` ahead, with the lock held on entry and exit (not during).
  private func scan(_ index: Int) {
    guard let (context, settings) = context, var stretch = alive[index] else { return }
    stretch.claim = .helper
    stretch.scanning = true
    stretch.scannedAsLast = stretch.isLast
    alive[index] = stretch
    let start = offsets[index]
    condition.unlock()
    let chunk = ParallelExportReader.scanChunk(
      StretchRange(self, from: index, toEnd: stretch.isLast, consuming: false), from: start,
      byteCount: Int64(stretch.count), isLast: stretch.isLast, context: context, settings: settings)
    condition.lock()
    scans += 1
    guard var done = alive[index] else { return }
    done.scanning = false
    if done.claim == .helper, !done.joined { done.result = chunk }
    alive[index] = done
    if done.joined { refill(index) }
    condition.broadcast()
  }

  private func deliver(slot: Int, count: Int, isLast: Bool, startsAtSeam: Bool) {
    condition.lock()
    let waiting = readerWaiting
    condition.unlock()
    // The CRC-32 is left to the reader when it is waiting for these bytes.
    let crc = waiting ? nil : engine.crc32(0, UnsafeRawBufferPointer(start: starts[slot], count: count))
    condition.lock()
    alive[offsets.count - 1] = Stretch(
      slot: slot, count: count, isLast: isLast, startsAtSeam: startsAtSeam, crc: crc)
    offsets.append(offsets[offsets.count - 1] + Int64(count))
    condition.broadcast()
    condition.unlock()
  }

  private func returnSlot(_ slot: Int) {
    condition.lock()
    freeSlots.append(slot)
    condition.broadcast()
    condition.unlock()
  }

  private func finish(_ outcome: Result<Void, HealthExportError>) {
    condition.lock()
    ending = outcome
    // An entry that ends just after a full buffer: that buffer's stretch was the last.
    if case .success = outcome, let last = offsets.count > 1 ? offsets.count - 2 : nil {
      alive[last]?.isLast = true
    }
    condition.broadcast()
    condition.unlock()
  }

  // MARK: Readers

  /// Starts scanning stretches ahead from `context`.
  func startHelping(context: ParallelExportReader.Context, settings: ParallelExportReader.Settings) {
    condition.lock()
    self.context = (context, settings)
    condition.broadcast()
    condition.unlock()
  }

  /// Has the stretches scanned from now on numbered as `log` numbers
  /// origins, when it holds more than they would have started with.
  func publishOrigins(of log: SampleLog) {
    condition.lock()
    defer { condition.unlock() }
    guard let (current, settings) = context,
      ParallelExportReader.numbersMoreOrigins(log, than: current.origins)
    else { return }
    var updated = current
    updated.origins = SampleLog(numberingOriginsAs: log)
    context = (updated, settings)
  }

  /// Stops the inflating thread at its next step.
  func cancel() {
    condition.lock()
    cancelled = true
    condition.broadcast()
    condition.unlock()
  }

  var helperScans: Int {
    condition.lock()
    defer { condition.unlock() }
    return scans
  }

  var deliveredCount: Int {
    condition.lock()
    defer { condition.unlock() }
    return offsets.count - 1
  }

  /// Waits until stretch `index` is delivered or the entry ended.
  func hasStretch(_ index: Int) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return waitForStretch(index)
  }

  /// ``hasStretch(_:)`` with the lock held.
  private func waitForStretch(_ index: Int) -> Bool {
    while index >= offsets.count - 1, ending == nil, !cancelled {
      readerWaiting = true
      condition.wait()
    }
    readerWaiting = false
    return index < offsets.count - 1
  }

  func isKnownLast(_ index: Int) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    return alive[index]?.isLast ?? (ending != nil && index == offsets.count - 2)
  }

  func start(of index: Int) -> Int64 {
    condition.lock()
    defer { condition.unlock() }
    return offsets[index]
  }

  func end(of index: Int) -> Int64 {
    condition.lock()
    defer { condition.unlock() }
    return offsets[index + 1]
  }

  /// Stretch `index` lent in place, or how the entry ended after the last one.
  func lookup(_ index: Int) -> Lookup {
    condition.lock()
    defer { condition.unlock() }
    if waitForStretch(index), let stretch = alive[index] {
      return .stretch(
        LentChunk(index: index, bytes: starts[stretch.slot], count: stretch.count, isInPlace: true))
    }
    switch ending {
    case .failure(let error)?: return .failure(error)
    default: return .end
    }
  }

  /// The result of stretch `index` scanned ahead, or `nil` (the caller reads it).
  func result(_ index: Int) -> ParallelExportReader.Chunk? {
    condition.lock()
    defer { condition.unlock() }
    while let stretch = alive[index] {
      switch stretch.claim {
      case .open:
        // With `.always`, the inflating thread takes every stretch it may.
        if helping == .always, stretch.startsAtSeam, index >= 1, !helperDone, !cancelled {
          condition.wait()
          continue
        }
        alive[index]?.claim = .reader
        return nil
      case .reader, .discarded:
        return nil
      case .helper:
        if stretch.scanning {
          condition.wait()
          continue
        }
        guard var chunk = stretch.result else { return nil }
        alive[index]?.result = nil
        // Scanned as ending at a seam, it must not be the last.
        if !stretch.scannedAsLast, !waitForStretch(index + 1) { chunk.verified = false }
        return chunk
      }
    }
    return nil
  }

  /// Claims stretch `index` for the joining thread when nobody took it and
  /// the inflating thread is not to (see ``StretchSupply/claimForReading(_:)``).
  func claimForReading(_ index: Int) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    guard let stretch = alive[index] else { return true }
    switch stretch.claim {
    case .helper: return false
    case .reader, .discarded: return true
    case .open:
      if helping == .always, stretch.startsAtSeam, !helperDone, !cancelled { return false }
      alive[index]?.claim = .reader
      return true
    }
  }

  func discard(_ index: Int) {
    condition.lock()
    alive[index]?.claim = .discarded
    alive[index]?.result = nil
    condition.unlock()
  }

  /// Joins every stretch before `index` (in order), combining their CRC-32s.
  func consume(before index: Int) {
    condition.lock()
    defer { condition.unlock() }
    while joinedBefore < index, let stretch = alive[joinedBefore] {
      let crc = stretch.crc ?? checksum(joinedBefore)
      joinedCRC = crc32Combine(joinedCRC, crc, count: stretch.count)
      // Read again: the lock was let go while the checksum was computed.
      alive[joinedBefore]?.joined = true
      alive[joinedBefore]?.result = nil
      if alive[joinedBefore]?.scanning == false { refill(joinedBefore) }
      joinedBefore += 1
    }
  }

  /// The CRC-32 of stretch `index`, computed without the lock (the bytes
  /// stay put while the stretch is alive), then kept.
  private func checksum(_ index: Int) -> UInt32 {
    guard let stretch = alive[index] else { return 0 }
    condition.unlock()
    let crc = engine.crc32(0, UnsafeRawBufferPointer(start: starts[stretch.slot], count: stretch.count))
    condition.lock()
    alive[index]?.crc = crc
    return crc
  }

  /// Frees stretch `index`'s buffer.
  private func refill(_ index: Int) {
    guard let stretch = alive.removeValue(forKey: index) else { return }
    freeSlots.append(stretch.slot)
    condition.broadcast()
  }

  /// Checks the entry's CRC-32 once every byte is delivered: the joined
  /// stretches' and those of the stretches still alive after them.
  func verifyChecksum() throws {
    condition.lock()
    defer { condition.unlock() }
    var crc = joinedCRC
    var index = joinedBefore
    while let stretch = alive[index] {
      crc = crc32Combine(crc, stretch.crc ?? checksum(index), count: stretch.count)
      index += 1
    }
    if crc != expectedCRC { throw HealthExportError.checksumMismatch(entry: displayName) }
  }

  /// After every stretch is joined: the inflating thread's error, or a wrong CRC-32.
  func verifyEnd() throws {
    condition.lock()
    let outcome = ending
    condition.unlock()
    if case .failure(let error)? = outcome { throw error }
    try verifyChecksum()
  }
}

/// Stretches of a ``StretchRing`` read front to back on one thread, lent in
/// place: from stretch `index` to the end of the range (a stretch's end, or
/// the end of the entry).
final class StretchRange: ChunkLender, ByteRangeSource {
  private let ring: StretchRing
  private var next: Int
  private var nextOffset: Int64
  private let startOffset: Int64
  private let consuming: Bool
  private(set) var end: Int64?
  /// The chunk ``read(into:)`` copies from, and how much of it is copied.
  private var copying: (chunk: LentChunk, position: Int)?

  init(_ ring: StretchRing, from index: Int, toEnd: Bool, consuming: Bool) {
    self.ring = ring
    next = index
    let known = ring.hasStretch(index)
    startOffset = known ? ring.start(of: index) : 0
    nextOffset = startOffset
    end = toEnd || !known ? nil : ring.end(of: index)
    self.consuming = consuming
  }

  var displayName: String { ring.displayName }
  var expectedByteCount: Int64? { (end ?? max(ring.expectedByteCount, startOffset)) - startOffset }
  var headroom: Int { InflatedStretches.headroom }

  func extend(to newEnd: Int64?) {
    precondition(newEnd.map { old in end.map { old >= $0 } ?? false } ?? true, "a range only grows")
    end = newEnd
  }

  func borrowChunk() throws -> LentChunk? {
    if let end, nextOffset >= end { return nil }
    switch ring.lookup(next) {
    case .stretch(let chunk):
      next += 1
      nextOffset += Int64(chunk.count)
      return chunk
    case .end:
      // A reader that reads on to the end checks the checksum before the end.
      if consuming { try ring.verifyChecksum() }
      return nil
    case .failure(let error):
      throw error
    }
  }

  func giveBack(_ chunk: LentChunk) {
    if consuming { ring.consume(before: chunk.index + 1) }
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let destination = buffer.baseAddress, buffer.count > 0 else { return 0 }
    while true {
      if let (chunk, position) = copying, position < chunk.count {
        let count = min(buffer.count, chunk.count - position)
        destination.copyMemory(from: chunk.bytes + position, byteCount: count)
        copying?.position += count
        return count
      }
      if let (chunk, _) = copying { giveBack(chunk) }
      copying = nil
      guard let chunk = try borrowChunk() else { return 0 }
      copying = (chunk, 0)
    }
  }
}
