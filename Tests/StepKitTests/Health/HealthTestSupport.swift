import Foundation
import StepKit
import Testing

#if canImport(HealthKitStandIn)
  import HealthKitStandIn
#endif

/// Dates, calendars and stores shared by the HealthKit-side tests.
enum HealthFixture {
  /// A date from ISO 8601 text with its offset (`2026-03-08T12:00:00-04:00`).
  static func date(_ text: String) throws -> Date {
    try #require(ISO8601DateFormatter().date(from: text), "not an ISO 8601 date: \(text)")
  }

  /// A Gregorian calendar in the zone `identifier`.
  static func calendar(_ identifier: String) throws -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: identifier))
    return calendar
  }

  /// An interval between two ISO 8601 dates.
  static func interval(_ start: String, _ end: String) throws -> DateInterval {
    DateInterval(start: try date(start), end: try date(end))
  }

  /// A step sample for simulated sources.
  static func steps(
    _ value: Double, _ start: String, _ end: String, source: String = "iPhone", device: Device? = nil,
    userEntered: Bool = false
  ) throws -> Sample {
    Sample(
      kind: .steps, start: try date(start), end: try date(end), value: value, source: source, device: device,
      isUserEntered: userEntered)
  }

  /// Collects the first `count` elements of a sequence, running `between`
  /// after each element before asking for the next.
  static func first<S: AsyncSequence>(
    _ count: Int, of sequence: S, between: (Int) async throws -> Void = { _ in }
  ) async throws -> [S.Element] {
    var result: [S.Element] = []
    var iterator = sequence.makeAsyncIterator()
    while result.count < count, let element = try await iterator.next() {
      result.append(element)
      if result.count < count { try await between(result.count) }
    }
    return result
  }
}

#if canImport(HealthKitStandIn)
  extension HealthFixture {
    /// A simulation, its store and a provider over it.
    struct Store {
      let simulation = HealthStoreSimulation()
      let source: HealthKitStepSource

      init(
        counting: HealthKitStepSource.Counting = .healthKitStatistics, checksHealthKitMerge: Bool = true,
        clock: any StepClock = SystemClock()
      ) {
        source = HealthKitStepSource(
          store: HKHealthStore(simulation: simulation), counting: counting,
          checksHealthKitMerge: checksHealthKitMerge, clock: clock)
      }

      /// Adds a step sample between two ISO 8601 dates (`2026-11-29T09:00:00+08:00`).
      func addSteps(_ steps: Double, _ start: String, _ end: String, origin: HealthStoreSimulation.Origin)
        throws
      {
        simulation.add(
          steps: steps, from: try HealthFixture.date(start), to: try HealthFixture.date(end), origin: origin)
      }

      /// A counter over this provider alone, with a complete Info.plist.
      var counter: StepCounter {
        StepCounter(health: source, motion: nil, bundle: DictionaryBundleInfo.complete)
      }

      /// Answers the prompt for steps and distance (and more when asked).
      func authorize(_ request: AuthorizationRequest = .stepsAndDistance) async throws {
        try await source.requestAuthorization(request)
      }
    }

    /// Both ways of counting, for tests that must agree across them.
    static let countings: [HealthKitStepSource.Counting] = [
      .healthKitStatistics, .stepKitMerge(ranking: .default),
    ]
  }
#endif
