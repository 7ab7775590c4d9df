#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  /// Days from 04:00 through the HealthKit stand-in: the stand-in's anchored
  /// collections, one query for a daily history, and "today" rolling over at
  /// 04:00, all against hand-computed dates and sums.
  @Suite("HealthKit provider: days from a day start", .timeLimit(.minutes(1)))
  struct DayStartHealthKitTests {
    static let four = DayStart(hour: 4)!

    /// The start dates of a collection anchored at `anchor`, three days of it.
    static func collectionStarts(_ store: HealthFixture.Store, anchor: Date) async -> [Date] {
      await HealthFixture.collectionStarts(HKHealthStore(simulation: store.simulation), anchor: anchor)
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

    @Test("daily history from 04:00 is one collection query, in New York and in Berlin")
    func oneQuery() async throws {
      for zone in ["America/New_York", "Europe/Berlin"] {
        let calendar = try HealthFixture.calendar(zone)
        let store = HealthFixture.Store(
          clock: ManualClock(now: try HealthFixture.date("2026-11-20T12:00:00Z")))
        store.simulation.calendar = calendar
        try await store.authorize()
        let counter = StepCounter(
          health: store.source, motion: nil, strategy: .healthKit, calendar: calendar, dayStart: Self.four,
          clock: ManualClock(now: try HealthFixture.date("2026-11-20T12:00:00Z")),
          bundle: DictionaryBundleInfo.complete)
        let before = store.simulation.executedQueries.count
        let daily = try await counter.dailySteps(
          in: try HealthFixture.interval("2026-10-01T00:00:00Z", "2026-11-10T00:00:00Z"))
        let asked = store.simulation.executedQueries.dropFirst(before)
        #expect(asked.filter { $0 == "HKStatisticsCollectionQuery" }.count == 1, "\(zone)")
        #expect(!asked.contains("HKStatisticsQuery"), "\(zone)")
        #expect(daily.days.count == 41, "\(zone)")  // 30 Sep 04:00 .. 9 Nov 04:00 starts
      }
    }

    @Test("New York, spring forward: 04:00 days of 24, 23 and 24 hours, sums by hand")
    func newYorkSpring() async throws {
      for counting in HealthFixture.countings {
        let calendar = try HealthFixture.calendar("America/New_York")
        let store = HealthFixture.Store(counting: counting)
        store.simulation.calendar = calendar
        // 03:30 EST on March 7: before 04:00, so the day of March 6.
        try store.addSteps(100, "2026-03-07T03:30:00-05:00", "2026-03-07T03:40:00-05:00", origin: .iPhone)
        try store.addSteps(200, "2026-03-07T10:00:00-05:00", "2026-03-07T10:10:00-05:00", origin: .iPhone)
        // 03:30 EDT on March 8 (an hour after the change): still the day of March 7.
        try store.addSteps(400, "2026-03-08T03:30:00-04:00", "2026-03-08T03:40:00-04:00", origin: .iPhone)
        try store.addSteps(800, "2026-03-08T04:30:00-04:00", "2026-03-08T04:40:00-04:00", origin: .iPhone)
        try await store.authorize()
        let counter = StepCounter(
          health: store.source, motion: nil, strategy: .healthKit, calendar: calendar, dayStart: Self.four,
          bundle: DictionaryBundleInfo.complete)
        let daily = try await counter.dailySteps(
          in: try HealthFixture.interval("2026-03-06T04:00:00-05:00", "2026-03-09T04:00:00-04:00"))
        #expect(daily.days.map(\.steps) == [100, 600, 800], "\(counting)")
        #expect(daily.days.map(\.interval.duration) == [86_400, 23 * 3600, 86_400], "\(counting)")
        #expect(daily.days[2].interval.start == (try HealthFixture.date("2026-03-08T04:00:00-04:00")))
      }
    }

    @Test("Berlin, fall back: a 25-hour 04:00 day holds both 02:30s, sums by hand")
    func berlinAutumn() async throws {
      for counting in HealthFixture.countings {
        let calendar = try HealthFixture.calendar("Europe/Berlin")
        let store = HealthFixture.Store(counting: counting)
        store.simulation.calendar = calendar
        try store.addSteps(50, "2026-10-24T03:50:00+02:00", "2026-10-24T03:55:00+02:00", origin: .iPhone)
        // 02:30 CEST and 02:30 CET on October 25: both in the day of October 24.
        try store.addSteps(300, "2026-10-25T02:30:00+02:00", "2026-10-25T02:40:00+02:00", origin: .iPhone)
        try store.addSteps(70, "2026-10-25T02:30:00+01:00", "2026-10-25T02:40:00+01:00", origin: .iPhone)
        try store.addSteps(9, "2026-10-25T04:00:00+01:00", "2026-10-25T04:01:00+01:00", origin: .iPhone)
        try await store.authorize()
        let counter = StepCounter(
          health: store.source, motion: nil, strategy: .healthKit, calendar: calendar, dayStart: Self.four,
          bundle: DictionaryBundleInfo.complete)
        let daily = try await counter.dailySteps(
          in: try HealthFixture.interval("2026-10-23T04:00:00+02:00", "2026-10-26T04:00:00+01:00"))
        #expect(daily.days.map(\.steps) == [50, 370, 9], "\(counting)")
        #expect(daily.days.map(\.interval.duration) == [86_400, 25 * 3600, 86_400], "\(counting)")
      }
    }

    @Test("a day start inside New York's skipped hour: the gap day asked on its own, sums by hand")
    func dayStartInGap() async throws {
      let calendar = try HealthFixture.calendar("America/New_York")
      let store = HealthFixture.Store()
      store.simulation.calendar = calendar
      // Days start at 02:30; on March 8 there is no 02:30, the day starts at 03:00 EDT.
      try store.addSteps(100, "2026-03-08T03:10:00-04:00", "2026-03-08T03:20:00-04:00", origin: .iPhone)
      try store.addSteps(20, "2026-03-08T01:50:00-05:00", "2026-03-08T01:55:00-05:00", origin: .iPhone)
      try await store.authorize()
      let counter = StepCounter(
        health: store.source, motion: nil, strategy: .healthKit, calendar: calendar,
        dayStart: try #require(DayStart("02:30")), bundle: DictionaryBundleInfo.complete)
      let daily = try await counter.dailySteps(
        in: try HealthFixture.interval("2026-03-07T02:30:00-05:00", "2026-03-09T02:30:00-04:00"))
      #expect(daily.days.map(\.steps) == [20, 100])
      #expect(daily.days[1].interval.start == (try HealthFixture.date("2026-03-08T03:00:00-04:00")))
    }

    @Test("today's steps roll over at 04:00, not at midnight, across New York's 23-hour day")
    func liveRollover() async throws {
      let calendar = try HealthFixture.calendar("America/New_York")
      let clock = ManualClock(now: try HealthFixture.date("2026-03-07T23:50:00-05:00"))
      let store = HealthFixture.Store(clock: clock)
      store.simulation.calendar = calendar
      try store.addSteps(100, "2026-03-07T22:00:00-05:00", "2026-03-07T22:10:00-05:00", origin: .iPhone)
      try await store.authorize()
      let counter = StepCounter(
        health: store.source, motion: nil, strategy: .healthKit, calendar: calendar, dayStart: Self.four,
        clock: clock, bundle: DictionaryBundleInfo.complete)
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
      let calendar = try HealthFixture.calendar("Europe/Berlin")
      let clock = ManualClock(now: try HealthFixture.date("2026-10-25T03:50:00+01:00"))
      let store = HealthFixture.Store(clock: clock)
      store.simulation.calendar = calendar
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
#endif
