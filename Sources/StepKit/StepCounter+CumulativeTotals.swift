import Dispatch
import Foundation

// Totals and daily history of any cumulative quantity type (flights climbed,
// exercise minutes, cycling distance, energy, …), with completion-handler twins.
extension StepCounter {
  /// The total of any cumulative quantity type in `interval`, merged by
  /// HealthKit across iPhone, Apple Watch and apps (a statistics query with
  /// `.cumulativeSum`), in the type's canonical unit
  /// (``CumulativeType/unit``: kcal, m, count, min, g or mL), under the
  /// counter's ``policy``.
  ///
  /// ```swift
  /// let flights = CumulativeType(named: "flightsClimbed")!
  /// try await counter.requestAuthorization(AuthorizationRequest(read: [], cumulative: [flights]))
  /// let total = try await counter.total(of: flights, in: today)
  /// print(total.value, total.type.unit)   // 12.0 count
  /// ```
  ///
  /// - Parameters:
  ///   - type: The type; ask to read it first (``AuthorizationRequest/cumulative``).
  ///   - interval: The interval.
  /// - Returns: The total, with ``CumulativeTotal/hasData`` `false` when no sample matched.
  /// - Throws: ``StepKitError/quantityAuthorizationNotDetermined(_:)`` (for steps, distance and
  ///   energy ``StepKitError/authorizationNotDetermined(_:)``) when the app has not asked to read
  ///   the type, ``StepKitError/unsupportedQuantityType(_:)`` for a type HealthKit does not sum,
  ///   ``StepKitError/healthDataUnavailable``, and the other HealthKit errors.
  public func total(of type: CumulativeType, in interval: DateInterval) async throws -> CumulativeTotal {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    return try await health.total(of: type, in: interval, policy: policy)
  }

  /// The totals of any cumulative quantity type per local day over
  /// `interval` (days start at ``dayStart`` in ``calendar``; the first and
  /// last day count only what falls within `interval`), merged by HealthKit
  /// (a statistics-collection query), in the type's canonical unit.
  ///
  /// - Parameters:
  ///   - type: The type.
  ///   - interval: The range.
  /// - Returns: One value per day, empty days included.
  /// - Throws: See ``total(of:in:)``.
  public func dailyTotals(of type: CumulativeType, in interval: DateInterval) async throws
    -> DailyCumulativeTotals
  {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    return try await health.dailyTotals(
      of: type, in: interval, calendar: calendar, dayStart: dayStart, policy: policy)
  }

  // MARK: Completion handlers

  /// The total of a cumulative type; see ``total(of:in:)``.
  ///
  /// - Parameters:
  ///   - type: The type.
  ///   - interval: The interval.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called exactly once, on `queue`, with the total or the
  ///     error (``StepKitError/healthDataUnavailable`` on a device without Health).
  public func total(
    of type: CumulativeType, in interval: DateInterval, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<CumulativeTotal, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.total(of: type, in: interval) }
  }

  /// The daily totals of a cumulative type; see ``dailyTotals(of:in:)``.
  ///
  /// - Parameters:
  ///   - type: The type.
  ///   - interval: The range.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called exactly once, on `queue`, with the days or the error.
  public func dailyTotals(
    of type: CumulativeType, in interval: DateInterval, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<DailyCumulativeTotals, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.dailyTotals(of: type, in: interval) }
  }
}
