/// A sample as the engine works on it, decoded from a ``SampleStore``.
struct StoredSample: Sendable, Equatable {
  /// Start, milliseconds since 1970.
  var startMs: Int64
  /// End, milliseconds since 1970.
  var endMs: Int64
  /// Steps, or metres.
  var value: Double
  /// The index into ``SampleLog/origins``.
  var origin: UInt16
  /// The UTC offset recorded with the start, whole minutes.
  var offsetMinutes: Int16
  /// Steps or distance.
  var kind: QuantityKind
  /// Whether the sample was typed in by hand.
  var isUserEntered: Bool
}

/// Fixed-capacity bytes, shared between copies of a store until one of them
/// writes (only the last chunk is ever written to).
final class ByteChunk: @unchecked Sendable {
  // Safe to share: a chunk is written only through a store that holds the
  // one reference to it (`SampleStore.append`, after a uniqueness check), and read otherwise.
  let base: UnsafeMutablePointer<UInt8>
  let capacity: Int
  var count = 0

  init(capacity: Int) {
    self.capacity = capacity
    base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
  }

  deinit { base.deallocate() }

  /// A new chunk holding the first `count` bytes of this one.
  func copy(count: Int) -> ByteChunk {
    let chunk = ByteChunk(capacity: capacity)
    chunk.base.update(from: base, count: count)
    chunk.count = count
    return chunk
  }
}

/// The bytes of a store's last chunk, which the store also holds (so that
/// they live as long as it does).
struct TailPointer: @unchecked Sendable {
  // Safe to share: it points into the store's last chunk, which the store
  // holds; a store writes there only after `isKnownUniquelyReferenced`
  // found it the chunk's one holder (it copies the chunk otherwise), so a
  // copy on another thread only ever reads.
  var base = UnsafeMutablePointer<UInt8>.placeholder
}

/// The samples of a ``SampleLog``, stored in blocks of up to
/// ``blockCapacity`` samples, each sample encoded against the one before it
/// in its block: about 5 bytes a sample on exports instead of 24.
///
/// Each block is self-contained (it decodes from its first byte with no
/// state from other blocks) and records the index of its first sample, the
/// range of time its samples cover and the highest origin they name, so that
/// a tally can decode only the blocks that touch a span of time, and a store
/// appended to another moves as its encoded blocks
/// (``append(contentsOf:keptOrigins:renumber:)``). Blocks fill up as samples
/// are appended; a block moved from another store keeps its count, usually
/// less than full at the end of what was moved.
///
/// One sample is a header byte (``SampleHeader``: kind, typed-in, which
/// fields follow and in what form) and the fields that differ from the
/// previous sample of the block.
///
/// The start follows the header as a zigzag varint of its difference to the
/// end of the block's previous sample of the same kind (0 when a source's
/// samples follow on one another, negative when they overlap or come out of
/// order). A decimal is a
/// mantissa `m` and a scale byte holding `k` (bits 0–3) and a unit factor
/// `f` (bits 4–6); the value is `Double(m) / 10^k`, then times `f` when `f`
/// is not 1. The encoder keeps that form only when it decodes to exactly the
/// same bits, and the double's own bits otherwise, so every value comes back
/// exactly.
///
/// Chunks are sealed as they fill. Once the sealed chunks kept in memory
/// reach the budget of ``storage``, each chunk sealed after is written to an
/// anonymous temporary file (``SpillFile``) and freed; readers then read a
/// spilled chunk, or a stretch of it, back into a buffer of their own
/// (``decodeAll(_:)`` one chunk at a time, a ``BlockReader`` the stretches
/// around the blocks asked for), so that memory stays within the budget
/// and what one reader holds however many samples there are.
struct SampleStore: Sendable {
  /// Samples per block.
  static let blockCapacity = 256
  /// The most bytes one encoded sample takes.
  static let maximumSampleBytes = 40
  /// The bytes a block may take, reserved in its chunk when it opens.
  static let maximumBlockBytes = blockCapacity * maximumSampleBytes
  /// The first chunk's capacity; each later one is four times larger, up to ``largestChunk``.
  static let smallestChunk = 16 * 1024
  /// The largest chunk's capacity.
  static let largestChunk = 1024 * 1024

  /// How many unit factors a decimal may carry.
  static let factorCount: UInt8 = 8

  /// The unit factors a decimal may carry, the length units of exports in metres.
  @inline(__always)
  static func unitFactor(_ index: UInt8) -> Double {
    switch index {
    case 1: return 1000
    case 2: return 1609.344
    case 3: return 0.3048
    case 4: return 0.9144
    case 5: return 0.01
    case 6: return 0.001
    case 7: return 0.0254
    default: return 1
    }
  }

  /// 2^53: every whole number in `[0, 2^53)` is a `Double` exactly, so the
  /// conversions between `Double` and `Int64` below it are exact (and one
  /// instruction each). Integers and decimal mantissas are written as varints
  /// only below it; larger values take the `Double`'s eight bytes.
  @inline(__always)
  static var exactIntegerLimit: Double { 9_007_199_254_740_992 }

  /// ``exactIntegerLimit`` as an integer, for mantissas.
  @inline(__always)
  static var exactMantissaLimit: UInt64 { 1 << 53 }

  /// An integer field's value as a `Double`: the encoder writes only
  /// integers below 2^53 (integers and decimal mantissas), for which the
  /// signed conversion, one instruction, is the same as the unsigned one.
  @inline(__always)
  static func double(_ field: UInt64) -> Double {
    Double(Int64(bitPattern: field))
  }

  /// 10^k for k in 0...9, exactly. (HealthExport's `DecimalParser` has the same table to 10^15:
  /// each module keeps its own rather than make it public API.)
  @inline(__always)
  static func powerOfTen(_ k: UInt8) -> Double {
    switch k {
    case 0: return 1
    case 1: return 1e1
    case 2: return 1e2
    case 3: return 1e3
    case 4: return 1e4
    case 5: return 1e5
    case 6: return 1e6
    case 7: return 1e7
    case 8: return 1e8
    default: return 1e9
    }
  }

  /// Where a block lives, which samples it holds and the time they cover:
  /// 40 bytes, kept for every block of every sample, so the index of the
  /// first sample and the highest origin share one word.
  struct BlockInfo: Sendable {
    var chunk: UInt32
    var offset: UInt32
    /// ``first`` in the low 48 bits, ``maxOrigin`` in the high 16.
    private var firstAndOrigin: UInt64
    /// The earliest start in the block.
    var minStartMs: Int64
    /// The latest start in the block.
    var maxStartMs: Int64
    /// The latest end in the block.
    var maxEndMs: Int64

    /// The most samples a store holds: ``first`` takes 48 bits (a sample
    /// takes at least a byte, so 256 TiB of encoded samples).
    static let mostSamples = 1 << 48

    init(
      chunk: UInt32, offset: UInt32, first: Int, minStartMs: Int64, maxStartMs: Int64, maxEndMs: Int64,
      maxOrigin: UInt16
    ) {
      precondition(first >= 0 && first < Self.mostSamples, "a store holds at most 2^48 samples")
      self.chunk = chunk
      self.offset = offset
      firstAndOrigin = UInt64(first) | UInt64(maxOrigin) << 48
      self.minStartMs = minStartMs
      self.maxStartMs = maxStartMs
      self.maxEndMs = maxEndMs
    }

    /// The index of the block's first sample in the store.
    var first: Int {
      @inline(__always) get { Int(truncatingIfNeeded: firstAndOrigin & (1 << 48 - 1)) }
      set {
        precondition(newValue >= 0 && newValue < Self.mostSamples, "a store holds at most 2^48 samples")
        firstAndOrigin = firstAndOrigin & ~(1 << 48 - 1) | UInt64(newValue)
      }
    }

    /// The highest origin of a sample in the block.
    var maxOrigin: UInt16 {
      @inline(__always) get { UInt16(truncatingIfNeeded: firstAndOrigin >> 48) }
      @inline(__always) set { firstAndOrigin = firstAndOrigin & (1 << 48 - 1) | UInt64(newValue) << 48 }
    }
  }

  /// The sealed blocks' records, in pages of ``pageSize``: the table grows a
  /// page at a time, never copied whole into a larger one (an array's
  /// growth holds the old and the new copy at once, twice the table).
  struct BlockPages: Sendable {
    /// Records per page (160 KiB of them).
    static let pageSize = 4096
    private static let pageShift = 12
    private var pages: [[BlockInfo]] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    subscript(block: Int) -> BlockInfo {
      pages[block >> Self.pageShift][block & (Self.pageSize - 1)]
    }

    mutating func append(_ info: BlockInfo) {
      if count & (Self.pageSize - 1) == 0 {
        var page: [BlockInfo] = []
        // The first page grows as an array does (a small store keeps a small table).
        if count > 0 { page.reserveCapacity(Self.pageSize) }
        pages.append(page)
      }
      pages[pages.count - 1].append(info)
      count += 1
    }

    /// Reserves room in the list of pages for `capacity` records.
    mutating func reserveCapacity(_ capacity: Int) {
      pages.reserveCapacity((capacity + Self.pageSize - 1) >> Self.pageShift)
    }
  }

  /// The state each sample is encoded against, reset at each block's start.
  struct Context {
    /// The end of the previous step sample and of the previous distance
    /// sample: a sample's start is written against its kind's, since each
    /// source's samples of a kind usually follow on one another.
    var stepsEndMs: Int64 = 0
    var distanceEndMs: Int64 = 0
    var durationMs: Int64 = 0
    var origin: UInt16 = 0
    var offsetMinutes: Int16 = 0
    /// The previous decimal's scale byte; 0xFF when there was none.
    var scale: UInt8 = 0xFF
    /// ``scale``'s power of ten and unit factor, as ``decodeDecimal(_:scale:)``
    /// takes them from it (for 0xFF too), kept so that a decimal at the
    /// previous scale costs a division and a multiplication: dividing or
    /// multiplying by 1 is exact, so the value is the very same.
    var scalePower = 1e9
    var scaleFactor = 1.0

    /// Takes `scale` as the scale of the decimals that follow.
    @inline(__always)
    mutating func setScale(_ scale: UInt8) {
      self.scale = scale
      scalePower = SampleStore.powerOfTen(scale & 15)
      scaleFactor = SampleStore.unitFactor(scale >> 4)
    }

    /// A decimal's value at ``scale``: ``decodeDecimal(_:scale:)`` with the scale's figures at hand.
    @inline(__always)
    func decimal(_ mantissa: UInt64) -> Double {
      SampleStore.double(mantissa) / scalePower * scaleFactor
    }
  }

  /// A sealed chunk: in memory, or written to ``spillFile`` at an offset.
  struct SealedChunk: Sendable {
    /// The bytes, while they are in memory.
    var memory: ByteChunk?
    /// Where the bytes are in ``spillFile`` when they are not in memory.
    var fileOffset: Int64
    /// How many bytes were written.
    var count: Int
  }

  /// Bytes a reader's buffer holds beyond what it reads, so that decoding a
  /// block of zeros (what a failed read leaves) stays inside the buffer.
  static let readSlack = maximumBlockBytes

  /// How much stays in memory and where the rest goes.
  let storage: SampleStorage
  /// The file spilled chunks are in, from the first spill on.
  private(set) var spillFile: SpillFile?
  /// Why chunks could not be spilled; from then on they stay in memory.
  private(set) var spillFailure: SampleStorageError?
  /// Bytes of sealed chunks in memory.
  private var residentBytes = 0
  /// Bytes of sealed chunks in ``spillFile``.
  private(set) var spilledBytes = 0

  /// Every chunk but the one being written, then ``tail``.
  private var fullChunks: [SealedChunk] = []
  /// The chunk being written.
  private var tail: ByteChunk?
  /// ``tail``'s bytes and how many are written, kept here so that an append
  /// touches no reference count.
  private var tailPointer = TailPointer()
  private var tailBase: UnsafeMutablePointer<UInt8> {
    get { tailPointer.base }
    set { tailPointer.base = newValue }
  }
  private var tailUsed = 0
  /// Every block but the last, whose record lives in ``open`` (there is
  /// one whenever a sample is stored).
  private var sealedBlocks = BlockPages()
  private var open = BlockInfo(
    chunk: 0, offset: 0, first: 0, minStartMs: 0, maxStartMs: 0, maxEndMs: 0, maxOrigin: 0)
  /// How many more samples ``open`` takes: 0 when there is none, when it is
  /// full, or when it was moved from another store (its encoder's state is
  /// not at hand), so that the next sample opens a block.
  private var openRoom = 0
  /// How many samples are stored.
  private(set) var count = 0
  /// The earliest start and latest end of the samples of the sealed blocks:
  /// kept per block rather than per sample, the open block's own are
  /// folded in when it is sealed.
  private var sealedMinStartMs = Int64.max
  private var sealedMaxEndMs = Int64.min
  /// The earliest start of all samples (`Int64.max` when there are none).
  var minStartMs: Int64 { count == 0 ? sealedMinStartMs : min(sealedMinStartMs, open.minStartMs) }
  /// The latest end of all samples (`Int64.min` when there are none).
  var maxEndMs: Int64 { count == 0 ? sealedMaxEndMs : max(sealedMaxEndMs, open.maxEndMs) }
  private var context = Context()
  /// The unit factor the last decimal used, tried first for the next one.
  private var factorHint: UInt8 = 0
  /// How many samples start in each span of ``startSpanShift`` (by the
  /// start shifted right by it), but for the runs counted in
  /// ``pendingSpan`` and ``previousSpan``: exact whatever the blocks are, so that what is judged
  /// from it (``mergeBins(targetSamples:)``) is the same for a store built
  /// sample by sample and one joined from stretches.
  ///
  /// Spans counted in increasing order, as an export's samples mostly come,
  /// are listed in ``startSpanRuns`` (an append rather than a table insert);
  /// the others are here, with no span counted 0. A span may be in both:
  /// its count is the sum.
  private var startSpanCounts: [Int64: Int] = [:]
  /// Spans in increasing order, each with a count (0 once its samples were
  /// all taken back, ``uncountStart(_:)``).
  private var startSpanRuns: [(span: Int64, count: Int)] = []
  /// The span of the last sample appended, and how many samples in a row started in it.
  private var pendingSpan: Int64 = 0
  private var pendingSpanCount = 0
  /// The span counted in ``pendingSpan`` before it, and its count: the samples of two
  /// sources, which an export interleaves a stretch at a time, go back and forth between
  /// two spans when they cross one's end.
  private var previousSpan: Int64 = 0
  private var previousSpanCount = 0

  /// The width of the spans of ``startCounts``: 2^22 ms, about 70 minutes.
  static let startSpanShift: Int64 = 22

  /// An empty store keeping samples as `storage` says.
  init(storage: SampleStorage = .standard) {
    self.storage = storage
  }

  /// Every block's record, the open one's included, without copying the table.
  struct BlockTable: RandomAccessCollection, Sendable {
    let sealed: BlockPages
    let open: BlockInfo
    let count: Int
    var startIndex: Int { 0 }
    var endIndex: Int { count }
    @inline(__always)
    subscript(block: Int) -> BlockInfo { block < sealed.count ? sealed[block] : open }
  }

  /// Every block's record, the open one's included.
  var blocks: BlockTable {
    BlockTable(sealed: sealedBlocks, open: open, count: count == 0 ? 0 : sealedBlocks.count + 1)
  }

  /// How many blocks there are.
  var blockCount: Int { count == 0 ? 0 : sealedBlocks.count + 1 }

  /// The record of block `block`.
  @inline(__always)
  func info(ofBlock block: Int) -> BlockInfo {
    block < sealedBlocks.count ? sealedBlocks[block] : open
  }

  /// The first byte of block `block`, or `nil` when its chunk is spilled.
  @inline(__always)
  func memoryBase(ofBlock block: Int) -> UnsafePointer<UInt8>? {
    let info = info(ofBlock: block)
    let chunk = Int(info.chunk)
    guard chunk < fullChunks.count else { return UnsafePointer(tailBase + Int(info.offset)) }
    return fullChunks[chunk].memory.map { UnsafePointer($0.base + Int(info.offset)) }
  }

  /// The chunk record of a spilled chunk.
  @inline(__always)
  func sealedChunk(_ chunk: Int) -> SealedChunk { fullChunks[chunk] }

  /// How many bytes block `block` takes.
  func byteCount(ofBlock block: Int) -> Int {
    let info = info(ofBlock: block)
    let next = block + 1
    if next < blockCount, self.info(ofBlock: next).chunk == info.chunk {
      return Int(self.info(ofBlock: next).offset - info.offset)
    }
    let end = Int(info.chunk) < fullChunks.count ? fullChunks[Int(info.chunk)].count : tailUsed
    return end - Int(info.offset)
  }

  /// Bytes taken by encoded samples and block records (not counting unused chunk space).
  var storedBytes: Int {
    fullChunks.reduce(tailUsed) { $0 + $1.count } + blockCount * MemoryLayout<BlockInfo>.stride
  }

  /// The first failure of the temporary file: to be made or written (the
  /// samples then stayed in memory), or to be read back (this store's, or
  /// that of a store whose blocks were moved here).
  var storageFailure: SampleStorageError? {
    spillFile?.failure ?? spillFailure ?? movedReadFailure
  }

  /// Why blocks moved here from another store's temporary file could not be read back.
  private var movedReadFailure: SampleStorageError?

  /// Reserves room in the block table's list of pages for `capacity` samples.
  mutating func reserveCapacity(_ capacity: Int) {
    sealedBlocks.reserveCapacity((capacity + Self.blockCapacity - 1) / Self.blockCapacity)
  }

  // MARK: - Writing

  /// How many samples start in each span of 2^``startSpanShift`` ms,
  /// keyed by the start shifted right by it; spans with none are left out.
  var startCounts: [Int64: Int] {
    let (runs, table) = flushedStartCounts
    var counts = table
    for (span, count) in runs where count != 0 { counts[span, default: 0] += count }
    return counts
  }

  /// ``startSpanRuns`` and ``startSpanCounts`` with the pending runs counted in.
  private var flushedStartCounts: (runs: [(span: Int64, count: Int)], table: [Int64: Int]) {
    var flushed = self
    flushed.flushPendingSpan()
    return (flushed.startSpanRuns, flushed.startSpanCounts)
  }

  /// ``startCounts`` as a list in order of span, made without building the
  /// table: ``startSpanRuns`` as they are when nothing else is counted (the
  /// usual case), else counted into an array over the spans' range when it
  /// is not much wider than the number of spans (samples cover a few
  /// years), else sorted.
  var orderedStartCounts: [(span: Int64, count: Int)] {
    let (runs, table) = flushedStartCounts
    if table.isEmpty { return runs.filter { $0.count != 0 } }
    var lower = runs.first?.span ?? Int64.max
    var upper = runs.last?.span ?? Int64.min
    for span in table.keys {
      lower = min(lower, span)
      upper = max(upper, span)
    }
    var ordered: [(span: Int64, count: Int)] = []
    let spans = table.count + runs.count
    ordered.reserveCapacity(spans)
    let (width, overflow) = upper.subtractingReportingOverflow(lower)
    guard !overflow, width < 4 * Int64(spans) + 4096 else {
      for (span, count) in startCounts { ordered.append((span, count)) }
      ordered.sort { $0.span < $1.span }
      return ordered
    }
    var counts = [Int](repeating: 0, count: Int(width) + 1)
    counts.withUnsafeMutableBufferPointer { counts in
      for (span, count) in table { counts[Int(span - lower)] += count }
      for (span, count) in runs { counts[Int(span - lower)] += count }
      // A span with samples has a count above 0: the others are left out.
      for offset in counts.indices where counts[offset] != 0 {
        ordered.append((lower + Int64(offset), counts[offset]))
      }
    }
    return ordered
  }

  /// Counts a sample starting at `startMs` in ``startCounts``.
  @inline(__always)
  private mutating func countStart(_ startMs: Int64) {
    let span = startMs >> Self.startSpanShift
    if span == pendingSpan {
      pendingSpanCount &+= 1
    } else {
      countInNewSpan(span)
    }
  }

  /// Counts a sample starting in `span`, not ``pendingSpan``: back to
  /// ``previousSpan`` when it is that one, else on to a new run, the
  /// previous one added to the lists.
  private mutating func countInNewSpan(_ span: Int64) {
    if span == previousSpan, previousSpanCount > 0 {
      let count = previousSpanCount + 1
      (previousSpan, previousSpanCount) = (pendingSpan, pendingSpanCount)
      (pendingSpan, pendingSpanCount) = (span, count)
      return
    }
    if previousSpanCount > 0 { addStartCount(previousSpanCount, toSpan: previousSpan) }
    (previousSpan, previousSpanCount) = (pendingSpan, pendingSpanCount)
    (pendingSpan, pendingSpanCount) = (span, 1)
  }

  /// Adds the runs counted in ``previousSpan`` and ``pendingSpan`` to the
  /// lists, the lower span first (so that spans in order stay appended).
  private mutating func flushPendingSpan() {
    let (pending, previous) = ((pendingSpan, pendingSpanCount), (previousSpan, previousSpanCount))
    let (lower, upper) = previousSpan < pendingSpan ? (previous, pending) : (pending, previous)
    if lower.1 > 0 { addStartCount(lower.1, toSpan: lower.0) }
    if upper.1 > 0 { addStartCount(upper.1, toSpan: upper.0) }
    previousSpanCount = 0
    pendingSpanCount = 0
  }

  /// Counts `count` more samples (above 0) starting in `span`: listed in
  /// ``startSpanRuns`` when it is the last span there or later, else in ``startSpanCounts``.
  private mutating func addStartCount(_ count: Int, toSpan span: Int64) {
    let last = startSpanRuns.count - 1
    if last < 0 || span > startSpanRuns[last].span {
      startSpanRuns.append((span, count))
    } else if span == startSpanRuns[last].span {
      startSpanRuns[last].count += count
    } else {
      startSpanCounts[span, default: 0] += count
    }
  }

  /// Takes back one sample counted as starting at `startMs` (the pending runs flushed).
  private mutating func uncountStart(_ startMs: Int64) {
    let span = startMs >> Self.startSpanShift
    let low = startSpanRuns.firstIndex(whereKey: \.span, isNotBelow: span)
    if low < startSpanRuns.count, startSpanRuns[low].span == span, startSpanRuns[low].count > 0 {
      startSpanRuns[low].count -= 1
      return
    }
    startSpanCounts[span, default: 0] -= 1
    if startSpanCounts[span] == 0 { startSpanCounts[span] = nil }
  }

  /// Appends one sample (the caller has checked it is valid).
  @inline(__always)
  mutating func append(_ sample: StoredSample) {
    countStart(sample.startMs)
    encode(sample)
    _checkInvariants(sealedBlocksFrom: sealedBlocks.count)
  }

  /// Encodes one sample at the end, leaving ``startCounts`` as it is.
  @inline(__always)
  private mutating func encode(_ sample: StoredSample) {
    if openRoom == 0 { openBlock(at: sample.startMs) }
    openRoom &-= 1
    if !isKnownUniquelyReferenced(&tail) {
      let copy = tail.unsafelyUnwrapped.copy(count: tailUsed)
      tail = copy
      tailBase = copy.base
    }
    var out = tailBase + tailUsed
    let begin = out
    let header = out
    out += 1
    var h = SampleHeader(distance: sample.kind == .distance, userEntered: sample.isUserEntered)
    if sample.origin != context.origin {
      h.insert(.originFollows)
      Self.writeVarint(UInt64(sample.origin), &out)
      context.origin = sample.origin
      open.maxOrigin = max(open.maxOrigin, sample.origin)
    }
    if sample.offsetMinutes != context.offsetMinutes {
      h.insert(.offsetFollows)
      Self.writeVarint(Self.zigzag(Int64(sample.offsetMinutes)), &out)
      context.offsetMinutes = sample.offsetMinutes
    }
    let delta = sample.startMs &- (sample.kind == .steps ? context.stepsEndMs : context.distanceEndMs)
    // A valid sample ends at or after its start, less than 2^63 ms later: no wrapping, no sign.
    let duration = sample.endMs &- sample.startMs
    let sameDuration = duration == context.durationMs
    // Each quotient, and whether it is exact, from one multiplication by the reciprocal.
    let deltaSeconds = delta / 1000
    let durationSeconds = duration / 1000
    let wholeSeconds = deltaSeconds &* 1000 == delta && (sameDuration || durationSeconds &* 1000 == duration)
    if wholeSeconds {
      Self.writeVarint(Self.zigzag(deltaSeconds), &out)
      if !sameDuration { Self.writeVarint(UInt64(bitPattern: durationSeconds), &out) }
    } else {
      h.insert(.milliseconds)
      Self.writeVarint(Self.zigzag(delta), &out)
      if !sameDuration { Self.writeVarint(UInt64(bitPattern: duration), &out) }
    }
    if sameDuration { h.insert(.sameDuration) }
    if sample.kind == .steps {
      context.stepsEndMs = sample.endMs
    } else {
      context.distanceEndMs = sample.endMs
    }
    context.durationMs = duration
    h.valueForm = encodeValue(sample.value, kind: sample.kind, &out)
    header.pointee = h.rawValue
    tailUsed += out - begin

    count += 1
    open.minStartMs = min(open.minStartMs, sample.startMs)
    open.maxStartMs = max(open.maxStartMs, sample.startMs)
    open.maxEndMs = max(open.maxEndMs, sample.endMs)
  }

  /// Moves the open block's record among the sealed ones (when a sample is
  /// stored, there is one), with its range of time.
  private mutating func sealOpenBlock() {
    guard count > 0 else { return }
    sealedBlocks.append(open)
    sealedMinStartMs = min(sealedMinStartMs, open.minStartMs)
    sealedMaxEndMs = max(sealedMaxEndMs, open.maxEndMs)
  }

  /// Seals the open block and starts one, in a new chunk when the current
  /// one lacks room for a whole block.
  private mutating func openBlock(at startMs: Int64) {
    sealOpenBlock()
    if let current = tail, current.capacity - tailUsed < Self.maximumBlockBytes {
      startChunk(after: current)
    } else if tail == nil {
      let first = ByteChunk(capacity: Self.smallestChunk)
      tail = first
      tailBase = first.base
    }
    open = BlockInfo(
      chunk: UInt32(fullChunks.count), offset: UInt32(tailUsed), first: count,
      minStartMs: startMs, maxStartMs: startMs, maxEndMs: Int64.min, maxOrigin: 0)
    openRoom = Self.blockCapacity
    context = Context()
  }

  /// Seals `current`, the tail chunk, at what it holds and starts the next
  /// one, four times larger up to ``largestChunk``.
  private mutating func startChunk(after current: ByteChunk) {
    current.count = tailUsed
    seal(current)
    let next = ByteChunk(capacity: min(current.capacity * 4, Self.largestChunk))
    tail = next
    tailBase = next.base
    tailUsed = 0
  }

  /// Keeps `chunk` among the sealed ones: in memory within the budget,
  /// else in the temporary file (in memory after all when that fails).
  private mutating func seal(_ chunk: ByteChunk) {
    if residentBytes + chunk.count > storage.memoryBudget, spillFailure == nil {
      let file: Result<SpillFile, SampleStorageError> =
        spillFile.map { .success($0) }
        ?? SpillFile.create(in: storage.resolvedDirectory)
      switch file.flatMap({ file in file.append(chunk.base, count: chunk.count).map { (file, $0) } }) {
      case .success(let (file, offset)):
        spillFile = file
        fullChunks.append(SealedChunk(memory: nil, fileOffset: offset, count: chunk.count))
        spilledBytes += chunk.count
        return
      case .failure(let failure):
        if case .success(let made) = file { spillFile = made }
        spillFailure = failure
      }
    }
    fullChunks.append(SealedChunk(memory: chunk, fileOffset: -1, count: chunk.count))
    residentBytes += chunk.count
  }

  /// Writes `value` in its shortest exact form and returns the form.
  ///
  /// The two forms nearly every sample takes are tried here, inlined into
  /// ``encode(_:)``: an integer (steps), and a decimal at the scale of the
  /// block's previous one (a run of distances in one unit), with that
  /// scale's factor and power of ten kept at hand (``Context/scaleFactor``,
  /// ``Context/scalePower``). Each returns only where ``encodeValueInFull(_:kind:_:)``
  /// would return the same, from the same arithmetic (dividing or multiplying
  /// by a factor of 1 is exact), so the bytes are the same; anything else
  /// goes there.
  @inline(__always)
  private mutating func encodeValue(
    _ value: Double, kind: QuantityKind, _ out: inout UnsafeMutablePointer<UInt8>
  ) -> SampleHeader.ValueForm {
    if value < Self.exactIntegerLimit, value.sign == .plus {
      // In [0, 2^53): the signed conversions, one instruction each, are exact.
      let integer = Int64(value)
      if Double(integer) == value {
        Self.writeVarint(UInt64(bitPattern: integer), &out)
        return .integer
      }
      if context.scale != 0xFF {
        let scaled = value / context.scaleFactor * context.scalePower
        if scaled < Self.exactIntegerLimit {
          let mantissa = Int64(scaled + 0.5)
          // `mantissa` is below 2^53: the signed conversion gives the unsigned one's double.
          if Double(mantissa) / context.scalePower * context.scaleFactor == value {
            Self.writeVarint(UInt64(bitPattern: mantissa), &out)
            return .decimalAtPreviousScale
          }
        }
      }
    }
    return encodeValueInFull(value, kind: kind, &out)
  }

  /// ``encodeValue(_:kind:_:)`` in full: every form but the whole number
  /// that it writes itself, the search for a scale and unit factor included.
  @inline(never)
  private mutating func encodeValueInFull(
    _ value: Double, kind: QuantityKind, _ out: inout UnsafeMutablePointer<UInt8>
  ) -> SampleHeader.ValueForm {
    // A whole value in [0, 2^53) was written as one by ``encodeValue(_:kind:_:)``, the one caller.
    if value < Self.exactIntegerLimit, value.sign == .plus {
      // A run of decimals in one unit (distances) mostly keeps the scale of the one before: the
      // digits at that scale, when they give exactly `value`, are the ones the search below would
      // find and widen to it, for a multiply and a check instead of the search.
      let previous = context.scale
      if previous != 0xFF {
        let factor = previous >> 4
        let scaled = (factor == 0 ? value : value / Self.unitFactor(factor)) * Self.powerOfTen(previous & 15)
        if scaled < Self.exactIntegerLimit {
          let mantissa = UInt64(bitPattern: Int64(scaled + 0.5))
          if Self.decodeDecimal(mantissa, scale: previous) == value {
            Self.writeVarint(mantissa, &out)
            return .decimalAtPreviousScale
          }
        }
      }
      if let (mantissa, scale) = decimal(value, kind: kind) {
        // The previous scale serves when it has at least as many digits and the same factor.
        if previous != 0xFF, previous >> 4 == scale >> 4, previous & 15 >= scale & 15 {
          let widened = mantissa &* UInt64(Self.powerOfTen(previous & 15 - scale & 15))
          if widened < Self.exactMantissaLimit {
            Self.writeVarint(widened, &out)
            return .decimalAtPreviousScale
          }
        }
        out.pointee = scale
        out += 1
        Self.writeVarint(mantissa, &out)
        context.setScale(scale)
        return .decimalWithScale
      }
    }
    var bits = value.bitPattern.littleEndian
    withUnsafeBytes(of: &bits) {
      UnsafeMutableRawPointer(out).copyMemory(from: $0.baseAddress!, byteCount: 8)
    }
    out += 8
    return .double
  }

  /// A mantissa and scale byte that decode to exactly `value`, or `nil`.
  @inline(__always)
  private mutating func decimal(_ value: Double, kind: QuantityKind) -> (UInt64, UInt8)? {
    // The factor of the block's previous decimal first, so that a run of
    // distances in one unit keeps one scale byte; then none; then the rest.
    let preferred = context.scale != 0xFF ? context.scale >> 4 : factorHint
    if let found = decimal(value, factor: preferred) { return found }
    if preferred != 0, let found = decimal(value, factor: 0) { return found }
    guard kind == .distance else { return nil }
    for factor in 1..<Self.factorCount where factor != preferred {
      if let found = decimal(value, factor: factor) {
        factorHint = factor
        return found
      }
    }
    return nil
  }

  /// A mantissa `m` and scale `k` (at most 9 decimals) with `Double(m) / 10^k`
  /// times the factor equal to `value`, or `nil`.
  @inline(__always)
  private func decimal(_ value: Double, factor: UInt8) -> (UInt64, UInt8)? {
    let scaled = factor == 0 ? value : value / Self.unitFactor(factor)
    // Below 2^53 / 10^9 every candidate mantissa is an exact double.
    guard scaled > 0, scaled < 9_007_199.254_740_992 else { return nil }
    // Below 2^63: the signed conversion is one instruction.
    var mantissa = UInt64(bitPattern: Int64(scaled * 1e9 + 0.5))
    var k: UInt8 = 9
    // Strip trailing zeros: up to two steps of four, then two, then one.
    while k >= 4 && mantissa % 10_000 == 0 {
      mantissa /= 10_000
      k -= 4
    }
    if k >= 2 && mantissa % 100 == 0 {
      mantissa /= 100
      k -= 2
    }
    if k >= 1 && mantissa % 10 == 0 {
      mantissa /= 10
      k -= 1
    }
    let scale = factor << 4 | k
    guard Self.decodeDecimal(mantissa, scale: scale) == value else { return nil }
    return (mantissa, scale)
  }

  @inline(__always)
  static func decodeDecimal(_ mantissa: UInt64, scale: UInt8) -> Double {
    let value = Double(mantissa) / powerOfTen(scale & 15)
    let factor = scale >> 4
    return factor == 0 ? value : value * unitFactor(factor)
  }

  @inline(__always)
  static func zigzag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  @inline(__always)
  static func unzigzag(_ value: UInt64) -> Int64 {
    Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
  }

  @inline(__always)
  static func writeVarint(_ value: UInt64, _ out: inout UnsafeMutablePointer<UInt8>) {
    var p = out
    var v = value
    while v >= 0x80 {
      p.pointee = UInt8(truncatingIfNeeded: v) | 0x80
      p += 1
      v &>>= 7
    }
    p.pointee = UInt8(truncatingIfNeeded: v)
    out = p + 1
  }

  // MARK: - Reading

  /// The index of block `block`'s first sample; ``count`` for `blockCount`.
  @inline(__always)
  func firstSample(ofBlock block: Int) -> Int {
    if block < sealedBlocks.count { return sealedBlocks[block].first }
    return block == sealedBlocks.count ? open.first : count
  }

  /// How many samples block `block` holds.
  @inline(__always)
  func count(ofBlock block: Int) -> Int {
    firstSample(ofBlock: block + 1) - firstSample(ofBlock: block)
  }

  /// The block holding sample `index` (0 ..< ``count``).
  func block(holding index: Int) -> Int {
    if index >= open.first { return sealedBlocks.count }
    // The last sealed block whose first sample is at or before `index`.
    var low = 0
    var high = sealedBlocks.count
    while high - low > 1 {
      let middle = (low + high) / 2
      if sealedBlocks[middle].first <= index { low = middle } else { high = middle }
    }
    return low
  }

  /// Decodes block `block`, whose first byte is at `base`, in order,
  /// handing each sample and its index to `body`.
  @inline(__always)
  func decode<Failure: Error>(
    block: Int, at base: UnsafePointer<UInt8>, _ body: (Int, StoredSample) throws(Failure) -> Void
  ) throws(Failure) {
    var cursor = base
    var context = Context()
    var index = firstSample(ofBlock: block)
    let end = firstSample(ofBlock: block + 1)
    while index < end {
      try body(index, Self.decode(&cursor, &context))
      // No overflow: below `end`.
      index &+= 1
    }
  }

  /// Decodes every sample in order, reading each spilled chunk back whole
  /// into one buffer.
  @inline(__always)
  func decodeAll<Failure: Error>(_ body: (Int, StoredSample) throws(Failure) -> Void) throws(Failure) {
    var buffer: UnsafeMutablePointer<UInt8>?
    defer { buffer?.deallocate() }
    var loaded = -1
    for block in 0..<blockCount {
      // One call of the decoder, so that it is inlined once into the caller's loop.
      var base = memoryBase(ofBlock: block)
      if base == nil {
        let info = info(ofBlock: block)
        let chunk = Int(info.chunk)
        if loaded != chunk {
          _ = readBack(chunk, into: &buffer)
          loaded = chunk
        }
        base = UnsafePointer(buffer.unsafelyUnwrapped + Int(info.offset))
      }
      try decode(block: block, at: base.unsafelyUnwrapped, body)
    }
  }

  /// Reads sealed chunk `chunk`, which is in the temporary file, back whole
  /// into `buffer` (allocated on first use, with room for the largest chunk
  /// and the decoder's slack).
  ///
  /// - Returns: The buffer, and whether the read succeeded (when not,
  ///   ``SpillFile/failure`` says why and the buffer holds what it held).
  func readBack(_ chunk: Int, into buffer: inout UnsafeMutablePointer<UInt8>?)
    -> (bytes: UnsafeMutablePointer<UInt8>, read: Bool)
  {
    let capacity = Self.largestChunk + Self.readSlack
    let bytes = buffer ?? .allocate(capacity: capacity)
    buffer = bytes
    let sealed = fullChunks[chunk]
    let read = spillFile.unsafelyUnwrapped.read(
      into: bytes, count: sealed.count, at: sealed.fileOffset, capacity: capacity)
    return (bytes, read)
  }

  /// The sample at `index`.
  func sample(at index: Int) -> StoredSample {
    precondition(index >= 0 && index < count, "sample index \(index) out of range 0..<\(count)")
    let block = block(holding: index)
    var buffer: UnsafeMutablePointer<UInt8>?
    defer { buffer?.deallocate() }
    var cursor: UnsafePointer<UInt8>
    if let base = memoryBase(ofBlock: block) {
      cursor = base
    } else {
      let info = info(ofBlock: block)
      let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.maximumBlockBytes + Self.readSlack)
      buffer = bytes
      spillFile.unsafelyUnwrapped.read(
        into: bytes, count: byteCount(ofBlock: block),
        at: fullChunks[Int(info.chunk)].fileOffset + Int64(info.offset),
        capacity: Self.maximumBlockBytes + Self.readSlack)
      cursor = UnsafePointer(bytes)
    }
    var context = Context()
    var sample = Self.decode(&cursor, &context)
    for _ in 0..<(index - firstSample(ofBlock: block)) { sample = Self.decode(&cursor, &context) }
    return sample
  }

  @inline(__always)
  static func readVarint(_ cursor: inout UnsafePointer<UInt8>) -> UInt64 {
    // Unrolled for the one- to three-byte values nearly every field takes.
    let p = cursor
    var byte = UInt64(p[0])
    if byte < 0x80 {
      cursor = p + 1
      return byte
    }
    var value = byte & 0x7F
    byte = UInt64(p[1])
    value |= (byte & 0x7F) &<< 7
    if byte < 0x80 {
      cursor = p + 2
      return value
    }
    byte = UInt64(p[2])
    value |= (byte & 0x7F) &<< 14
    if byte < 0x80 {
      cursor = p + 3
      return value
    }
    var at = 3
    var shift: UInt64 = 21
    repeat {
      byte = UInt64(p[at])
      at += 1
      value |= (byte & 0x7F) &<< shift
      shift &+= 7
    } while byte >= 0x80
    cursor = p + at
    return value
  }

  @inline(__always)
  static func decode(_ cursor: inout UnsafePointer<UInt8>, _ context: inout Context) -> StoredSample {
    let h = SampleHeader(rawValue: cursor.pointee)
    cursor += 1
    if h.contains(.originFollows) { context.origin = UInt16(truncatingIfNeeded: readVarint(&cursor)) }
    if h.contains(.offsetFollows) {
      context.offsetMinutes = Int16(truncatingIfNeeded: unzigzag(readVarint(&cursor)))
    }
    let unit: Int64 = h.contains(.milliseconds) ? 1 : 1000
    let isSteps = !h.contains(.distance)
    let startMs =
      (isSteps ? context.stepsEndMs : context.distanceEndMs) &+ unzigzag(readVarint(&cursor)) &* unit
    if !h.contains(.sameDuration) { context.durationMs = Int64(bitPattern: readVarint(&cursor)) &* unit }
    let endMs = startMs &+ context.durationMs
    if isSteps { context.stepsEndMs = endMs } else { context.distanceEndMs = endMs }
    let value: Double
    // Tested in order of frequency (integers, then decimals at the previous
    // scale) rather than through a jump table.
    let valueForm = h.valueForm
    if valueForm == .integer {
      value = double(readVarint(&cursor))
    } else if valueForm == .decimalAtPreviousScale {
      value = context.decimal(readVarint(&cursor))
    } else if valueForm == .decimalWithScale {
      context.setScale(cursor.pointee)
      cursor += 1
      value = context.decimal(readVarint(&cursor))
    } else {
      var bits: UInt64 = 0
      withUnsafeMutableBytes(of: &bits) {
        $0.copyMemory(from: UnsafeRawBufferPointer(start: cursor, count: 8))
      }
      cursor += 8
      value = Double(bitPattern: UInt64(littleEndian: bits))
    }
    return StoredSample(
      startMs: startMs, endMs: endMs, value: value,
      origin: context.origin, offsetMinutes: context.offsetMinutes,
      kind: isSteps ? .steps : .distance, isUserEntered: h.contains(.userEntered))
  }
}

// MARK: - Joining

extension SampleStore {
  /// Appends `other`'s samples after this store's, in their order, moving
  /// its blocks as they are encoded wherever their origins keep their
  /// numbers here.
  ///
  /// Origins below `keptOrigins` have the same number in both stores; a
  /// block naming only those (``BlockInfo/maxOrigin``) is copied byte for
  /// byte, with its first sample's index and its chunk moved. Any other block
  /// is copied too, each origin `o` it names written over as `renumber(o)`,
  /// when every new number takes as many bytes as the old; otherwise it is
  /// decoded and its samples encoded again with the new numbers. A sample
  /// `renumber` gives no number is dropped and counted in the result.
  ///
  /// The block open here is closed first (the next sample appended opens a
  /// new one), and so is the last one moved: blocks may be less than full.
  /// Chunks fill and seal as appending fills them, spilling past the budget;
  /// a spilled chunk of `other` is read back whole, one at a time.
  ///
  /// - Returns: How many samples were dropped.
  mutating func append(
    contentsOf other: SampleStore, keptOrigins: Int, renumber: (UInt16) -> UInt16?
  ) -> Int {
    guard other.count > 0 else { return 0 }
    openRoom = 0
    flushPendingSpan()
    for (span, count) in other.orderedStartCounts { addStartCount(count, toSpan: span) }
    var dropped = 0
    var buffer: UnsafeMutablePointer<UInt8>?
    defer { buffer?.deallocate() }
    let blockTotal = other.blockCount
    var block = 0
    while block < blockTotal {
      // The run of blocks in `block`'s chunk, and that chunk's bytes.
      let chunk = other.info(ofBlock: block).chunk
      var runEnd = block + 1
      while runEnd < blockTotal && other.info(ofBlock: runEnd).chunk == chunk { runEnd += 1 }
      let base: UnsafePointer<UInt8>
      let chunkBytes: Int
      if Int(chunk) < other.fullChunks.count {
        let sealed = other.fullChunks[Int(chunk)]
        chunkBytes = sealed.count
        if let memory = sealed.memory {
          base = UnsafePointer(memory.base)
        } else {
          let (bytes, read) = other.readBack(Int(chunk), into: &buffer)
          if !read { movedReadFailure = movedReadFailure ?? other.spillFile?.failure }
          base = UnsafePointer(bytes)
        }
      } else {
        base = UnsafePointer(other.tailBase)
        chunkBytes = other.tailUsed
      }
      func end(ofBlock block: Int) -> Int {
        block + 1 < runEnd ? Int(other.info(ofBlock: block + 1).offset) : chunkBytes
      }
      var next = block
      while next < runEnd {
        let info = other.info(ofBlock: next)
        if Int(info.maxOrigin) >= keptOrigins {
          let bytes = base + Int(info.offset)
          if !appendPatched(
            other, block: next, at: bytes, byteCount: end(ofBlock: next) - Int(info.offset),
            renumber: renumber)
          {
            dropped += appendRenumbered(other, block: next, at: bytes, renumber: renumber)
          }
          next += 1
          continue
        }
        // As many blocks as the tail can take at once, from one whose origins all keep their numbers.
        makeRoom(end(ofBlock: next) - Int(info.offset))
        let room = tail.unsafelyUnwrapped.capacity - tailUsed
        var last = next + 1
        while last < runEnd, Int(other.info(ofBlock: last).maxOrigin) < keptOrigins,
          end(ofBlock: last) - Int(info.offset) <= room
        {
          last += 1
        }
        let runStart = Int(info.offset)
        let bytes = end(ofBlock: last - 1) - runStart
        (tailBase + tailUsed).update(from: base + runStart, count: bytes)
        for moved in next..<last {
          var copy = other.info(ofBlock: moved)
          copy.chunk = UInt32(fullChunks.count)
          copy.offset = UInt32(tailUsed + Int(copy.offset) - runStart)
          copy.first = count
          sealOpenBlock()
          open = copy
          count += other.count(ofBlock: moved)
        }
        tailUsed += bytes
        next = last
      }
      block = runEnd
    }
    openRoom = 0
    _checkInvariants(sealedBlocksFrom: 0)
    return dropped
  }

  /// Makes sure the tail chunk is this store's own and has `bytes` free,
  /// sealing it and starting the next when it has not.
  private mutating func makeRoom(_ bytes: Int) {
    // Asked before `tail` is bound to a name of its own, which would hold a second reference.
    let unique = isKnownUniquelyReferenced(&tail)
    guard let current = tail else {
      let first = ByteChunk(capacity: Self.smallestChunk)
      tail = first
      tailBase = first.base
      return
    }
    if current.capacity - tailUsed < bytes {
      startChunk(after: current)
    } else if !unique {
      let copy = current.copy(count: tailUsed)
      tail = copy
      tailBase = copy.base
    }
  }

  /// Appends `other`'s block `block`, its `byteCount` bytes at `base`, as a
  /// block of its own, copied byte for byte but for the origins its samples
  /// name, each `o` written over as `renumber(o)`: what decoding the block
  /// and encoding its samples again gives, for a walk over their fields.
  ///
  /// - Returns: `false`, having appended nothing, when that cannot be done
  ///   in place: a new number that takes more or fewer bytes than the old,
  ///   a sample `renumber` gives no number, or origin 0 renumbered (a
  ///   block's first samples name it without writing it).
  private mutating func appendPatched(
    _ other: SampleStore, block: Int, at base: UnsafePointer<UInt8>, byteCount: Int,
    renumber: (UInt16) -> UInt16?
  ) -> Bool {
    guard renumber(0) == 0 else { return false }
    makeRoom(byteCount)
    let copy = tailBase + tailUsed
    copy.update(from: base, count: byteCount)
    var cursor = UnsafePointer(copy)
    var maxOrigin: UInt16 = 0
    let samples = other.count(ofBlock: block)
    for _ in 0..<samples {
      let h = SampleHeader(rawValue: cursor.pointee)
      cursor += 1
      if h.contains(.originFollows) {
        let field = UnsafeMutablePointer(mutating: cursor)
        let old = Self.readVarint(&cursor)
        guard let new = renumber(UInt16(truncatingIfNeeded: old)) else { return false }
        var out = field
        Self.writeVarint(UInt64(new), &out)
        // Bytes past the field may have been written over: the block is dropped, never read.
        guard out == UnsafeMutablePointer(mutating: cursor) else { return false }
        maxOrigin = max(maxOrigin, new)
      }
      if h.contains(.offsetFollows) { _ = Self.readVarint(&cursor) }
      _ = Self.readVarint(&cursor)
      if !h.contains(.sameDuration) { _ = Self.readVarint(&cursor) }
      switch h.valueForm {
      case .integer, .decimalAtPreviousScale: _ = Self.readVarint(&cursor)
      case .decimalWithScale:
        cursor += 1
        _ = Self.readVarint(&cursor)
      case .double: cursor += 8
      }
    }
    var moved = other.info(ofBlock: block)
    moved.chunk = UInt32(fullChunks.count)
    moved.offset = UInt32(tailUsed)
    moved.first = count
    moved.maxOrigin = maxOrigin
    sealOpenBlock()
    open = moved
    count += samples
    tailUsed += byteCount
    return true
  }

  /// Appends the samples of `other`'s block `block`, whose bytes start at
  /// `base`, as a block of their own, their origins renumbered.
  ///
  /// - Returns: How many were dropped, `renumber` giving them no number.
  private mutating func appendRenumbered(
    _ other: SampleStore, block: Int, at base: UnsafePointer<UInt8>, renumber: (UInt16) -> UInt16?
  ) -> Int {
    openRoom = 0
    var dropped = 0
    var cursor = base
    var decoding = Context()
    for _ in 0..<other.count(ofBlock: block) {
      var sample = Self.decode(&cursor, &decoding)
      guard let origin = renumber(sample.origin) else {
        dropped += 1
        uncountStart(sample.startMs)
        continue
      }
      sample.origin = origin
      encode(sample)
    }
    openRoom = 0
    return dropped
  }
}

// MARK: - Invariants

extension SampleStore {
  /// Checks the store's records against one another (with
  /// `STEPKIT_INTERNAL_CHECKS`; nothing otherwise): the block table, the
  /// chunks and the counts that the unsafe encoder and decoder rely on.
  ///
  /// - Parameter first: The first sealed block to check (the open block and
  ///   the chunks are always checked): each append checks what it changed.
  @inline(__always)
  func _checkInvariants(sealedBlocksFrom first: Int = 0) {
    #if STEPKIT_INTERNAL_CHECKS
      _checkInvariantsInFull(sealedBlocksFrom: first)
    #endif
  }

  #if STEPKIT_INTERNAL_CHECKS
    @inline(never)
    private func _checkInvariantsInFull(sealedBlocksFrom first: Int) {
      precondition(count >= 0 && tailUsed >= 0, "negative counts")
      if let tail {
        precondition(tailBase == tail.base, "the tail pointer is not the tail chunk's")
        precondition(tailUsed <= tail.capacity, "the tail chunk is written past its capacity")
      } else {
        precondition(count == 0 && tailUsed == 0 && fullChunks.isEmpty, "samples without a chunk")
      }
      var resident = 0
      var spilled = 0
      for chunk in fullChunks {
        precondition(chunk.count >= 0, "a chunk of negative size")
        if let memory = chunk.memory {
          precondition(chunk.fileOffset == -1 && chunk.count <= memory.capacity, "a chunk in memory is wrong")
          resident += chunk.count
        } else {
          precondition(chunk.fileOffset >= 0 && spillFile != nil, "a spilled chunk has no place in the file")
          spilled += chunk.count
        }
      }
      precondition(spilled == spilledBytes, "spilled bytes miscounted")
      precondition(resident <= residentBytes, "resident bytes miscounted")
      guard count > 0 else {
        precondition(sealedBlocks.isEmpty, "blocks without samples")
        return
      }
      precondition(openRoom >= 0 && openRoom <= Self.blockCapacity, "the open block's room is out of range")
      for block in max(0, first - 1)..<blockCount {
        let info = info(ofBlock: block)
        let samples = count(ofBlock: block)
        precondition(block > 0 || info.first == 0, "the first block does not start at sample 0")
        precondition(samples >= 1 && samples <= Self.blockCapacity, "block \(block) holds \(samples) samples")
        precondition(Int(info.chunk) <= fullChunks.count, "block \(block) names a chunk that does not exist")
        let bytes = byteCount(ofBlock: block)
        let chunkBytes = Int(info.chunk) < fullChunks.count ? fullChunks[Int(info.chunk)].count : tailUsed
        precondition(
          bytes >= samples && Int(info.offset) + bytes <= chunkBytes
            && bytes <= samples * Self.maximumSampleBytes,
          "block \(block) lies outside its chunk")
        precondition(info.minStartMs <= info.maxStartMs, "block \(block)'s starts are out of order")
        precondition(info.maxEndMs >= info.maxStartMs, "block \(block) ends before it starts")
      }
    }
  #endif
}
