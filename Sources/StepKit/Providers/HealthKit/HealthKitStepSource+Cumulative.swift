import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

// Totals and daily history of any cumulative quantity type, through
// HealthKit's statistics: HealthKit merges the sources (its `.cumulativeSum`),
// StepKit picks the samples by policy and reads the sum in the type's
// canonical unit.
extension HealthKitStepSource {
  /// HealthKit's unit for a canonical unit: the one place StepKit turns
  /// kcal, m, count, min, g, mL and IU into `HKUnit`s.
  ///
  /// - Parameter unit: The canonical unit.
  /// - Returns: The matching `HKUnit`.
  static func healthUnit(_ unit: CanonicalUnit) -> HKUnit {
    switch unit {
    case .count: return .count()
    case .metres: return .meter()
    case .kilocalories: return .kilocalorie()
    case .minutes: return .minute()
    case .grams: return .gram()
    case .millilitres: return .literUnit(with: .milli)
    case .internationalUnits: return .internationalUnit()
    }
  }

  /// HealthKit's quantity type for `type` (a type HealthKit does not know
  /// falls back to steps, which ``summableType(_:)`` never lets through).
  static func quantityType(_ type: CumulativeType) -> HKQuantityType {
    HKObjectType.quantityType(forIdentifier: HKQuantityTypeIdentifier(rawValue: type.identifier))
      ?? HKQuantityType(.stepCount)
  }

  /// The quantity type to ask `.cumulativeSum` of: HealthKit raises an
  /// exception for that option on a type it does not sum (UV exposure is
  /// discrete) and knows no type it does not define.
  static func summableType(_ type: CumulativeType) throws -> HKQuantityType {
    guard
      let quantityType = HKObjectType.quantityType(
        forIdentifier: HKQuantityTypeIdentifier(rawValue: type.identifier)),
      quantityType.aggregationStyle == .cumulative,
      quantityType.is(compatibleWith: healthUnit(type.unit))
    else { throw StepKitError.unsupportedQuantityType(type) }
    return quantityType
  }

  /// The total of `type` in `interval`: one `HKStatisticsQuery` with
  /// `.cumulativeSum`, so that HealthKit merges iPhone, Apple Watch and apps
  /// by the person's Data Sources order.
  ///
  /// - Parameters:
  ///   - type: Any cumulative type HealthKit sums.
  ///   - interval: The interval.
  ///   - policy: Which samples take part: `health` leaves typed-in entries
  ///     out, `device` keeps only iPhone and Apple Watch sources, `all` keeps everything.
  /// - Returns: The total in the type's canonical unit; zero with `hasData` `false` when no sample matched.
  /// - Throws: ``StepKitError/healthDataUnavailable``, ``StepKitError/unsupportedQuantityType(_:)``,
  ///   ``StepKitError/quantityAuthorizationNotDetermined(_:)`` (or
  ///   ``StepKitError/authorizationNotDetermined(_:)`` for steps, distance and energy), and HealthKit's errors.
  public func total(of type: CumulativeType, in interval: DateInterval, policy: CountingPolicy) async throws
    -> CumulativeTotal
  {
    try requireHealthData()
    try Self.validate(interval)
    _ = try Self.summableType(type)
    let (value, hasData) = try await statisticsSum(type, in: interval, policy: policy)
    return CumulativeTotal(
      type: type, interval: interval, value: value, provenance: provenance(policy, hasData: hasData),
      hasData: hasData)
  }

  /// The totals of `type` per day from `dayStart` over `interval`.
  ///
  /// One `HKStatisticsCollectionQuery` anchored at the first day's start, one
  /// day at a time (HealthKit's days are 23 or 25 hours across a DST change,
  /// as the calendar's). A day whose HealthKit interval is not the
  /// calendar's day (the device in another time zone than `calendar`, a day
  /// start inside a DST gap) is asked with a statistics query of its own.
  ///
  /// - Parameters:
  ///   - type: Any cumulative type HealthKit sums.
  ///   - interval: The range; the first and last day count only what falls within it.
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One value per day, empty days included.
  /// - Throws: See ``total(of:in:policy:)``.
  public func dailyTotals(
    of type: CumulativeType, in interval: DateInterval, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy
  ) async throws -> DailyCumulativeTotals {
    try requireHealthData()
    try Self.validate(interval)
    _ = try Self.summableType(type)
    let days = LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart)
    let buckets = try await collectionSums(type, in: interval, policy: policy, anchor: days[0].start)
    var hasData = false
    var values: [DailyCumulativeTotals.Day] = []
    for day in days {
      let value: Double
      if let bucket = buckets.first(where: { $0.start == day.start && $0.end == day.end }) {
        value = bucket.sum ?? 0
        hasData = hasData || bucket.sum != nil
      } else {
        let (sum, any) = try await statisticsSum(
          type, in: LocalDays.part(of: day, within: interval), policy: policy)
        value = sum
        hasData = hasData || any
      }
      values.append(DailyCumulativeTotals.Day(interval: day, value: value))
    }
    return DailyCumulativeTotals(
      type: type, interval: interval, days: values, provenance: provenance(policy, hasData: hasData),
      hasData: hasData)
  }

  /// HealthKit's merged sum of `type` over `interval` in its canonical unit,
  /// and whether any sample matched.
  private func statisticsSum(_ type: CumulativeType, in interval: DateInterval, policy: CountingPolicy)
    async throws -> (Double, Bool)
  {
    let mapError: @Sendable (any Error) -> StepKitError = { StepKitError(healthKitError: $0, reading: type) }
    return try await withCheckedThrowingContinuation { continuation in
      withPolicyPredicate(
        Self.quantityType(type), interval, policy, mapError: mapError,
        failed: { continuation.resume(throwing: $0) },
        noSources: { continuation.resume(returning: (0, false)) }
      ) { predicate in
        let query = HKStatisticsQuery(
          quantityType: Self.quantityType(type), quantitySamplePredicate: predicate, options: .cumulativeSum,
          completionHandler: Self.sumHandler(
            resuming: continuation, value: { $0.doubleValue(for: Self.healthUnit(type.unit)) },
            mapError: mapError))
        self.store.execute(query)
      }
    }
  }

  /// HealthKit's merged sums of `type` per day from `anchor`, over `range`.
  private func collectionSums(
    _ type: CumulativeType, in range: DateInterval, policy: CountingPolicy, anchor: Date
  ) async throws -> [Bucket] {
    let mapError: @Sendable (any Error) -> StepKitError = { StepKitError(healthKitError: $0, reading: type) }
    return try await withCheckedThrowingContinuation { continuation in
      withPolicyPredicate(
        Self.quantityType(type), range, policy, mapError: mapError,
        failed: { continuation.resume(throwing: $0) }, noSources: { continuation.resume(returning: []) }
      ) { predicate in
        let query = HKStatisticsCollectionQuery(
          quantityType: Self.quantityType(type), quantitySamplePredicate: predicate, options: .cumulativeSum,
          anchorDate: anchor, intervalComponents: DateComponents(day: 1))
        query.initialResultsHandler = Self.bucketsHandler(
          over: range, resuming: continuation, mapError: mapError
        ) { statistics in
          Bucket(
            start: statistics.startDate, end: statistics.endDate,
            sum: statistics.sumQuantity()?.doubleValue(for: Self.healthUnit(type.unit)))
        }
        self.store.execute(query)
      }
    }
  }
}

extension StepKitError {
  /// Maps an error from a query reading `type`: the errors of steps,
  /// distance and energy as they always were, and "not asked for yet"
  /// naming any other type.
  init(healthKitError error: any Error, reading type: CumulativeType) {
    if let known = type.healthDataType {
      self.init(healthKitError: error, type: known)
      return
    }
    self.init(healthKitError: error, type: .steps)
    if case .authorizationNotDetermined = self { self = .quantityAuthorizationNotDetermined(type) }
  }
}
