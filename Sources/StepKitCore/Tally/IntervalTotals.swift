import Foundation

/// Merged sums over one interval of time: what a HealthKit statistics query
/// answers for a quantity type without `.separateBySource`, and with it.
public struct IntervalTotals: Sendable, Hashable {
  /// Merged steps under the policy.
  public var steps = 0.0
  /// Merged walking + running distance under the policy, metres.
  public var distanceMeters = 0.0
  /// Plain sum of every step sample, typed-in included, no merge.
  public var rawSteps = 0.0
  /// Sum of the typed-in step samples only.
  public var manualSteps = 0.0
  /// Plain sum of every distance sample, typed-in included, no merge, metres.
  public var rawDistanceMeters = 0.0
  /// The steps each source contributed after the merge, by source name.
  public var stepsBySource: [String: Double] = [:]
  /// The distance each source contributed after the merge, metres, by source name.
  public var distanceBySource: [String: Double] = [:]
  /// The plain sum of each source's step samples, typed-in included, no merge, by source name.
  public var rawStepsBySource: [String: Double] = [:]
  /// The plain sum of each source's distance samples, metres, by source name.
  public var rawDistanceBySource: [String: Double] = [:]
  /// How many samples have a part inside the interval (before the policy).
  public var sampleCount = 0

  /// Creates empty totals.
  public init() {}
}

extension SampleLog {
  /// Merged sums of the pieces that fall inside `interval`, pieces split in
  /// proportion to time; an instant counts when it lies in `[start, end)`.
  ///
  /// - Parameters:
  ///   - interval: The interval to sum over.
  ///   - policy: Which samples take part in the merge.
  ///   - ranking: How sources are ordered.
  /// - Returns: The merged, raw and typed-in sums, and each source's share and own sum.
  public func totals(
    in interval: DateInterval, policy: CountingPolicy = .health, ranking: SourceRanking = .default
  ) -> IntervalTotals {
    let lower = interval.start.epochMilliseconds
    let upper = interval.end.epochMilliseconds
    var totals = IntervalTotals()

    @inline(__always) func share(_ start: Int64, _ end: Int64, _ value: Double) -> Double? {
      if start == end { return start >= lower && start < upper ? value : nil }
      let a = max(start, lower)
      let b = min(end, upper)
      guard a < b else { return nil }
      return a == start && b == end ? value : value * Double(b - a) / Double(end - start)
    }

    let origins = originTable
    store.decodeAll { _, p in
      guard let part = share(p.startMs, p.endMs, p.value) else { return }
      totals.sampleCount += 1
      let source = origins[Int(p.origin)].source
      if p.kind == .steps {
        totals.rawSteps += part
        totals.rawStepsBySource[source, default: 0] += part
        if p.isUserEntered { totals.manualSteps += part }
      } else {
        totals.rawDistanceMeters += part
        totals.rawDistanceBySource[source, default: 0] += part
      }
    }
    let names = sourceNames
    forEachMergedPiece(policy: policy, ranking: ranking) { piece in
      guard let part = share(piece.startMs, piece.endMs, piece.value) else { return }
      let name = names[piece.sourceIndex]
      switch piece.kind {
      case .steps:
        totals.steps += part
        totals.stepsBySource[name, default: 0] += part
      case .distance:
        totals.distanceMeters += part
        totals.distanceBySource[name, default: 0] += part
      }
    }
    return totals
  }
}
