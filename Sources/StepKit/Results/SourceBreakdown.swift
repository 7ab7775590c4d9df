import Foundation

/// What each source contributed to a total: the explanation of a count,
/// for "why is my count lower than the other app's?".
///
/// For each app or device that recorded steps in the interval, its own
/// steps (``Source/rawSteps``, every sample it wrote, typed-in ones
/// included) and what it counted for after the merge (``Source/countedSteps``):
/// where an iPhone and an Apple Watch recorded the same walk, the
/// higher-ranked one counts and the other's steps in that time do not;
/// typed-in steps count only under ``CountingPolicy/all``. The counted
/// steps add up to ``countedSteps``.
///
/// ```swift
/// let breakdown = try await StepCounter.shared.sourceBreakdown(in: yesterday)
/// for source in breakdown.sources {
///   print(source.name, source.roundedCountedSteps, "of", source.roundedRawSteps)
/// }
/// ```
public struct SourceBreakdown: ProvenancedResult, Hashable {
  /// One source's part.
  public struct Source: Sendable, Hashable {
    /// The source's name as Health shows it (`Apple Watch`, `iPhone`, an app's name).
    public var name: String
    /// The steps it contributed after the merge.
    public var countedSteps: Double
    /// Every step it recorded in the interval (typed-in included), before the merge.
    public var rawSteps: Double

    // Written out as every public value type's memberwise initializer is (Swift makes none
    // public); alike in shape only with others of three fields (`ChartDescription.Point`).

    /// Creates a source's part.
    ///
    /// - Parameters:
    ///   - name: The source's name.
    ///   - countedSteps: Its steps after the merge.
    ///   - rawSteps: Its own steps before the merge.
    public init(name: String, countedSteps: Double, rawSteps: Double) {
      self.name = name
      self.countedSteps = countedSteps
      self.rawSteps = rawSteps
    }

    /// ``countedSteps`` rounded as the Health app rounds.
    public var roundedCountedSteps: Int { Int(roundedForOutput(countedSteps)) }
    /// ``rawSteps`` rounded as the Health app rounds.
    public var roundedRawSteps: Int { Int(roundedForOutput(rawSteps)) }
  }

  /// The interval explained.
  public var interval: DateInterval
  /// Every source with steps in the interval: most counted steps first, then
  /// most raw steps, then by name.
  public var sources: [Source]
  /// How it was counted (the policy; the source is always HealthKit's samples
  /// merged by StepKit, or the simulated source).
  public var provenance: Provenance
  /// Whether any sample was found.
  public var hasData: Bool

  /// Creates a breakdown; `sources` are put in order.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - sources: Each source's part, in any order.
  ///   - provenance: How it was counted.
  ///   - hasData: Whether any sample was found.
  public init(interval: DateInterval, sources: [Source], provenance: Provenance, hasData: Bool) {
    self.interval = interval
    self.sources = sources.sorted {
      ($0.countedSteps, $0.rawSteps, $1.name) > ($1.countedSteps, $1.rawSteps, $0.name)
    }
    self.provenance = provenance
    self.hasData = hasData
  }

  /// The breakdown of `totals`, StepKitCore's merge over `interval`.
  init(interval: DateInterval, totals: IntervalTotals, provenance: Provenance, hasData: Bool) {
    let names = Set(totals.rawStepsBySource.keys).union(totals.stepsBySource.keys)
    self.init(
      interval: interval,
      sources: names.map {
        Source(
          name: $0, countedSteps: totals.stepsBySource[$0] ?? 0, rawSteps: totals.rawStepsBySource[$0] ?? 0)
      }, provenance: provenance, hasData: hasData)
  }

  /// The steps that count: the sum of every source's counted steps.
  public var countedSteps: Double { sources.reduce(0) { $0 + $1.countedSteps } }
  /// Every step recorded, before the merge: the sum of the raw steps.
  public var rawSteps: Double { sources.reduce(0) { $0 + $1.rawSteps } }
  /// ``countedSteps`` rounded.
  public var roundedCountedSteps: Int { Int(roundedForOutput(countedSteps)) }
}
