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
  /// Samples the policy excludes yield nothing. Sources are walked from the
  /// highest rank down; within one source, pieces come in order of start.
  ///
  /// - Parameters:
  ///   - policy: Which samples take part.
  ///   - ranking: How sources are ordered.
  ///   - body: Called once per piece.
  public func forEachMergedPiece(
    policy: CountingPolicy, ranking: SourceRanking, _ body: (MergedPiece) -> Void
  ) {
    let resolved = ResolvedRanking(log: self, ranking: ranking)
    mergePieces(policy: policy, resolved: resolved, body)
  }

  /// The merge itself (COUNTING.md, step 2), specialised for each sink.
  ///
  /// For each kind, the sources are walked from the highest rank down against
  /// `covered`, the union of the intervals of the sources already walked. A
  /// sample with `s < e` yields the parts of `[s, e)` outside `covered`, each
  /// carrying its share of the value; an instant yields its whole value when
  /// it lies outside `covered`. `covered` grows by a source's own union only
  /// after the whole source has been walked, so a source never covers itself.
  @inline(__always)
  func mergePieces(
    policy: CountingPolicy, resolved: ResolvedRanking, _ sink: (MergedPiece) -> Void
  ) {
    let sourceCount = resolved.sourceCount
    guard sourceCount > 0 else { return }
    let order = MergeOrder(log: self, policy: policy, resolved: resolved)
    var covered: [Interval] = []
    var sourceUnion: [Interval] = []
    packed.withUnsafeBufferPointer { samples in
      for kind in QuantityKind.allCases {
        let ranking = resolved[kind]
        covered.removeAll(keepingCapacity: true)
        for rank in 0..<sourceCount {
          let group = order.group(kind: kind, rank: rank)
          guard !group.isEmpty else { continue }
          let source = ranking.sourceOfRank[rank]
          sourceUnion.removeAll(keepingCapacity: true)
          covered.withUnsafeBufferPointer { covered in
            // The first covered interval that ends after the current sample's
            // start; samples come in order of start, so it only moves forward.
            var firstOpen = 0
            for sampleIndex in group {
              let index = Int(sampleIndex)
              let sample = samples[index]
              let start = sample.startMs
              let end = sample.endMs
              while firstOpen < covered.count && covered[firstOpen].end <= start { firstOpen += 1 }
              func emit(_ pieceStart: Int64, _ pieceEnd: Int64, _ value: Double) {
                sink(
                  MergedPiece(
                    sampleIndex: index, kind: kind, startMs: pieceStart, endMs: pieceEnd, value: value,
                    utcOffsetSeconds: sample.offsetMinutes * 60, sourceIndex: source))
              }
              if start == end {
                // An instant counts whole when it lies outside `covered`.
                if firstOpen == covered.count || covered[firstOpen].start > start {
                  emit(start, end, sample.value)
                }
                continue
              }
              Interval.extend(&sourceUnion, with: Interval(start: start, end: end))
              // The uncovered pieces of [start, end), in order.
              let valuePerMs = sample.value / Double(end - start)
              var pieceStart = start
              var next = firstOpen
              while next < covered.count && covered[next].start < end {
                let gap = covered[next]
                if gap.start > pieceStart {
                  emit(pieceStart, gap.start, Double(gap.start - pieceStart) * valuePerMs)
                }
                pieceStart = max(pieceStart, gap.end)
                if pieceStart >= end { break }
                next += 1
              }
              if pieceStart < end {
                // A sample nothing covers carries its value exactly, unscaled.
                let value = pieceStart == start ? sample.value : Double(end - pieceStart) * valuePerMs
                emit(pieceStart, end, value)
              }
            }
          }
          covered = Interval.union(covered, sourceUnion)
        }
      }
    }
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
  static func union(_ a: [Interval], _ b: [Interval]) -> [Interval] {
    if a.isEmpty { return b }
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

/// Step 1 and the walk order of step 2: the indices of the samples the policy
/// admits, grouped by kind and, within a kind, by their source's rank, each
/// group in order of start (a stable counting sort, then a sort only of the
/// groups that need one).
struct MergeOrder {
  /// Sample indices, group after group.
  private var indices: [UInt32]
  /// Where each group starts in ``indices``; one more entry than groups.
  private var groupStart: [Int]
  private let sourceCount: Int

  init(log: SampleLog, policy: CountingPolicy, resolved: ResolvedRanking) {
    let sourceCount = resolved.sourceCount
    self.sourceCount = sourceCount
    let groupCount = QuantityKind.allCases.count * sourceCount
    // Step 1 and the ranks in one table: the group of a sample by its kind,
    // its user-entered flag and its source, -1 when the policy leaves it out.
    // Index: (kind * 2 + userEntered) * sourceCount + source.
    var groupOfClass = [Int32](repeating: -1, count: 4 * sourceCount)
    for kind in QuantityKind.allCases {
      let ranking = resolved[kind]
      for source in 0..<sourceCount {
        for userEntered in [false, true]
        where policy.admits(userEntered: userEntered, sourceClass: ranking.classes[source]) {
          let row = 2 * Int(kind.rawValue) + (userEntered ? 1 : 0)
          groupOfClass[row * sourceCount + source] = Int32(
            Int(kind.rawValue) * sourceCount + ranking.rankOfSource[source])
        }
      }
    }
    // Each sample's group, and how many samples each group holds.
    var groupOfSample = [Int32](repeating: -1, count: log.packed.count)
    var start = [Int](repeating: 0, count: groupCount + 1)
    log.packed.withUnsafeBufferPointer { samples in
      log.originSource.withUnsafeBufferPointer { originSource in
        for index in samples.indices {
          let sample = samples[index]
          let row = 2 * Int(sample.kind.rawValue) + (sample.isUserEntered ? 1 : 0)
          let group = groupOfClass[row * sourceCount + Int(originSource[Int(sample.origin)])]
          groupOfSample[index] = group
          if group >= 0 { start[Int(group) + 1] += 1 }
        }
      }
    }
    for group in 0..<groupCount { start[group + 1] += start[group] }
    // A stable counting sort: file order within each group.
    var indices = [UInt32](repeating: 0, count: start[groupCount])
    var fill = start
    for (index, group) in groupOfSample.enumerated() where group >= 0 {
      indices[fill[Int(group)]] = UInt32(index)
      fill[Int(group)] += 1
    }
    // Samples are nearly always appended in order of start; sort a group only when not.
    log.packed.withUnsafeBufferPointer { samples in
      indices.withUnsafeMutableBufferPointer { indices in
        for group in 0..<groupCount {
          var members = UnsafeMutableBufferPointer(rebasing: indices[start[group]..<start[group + 1]])
          var inOrder = true
          for k in members.indices.dropFirst()
          where samples[Int(members[k - 1])].startMs > samples[Int(members[k])].startMs {
            inOrder = false
            break
          }
          if !inOrder { members.sort { samples[Int($0)].startMs < samples[Int($1)].startMs } }
        }
      }
    }
    self.indices = indices
    groupStart = start
  }

  /// The admitted samples of `kind` from the source at `rank`, in order of start.
  @inline(__always)
  func group(kind: QuantityKind, rank: Int) -> ArraySlice<UInt32> {
    let group = Int(kind.rawValue) * sourceCount + rank
    return indices[groupStart[group]..<groupStart[group + 1]]
  }
}
