/// A part of a sample that counts after the merge (COUNTING.md, step 2).
///
/// A sample with `start < end` yields one piece per stretch of its interval
/// that no higher-ranked source covers, each carrying the value in proportion
/// to its length. An instant (`start == end`) yields itself, whole, when it
/// lies outside the higher-ranked coverage.
public struct MergedPiece: Sendable, Hashable {
  /// The index of the sample in its ``SampleLog``.
  public var sampleIndex: Int
  /// What the sample measures.
  public var kind: QuantityKind
  /// The piece's start, milliseconds since 1970.
  public var startMs: EpochMilliseconds
  /// The piece's end (equal to the start for an instant).
  public var endMs: EpochMilliseconds
  /// The value the piece carries (steps, or metres).
  public var value: Double
  /// The UTC offset recorded with the sample's start, seconds.
  public var utcOffsetSeconds: Int
  /// The index of the sample's source in ``SampleLog/sourceNames``.
  public var sourceIndex: Int
}

/// The ranking of a log's sources for one quantity kind.
struct KindRanking {
  /// Per source index: its default class for the kind.
  var classes: [SourceClass]
  /// Per source index: its rank, 0 = highest.
  var rankOfSource: [Int]
  /// Per rank: the source index.
  var sourceOfRank: [Int]

  init(log: SampleLog, kind: QuantityKind, ranking: SourceRanking) {
    classes = log.sourceClasses(for: kind)
    let names = log.sourceNames
    rankOfSource = ranking.ranks(of: zip(names, classes).map { (name: $0, sourceClass: $1) })
    sourceOfRank = [Int](repeating: 0, count: names.count)
    for (source, rank) in rankOfSource.enumerated() { sourceOfRank[rank] = source }
  }
}

/// The ranking of a log's sources, resolved separately for each kind
/// (COUNTING.md, step 2: the Health app keeps one list per data type).
struct ResolvedRanking {
  /// The ranking of step sources.
  var steps: KindRanking
  /// The ranking of distance sources.
  var distance: KindRanking

  init(log: SampleLog, ranking: SourceRanking) {
    steps = KindRanking(log: log, kind: .steps, ranking: ranking)
    distance = KindRanking(log: log, kind: .distance, ranking: ranking)
  }

  /// How many sources there are.
  var sourceCount: Int { steps.rankOfSource.count }

  /// The ranking for `kind`.
  subscript(kind: QuantityKind) -> KindRanking { kind == .steps ? steps : distance }
}

extension SampleLog {
  /// Runs the priority merge and hands every counted piece to `body`.
  ///
  /// Samples the policy excludes yield nothing. The log is merged span of
  /// time by span of time (about 16 384 samples each, in order of time; a
  /// smaller log is one span). Within a span, sources are walked from the
  /// highest rank down, and within one source, pieces come in order of start.
  ///
  /// - Parameters:
  ///   - policy: Which samples take part.
  ///   - ranking: How sources are ordered.
  ///   - body: Called once per piece.
  public func forEachMergedPiece(
    policy: CountingPolicy, ranking: SourceRanking, _ body: (MergedPiece) -> Void
  ) {
    forEachMergedPiece(policy: policy, ranking: ranking, samplesPerBin: MergeBin.targetSamples, body)
  }

  /// ``forEachMergedPiece(policy:ranking:_:)`` with spans of about
  /// `samplesPerBin` samples (tests compare spans of every size).
  func forEachMergedPiece(
    policy: CountingPolicy, ranking: SourceRanking, samplesPerBin: Int, _ body: (MergedPiece) -> Void
  ) {
    forEachMergedPiece(
      policy: policy, ranking: ranking, bins: store.mergeBins(targetSamples: samplesPerBin), body)
  }

  /// ``forEachMergedPiece(policy:ranking:_:)`` over the given bins (tests
  /// place bin edges where they choose).
  func forEachMergedPiece(
    policy: CountingPolicy, ranking: SourceRanking, bins: [MergeBin], _ body: (MergedPiece) -> Void
  ) {
    precondition(bins.first?.lower == .min && bins.last?.upper == .max, "bins must cover all time")
    let resolved = ResolvedRanking(log: self, ranking: ranking)
    mergePieces(
      policy: policy, resolved: resolved, bins: bins[...], blocks: BlocksByStart(store.blocks), body)
  }

  /// The merge itself (COUNTING.md, step 2), specialised for each sink.
  ///
  /// The log is merged one span of time (a ``MergeBin``) at a time, so that
  /// only one span's samples are ever decoded at once. A bin *owns* the
  /// samples that start inside it and emits their pieces; to find them it
  /// also reads, for coverage only, every sample that overlaps the owned
  /// ones. A piece depends only on the intervals that overlap its sample, so
  /// the pieces are exactly those of one merge over the whole log.
  ///
  /// Within a bin, for each kind, the sources are walked from the highest
  /// rank down against `covered`, the union of the intervals of the sources
  /// already walked. A sample with `s < e` yields the parts of `[s, e)`
  /// outside `covered`, each carrying its share of the value; an instant
  /// yields its whole value when it lies outside `covered`. `covered` grows by
  /// a source's own union only after the whole source has been walked, so a
  /// source never covers itself.
  ///
  /// `bins` may be any run of consecutive bins: the pieces are those of the
  /// samples they own; `blocks` orders the log's blocks (shared by the runs
  /// of one tally). Every sample they own, admitted by the policy or not,
  /// is also handed to `owned` (see ``BinGatherer/gather(_:groups:into:owned:)``),
  /// bin by bin, before that bin's pieces.
  ///
  /// With `combinesAlike`, samples of one source and kind with the same
  /// start, end and UTC offset are merged as one sample holding their sum
  /// (``MergeItems/append(_:)``): the same pieces, each handed out once with
  /// the first one's index, so a bin's memory follows its distinct samples,
  /// not its copies. A sink that needs every sample's own piece (what each
  /// sample counted for) passes `false`. A bin that gathers more than
  /// `itemLimit` items is merged in passes (``mergeInPasses(_:windowEnd:gatherer:groups:resolved:_:)``).
  @inline(__always)
  func mergePieces(
    policy: CountingPolicy, resolved: ResolvedRanking, bins: ArraySlice<MergeBin>, blocks: BlocksByStart,
    combinesAlike: Bool = false, itemLimit: Int = MergeItems.defaultLimit,
    owned: (Int, StoredSample) -> Void = { _, _ in }, _ sink: (MergedPiece) -> Void
  ) {
    let sourceCount = resolved.sourceCount
    guard sourceCount > 0, count > 0 else { return }
    let groups = MergeGroups(log: self, policy: policy, resolved: resolved)
    var gatherer = BinGatherer(store: store, byStart: blocks)
    // A bin gathers about the samples it owns and those that overlap them:
    // room for twice the target, so that the first bins do not grow it step by step.
    var work = MergeWork(
      items: MergeItems(
        capacity: min(count, 2 * MergeBin.targetSamples), groupCount: groups.groupCount,
        combinesAlike: combinesAlike, limit: itemLimit))
    defer { work.items.deallocate() }
    for bin in bins {
      gatherer.gather(bin, groups: groups, into: &work, owned: owned)
      if _slowPath(work.items.overflowed) {
        mergeInPasses(
          bin, windowEnd: work.windowEnd, gatherer: gatherer, groups: groups, resolved: resolved, sink)
        continue
      }
      work.sortGroups(groupCount: groups.groupCount)
      merge(work, groups: groups, resolved: resolved, sink)
    }
  }

  /// Merges a bin whose samples are too many to keep (``MergeItems/overflowed``:
  /// samples sharing a start instant, which no span of time tells apart),
  /// reading them again for each pass instead of keeping them.
  ///
  /// The first pass takes each group's union of intervals (small however
  /// many samples share a start: they overlap); then, for each kind, the
  /// sources are walked from the highest rank down, as ``merge(_:groups:resolved:_:)``
  /// walks them, and each source that owns samples here takes one more pass
  /// that hands out its owned samples' pieces against the union of the
  /// sources above it. The pieces are the ones the bin would give merged at
  /// once; a source's come in the log's order rather than by start.
  @inline(never)
  private func mergeInPasses(
    _ bin: MergeBin, windowEnd: Int64, gatherer: BinGatherer, groups: MergeGroups, resolved: ResolvedRanking,
    _ sink: (MergedPiece) -> Void
  ) {
    var unions = [IntervalUnion](repeating: IntervalUnion(), count: groups.groupCount)
    var owns = [Bool](repeating: false, count: groups.groupCount)
    gatherer.visit(bin, windowEnd: windowEnd, groups: groups) { _, sample, group, owned in
      if owned { owns[Int(group)] = true }
      if sample.startMs != sample.endMs { unions[Int(group)].insert(sample.startMs, sample.endMs) }
    }
    let sourceCount = resolved.sourceCount
    for kind in QuantityKind.allCases {
      let ranking = resolved[kind]
      var covered: [Interval] = []
      for rank in 0..<sourceCount {
        let group = Int(kind.rawValue) * sourceCount + rank
        if owns[group] {
          let source = ranking.sourceOfRank[rank]
          covered.withUnsafeBufferPointer { covered in
            gatherer.visit(bin, windowEnd: windowEnd, groups: groups) { index, sample, sampleGroup, owned in
              guard owned, Int(sampleGroup) == group else { return }
              let item = gatherer.item(sample, index: index, group: sampleGroup, owned: true)
              // The first covered interval that ends after the sample's start.
              let firstOpen = covered.firstIndex(whereKey: \.end, isNotBelow: sample.startMs &+ 1)
              item.emitPieces(covered: covered, from: firstOpen, kind: kind, source: source, sink)
            }
          }
        }
        if !unions[group].intervals.isEmpty {
          covered = unions[group].intervals.withUnsafeBufferPointer { Interval.union(covered, $0) }
        }
      }
    }
  }

  /// Merges one bin's gathered samples, emitting the pieces of those it owns.
  @inline(__always)
  private func merge(
    _ work: MergeWork, groups: MergeGroups, resolved: ResolvedRanking, _ sink: (MergedPiece) -> Void
  ) {
    let sourceCount = resolved.sourceCount
    var covered: [Interval] = []
    let items = work.items.buffer
    // One source's union, which has no more intervals than the source has
    // samples: a buffer of that room, appended to without the checks of an array.
    let sourceUnion = UnsafeMutablePointer<Interval>.allocate(capacity: max(1, items.count))
    defer { sourceUnion.deallocate() }
    var unionCount = 0
    work.order.withUnsafeBufferPointer { order in
      for kind in QuantityKind.allCases {
        let ranking = resolved[kind]
        covered.removeAll(keepingCapacity: true)
        for rank in 0..<sourceCount {
          let group = Int(kind.rawValue) * sourceCount + rank
          let members = work.groupStart[group]..<work.groupStart[group + 1]
          guard !members.isEmpty else { continue }
          let source = ranking.sourceOfRank[rank]
          unionCount = 0
          covered.withUnsafeBufferPointer { covered in
            // The first covered interval that ends after the current sample's
            // start; samples come in order of start, so it only moves forward.
            var firstOpen = 0
            // The last interval of `sourceUnion`, held here until one
            // starts after it: a source's samples mostly follow on one
            // another, each then only moving its end.
            var pending = Interval(start: 0, end: 0)
            var hasPending = false
            @inline(__always) func keepPending() {
              (sourceUnion + unionCount).initialize(to: pending)
              unionCount &+= 1
            }
            /// Adds `[start, end)` (in order of start) to the source's union.
            @inline(__always) func extendUnion(_ start: Int64, _ end: Int64) {
              if hasPending && start <= pending.end {
                if end > pending.end { pending.end = end }
              } else {
                if hasPending { keepPending() }
                pending = Interval(start: start, end: end)
                hasPending = true
              }
            }
            defer { if hasPending { keepPending() } }
            if covered.isEmpty {
              // The first source of the kind with samples here: nothing
              // covers it, so every sample it owns counts whole, unscaled;
              // only its union is kept, for the sources below.
              for position in members {
                let sample = items[Int(order[position])]
                let start = sample.startMs
                let end = sample.endMs
                if start != end { extendUnion(start, end) }
                if sample.isOwned { sink(sample.piece(start, end, sample.value, kind: kind, source: source)) }
              }
              return
            }
            for position in members {
              let sample = items[Int(order[position])]
              let start = sample.startMs
              let end = sample.endMs
              while firstOpen < covered.count && covered[firstOpen].end <= start { firstOpen += 1 }
              if start != end { extendUnion(start, end) }
              guard sample.isOwned else { continue }
              sample.emitPieces(covered: covered, from: firstOpen, kind: kind, source: source, sink)
            }
          }
          covered = Interval.union(covered, UnsafeBufferPointer(start: sourceUnion, count: unionCount))
        }
      }
    }
  }
}

extension MergeItem {
  /// Hands `sink` the pieces of this owned sample outside `covered` (sorted,
  /// disjoint intervals of the sources above its own), `firstOpen` being
  /// the first of them that ends after its start: an instant whole when it
  /// lies outside them, an interval's uncovered stretches in order, each
  /// with its share of the value.
  @inline(__always)
  func emitPieces(
    covered: UnsafeBufferPointer<Interval>, from firstOpen: Int, kind: QuantityKind, source: Int,
    _ sink: (MergedPiece) -> Void
  ) {
    let start = startMs
    let end = endMs
    if start == end {
      // An instant counts whole when it lies outside `covered`.
      if firstOpen == covered.count || covered[firstOpen].start > start {
        sink(piece(start, end, value, kind: kind, source: source))
      }
      return
    }
    if firstOpen == covered.count || covered[firstOpen].start >= end {
      // Nothing covers it (the common case): its value whole, unscaled.
      sink(piece(start, end, value, kind: kind, source: source))
      return
    }
    // The uncovered pieces of [start, end), in order.
    let valuePerMs = value / Double(end - start)
    var pieceStart = start
    var next = firstOpen
    while next < covered.count && covered[next].start < end {
      // The stretch before this covered interval is uncovered.
      let cover = covered[next]
      if cover.start > pieceStart {
        sink(
          piece(
            pieceStart, cover.start, Double(cover.start - pieceStart) * valuePerMs, kind: kind, source: source
          ))
      }
      pieceStart = max(pieceStart, cover.end)
      if pieceStart >= end { break }
      next += 1
    }
    if pieceStart < end {
      // A sample nothing covers carries its value exactly, unscaled.
      let value = pieceStart == start ? self.value : Double(end - pieceStart) * valuePerMs
      sink(piece(pieceStart, end, value, kind: kind, source: source))
    }
  }
}

/// The union of intervals added in any order, kept as sorted, disjoint
/// intervals (touching ones joined); adding one that starts at or after the
/// last one's start, the usual case, costs no search.
struct IntervalUnion {
  private(set) var intervals: [Interval] = []

  /// Adds `[start, end)`.
  mutating func insert(_ start: Int64, _ end: Int64) {
    if let last = intervals.last, start >= last.start {
      if start <= last.end {
        if end > last.end { intervals[intervals.count - 1].end = end }
      } else {
        intervals.append(Interval(start: start, end: end))
      }
      return
    }
    // The intervals that overlap or touch it become one.
    let low = intervals.firstIndex(whereKey: \.end, isNotBelow: start)
    var high = low
    while high < intervals.count && intervals[high].start <= end { high += 1 }
    guard low < high else {
      intervals.insert(Interval(start: start, end: end), at: low)
      return
    }
    let joined = Interval(start: min(start, intervals[low].start), end: max(end, intervals[high - 1].end))
    intervals.replaceSubrange(low..<high, with: CollectionOfOne(joined))
  }
}

/// A half-open interval `[start, end)` of milliseconds since 1970.
struct Interval: Equatable {
  var start: Int64
  var end: Int64

  /// Adds `interval` to `union`, a sorted list of disjoint intervals, when
  /// `interval` starts no earlier than the last one.
  @inline(__always)
  static func extend(_ union: inout [Interval], with interval: Interval) {
    if let last = union.last, interval.start <= last.end {
      if interval.end > last.end { union[union.count - 1].end = interval.end }
    } else {
      union.append(interval)
    }
  }

  /// The union of two sorted lists of disjoint intervals.
  static func union(_ a: [Interval], _ b: UnsafeBufferPointer<Interval>) -> [Interval] {
    if a.isEmpty { return Array(b) }
    if b.isEmpty { return a }
    var result: [Interval] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if j == b.count || (i < a.count && a[i].start <= b[j].start) {
        extend(&result, with: a[i])
        i += 1
      } else {
        extend(&result, with: b[j])
        j += 1
      }
    }
    return result
  }
}
