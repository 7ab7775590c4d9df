import Foundation
import StepKitCore

/// Which kind of provider answered a question.
public enum StepSourceKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
  /// HealthKit: the merged count the Health app shows.
  case healthKit
  /// CoreMotion's pedometer: this iPhone's own motion history (seven days).
  case motion
  /// A simulated, scripted source (tests and previews).
  case simulated

  /// `HealthKit`, `CoreMotion` or `simulated`.
  public var description: String {
    switch self {
    case .healthKit: return "HealthKit"
    case .motion: return "CoreMotion"
    case .simulated: return "simulated"
    }
  }
}

/// A provider of step counts and walking + running distance.
///
/// ``StepCounter`` asks one or more sources, following its
/// ``StepCounter/Strategy``. StepKit ships three: ``HealthKitStepSource``,
/// the CoreMotion source, and ``SimulatedStepSource`` for tests and previews.
/// Every answer carries its ``Provenance``.
public protocol StepSource: Sendable {
  /// Which kind of provider this is; recorded in every result's provenance.
  var kind: StepSourceKind { get }

  /// What the source can tell about the app's access to step data.
  ///
  /// - Returns: The state, never throwing: an unavailable device is a state.
  func authorizationState() async -> AuthorizationState

  /// Steps taken in `interval`.
  ///
  /// - Parameters:
  ///   - interval: The half-open interval `[start, end)` to count.
  ///   - policy: Which samples take part (COUNTING.md, step 1).
  /// - Returns: The count and where it came from.
  /// - Throws: ``StepKitError``.
  func steps(in interval: DateInterval, policy: CountingPolicy) async throws -> StepCount

  /// Walking + running distance covered in `interval`.
  ///
  /// - Parameters:
  ///   - interval: The half-open interval `[start, end)`.
  ///   - policy: Which samples take part.
  /// - Returns: The distance and where it came from.
  /// - Throws: ``StepKitError``.
  func distance(in interval: DateInterval, policy: CountingPolicy) async throws -> DistanceAmount

  /// Steps per local day over `interval`.
  ///
  /// Buckets start at local midnight of `calendar` (23- and 25-hour days on
  /// DST changes). The first and last bucket cover whole days but count only
  /// what falls within `interval` (as HealthKit's statistics collections do).
  ///
  /// - Parameters:
  ///   - interval: The range to cover.
  ///   - calendar: The calendar and time zone whose midnights cut the days.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day, empty days included, in order.
  /// - Throws: ``StepKitError``.
  func dailySteps(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy) async throws
    -> DailySteps

  /// Walking + running distance per local day over `interval`, bucketed as
  /// ``dailySteps(in:calendar:policy:)`` does.
  ///
  /// - Parameters:
  ///   - interval: The range to cover.
  ///   - calendar: The calendar and time zone whose midnights cut the days.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day, in order.
  /// - Throws: ``StepKitError``.
  func dailyDistance(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy) async throws
    -> DailyDistance

  /// Today's steps, now and whenever they change.
  ///
  /// The sequence yields the current total first, then a new total after
  /// each change, and a fresh total (counting from zero) when the day rolls
  /// over at local midnight of `calendar`. It ends when the consuming task
  /// is cancelled, or with a ``StepKitError``.
  ///
  /// - Parameters:
  ///   - calendar: The calendar whose midnight starts "today".
  ///   - policy: Which samples take part.
  /// - Returns: An asynchronous sequence of today's totals.
  func todayStepUpdates(calendar: Calendar, policy: CountingPolicy) -> AsyncThrowingStream<
    StepCount, any Error
  >

  /// Steps per day over `interval`, each day from `dayStart` to the same
  /// local time the next day in `calendar`'s time zone (23 or 25 hours across
  /// a DST change); midnight gives ``dailySteps(in:calendar:policy:)``.
  ///
  /// A default implementation asks ``steps(in:policy:)`` once per day;
  /// ``HealthKitStepSource`` asks HealthKit once for the whole range.
  ///
  /// - Parameters:
  ///   - interval: The range to cover.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day, empty days included, in order.
  /// - Throws: ``StepKitError``.
  func dailySteps(in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy)
    async throws -> DailySteps

  /// Walking + running distance per day from `dayStart`, bucketed as
  /// ``dailySteps(in:calendar:dayStart:policy:)`` does.
  ///
  /// - Parameters:
  ///   - interval: The range to cover.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day, in order.
  /// - Throws: ``StepKitError``.
  func dailyDistance(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailyDistance

  /// Today's steps, now and whenever they change, where "today" runs from
  /// `dayStart` to the same local time the next day: the sequence yields a
  /// fresh total (counting from zero) at each day start, not at midnight.
  /// Midnight gives ``todayStepUpdates(calendar:policy:)``.
  ///
  /// A default implementation counts ``steps(in:policy:)`` over the day
  /// whenever the source's midnight sequence yields and at each day start of
  /// the system clock; StepKit's sources follow their own clock.
  ///
  /// - Parameters:
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which "today" begins.
  ///   - policy: Which samples take part.
  /// - Returns: An asynchronous sequence of today's totals.
  func todayStepUpdates(calendar: Calendar, dayStart: DayStart, policy: CountingPolicy)
    -> AsyncThrowingStream<StepCount, any Error>
}

extension StepSource {
  /// Asks ``steps(in:policy:)`` for each day from `dayStart` (midnight:
  /// ``dailySteps(in:calendar:policy:)``).
  ///
  /// - Parameters:
  ///   - interval: The range to cover.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day, in order.
  /// - Throws: ``StepKitError``.
  public func dailySteps(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailySteps {
    guard !dayStart.isMidnight else {
      return try await dailySteps(in: interval, calendar: calendar, policy: policy)
    }
    let (days, counts, provenance, hasData) = try await eachDay(interval, calendar, dayStart) {
      try await steps(in: $0, policy: policy)
    }
    return DailySteps(
      interval: interval, days: zip(days, counts).map { DailySteps.Day(interval: $0, steps: $1.steps) },
      provenance: provenance, hasData: hasData)
  }

  /// Asks ``distance(in:policy:)`` for each day from `dayStart` (midnight:
  /// ``dailyDistance(in:calendar:policy:)``).
  ///
  /// - Parameters:
  ///   - interval: The range to cover.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day, in order.
  /// - Throws: ``StepKitError``.
  public func dailyDistance(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailyDistance {
    guard !dayStart.isMidnight else {
      return try await dailyDistance(in: interval, calendar: calendar, policy: policy)
    }
    let (days, amounts, provenance, hasData) = try await eachDay(interval, calendar, dayStart) {
      try await distance(in: $0, policy: policy)
    }
    return DailyDistance(
      interval: interval, days: zip(days, amounts).map { DailyDistance.Day(interval: $0, meters: $1.meters) },
      provenance: provenance, hasData: hasData)
  }

  /// Asks `answer` for the part of each day from `dayStart` within `interval`: the days, the
  /// answers in order, one provenance for them all, and whether any had data.
  private func eachDay<Answer: ProvenancedResult>(
    _ interval: DateInterval, _ calendar: Calendar, _ dayStart: DayStart,
    _ answer: (DateInterval) async throws -> Answer
  ) async throws -> ([DateInterval], [Answer], Provenance, Bool) {
    let days = LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart)
    var answers: [Answer] = []
    for day in days { answers.append(try await answer(LocalDays.part(of: day, within: interval))) }
    return (days, answers, Provenance.joined(answers.map(\.provenance)), answers.contains { $0.hasData })
  }

  /// Counts ``steps(in:policy:)`` over the day from `dayStart` that holds
  /// the system clock's now, whenever ``todayStepUpdates(calendar:policy:)``
  /// yields (the source's own change signal) and at each day start
  /// (midnight: ``todayStepUpdates(calendar:policy:)`` itself).
  ///
  /// - Parameters:
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which "today" begins.
  ///   - policy: Which samples take part.
  /// - Returns: An asynchronous sequence of today's totals.
  public func todayStepUpdates(calendar: Calendar, dayStart: DayStart, policy: CountingPolicy)
    -> AsyncThrowingStream<StepCount, any Error>
  {
    guard !dayStart.isMidnight else { return todayStepUpdates(calendar: calendar, policy: policy) }
    let (wakeups, wake) = makeAsyncStream(of: Void.self)
    let clock = SystemClock()
    return AsyncThrowingStream<StepCount, any Error>.endingAtFirstError { continuation in
      let dayChanges = clock.dayChanges(calendar: calendar, dayStart: dayStart) { wake.yield() }
      let signals = Task {
        do {
          for try await _ in todayStepUpdates(calendar: calendar, policy: policy) { wake.yield() }
          wake.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      let updates = Task {
        await continuation.yieldChanges(for: wakeups) {
          try await steps(
            in: LocalDays.day(containing: clock.now(), calendar: calendar, dayStart: dayStart), policy: policy
          )
        }
      }
      continuation.onTermination = { _ in
        signals.cancel()
        updates.cancel()
        dayChanges.cancel()
        wake.finish()
      }
    }
  }
}
