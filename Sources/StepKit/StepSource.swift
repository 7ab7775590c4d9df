import Foundation

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
}
