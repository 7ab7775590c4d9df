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
public final class HealthKitStepSource: HealthDataSource, @unchecked Sendable {
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
  let clock: any StepClock

  /// Always ``StepSourceKind/healthKit``.
  public var kind: StepSourceKind { .healthKit }

  /// A source over a new health store.
  ///
  /// - Parameters:
  ///   - counting: How counts are computed; HealthKit's statistics by default.
  ///   - clock: The clock for live updates' midnight rollover.
  public convenience init(counting: Counting = .healthKitStatistics, clock: any StepClock = SystemClock()) {
    self.init(store: HKHealthStore(), counting: counting, clock: clock)
  }

  /// A source over `store` (share one store across the app).
  ///
  /// - Parameters:
  ///   - store: The health store.
  ///   - counting: How counts are computed.
  ///   - clock: The clock for live updates' midnight rollover.
  public init(
    store: HKHealthStore, counting: Counting = .healthKitStatistics, clock: any StepClock = SystemClock()
  ) {
    self.store = store
    self.counting = counting
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

  func provenance(_ policy: CountingPolicy, hasData: Bool) -> Provenance {
    Provenance(
      source: .healthKit, policy: policy, manualEntries: policy == .all ? .included : .excluded,
      notes: hasData ? [] : [.noDataMayMeanDeniedAccess])
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
    let (value, hasData) = try await total(.steps, in: interval, policy: policy)
    return StepCount(
      interval: interval, steps: value, provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

  /// Walking + running distance in `interval`.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The distance.
  /// - Throws: ``StepKitError``.
  public func distance(in interval: DateInterval, policy: CountingPolicy) async throws -> DistanceAmount {
    let (value, hasData) = try await total(.distance, in: interval, policy: policy)
    return DistanceAmount(
      interval: interval, meters: value, provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

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
    let (days, hasData) = try await daily(.steps, in: interval, calendar: calendar, policy: policy)
    return DailySteps(
      interval: interval, days: days.map { DailySteps.Day(interval: $0.0, steps: $0.1) },
      provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

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
    let (days, hasData) = try await daily(.distance, in: interval, calendar: calendar, policy: policy)
    return DailyDistance(
      interval: interval, days: days.map { DailyDistance.Day(interval: $0.0, meters: $0.1) },
      provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

  /// What is known about read access to steps.
  ///
  /// - Returns: See ``authorizationState(for:)``.
  public func authorizationState() async -> AuthorizationState {
    await authorizationState(for: .stepsAndDistance)
  }

  // MARK: Totals

  func total(_ kind: QuantityKind, in interval: DateInterval, policy: CountingPolicy) async throws
    -> (Double, Bool)
  {
    try requireHealthData()
    try Self.validate(interval)
    switch counting {
    case .healthKitStatistics:
      return try await statisticsSum(kind, in: interval, policy: policy)
    case .stepKitMerge(let ranking):
      let log = try await fetchSamples(kind, in: interval)
      let totals = log.totals(in: interval, policy: policy, ranking: ranking)
      let hasData = log.count > 0
      return (kind == .steps ? totals.steps : totals.distanceMeters, hasData)
    }
  }

  func daily(_ kind: QuantityKind, in interval: DateInterval, calendar: Calendar, policy: CountingPolicy)
    async throws -> ([(DateInterval, Double)], Bool)
  {
    try requireHealthData()
    try Self.validate(interval)
    let days = LocalDays.days(covering: interval, calendar: calendar)
    switch counting {
    case .healthKitStatistics:
      let buckets = try await collectionSums(kind, in: interval, policy: policy, anchor: days[0].start)
      var hasData = false
      let values = days.map { day -> (DateInterval, Double) in
        var sum = 0.0
        for bucket in buckets where bucket.start >= day.start && bucket.start < day.end {
          if let value = bucket.sum {
            sum += value
            hasData = true
          }
        }
        return (day, sum)
      }
      return (values, hasData)
    case .stepKitMerge(let ranking):
      let log = try await fetchSamples(kind, in: interval)
      let values = days.map { day -> (DateInterval, Double) in
        // The first and last day count only what falls within the interval.
        let totals = log.totals(
          in: LocalDays.part(of: day, within: interval), policy: policy, ranking: ranking)
        return (day, kind == .steps ? totals.steps : totals.distanceMeters)
      }
      return (values, log.count > 0)
    }
  }
}
