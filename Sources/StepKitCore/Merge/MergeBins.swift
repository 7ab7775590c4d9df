/// A span of time the merge works on at once: it owns the samples that start
/// in `[lower, upper)`.
struct MergeBin: Sendable, Equatable {
  /// About how many samples a bin owns: enough that per-bin work is noise,
  /// few enough that one bin's decoded samples (40 bytes each) stay in a
  /// core's own cache while the merge walks them in another order.
  static let targetSamples = 1 << 14

  var lower: Int64
  var upper: Int64
}

extension SampleStore {
  /// Splits all time into consecutive bins that each own about
  /// `targetSamples` samples, judged from how many samples start in each
  /// span of about 70 minutes (``startCounts``): a bin ends at the end of
  /// the span that brings it to the target (so it owns more when one span
  /// alone holds more).
  ///
  /// The counts are exact, so the bins are the same however the samples
  /// were stored (one by one, or as blocks moved from other stores), and so
  /// are the sums a tally adds up bin by bin.
  ///
  /// The first bin starts at `Int64.min` and the last ends at `Int64.max`, so
  /// that every sample has exactly one owner.
  func mergeBins(targetSamples: Int) -> [MergeBin] {
    guard count > targetSamples, minStartMs < maxEndMs else {
      return [MergeBin(lower: .min, upper: .max)]
    }
    let spans = orderedStartCounts
    var bins: [MergeBin] = []
    var lower = Int64.min
    var owned = 0
    // The last span never closes a bin: the last bin runs to the end of time.
    for (span, count) in spans.dropLast() {
      owned += count
      if owned >= targetSamples {
        let upper = (span + 1) << Self.startSpanShift
        bins.append(MergeBin(lower: lower, upper: upper))
        lower = upper
        owned = 0
      }
    }
    bins.append(MergeBin(lower: lower, upper: .max))
    return bins
  }
}

/// Step 1 and the walk order of step 2 as one table: the group of a sample
/// by its kind, user-entered flag and source; -1 when the policy leaves it
/// out. Group `kind * sourceCount + rank` holds the admitted samples of
/// `kind` from the source at `rank`.
struct MergeGroups {
  let sourceCount: Int
  /// Index: `4 * origin + 2 * kind + userEntered`: the group of each class
  /// of sample per origin, so that finding a sample's takes one lookup.
  let groupOfOrigin: [Int32]

  init(log: SampleLog, policy: CountingPolicy, resolved: ResolvedRanking) {
    let sourceCount = resolved.sourceCount
    self.sourceCount = sourceCount
    var table = [Int32](repeating: -1, count: 4 * sourceCount)
    for kind in QuantityKind.allCases {
      let ranking = resolved[kind]
      for source in 0..<sourceCount {
        for userEntered in [false, true]
        where policy.admits(userEntered: userEntered, sourceClass: ranking.classes[source]) {
          let row = 2 * Int(kind.rawValue) + (userEntered ? 1 : 0)
          table[row * sourceCount + source] = Int32(
            Int(kind.rawValue) * sourceCount + ranking.rankOfSource[source])
        }
      }
    }
    groupOfOrigin = log.originSource.flatMap { source in
      (0..<4).map { row in table[row * sourceCount + Int(source)] }
    }
  }

  var groupCount: Int { QuantityKind.allCases.count * sourceCount }

  @inline(__always)
  func group(of sample: StoredSample) -> Int32 {
    // No overflow: an origin is below 2^16, a row below 4.
    let row = 2 &* Int(sample.kind.rawValue) | (sample.isUserEntered ? 1 : 0)
    return groupOfOrigin[Int(sample.origin) &<< 2 | row]
  }
}

/// One admitted sample of a bin, decoded.
struct MergeItem {
  var startMs: Int64
  var endMs: Int64
  var value: Double
  var index: Int
  var group: Int32
  var offsetMinutes: Int16
  /// Whether the bin owns it (emits its pieces); otherwise it only covers.
  var isOwned: Bool

  @inline(__always)
  func piece(_ start: Int64, _ end: Int64, _ value: Double, kind: QuantityKind, source: Int) -> MergedPiece {
    MergedPiece(
      sampleIndex: index, kind: kind, startMs: start, endMs: end, value: value,
      utcOffsetSeconds: Int(offsetMinutes) * 60, sourceIndex: source)
  }
}

/// A bin's items, in a buffer that only grows, up to ``limit``: appending
/// checks only the capacity, not the uniqueness an array checks on every
/// append (one owner, the merge of one part, which frees it with
/// ``deallocate()``). It also counts the items of each group as they come,
/// for the counting sort of ``MergeWork/sortGroups(groupCount:)``.
///
/// A bin whose items would pass the limit (samples that share a start
/// instant cannot be told apart by time: a crafted export holds millions)
/// is marked ``overflowed`` and merged in passes over its samples instead
/// (`SampleLog.mergeInPasses`), so that memory stays bounded.
struct MergeItems {
  /// The most items kept by default (about 2.6 MB), well above a bin's
  /// usual share: once the room reaches the limit, the buffer grows no more.
  static let defaultLimit = 4 * MergeBin.targetSamples
  /// The room past which the buffer does not grow (tests set it low).
  let limit: Int
  private var base: UnsafeMutablePointer<MergeItem>
  private(set) var count = 0
  private var capacity: Int
  /// How many items each group has.
  let groupSizes: UnsafeMutableBufferPointer<Int>
  /// Whether an item like its group's last one (same start, end, offset and
  /// ownership) is added to it rather than kept apart (see ``append(_:)``).
  let combinesAlike: Bool
  /// Each group's last item (`-1`: none yet), when ``combinesAlike``.
  private let lastOfGroup: UnsafeMutableBufferPointer<Int>
  /// Whether an item was turned away since ``removeAll()``, the room being
  /// at ``limit``: the items are then not the bin's, and are not merged.
  private(set) var overflowed = false

  /// An empty buffer with room for `capacity` items of `groupCount` groups.
  ///
  /// - Parameter combinesAlike: Whether alike items of a group become one
  ///   (for sinks that need no piece's sample index).
  ///   - limit: The room past which the buffer does not grow (``overflowed``).
  init(capacity: Int, groupCount: Int, combinesAlike: Bool = false, limit: Int = Self.defaultLimit) {
    self.limit = max(limit, 1)
    self.capacity = min(max(capacity, 16), self.limit)
    base = .allocate(capacity: self.capacity)
    groupSizes = .allocate(capacity: groupCount)
    groupSizes.initialize(repeating: 0)
    self.combinesAlike = combinesAlike
    lastOfGroup = .allocate(capacity: combinesAlike ? groupCount : 0)
    lastOfGroup.initialize(repeating: -1)
  }

  /// Frees the buffer (`MergeItem` holds no references: nothing to deinitialize).
  func deallocate() {
    base.deallocate()
    groupSizes.deallocate()
    lastOfGroup.deallocate()
  }

  /// Forgets every item, keeping the room.
  mutating func removeAll() {
    count = 0
    overflowed = false
    groupSizes.update(repeating: 0)
    if combinesAlike { lastOfGroup.update(repeating: -1) }
  }

  /// Appends `item`, whose group must be one of the buffer's.
  ///
  /// With ``combinesAlike``, an item with the start, end, UTC offset and
  /// ownership of its group's last one adds its value to that one instead:
  /// both yield pieces of the same times, in the same share of their
  /// values, against the same coverage (a source never covers itself), so
  /// the merged sums are the same, and a bin of a million samples sharing a
  /// start instant (copies of one record) takes one item, not a million.
  @inline(__always)
  mutating func append(_ item: MergeItem) {
    let group = Int(item.group)
    if combinesAlike {
      let last = lastOfGroup[group]
      if last >= 0 {
        let kept = base + last
        if kept.pointee.startMs == item.startMs, kept.pointee.endMs == item.endMs,
          kept.pointee.offsetMinutes == item.offsetMinutes, kept.pointee.isOwned == item.isOwned
        {
          kept.pointee.value += item.value
          return
        }
      }
    }
    if count == capacity {
      guard capacity < limit else {
        overflowed = true
        return
      }
      grow()
    }
    // Only a stored item takes later copies: past an overflow, nothing is stored at `count`.
    if combinesAlike { lastOfGroup[group] = count }
    (base + count).initialize(to: item)
    // No overflow: `count` is below `capacity`, a group's size below `count`.
    count &+= 1
    groupSizes[group] &+= 1
  }

  /// Doubles the room, moving the items.
  @inline(never)
  private mutating func grow() {
    let larger = UnsafeMutablePointer<MergeItem>.allocate(capacity: 2 * capacity)
    larger.moveInitialize(from: base, count: count)
    base.deallocate()
    base = larger
    capacity *= 2
  }

  /// The items, valid until the next append.
  var buffer: UnsafeBufferPointer<MergeItem> { UnsafeBufferPointer(start: base, count: count) }
}

/// A bin's samples and their walk order, reused from bin to bin.
struct MergeWork {
  /// The bin's items; ``MergeItems/deallocate()`` frees them.
  var items: MergeItems
  /// Item indices, group after group, each group in order of start (then of
  /// the log, for equal starts).
  var order: [Int32] = []
  /// Where each group starts in ``order``; one more entry than groups.
  var groupStart: [Int] = []
  /// The latest end of the samples the bin owns, or its upper bound if
  /// later: the bin also reads the samples that start before it for coverage.
  var windowEnd: Int64 = 0

  /// Fills ``order`` and ``groupStart`` from ``items``: a counting sort by
  /// group, then a sort of only the groups out of order.
  mutating func sortGroups(groupCount: Int) {
    groupStart.removeAll(keepingCapacity: true)
    groupStart.append(contentsOf: repeatElement(0, count: groupCount + 1))
    order.removeAll(keepingCapacity: true)
    order.append(contentsOf: repeatElement(0, count: items.count))
    let items = self.items.buffer
    order.withUnsafeMutableBufferPointer { order in
      groupStart.withUnsafeMutableBufferPointer { groupStart in
        for group in 0..<groupCount {
          groupStart[group + 1] = groupStart[group] + self.items.groupSizes[group]
        }
        var fill = Array(groupStart.prefix(groupCount))
        // Each group's last member so far, and whether its members came in
        // order (no member precedes the one before it): the common case,
        // which the sort below would leave as it is, so it is skipped.
        var last = [(startMs: Int64, index: Int)](repeating: (.min, .min), count: groupCount)
        var inOrder = [Bool](repeating: true, count: groupCount)
        fill.withUnsafeMutableBufferPointer { fill in
          last.withUnsafeMutableBufferPointer { last in
            inOrder.withUnsafeMutableBufferPointer { inOrder in
              for position in items.indices {
                let item = items[position]
                let group = Int(item.group)
                order[fill[group]] = Int32(truncatingIfNeeded: position)
                fill[group] += 1
                let before = last[group]
                if item.startMs < before.startMs
                  || (item.startMs == before.startMs && item.index < before.index)
                {
                  inOrder[group] = false
                }
                last[group] = (item.startMs, item.index)
              }
            }
          }
        }
        func precedes(_ a: Int32, _ b: Int32) -> Bool {
          let x = items[Int(a)]
          let y = items[Int(b)]
          return x.startMs < y.startMs || (x.startMs == y.startMs && x.index < y.index)
        }
        for group in 0..<groupCount where !inOrder[group] {
          var members = UnsafeMutableBufferPointer(
            rebasing: order[groupStart[group]..<groupStart[group + 1]])
          // A group nearly always comes in order already, or nearly: a
          // source writes a sample a little before one that started
          // earlier. Insertion costs one step per such inversion; past a
          // budget the group is sorted outright.
          var budget = 4 * members.count
          var k = 1
          while k < members.count {
            let member = members[k]
            var at = k
            while at > 0 && precedes(member, members[at - 1]) && budget > 0 {
              members[at] = members[at - 1]
              at -= 1
              budget -= 1
            }
            members[at] = member
            if budget == 0 {
              members.sort(by: precedes)
              break
            }
            k += 1
          }
        }
      }
    }
  }
}

/// A store's blocks in order of earliest start, with the latest end of each
/// leading run of them: built once for a whole tally and shared by its
/// parts, each of which would otherwise sort the block index again.
///
/// It reads the starts and ends from the store's block table rather than
/// keeping a copy of them: blocks mostly come in order of start already
/// (always when the samples do), and then no order is kept either, so
/// what it adds to the table is a word per ``checkpointStride`` blocks.
struct BlocksByStart: Sendable {
  private let blocks: SampleStore.BlockTable
  /// Block indices by earliest start, then by index; empty when that is the
  /// order of the blocks themselves.
  private let order: [Int32]
  /// `checkpoints[j]`: the latest end among the blocks at positions
  /// `0 ..< (j + 1) * checkpointStride` of the order.
  private let checkpoints: [Int64]

  /// Blocks per entry of ``checkpoints``.
  static let checkpointStride = 64

  init(_ blocks: SampleStore.BlockTable) {
    self.blocks = blocks
    var inOrder = true
    var previous = Int64.min
    for block in blocks.indices {
      let start = blocks[block].minStartMs
      if start < previous {
        inOrder = false
        break
      }
      previous = start
    }
    var order: [Int32] = []
    if !inOrder {
      // Indices compared through the table, with no copy of the starts beside them.
      order = blocks.indices.map { Int32(truncatingIfNeeded: $0) }
      order.withUnsafeMutableBufferPointer { order in
        // Blocks come nearly in order of start: a block now and then starts a
        // little before the one ahead of it (a source wrote a sample late).
        // Insertion, which keeps equal starts in order of index, costs one
        // step per such inversion; past a budget the index is sorted outright.
        var budget = 4 * order.count
        var k = 1
        while k < order.count {
          let entry = order[k]
          let start = blocks[Int(entry)].minStartMs
          var at = k
          while at > 0 && start < blocks[Int(order[at - 1])].minStartMs && budget > 0 {
            order[at] = order[at - 1]
            at -= 1
            budget -= 1
          }
          order[at] = entry
          if budget == 0 {
            order.sort { (blocks[Int($0)].minStartMs, $0) < (blocks[Int($1)].minStartMs, $1) }
            break
          }
          k += 1
        }
      }
    }
    self.order = order
    var checkpoints: [Int64] = []
    checkpoints.reserveCapacity(blocks.count / Self.checkpointStride)
    var latest = Int64.min
    for position in blocks.indices {
      latest = max(latest, blocks[order.isEmpty ? position : Int(order[position])].maxEndMs)
      if (position + 1) % Self.checkpointStride == 0 { checkpoints.append(latest) }
    }
    self.checkpoints = checkpoints
  }

  /// How many blocks there are.
  var count: Int { blocks.count }

  /// The block at `position` in order of earliest start.
  @inline(__always)
  func block(at position: Int) -> Int {
    order.isEmpty ? position : Int(order[position])
  }

  /// The earliest start of the block at `position` in order of earliest start.
  @inline(__always)
  func start(at position: Int) -> Int64 {
    blocks[block(at: position)].minStartMs
  }

  /// The latest end of a block whose earliest start lies before `limit`;
  /// `Int64.min` when there is none.
  func latestEnd(ofBlocksStartingBefore limit: Int64) -> Int64 {
    // The first position whose start is not below `limit`.
    var low = 0
    var high = count
    while low < high {
      let middle = low + (high - low) / 2
      if start(at: middle) < limit { low = middle + 1 } else { high = middle }
    }
    let whole = low / Self.checkpointStride
    var latest = whole > 0 ? checkpoints[whole - 1] : Int64.min
    for position in (whole * Self.checkpointStride)..<low {
      latest = max(latest, blocks[block(at: position)].maxEndMs)
    }
    return latest
  }
}

/// Finds, bin after bin in order of time, the samples each bin needs, decoding
/// only the blocks whose range of time can hold one.
struct BinGatherer {
  /// Decodes the blocks, reading spilled ones back a stretch at a time.
  private let store: SampleStore.BlockReader
  private let blocks: SampleStore.BlockTable
  /// The blocks by earliest start.
  private let byStart: BlocksByStart
  private var nextByStart = 0
  /// Blocks whose earliest start lies before the latest window end so far,
  /// less those that end before the current bin, in the log's order: so
  /// that a bin's samples are met in the log's order, whatever the blocks
  /// (the sums added up as they are met then do not depend on them).
  private var active: [Int32] = []

  /// A gatherer over `store`, whose blocks `byStart` orders.
  init(store: SampleStore, byStart: BlocksByStart) {
    self.store = SampleStore.BlockReader(store)
    blocks = store.blocks
    self.byStart = byStart
  }

  /// Admits blocks whose earliest start lies before `limit`, less those that
  /// end before `lower` (which no bin from there on needs: a merge of a
  /// late run of bins then skips the earlier blocks once, not bin by bin).
  private mutating func admit(before limit: Int64, endingFrom lower: Int64) {
    var ordered = true
    while nextByStart < byStart.count && byStart.start(at: nextByStart) < limit {
      let block = Int32(truncatingIfNeeded: byStart.block(at: nextByStart))
      nextByStart += 1
      guard blocks[Int(block)].maxEndMs >= lower else { continue }
      if let last = active.last, last > block { ordered = false }
      active.append(block)
    }
    if !ordered { active.sort() }
  }

  /// Fills `work.items` with the admitted samples `bin` needs: those it owns
  /// (starting inside it), and, for coverage, every other sample with
  /// `s < e` that overlaps `[bin.lower, E)`, `E` the latest end of the owned
  /// ones (or `bin.upper`).
  ///
  /// Every sample the bin owns, admitted or not, is also handed to `owned`
  /// with its index as it is decoded, so that a pass over all samples (the
  /// tally's raw sums) rides along without decoding the blocks again. Each
  /// sample is handed over by exactly one bin.
  @inline(__always)
  mutating func gather(
    _ bin: MergeBin, groups: MergeGroups, into work: inout MergeWork,
    owned ownedSample: (Int, StoredSample) -> Void = { _, _ in }
  ) {
    work.items.removeAll()
    let blocks = self.blocks
    active.removeAll { blocks[Int($0)].maxEndMs < bin.lower }
    admit(before: bin.upper, endingFrom: bin.lower)
    var windowEnd = bin.upper
    // Owned samples, and those that start before the bin and reach into it.
    for block in active {
      let info = blocks[Int(block)]
      guard info.minStartMs < bin.upper, info.maxEndMs >= bin.lower else { continue }
      store.decode(block: Int(block)) { index, sample in
        let owned = sample.startMs >= bin.lower && sample.startMs < bin.upper
        guard owned || (sample.startMs < bin.lower && sample.endMs > bin.lower) else { return }
        if owned { ownedSample(index, sample) }
        let group = groups.group(of: sample)
        guard group >= 0 else { return }
        if owned { windowEnd = max(windowEnd, sample.endMs) }
        work.items.append(item(sample, index: index, group: group, owned: owned))
      }
    }
    work.windowEnd = windowEnd
    guard windowEnd > bin.upper else { return }
    // Samples that start after the bin but cover an owned one's tail.
    admit(before: windowEnd, endingFrom: bin.lower)
    for block in active {
      let info = blocks[Int(block)]
      guard info.minStartMs < windowEnd, info.maxStartMs >= bin.upper, info.maxEndMs > bin.upper else {
        continue
      }
      store.decode(block: Int(block)) { index, sample in
        guard sample.startMs >= bin.upper, sample.startMs < windowEnd, sample.startMs < sample.endMs else {
          return
        }
        let group = groups.group(of: sample)
        guard group >= 0 else { return }
        work.items.append(item(sample, index: index, group: group, owned: false))
      }
    }
  }

  /// Hands `body` the admitted samples that ``gather(_:groups:into:owned:)``
  /// gathered last, for `bin`, in the log's order, each with its index, group
  /// and whether the bin owns it: for a bin merged in passes, whose samples
  /// are read again for each pass rather than kept. `windowEnd` is the
  /// gathering's ``MergeWork/windowEnd``.
  func visit(
    _ bin: MergeBin, windowEnd: Int64, groups: MergeGroups,
    _ body: (_ index: Int, _ sample: StoredSample, _ group: Int32, _ owned: Bool) -> Void
  ) {
    for block in active {
      let info = blocks[Int(block)]
      guard info.minStartMs < max(windowEnd, bin.upper), info.maxEndMs >= bin.lower else { continue }
      store.decode(block: Int(block)) { index, sample in
        let owned = sample.startMs >= bin.lower && sample.startMs < bin.upper
        // As gathered: owned, reaching into the bin from before it, or covering an owned one's tail.
        guard
          owned || (sample.startMs < bin.lower && sample.endMs > bin.lower)
            || (sample.startMs >= bin.upper && sample.startMs < windowEnd && sample.startMs < sample.endMs)
        else { return }
        let group = groups.group(of: sample)
        guard group >= 0 else { return }
        body(index, sample, group, owned)
      }
    }
  }

  @inline(__always)
  func item(_ sample: StoredSample, index: Int, group: Int32, owned: Bool) -> MergeItem {
    MergeItem(
      startMs: sample.startMs, endMs: sample.endMs, value: sample.value, index: index, group: group,
      offsetMinutes: sample.offsetMinutes, isOwned: owned)
  }
}
