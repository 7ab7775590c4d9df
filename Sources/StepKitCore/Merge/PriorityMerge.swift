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

/// The ranking of a log's sources, resolved for one policy.
struct ResolvedRanking {
  /// Per source index: its default class.
  var classes: [SourceClass]
  /// Per source index: its rank, 0 = highest.
  var rankOfSource: [Int]
  /// Per rank: the source index.
  var sourceOfRank: [Int]

  init(log: SampleLog, ranking: SourceRanking) {
    classes = log.sourceClasses
    let names = log.sourceNames
    rankOfSource = ranking.ranks(of: Array(zip(names, classes)).map { (name: $0.0, sourceClass: $0.1) })
    sourceOfRank = [Int](repeating: 0, count: names.count)
    for (source, rank) in rankOfSource.enumerated() { sourceOfRank[rank] = source }
  }
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
    mergePieces(policy: policy, resolved: resolved) { index, kind, start, end, value, offset, source in
      body(
        MergedPiece(
          sampleIndex: index, kind: kind, startMs: start, endMs: end, value: value,
          utcOffsetSeconds: offset, sourceIndex: source))
    }
  }

  /// The merge itself, specialised for each sink.
  ///
  /// Admitted samples are grouped by kind and source rank with a stable
  /// counting sort; each source's samples are walked in order of start
  /// against `covered`, the sorted union of the intervals of the sources
  /// already walked, which grows by the source's own union afterwards.
  @inline(__always)
  func mergePieces(
    policy: CountingPolicy, resolved: ResolvedRanking,
    _ sink: (
      _ sampleIndex: Int, _ kind: QuantityKind, _ startMs: Int64, _ endMs: Int64, _ value: Double,
      _ utcOffsetSeconds: Int, _ sourceIndex: Int
    ) -> Void
  ) {
    let sourceCount = resolved.rankOfSource.count
    guard sourceCount > 0 else { return }
    let groupCount = 2 * sourceCount
    // Group key: kind * sourceCount + rank; -1 for samples the policy excludes.
    var admittedPolicy = [Bool](repeating: false, count: 2 * sourceCount)  // [userEntered * S + source]
    for source in 0..<sourceCount {
      admittedPolicy[source] = policy.admits(userEntered: false, sourceClass: resolved.classes[source])
      admittedPolicy[sourceCount + source] = policy.admits(
        userEntered: true, sourceClass: resolved.classes[source])
    }
    var groupStart = [Int](repeating: 0, count: groupCount + 1)
    let originSource = self.originSource
    let rankOfSource = resolved.rankOfSource
    packed.withUnsafeBufferPointer { samples in
      var keys = [Int32](repeating: -1, count: samples.count)
      keys.withUnsafeMutableBufferPointer { keys in
        for i in 0..<samples.count {
          let p = samples[i]
          let source = Int(originSource[Int(p.origin)])
          guard admittedPolicy[(p.isUserEntered ? sourceCount : 0) + source] else { continue }
          let key = Int(p.bits & 1) * sourceCount + rankOfSource[source]
          keys[i] = Int32(key)
          groupStart[key + 1] += 1
        }
        for g in 0..<groupCount { groupStart[g + 1] += groupStart[g] }
        var order = [UInt32](repeating: 0, count: groupStart[groupCount])
        var fill = groupStart
        order.withUnsafeMutableBufferPointer { order in
          for i in 0..<samples.count where keys[i] >= 0 {
            let g = Int(keys[i])
            order[fill[g]] = UInt32(i)
            fill[g] += 1
          }
          var covered: [Int64] = []  // flattened [start0, end0, start1, end1, …], disjoint, sorted
          var union: [Int64] = []
          for g in 0..<groupCount {
            if g % sourceCount == 0 { covered.removeAll(keepingCapacity: true) }
            let lower = groupStart[g]
            let upper = groupStart[g + 1]
            guard lower < upper else { continue }
            var group = UnsafeMutableBufferPointer(rebasing: order[lower..<upper])
            var sorted = true
            for k in 1..<max(group.count, 1)
            where samples[Int(group[k - 1])].startMs > samples[Int(group[k])].startMs {
              sorted = false
              break
            }
            if !sorted {
              group.sort { samples[Int($0)].startMs < samples[Int($1)].startMs }
            }
            let kind: QuantityKind = g >= sourceCount ? .distance : .steps
            let source = resolved.sourceOfRank[g % sourceCount]
            union.removeAll(keepingCapacity: true)
            covered.withUnsafeBufferPointer { c in
              let intervals = c.count / 2
              var j = 0
              for k in 0..<group.count {
                let index = Int(group[k])
                let p = samples[index]
                let s = p.startMs
                let e = p.endMs
                let offset = p.offsetMinutes * 60
                while j < intervals && c[2 * j + 1] <= s { j += 1 }
                if s == e {
                  if j == intervals || c[2 * j] > s {
                    sink(index, kind, s, e, p.value, offset, source)
                  }
                  continue
                }
                // The sample's own interval joins this source's union.
                if let last = union.last, s <= last {
                  if e > last { union[union.count - 1] = e }
                } else {
                  union.append(s)
                  union.append(e)
                }
                let scale = p.value / Double(e - s)
                var t = s
                var m = j
                while m < intervals && c[2 * m] < e {
                  let cs = c[2 * m]
                  if cs > t { sink(index, kind, t, cs, Double(cs - t) * scale, offset, source) }
                  let ce = c[2 * m + 1]
                  if ce > t { t = ce }
                  if t >= e { break }
                  m += 1
                }
                if t < e {
                  sink(index, kind, t, e, t == s ? p.value : Double(e - t) * scale, offset, source)
                }
              }
            }
            if !union.isEmpty { covered = Self.unionOf(covered, union) }
          }
        }
      }
    }
  }

  /// The union of two sorted lists of disjoint half-open intervals (flattened).
  static func unionOf(_ a: [Int64], _ b: [Int64]) -> [Int64] {
    if a.isEmpty { return b }
    var result: [Int64] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      let s: Int64
      let e: Int64
      if j >= b.count || (i < a.count && a[i] <= b[j]) {
        s = a[i]
        e = a[i + 1]
        i += 2
      } else {
        s = b[j]
        e = b[j + 1]
        j += 2
      }
      if let last = result.last, s <= last {
        if e > last { result[result.count - 1] = e }
      } else {
        result.append(s)
        result.append(e)
      }
    }
    return result
  }
}
