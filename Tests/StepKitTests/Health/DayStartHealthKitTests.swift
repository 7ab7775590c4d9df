#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  /// Days from 04:00 through the HealthKit stand-in: the stand-in's anchored
  /// collections, one query for a daily history, and "today" rolling over at
  /// 04:00, all against hand-computed dates and sums.
  @Suite("HealthKit provider: days from a day start", .hangLimit())
  struct DayStartHealthKitTests {
    static let four = DayStart(hour: 4)!

    /// The start dates of a collection anchored at `anchor`, three days of it.
    static func collectionStarts(_ store: HealthFixture.Store, anchor: Date) async -> [Date] {
      await HealthFixture.collectionStarts(HKHealthStore(simulation: store.simulation), anchor: anchor)
    }

    /// A store on a device in `zone`, and a HealthKit-only counter over it whose days start at
    /// `dayStart`, both on `clock`.
    static func rig(
      _ zone: String, dayStart: DayStart = four,
      counting: HealthKitStepSource.Counting = .healthKitStatistics,
      clock: any StepClock = SystemClock()
    ) throws -> (store: HealthFixture.Store, counter: StepCounter, calendar: Calendar) {
      let calendar = try HealthFixture.calendar(zone)
      let store = HealthFixture.Store(counting: counting, clock: clock)
      store.simulation.calendar = calendar
      let counter = StepCounter(
        health: store.source, motion: nil, strategy: .healthKit, calendar: calendar, dayStart: dayStart,
        clock: clock, bundle: DictionaryBundleInfo.complete)
      return (store, counter, calendar)
    }

    @Test("the stand-in steps a 04:00 anchor a calendar day at a time: 23 and 25 hours across DST")
    func standInAnchors() async throws {
      let store = HealthFixture.Store()
      try await store.authorize()
      try store.addSteps(10, "2026-03-07T10:00:00-05:00", "2026-03-07T10:01:00-05:00", origin: .iPhone)
      store.simulation.calendar = try HealthFixture.calendar("America/New_York")
      // New York springs forward on 2026-03-08 at 02:00: 04:00 EST, then 04:00 EDT.
      #expect(
        await Self.collectionStarts(store, anchor: try HealthFixture.date("2026-03-07T04:00:00-05:00")) == [
          try HealthFixture.date("2026-03-07T04:00:00-05:00"),
          try HealthFixture.date("2026-03-08T04:00:00-04:00"),
          try HealthFixture.date("2026-03-09T04:00:00-04:00"),
        ])
      // Berlin falls back on 2026-10-25 at 03:00: 04:00 CEST, then 04:00 CET (25 hours later).
      store.simulation.calendar = try HealthFixture.calendar("Europe/Berlin")
      #expect(
        await Self.collectionStarts(store, anchor: try HealthFixture.date("2026-10-24T04:00:00+02:00")) == [
          try HealthFixture.date("2026-10-24T04:00:00+02:00"),
          try HealthFixture.date("2026-10-25T04:00:00+01:00"),
          try HealthFixture.date("2026-10-26T04:00:00+01:00"),
        ])
      // The same anchor with the device in New York: New York's days (it did not change there).
      store.simulation.calendar = try HealthFixture.calendar("America/New_York")
      #expect(
        await Self.collectionStarts(store, anchor: try HealthFixture.date("2026-10-24T04:00:00+02:00")).last
          == (try HealthFixture.date("2026-10-26T04:00:00+02:00")))
    }

    @Test(
      "daily history from 04:00 is one collection query, in New York and in Berlin",
      arguments: ["America/New_York", "Europe/Berlin"])
    func oneQuery(zone: String) async throws {
      let (store, counter, _) = try Self.rig(
        zone, clock: ManualClock(now: try HealthFixture.date("2026-11-20T12:00:00Z")))
      try await store.authorize()
      let before = store.simulation.executedQueries.count
      let daily = try await counter.dailySteps(
        in: try HealthFixture.interval("2026-10-01T00:00:00Z", "2026-11-10T00:00:00Z"))
      let asked = store.simulation.executedQueries.dropFirst(before)
      #expect(asked.filter { $0 == "HKStatisticsCollectionQuery" }.count == 1)
      #expect(!asked.contains("HKStatisticsQuery"))
      #expect(daily.days.count == 41)  // 30 Sep 04:00 .. 9 Nov 04:00 starts
    }

    /// Daily histories across DST changes, worked out by hand.
    static let handDays = [
      HandDays(
        "New York, spring forward: 04:00 days of 24, 23 and 24 hours", zone: "America/New_York",
        samples: [
          // 03:30 EST on March 7: before 04:00, so the day of March 6.
          (100, "2026-03-07T03:30:00-05:00", "2026-03-07T03:40:00-05:00"),
          (200, "2026-03-07T10:00:00-05:00", "2026-03-07T10:10:00-05:00"),
          // 03:30 EDT on March 8 (an hour after the change): still the day of March 7.
          (400, "2026-03-08T03:30:00-04:00", "2026-03-08T03:40:00-04:00"),
          (800, "2026-03-08T04:30:00-04:00", "2026-03-08T04:40:00-04:00"),
        ],
        starts: ["2026-03-06T04:00:00-05:00", "2026-03-07T04:00:00-05:00", "2026-03-08T04:00:00-04:00"],
        end: "2026-03-09T04:00:00-04:00", hours: [24, 23, 24], steps: [100, 600, 800]),
      HandDays(
        "Berlin, fall back: a 25-hour 04:00 day holds both 02:30s", zone: "Europe/Berlin",
        samples: [
          (50, "2026-10-24T03:50:00+02:00", "2026-10-24T03:55:00+02:00"),
          // 02:30 CEST and 02:30 CET on October 25: both in the day of October 24.
          (300, "2026-10-25T02:30:00+02:00", "2026-10-25T02:40:00+02:00"),
          (70, "2026-10-25T02:30:00+01:00", "2026-10-25T02:40:00+01:00"),
          (9, "2026-10-25T04:00:00+01:00", "2026-10-25T04:01:00+01:00"),
        ],
        starts: ["2026-10-23T04:00:00+02:00", "2026-10-24T04:00:00+02:00", "2026-10-25T04:00:00+01:00"],
        end: "2026-10-26T04:00:00+01:00", hours: [24, 25, 24], steps: [50, 370, 9]),
      // Days start at 02:30; on March 8 there is no 02:30, the day starts at 03:00 EDT
      // (07:00 UTC): the day before it and the day from it are 23.5 hours each.
      HandDays(
        "a day start inside New York's skipped hour: the gap day asked on its own",
        zone: "America/New_York", dayStart: DayStart(hour: 2, minute: 30)!,
        samples: [
          (100, "2026-03-08T03:10:00-04:00", "2026-03-08T03:20:00-04:00"),
          (20, "2026-03-08T01:50:00-05:00", "2026-03-08T01:55:00-05:00"),
        ],
        starts: ["2026-03-07T02:30:00-05:00", "2026-03-08T03:00:00-04:00"],
        end: "2026-03-09T02:30:00-04:00", hours: [23.5, 23.5], steps: [20, 100]),
    ]

    @Test(
      "daily history from a day start across DST changes, sums by hand", arguments: handDays,
      HealthFixture.countings)
    func dailyByHand(_ expected: HandDays, counting: HealthKitStepSource.Counting) async throws {
      let (store, counter, _) = try Self.rig(expected.zone, dayStart: expected.dayStart, counting: counting)
      for (steps, start, end) in expected.samples { try store.addSteps(steps, start, end, origin: .iPhone) }
      try await store.authorize()
      let daily = try await counter.dailySteps(
        in: try HealthFixture.interval(try #require(expected.starts.first), expected.end))
      #expect(daily.days.map(\.steps) == expected.steps)
      #expect(daily.days.map(\.interval.duration) == expected.hours.map { $0 * 3600 })
      #expect(daily.days.map(\.interval.start) == (try expected.starts.map(HealthFixture.date)))
    }

    @Test("today's steps roll over at 04:00, not at midnight, across New York's 23-hour day")
    func liveRollover() async throws {
      let clock = ManualClock(now: try HealthFixture.date("2026-03-07T23:50:00-05:00"))
      let (store, counter, _) = try Self.rig("America/New_York", clock: clock)
      try store.addSteps(100, "2026-03-07T22:00:00-05:00", "2026-03-07T22:10:00-05:00", origin: .iPhone)
      try await store.authorize()
      let counts = try await HealthFixture.first(4, of: counter.todayStepUpdates()) { received in
        switch received {
        case 1:
          // Past midnight: still the day that began at 04:00 EST.
          clock.advance(to: try HealthFixture.date("2026-03-08T00:10:00-05:00"))
          try store.addSteps(50, "2026-03-08T00:00:00-05:00", "2026-03-08T00:05:00-05:00", origin: .iPhone)
        case 2:
          // 04:00 EDT, 23 hours after the day began.
          clock.advance(to: try HealthFixture.date("2026-03-08T04:00:30-04:00"))
        default:
          try store.addSteps(30, "2026-03-08T04:00:00-04:00", "2026-03-08T04:00:30-04:00", origin: .iPhone)
        }
      }
      #expect(counts.map(\.roundedSteps) == [100, 150, 0, 30])
      #expect(counts[1].interval.start == (try HealthFixture.date("2026-03-07T04:00:00-05:00")))
      #expect(counts[1].interval.duration == 23 * 3600)
      #expect(counts[2].interval.start == (try HealthFixture.date("2026-03-08T04:00:00-04:00")))
      #expect(!counts[2].hasData)
    }

    @Test("after a time-zone change the day from 04:00 is counted afresh")
    func timeZoneChange() async throws {
      let clock = ManualClock(now: try HealthFixture.date("2026-10-25T03:50:00+01:00"))
      let (store, _, calendar) = try Self.rig("Europe/Berlin", clock: clock)
      try store.addSteps(70, "2026-10-25T02:30:00+01:00", "2026-10-25T02:40:00+01:00", origin: .iPhone)
      try await store.authorize()
      let updates = store.source.todayStepUpdates(calendar: calendar, dayStart: Self.four, policy: .health)
      let counts = try await HealthFixture.first(2, of: updates) { _ in
        // The app wakes after 04:00, no timer fired yet; the system posts the zone change.
        clock.jump(to: try HealthFixture.date("2026-10-25T04:05:00+01:00"))
        clock.post(DeviceNotification.systemTimeZoneDidChange)
      }
      #expect(counts.map(\.roundedSteps) == [70, 0])
      #expect(counts[0].interval.duration == 25 * 3600)
      #expect(counts[1].interval.start == (try HealthFixture.date("2026-10-25T04:00:00+01:00")))
    }
  }

  /// A daily history from a day start, worked out by hand: iPhone samples (steps, start, end)
  /// in a zone, the days expected (each one's start; the last one's end), their lengths in
  /// hours and their steps.
  struct HandDays: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let zone: String
    let dayStart: DayStart
    let samples: [(Double, String, String)]
    let starts: [String]
    let end: String
    let hours: [Double]
    let steps: [Double]

    init(
      _ label: String, zone: String, dayStart: DayStart = DayStartHealthKitTests.four,
      samples: [(Double, String, String)], starts: [String], end: String, hours: [Double], steps: [Double]
    ) {
      testDescription = label
      self.zone = zone
      self.dayStart = dayStart
      self.samples = samples
      self.starts = starts
      self.end = end
      self.hours = hours
      self.steps = steps
    }
  }
#endif
