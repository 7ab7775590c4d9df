/// What to count and how: the policy, the ranking, the buckets and the range.
public struct CountingOptions: Sendable, Hashable {
  /// Which samples take part in the merge.
  public var policy: CountingPolicy
  /// How sources are ranked.
  public var ranking: SourceRanking
  /// The bucket length.
  public var unit: BucketUnit
  /// Where local days begin.
  public var timeZone: TimeZoneRule
  /// The local time at which days (and weeks and months) begin; midnight by default.
  public var dayStart: DayStart
  /// The first local day to report (inclusive); `nil`: the first bucket with data.
  public var from: LocalDate?
  /// The last local day to report (inclusive); `nil`: the last bucket with data.
  public var to: LocalDate?
  /// Whether to record, for each stored sample, what it counted for after the
  /// merge (``Tally/countedValues``). Costs 8 bytes per sample, in memory up to the
  /// log's memory budget and in a temporary file beyond it.
  public var recordsCountedValues: Bool
  /// Whether each bucket carries what every source contributed after the
  /// merge (``Tally/Bucket/stepsBySource``).
  public var includesSourceBreakdown: Bool

  /// Creates options; every parameter has the default COUNTING.md names.
  public init(
    policy: CountingPolicy = .health, ranking: SourceRanking = .default,
    unit: BucketUnit = .day, timeZone: TimeZoneRule = .recorded, dayStart: DayStart = .midnight,
    from: LocalDate? = nil, to: LocalDate? = nil, recordsCountedValues: Bool = false,
    includesSourceBreakdown: Bool = false
  ) {
    self.includesSourceBreakdown = includesSourceBreakdown
    self.policy = policy
    self.ranking = ranking
    self.unit = unit
    self.timeZone = timeZone
    self.dayStart = dayStart
    self.from = from
    self.to = to
    self.recordsCountedValues = recordsCountedValues
  }
}
