import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

/// Steps, distance, characteristics and body measurements from HealthKit.
///
/// Counts come from HealthKit's own merge of iPhone, Apple Watch and other
/// sources: statistics queries with no strict start or end options, so that
/// daily totals match the Health app. The policy becomes a predicate:
/// `health` leaves out samples whose `HKMetadataKeyWasUserEntered` is true,
/// `device` also keeps only Apple's own iPhone and Apple Watch sources, `all`
/// adds nothing. With ``Counting/stepKitMerge(ranking:)`` the source fetches
/// the raw samples instead (an anchored object query) and merges them with
/// StepKitCore, for apps that inspect samples.
///
/// HealthKit hides read denial: a denied app sees no data. Results with no
/// samples at all say so (``StepCount/hasData`` is `false`) and carry
/// ``ResultNote/noDataMayMeanDeniedAccess``.
///
/// ## HealthKit's merge, checked
///
/// Users of other libraries report totals inflated 2–3× by statistics
/// queries that carry the typed-in metadata filter while an iPhone and an
/// Apple Watch both record: HealthKit then appears to add the sources up
/// instead of merging them. So the statistics query also asks for
/// `.separateBySource` (no extra query), and only on evidence of that, a
/// total equal to the sum of two or more sources' own sums, does the source
/// fetch the interval's samples with the same predicate (one anchored object
/// query) and merge them with StepKitCore. When the merge is below
/// HealthKit's number (the sources overlap), the answer is StepKit's merge,
/// marked ``ResultNote/healthKitMergeCorrected(healthKitValue:)``. A merged
/// total is below its sources' sum wherever they overlap, in whatever order
/// the person put them in Health's Data Sources list, so a reordered list is
/// honoured, never "corrected". The check's cost is capped: ranges longer
/// than 31 days and more than 20,000 samples are not checked (HealthKit's
/// number stands); merging 1,000 iPhone and Watch samples, a very active
/// day, takes about 0.5 ms in a release build. Turn it off with
/// `checksHealthKitMerge: false`.
public final class HealthKitStepSource: HealthDataSource, @unchecked Sendable {
  // Safe to share: every stored property is a `let`; `HKHealthStore` is documented as thread-safe,
  // and the SDK only lacks its `Sendable` mark.
  /// How counts are computed.
  public enum Counting: Sendable, Hashable {
    /// HealthKit's statistics and statistics-collection queries (the Health app's numbers).
    case healthKitStatistics
    /// Raw samples from an anchored object query, merged by StepKitCore with `ranking`.
    case stepKitMerge(ranking: SourceRanking)
  }

  // HKHealthStore is documented as thread-safe; it is the only HealthKit object kept.
  let store: HKHealthStore
  /// How counts are computed.
  public let counting: Counting
  /// Whether HealthKit's statistics are checked against StepKit's merge of
  /// the same samples (see "HealthKit's merge, checked").
  public let checksHealthKitMerge: Bool
  let clock: any StepClock

  /// Always ``StepSourceKind/healthKit``.
  public var kind: StepSourceKind { .healthKit }

  /// A source over a new health store.
  ///
  /// - Parameters:
  ///   - counting: How counts are computed; HealthKit's statistics by default.
  ///   - checksHealthKitMerge: Whether HealthKit's statistics are checked
  ///     against StepKit's merge of the same samples; on by default.
  ///   - clock: The clock for live updates' midnight rollover.
  public convenience init(
    counting: Counting = .healthKitStatistics, checksHealthKitMerge: Bool = true,
    clock: any StepClock = SystemClock()
  ) {
    self.init(
      store: HKHealthStore(), counting: counting, checksHealthKitMerge: checksHealthKitMerge, clock: clock)
  }

  /// A source over `store` (share one store across the app).
  ///
  /// - Parameters:
  ///   - store: The health store.
  ///   - counting: How counts are computed.
  ///   - checksHealthKitMerge: Whether HealthKit's statistics are checked
  ///     against StepKit's merge of the same samples; on by default.
  ///   - clock: The clock for live updates' midnight rollover.
  public init(
    store: HKHealthStore, counting: Counting = .healthKitStatistics, checksHealthKitMerge: Bool = true,
    clock: any StepClock = SystemClock()
  ) {
    self.store = store
    self.counting = counting
    self.checksHealthKitMerge = checksHealthKitMerge
    self.clock = clock
  }

  func requireHealthData() throws {
    guard HKHealthStore.isHealthDataAvailable() else { throw StepKitError.healthDataUnavailable }
  }

  static func validate(_ interval: DateInterval) throws {
    guard interval.start.timeIntervalSinceReferenceDate.isFinite, interval.end >= interval.start else {
      throw StepKitError.invalidInterval(start: interval.start, end: interval.end)
    }
  }

  func provenance(_ policy: CountingPolicy, hasData: Bool, notes: [ResultNote] = []) -> Provenance {
    Provenance(
      source: .healthKit, policy: policy, manualEntries: policy == .all ? .included : .excluded,
      notes: hasData ? notes : [.noDataMayMeanDeniedAccess] + notes)
  }

  // MARK: StepSource

  /// Steps in `interval`, merged by HealthKit (or StepKitCore) under `policy`.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The count; zero with ``StepCount/hasData`` `false` when no sample matched.
  /// - Throws: ``StepKitError``.
  public func steps(in interval: DateInterval, policy: CountingPolicy) async throws -> StepCount {
    let total = try await total(.steps, in: interval, policy: policy)
    return StepCount(
      interval: interval, steps: total.value,
      provenance: provenance(policy, hasData: total.hasData, notes: total.notes), hasData: total.hasData)
  }

  /// Walking + running distance in `interval`.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The distance.
  /// - Throws: ``StepKitError``.
  public func distance(in interval: DateInterval, policy: CountingPolicy) async throws -> DistanceAmount {
    let total = try await total(.distance, in: interval, policy: policy)
    return DistanceAmount(
      interval: interval, meters: total.value,
      provenance: provenance(policy, hasData: total.hasData, notes: total.notes), hasData: total.hasData)
  }

  // The midnight method forwards to the day-start one, as in every StepKit source, alike on
  // purpose: StepSource's extension makes the day-start methods from the midnight ones (what a
  // third-party source implements), so a built-in source that counts from any day start forwards back.

  /// Steps per local day of `calendar` over `interval`.
  ///
  /// One statistics-collection query anchored at the first local midnight,
  /// one-day intervals, no strict date options (the Health app's totals).
  /// HealthKit steps its intervals in the device's calendar, so pass a
  /// calendar in the device's time zone (``StepCounter``'s default,
  /// `Calendar.autoupdatingCurrent`); each HealthKit interval is assigned to the day of
  /// `calendar` in which it starts.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose midnights cut days.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: ``StepKitError``.
  public func dailySteps(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy) async throws
    -> DailySteps
  {
    try await dailySteps(in: interval, calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// Steps per day from `dayStart` over `interval`.
  ///
  /// One statistics-collection query anchored at the first day's start
  /// (`dayStart` local time), one-day intervals, as for midnight days: HealthKit
  /// steps from the anchor a calendar day at a time, so its intervals are the
  /// days (23 or 25 hours across a DST change). A day whose HealthKit interval
  /// differs (a day start inside a DST gap, or a calendar in another time
  /// zone than the device's) is asked with a statistics query of its own.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: ``StepKitError``.
  public func dailySteps(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailySteps {
    let (days, hasData, notes) = try await daily(
      .steps, in: interval, calendar: calendar, dayStart: dayStart, policy: policy)
    return DailySteps(
      interval: interval, days: days.map { DailySteps.Day(interval: $0.0, steps: $0.1) },
      provenance: provenance(policy, hasData: hasData, notes: notes), hasData: hasData)
  }

  // The distance twins of the step methods above, alike on purpose: each is public API of a line
  // or two over `daily(_:in:calendar:dayStart:policy:)`, which holds the logic for both.

  /// Walking + running distance per local day of `calendar` over `interval`.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose midnights cut days.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: ``StepKitError``.
  public func dailyDistance(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy)
    async throws
    -> DailyDistance
  {
    try await dailyDistance(in: interval, calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// Walking + running distance per day from `dayStart`, asked as
  /// ``dailySteps(in:calendar:dayStart:policy:)`` asks.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: ``StepKitError``.
  public func dailyDistance(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailyDistance {
    let (days, hasData, notes) = try await daily(
      .distance, in: interval, calendar: calendar, dayStart: dayStart, policy: policy)
    return DailyDistance(
      interval: interval, days: days.map { DailyDistance.Day(interval: $0.0, meters: $0.1) },
      provenance: provenance(policy, hasData: hasData, notes: notes), hasData: hasData)
  }

  /// What each source contributed to the steps in `interval` after the
  /// merge, and its own steps before it.
  ///
  /// The explanation of a total: the interval's step samples, typed-in ones
  /// included (one anchored object query, as the merge check reads), merged
  /// by StepKitCore in Apple's default Data Sources order (typed-in entries,
  /// the Watch, the iPhone, other apps) under `policy`. HealthKit does not
  /// tell apps the person's own order, so where the person moved an app
  /// above the Watch, HealthKit's total (``steps(in:policy:)``) can differ
  /// from this one's ``SourceBreakdown/countedSteps``.
  ///
  /// - Parameters:
  ///   - interval: The interval to explain.
  ///   - policy: Which samples count.
  /// - Returns: Each source's counted and raw steps.
  /// - Throws: ``StepKitError``.
  public func sourceBreakdown(in interval: DateInterval, policy: CountingPolicy) async throws
    -> SourceBreakdown
  {
    try requireHealthData()
    try Self.validate(interval)
    let log = try await fetchSamples(.steps, in: interval)
    let ranking: SourceRanking
    if case .stepKitMerge(let chosen) = counting { ranking = chosen } else { ranking = .default }
    let hasData = log.count > 0
    return SourceBreakdown(
      interval: interval, totals: log.totals(in: interval, policy: policy, ranking: ranking),
      provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

  /// What is known about read access to steps.
  ///
  /// - Returns: See ``authorizationState(for:)``.
  public func authorizationState() async -> AuthorizationState {
    await authorizationState(for: .stepsAndDistance)
  }

  // MARK: Totals

  /// A total, whether any sample matched, and what the answer should say.
  struct Total {
    var value: Double
    var hasData: Bool
    var notes: [ResultNote] = []
  }

  func total(_ kind: QuantityKind, in interval: DateInterval, policy: CountingPolicy) async throws -> Total {
    try requireHealthData()
    try Self.validate(interval)
    switch counting {
    case .healthKitStatistics:
      let (value, hasData, sourceSums) = try await statisticsSum(kind, in: interval, policy: policy)
      let check = MergeCheck(healthKit: value, sourceSums: sourceSums)
      guard checksHealthKitMerge, hasData, check.showsSourcesSummed,
        interval.duration <= MergeCheck.maximumRange,
        let log = try await fetchPolicySamples(kind, in: interval, policy: policy)
      else { return Total(value: value, hasData: hasData) }
      let totals = log.totals(in: interval, policy: policy, ranking: .default)
      let merged = kind == .steps ? totals.steps : totals.distanceMeters
      guard check.replaces(with: merged) else { return Total(value: value, hasData: hasData) }
      return Total(
        value: merged, hasData: hasData, notes: [.healthKitMergeCorrected(healthKitValue: value)])
    case .stepKitMerge(let ranking):
      let log = try await fetchSamples(kind, in: interval)
      let totals = log.totals(in: interval, policy: policy, ranking: ranking)
      let hasData = log.count > 0
      return Total(value: kind == .steps ? totals.steps : totals.distanceMeters, hasData: hasData)
    }
  }

  func daily(
    _ kind: QuantityKind, in interval: DateInterval, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy
  ) async throws -> ([(DateInterval, Double)], Bool, [ResultNote]) {
    try requireHealthData()
    try Self.validate(interval)
    let days = LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart)
    switch counting {
    case .healthKitStatistics:
      let buckets = try await collectionSums(kind, in: interval, policy: policy, anchor: days[0].start)
      var hasData = false
      var checks: [MergeCheck] = []
      var values: [(DateInterval, Double)] = []
      for day in days {
        var sum = 0.0
        var sourceSums: [Double] = []
        let inside = buckets.filter { $0.start >= day.start && $0.start < day.end }
        if dayStart.isMidnight
          || (inside.count == 1 && inside[0].start == day.start && inside[0].end == day.end)
        {
          for bucket in inside {
            if let value = bucket.sum {
              sum += value
              hasData = true
            }
            sourceSums += bucket.sourceSums
          }
        } else {
          // HealthKit's interval is not this day (its day start falls in a DST gap, or the
          // device is in another time zone): the day's own statistics.
          let (value, any, sums) = try await statisticsSum(
            kind, in: LocalDays.part(of: day, within: interval), policy: policy)
          sum = value
          hasData = hasData || any
          sourceSums = sums
        }
        checks.append(MergeCheck(healthKit: sum, sourceSums: sourceSums))
        values.append((day, sum))
      }
      guard checksHealthKitMerge, hasData, checks.contains(where: \.showsSourcesSummed),
        interval.duration <= MergeCheck.maximumRange,
        let log = try await fetchPolicySamples(kind, in: interval, policy: policy)
      else { return (values, hasData, []) }
      var healthKitTotal = 0.0
      var corrected = false
      for index in values.indices {
        let part = LocalDays.part(of: values[index].0, within: interval)
        let totals = log.totals(in: part, policy: policy, ranking: .default)
        let merged = kind == .steps ? totals.steps : totals.distanceMeters
        healthKitTotal += values[index].1
        if checks[index].replaces(with: merged) {
          corrected = true
          values[index].1 = merged
        }
      }
      return (values, hasData, corrected ? [.healthKitMergeCorrected(healthKitValue: healthKitTotal)] : [])
    case .stepKitMerge(let ranking):
      let log = try await fetchSamples(kind, in: interval)
      let values = days.map { day -> (DateInterval, Double) in
        // The first and last day count only what falls within the interval.
        let totals = log.totals(
          in: LocalDays.part(of: day, within: interval), policy: policy, ranking: ranking)
        return (day, kind == .steps ? totals.steps : totals.distanceMeters)
      }
      return (values, log.count > 0, [])
    }
  }
}

/// The test of whether HealthKit skipped its source merge for one interval,
/// on evidence: the statistics query also asks for `.separateBySource`, and
/// HealthKit's merged total equal to the sum of its sources' own sums, with
/// two or more sources, is the signature of sources added up. A merged total
/// is below that sum wherever sources overlap, in whatever order the person
/// put them, so a reordered Data Sources list is never "corrected".
struct MergeCheck {
  /// HealthKit's total within this fraction (or one step or metre) of the sum of its sources
  /// counts as that sum.
  static let sumSlack = 0.001
  /// The longest range checked: a month of days (beyond it, HealthKit's number stands).
  static let maximumRange: TimeInterval = 31 * 86_400
  /// The most samples read for the check (beyond it, HealthKit's number stands).
  static let maximumSamples = 20_000

  /// HealthKit's merged total.
  let healthKit: Double
  /// Each source's own sum from the same statistics.
  let sourceSums: [Double]

  /// Whether HealthKit's total is its sources added up.
  var showsSourcesSummed: Bool {
    let sum = sourceSums.reduce(0, +)
    return sourceSums.count >= 2 && abs(healthKit - sum) <= max(1, sum * Self.sumSlack)
  }

  /// Whether StepKit's merge of the same samples, `merged`, replaces HealthKit's total: only on
  /// the evidence, and only when the sources overlap (the merge is below the sum).
  func replaces(with merged: Double) -> Bool {
    showsSourcesSummed && merged < healthKit - 1
  }
}
