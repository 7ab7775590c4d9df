import Foundation

/// The result of counting a ``SampleLog``: one row per bucket, a row per
/// source, and the invalid samples.
public struct Tally: Sendable {
  /// One bucket's sums. Sums are unrounded; use the `rounded…` accessors for output.
  public struct Bucket: Sendable, Hashable {
    /// The bucket's first local day.
    public var firstDay: LocalDate
    /// For hour buckets, the local hour (0...23); otherwise `nil`.
    public var hour: Int?
    /// For hour buckets, the UTC offset of the hour in seconds; otherwise `nil`.
    public var utcOffsetSeconds: Int?
    /// Merged steps under the policy.
    public var steps: Double = 0
    /// Merged walking + running distance under the policy, metres.
    public var distanceMeters: Double = 0
    /// Plain sum of every step sample, typed-in included, no merge.
    public var rawSteps: Double = 0
    /// Sum of the typed-in step samples only.
    public var manualSteps: Double = 0
    /// How many local clock hours of the bucket hold counted steps: hours in
    /// which a sample the policy admits added steps after the merge (the
    /// usual proxy for wear time when only steps exist). With a day start
    /// that is not on the hour, hour-long slots from the day start.
    public var hoursWithData: Int = 0
    /// Whether any valid step or distance sample, under any policy, lies (in part) in the bucket.
    /// A bucket without one is a day *without data*, which outputs show as empty (`null`,
    /// `NULL`), unlike a day of 0 counted steps (COUNTING.md, Outputs).
    public var hasSamples = false
    /// With ``CountingOptions/includesSourceBreakdown``: the steps each source
    /// contributed after the merge, in ``Tally/sources`` order; otherwise empty.
    public var stepsBySource: [Double] = []
    /// With ``CountingOptions/includesSourceBreakdown``: the distance (metres)
    /// each source contributed after the merge, in ``Tally/sources`` order.
    public var distanceMetersBySource: [Double] = []

    /// Creates an empty bucket.
    public init(firstDay: LocalDate, hour: Int? = nil, utcOffsetSeconds: Int? = nil) {
      self.firstDay = firstDay
      self.hour = hour
      self.utcOffsetSeconds = utcOffsetSeconds
    }

    /// ``steps`` rounded for output.
    public var roundedSteps: Int64 { roundedForOutput(steps) }
    /// ``distanceMeters`` rounded for output.
    public var roundedDistanceMeters: Int64 { roundedForOutput(distanceMeters) }
    /// ``rawSteps`` rounded for output.
    public var roundedRawSteps: Int64 { roundedForOutput(rawSteps) }
    /// ``manualSteps`` rounded for output.
    public var roundedManualSteps: Int64 { roundedForOutput(manualSteps) }

    /// The bucket's label as the CSV format writes it: `2026-11-29` for days
    /// and weeks, `2026-11` for months, `2026-11-29T08:00+08:00` for hours.
    public func label(unit: BucketUnit) -> String {
      switch unit {
      case .day, .week: return firstDay.description
      case .month: return "\(LocalDate.pad(firstDay.year, 4))-\(LocalDate.pad(firstDay.month, 2))"
      case .hour:
        let offset = UTCOffsetText.iso8601(utcOffsetSeconds ?? 0, zero: .numeric)
        return "\(firstDay)T\(LocalDate.pad(hour ?? 0, 2)):00\(offset)"
      }
    }
  }

  /// One source's part in the tally.
  public struct SourceRow: Sendable, Hashable {
    /// The source's name.
    public var name: String
    /// Its default class for steps (COUNTING.md, step 2: classes are per kind).
    public var sourceClass: SourceClass
    /// Its default class for distance; differs from ``sourceClass`` when, say,
    /// every step sample of the source was typed in but not every distance sample.
    public var distanceSourceClass: SourceClass
    /// Its rank in the merge of steps (1 = highest priority).
    public var rank: Int
    /// Its rank in the merge of distance (1 = highest priority).
    public var distanceRank: Int
    /// Whether the policy let its samples take part.
    public var isCounted: Bool
    /// The device models its samples named (`Watch`, `iPhone`), sorted.
    public var deviceModels: [String]
    /// How many step samples it has.
    public var stepSamples: Int = 0
    /// How many distance samples it has.
    public var distanceSamples: Int = 0
    /// The plain sum of its step samples.
    public var rawSteps: Double = 0
    /// The steps it contributed after the merge.
    public var countedSteps: Double = 0
    /// The sum of its typed-in step samples.
    public var manualSteps: Double = 0
    /// The plain sum of its distance samples, metres.
    public var rawDistanceMeters: Double = 0
    /// The distance it contributed after the merge, metres.
    public var countedDistanceMeters: Double = 0
    /// The earliest start of any of its samples.
    public var firstStart: Date?
    /// The latest end of any of its samples.
    public var lastEnd: Date?

    /// Its class for `kind`.
    public func sourceClass(for kind: QuantityKind) -> SourceClass {
      kind == .steps ? sourceClass : distanceSourceClass
    }

    /// The class as outputs write it: `typed-in`, or when the kinds differ,
    /// `typed-in (steps), other (distance)`.
    public var classLabel: String {
      guard distanceSourceClass != sourceClass else { return sourceClass.description }
      return "\(sourceClass) (steps), \(distanceSourceClass) (distance)"
    }
  }

  /// The options the tally was made with.
  public var options: CountingOptions
  /// The buckets in order, empty ones inside the range included; a counted tally works each
  /// one out as it is read (``Buckets``).
  public var buckets: Buckets
  /// Every source, highest step priority first (``SourceRow/distanceRank``
  /// gives its place for distance).
  public var sources: [SourceRow]
  /// The samples that were not counted because they are invalid.
  public var invalid: InvalidSampleReport
  /// With ``CountingOptions/recordsCountedValues``: for each sample of the log
  /// (by index), what it counted for after the merge, over all buckets
  /// (steps, or metres); otherwise empty. Beyond the log's memory budget,
  /// most of them are kept in a temporary file (``CountedValues``).
  public var countedValues: CountedValues

  /// The sources whose samples added counted steps to `bucket`, highest rank
  /// first; needs ``CountingOptions/includesSourceBreakdown`` (empty without).
  public func stepContributors(of bucket: Bucket) -> [SourceRow] {
    zip(sources, bucket.stepsBySource).compactMap { source, steps in steps > 0 ? source : nil }
  }

  /// The exact (unrounded) sum of every bucket. What outputs print as a total
  /// is ``roundedTotal``, the sum of the rounded buckets.
  public var total: Bucket {
    var sum = Bucket(firstDay: buckets.first?.firstDay ?? LocalDate(daysSinceEpoch: 0))
    for bucket in buckets {
      sum.steps += bucket.steps
      sum.distanceMeters += bucket.distanceMeters
      sum.rawSteps += bucket.rawSteps
      sum.manualSteps += bucket.manualSteps
      sum.hoursWithData += bucket.hoursWithData
    }
    return sum
  }
}
