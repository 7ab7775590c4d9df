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
  /// after each element before asking for the next. A sequence that ends
  /// sooner (a stream finished or cancelled at a test's time limit) is a
  /// failure here, so that callers may index every element they asked for.
  static func first<S: AsyncSequence>(
    _ count: Int, of sequence: S, between: (Int) async throws -> Void = { _ in }
  ) async throws -> [S.Element] {
    var result: [S.Element] = []
    var iterator = sequence.makeAsyncIterator()
    while result.count < count, let element = try await iterator.next() {
      result.append(element)
      if result.count < count { try await between(result.count) }
    }
    try #require(result.count == count, "the sequence ended after \(result.count) of \(count) elements")
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

    /// The start dates of a one-day statistics collection of steps anchored at `anchor`, over
    /// two and a half days from it, as `store` answers it.
    static func collectionStarts(_ store: HKHealthStore, anchor: Date) async -> [Date] {
      await withCheckedContinuation { continuation in
        let query = HKStatisticsCollectionQuery(
          quantityType: HKQuantityType(.stepCount), quantitySamplePredicate: nil, options: .cumulativeSum,
          anchorDate: anchor, intervalComponents: DateComponents(day: 1))
        query.initialResultsHandler = { _, collection, _ in
          var dates: [Date] = []
          collection?.enumerateStatistics(from: anchor, to: anchor.addingTimeInterval(2.5 * 86_400)) {
            statistics, _ in dates.append(statistics.startDate)
          }
          continuation.resume(returning: dates)
        }
        store.execute(query)
      }
    }

    /// Both ways of counting, for tests that must agree across them.
    static let countings: [HealthKitStepSource.Counting] = [
      .healthKitStatistics, .stepKitMerge(ranking: .default),
    ]
  }
#endif

#if canImport(HealthKitStandIn)
  /// The day the device tests share: 29 November 2026 in Shanghai (+08:00), a walk from nine to
  /// ten, and the stores they start from.
  struct DeviceFixture {
    /// The whole day.
    let day: DateInterval
    /// 09:00.
    let nine: Date
    /// 10:00.
    let ten: Date
    /// 12:00, "now" for counters on a manual clock.
    let noon: Date
    /// Gregorian, in Shanghai.
    let calendar: Calendar

    init() throws {
      day = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
      nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      ten = try HealthFixture.date("2026-11-29T10:00:00+08:00")
      noon = try HealthFixture.date("2026-11-29T12:00:00+08:00")
      calendar = try HealthFixture.calendar("Asia/Shanghai")
    }

    /// A store whose Apple Watch recorded `watchSteps` from nine to ten (none when 0).
    func store(
      watchSteps: Double = 2000, checksHealthKitMerge: Bool = true, clock: any StepClock = SystemClock()
    ) -> HealthFixture.Store {
      let store = HealthFixture.Store(checksHealthKitMerge: checksHealthKitMerge, clock: clock)
      if watchSteps > 0 { store.simulation.add(steps: watchSteps, from: nine, to: ten, origin: .appleWatch) }
      return store
    }

    /// A store reproducing the reported inflation: a Watch and an iPhone recording the same walk
    /// (1,000 and 800 steps, 700 and 600 metres), statistics under a metadata filter adding them up.
    func inflatingStore(checks: Bool = true) -> HealthFixture.Store {
      let store = self.store(watchSteps: 1000, checksHealthKitMerge: checks)
      store.simulation.inflatesFilteredStatistics = true
      store.simulation.add(steps: 800, from: nine, to: ten, origin: .iPhone)
      store.simulation.add(meters: 700, from: nine, to: ten, origin: .appleWatch)
      store.simulation.add(meters: 600, from: nine, to: ten, origin: .iPhone)
      return store
    }
  }
#endif
