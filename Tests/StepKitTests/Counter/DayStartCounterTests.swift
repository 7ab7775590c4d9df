import Foundation
import StepKit
import Testing

/// A counter whose days start at 04:00, against hand-computed days.
@Suite("StepCounter: days from a day start")
struct DayStartCounterTests {
  /// `2026-03-07T09:00:00Z` as a date.
  static func utc(_ text: String) -> Date {
    ISO8601DateFormatter().date(from: text + "Z")!
  }

  static func sample(_ start: String, minutes: Double, steps: Double) -> Sample {
    Sample(
      kind: .steps, start: utc(start), end: utc(start).addingTimeInterval(minutes * 60), value: steps,
      source: "iPhone",
      device: Device(name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone", hardware: nil))
  }

  @Test("daily steps and today run from 04:00 New York time, 23 hours on the spring-forward day")
  func newYork() async throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "America/New_York"))
    let health = SimulatedStepSource(samples: [
      // 2026-03-07 03:30 EST (08:30 UTC): before 04:00, so on March 6.
      Self.sample("2026-03-07T08:30:00", minutes: 10, steps: 100),
      // 2026-03-07 10:00 EST: March 7.
      Self.sample("2026-03-07T15:00:00", minutes: 10, steps: 200),
      // 2026-03-08 03:30 EDT (07:30 UTC): after the change, before 04:00: still March 7.
      Self.sample("2026-03-08T07:30:00", minutes: 10, steps: 400),
      // 2026-03-08 04:30 EDT (08:30 UTC): March 8.
      Self.sample("2026-03-08T08:30:00", minutes: 10, steps: 800),
    ])
    let clock = ManualClock(now: Self.utc("2026-03-08T09:00:00"))
    let counter = StepCounter(
      health: health, motion: nil, strategy: .healthKit, calendar: calendar,
      dayStart: try #require(DayStart("04:00")), clock: clock, bundle: DictionaryBundleInfo.complete)
    let daily = try await counter.dailySteps(
      in: DateInterval(start: Self.utc("2026-03-06T12:00:00"), end: Self.utc("2026-03-08T12:00:00")))
    #expect(daily.days.map(\.steps) == [100, 600, 800])
    #expect(
      daily.days.map(\.interval.start) == [
        Self.utc("2026-03-06T09:00:00"), Self.utc("2026-03-07T09:00:00"), Self.utc("2026-03-08T08:00:00"),
      ])
    #expect(daily.days[1].interval.duration == 23 * 3600)
    // Today began at 04:00 EDT (08:00 UTC).
    let today = try await counter.todaySteps()
    #expect(today.interval.start == Self.utc("2026-03-08T08:00:00"))
    #expect(today.steps == 800)
    // Midnight days, for comparison: 03:30 EDT belongs to March 8.
    let midnight = StepCounter(
      health: health, motion: nil, strategy: .healthKit, calendar: calendar, clock: clock,
      bundle: DictionaryBundleInfo.complete)
    #expect(try await midnight.todaySteps().steps == 1200)
  }
}
