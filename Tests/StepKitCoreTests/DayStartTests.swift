import Foundation
import Testing

@testable import StepKitCore

/// Days that start at a chosen local time, checked against hand-computed
/// boundaries and sums (never against the engine's own bucketing).
@Suite("Day start")
struct DayStartTests {
  typealias F = Fixture

  @Test("HH:MM parses; anything else is refused")
  func parsing() {
    #expect(DayStart("04:00") == DayStart(hour: 4))
    #expect(DayStart("4:30") == DayStart(hour: 4, minute: 30))
    #expect(DayStart("23:59")?.description == "23:59")
    #expect(DayStart("00:00") == .midnight)
    for bad in ["24:00", "04:60", "4", "04:0", "-1:00", "04:00:00", "", "٠٤:٠٠", "+4:00"] {
      #expect(DayStart(bad) == nil, "\(bad)")
    }
  }

  @Test("A 04:00 day start moves the small hours to the day before, under recorded offsets")
  func recordedOffsets() throws {
    let samples = [
      // 02:00-02:30 at +08:00 on May 2: before 04:00, so on May 1.
      F.steps("2026-05-02 02:00", "2026-05-02 02:30", 300, source: "iPhone", device: F.phone, offsetHours: 8),
      // 03:30-04:30 at +08:00 on May 2: half on May 1, half on May 2.
      F.steps(
        "2026-05-02 03:30", "2026-05-02 04:30", 1000, source: "iPhone", device: F.phone, offsetHours: 8),
      // 10:00 on May 2.
      F.steps("2026-05-02 10:00", "2026-05-02 10:10", 50, source: "iPhone", device: F.phone, offsetHours: 8),
    ]
    let options = CountingOptions(dayStart: try #require(DayStart("04:00")))
    let tally = SampleLog(samples).tally(options)
    #expect(tally.buckets.map(\.firstDay.description) == ["2026-05-01", "2026-05-02"])
    #expect(tally.buckets.map(\.steps) == [800, 550])
    // Midnight days put everything on May 2.
    let midnight = SampleLog(samples).tally(CountingOptions())
    #expect(midnight.buckets.map(\.steps) == [1350])
  }

  @Test(
    "DST days are 23 and 25 hours from the day start in a named zone",
    arguments: [
      // Spring forward at 02:00 on 2026-03-08: the day 04:00 Mar 8 to 04:00 Mar 9 has 24 hours,
      // the day 04:00 Mar 7 to 04:00 Mar 8 has 23.
      ("America/New_York", "2026-03-07", "04:00", 2300.0),
      ("America/New_York", "2026-03-08", "04:00", 2400.0),
      // Fall back at 02:00 on 2026-11-01: the day starting 04:00 Oct 31 has 25 hours.
      ("America/New_York", "2026-10-31", "04:00", 2500.0),
      ("America/New_York", "2026-11-01", "04:00", 2400.0),
      // A day start after the change, on the day itself: Berlin jumps 02:00 -> 03:00 on Mar 29.
      ("Europe/Berlin", "2026-03-28", "06:00", 2300.0),
      ("Europe/Berlin", "2026-03-29", "01:00", 2300.0),
      ("Europe/Berlin", "2026-03-29", "06:00", 2400.0),
      // Chatham goes back from 03:45 +13:45 to 02:45 +12:45 on 2026-04-05 (14:00 UTC on the 4th).
      // 03:54 comes once that night: the day of April 4 has 25 hours, the day of April 5 has 24.
      ("Pacific/Chatham", "2026-04-04", "03:54", 2500.0),
      ("Pacific/Chatham", "2026-04-05", "03:54", 2400.0),
      // 03:00 comes twice; the day of April 5 starts at the first and has 25 hours.
      ("Pacific/Chatham", "2026-04-04", "03:00", 2400.0),
      ("Pacific/Chatham", "2026-04-05", "03:00", 2500.0),
    ])
  func dstDays(zoneID: String, day: String, start: String, expected: Double) throws {
    let zone = try #require(TimeZone(identifier: zoneID))
    // 100 steps per UTC hour, hour-aligned, for a week around the day.
    let from = F.date(day).addingTimeInterval(-3 * 86_400)
    let samples = (0..<(24 * 7)).map { h in
      let s = from.addingTimeInterval(Double(h) * 3600)
      return Sample(
        kind: .steps, start: s, end: s.addingTimeInterval(3600), value: 100, source: "iPhone", device: F.phone
      )
    }
    let date = try #require(LocalDate(day))
    let options = CountingOptions(
      timeZone: .zone(zone), dayStart: try #require(DayStart(start)), from: date, to: date)
    let tally = SampleLog(samples).tally(options)
    #expect(tally.buckets.count == 1)
    #expect(tally.buckets.first?.steps == expected)
  }

  @Test("The day of an instant, by hand: 04:00 New York days around both DST changes")
  func dayIntervals() throws {
    let zone = try #require(TimeZone(identifier: "America/New_York"))
    let start = try #require(DayStart("04:00"))
    // 2026-03-08 03:00 EDT (07:00 UTC) is before 04:00: the day of March 7,
    // from 04:00 EST (09:00 UTC) on the 7th to 04:00 EDT (08:00 UTC) on the 8th: 23 hours.
    let spring = start.day(containing: F.date("2026-03-08 07:00"), in: zone)
    #expect(spring.label == LocalDate("2026-03-07"))
    #expect(spring.interval.start == F.date("2026-03-07 09:00"))
    #expect(spring.interval.end == F.date("2026-03-08 08:00"))
    // 2026-11-01 01:30 EST (06:30 UTC): the day of October 31, 04:00 EDT (08:00 UTC)
    // to 04:00 EST (09:00 UTC) on November 1: 25 hours.
    let fall = start.day(containing: F.date("2026-11-01 06:30"), in: zone)
    #expect(fall.label == LocalDate("2026-10-31"))
    #expect(fall.interval.start == F.date("2026-10-31 08:00"))
    #expect(fall.interval.end == F.date("2026-11-01 09:00"))
    // 02:30 does not exist on 2026-03-08: that day starts at 03:00 EDT (07:00 UTC).
    let gap = try #require(DayStart("02:30")).day(containing: F.date("2026-03-08 12:00"), in: zone)
    #expect(gap.label == LocalDate("2026-03-08"))
    #expect(gap.interval.start == F.date("2026-03-08 07:00"))
    #expect(gap.interval.end == F.date("2026-03-09 06:30"))
    let days = start.days(
      covering: DateInterval(start: F.date("2026-03-06 12:00"), end: F.date("2026-03-09 12:00")), in: zone)
    #expect(days.map { $0.duration / 3600 } == [24, 23, 24, 24])
  }

  @Test("The day of an instant, by hand: Chatham's day starts next to the hour its clocks repeat")
  func chathamDayIntervals() throws {
    let zone = try #require(TimeZone(identifier: "Pacific/Chatham"))
    // At 14:00 UTC on 2026-04-04 the clocks go back from 03:45 +13:45 to 02:45 +12:45: 02:45 to
    // 03:45 on April 5 comes twice, 03:54 once. The day of April 5 starts at 03:54 +12:45,
    // 15:09 UTC on the 4th; the day of April 4 began at 03:54 +13:45, 14:09 UTC on the 3rd.
    let late = try #require(DayStart("03:54"))
    let april4 = late.day(containing: F.date("2026-04-04 15:08"), in: zone)
    #expect(april4.label == LocalDate("2026-04-04"))
    #expect(april4.interval.start == F.date("2026-04-03 14:09"))
    #expect(april4.interval.end == F.date("2026-04-04 15:09"))
    let april5 = late.day(containing: F.date("2026-04-04 15:09"), in: zone)
    #expect(april5.label == LocalDate("2026-04-05"))
    #expect(april5.interval.end == F.date("2026-04-05 15:09"))
    // 03:00 on April 5 comes twice; the day starts at the first, 03:00 +13:45 (13:15 UTC on the 4th).
    let repeated = try #require(DayStart("03:00")).day(containing: F.date("2026-04-04 14:00"), in: zone)
    #expect(repeated.label == LocalDate("2026-04-05"))
    #expect(repeated.interval.start == F.date("2026-04-04 13:15"))
    #expect(repeated.interval.end == F.date("2026-04-05 14:15"))
  }

  @Test("Weeks and months start on Monday and the 1st at the day start")
  func weeksAndMonths() throws {
    let samples = [
      // Monday 2026-05-04 02:00 UTC: with 04:00 days still Sunday, so the week of April 27.
      F.steps("2026-05-04 02:00", "2026-05-04 02:10", 10, source: "iPhone", device: F.phone),
      F.steps("2026-05-04 05:00", "2026-05-04 05:10", 20, source: "iPhone", device: F.phone),
      // 2026-06-01 03:00: still May.
      F.steps("2026-06-01 03:00", "2026-06-01 03:10", 40, source: "iPhone", device: F.phone),
    ]
    let start = try #require(DayStart("04:00"))
    let weeks = SampleLog(samples).tally(CountingOptions(unit: .week, dayStart: start))
    #expect(weeks.buckets.first?.firstDay == LocalDate("2026-04-27"))
    #expect(weeks.buckets.first?.steps == 10)
    #expect(weeks.buckets[1].steps == 20)
    let months = SampleLog(samples).tally(CountingOptions(unit: .month, dayStart: start))
    #expect(months.buckets.map(\.steps) == [70])
  }

  @Test("--from and --to name days that start at the day start; hours run from it")
  func fixedRange() throws {
    let samples = (0..<48).map { h in
      F.steps(
        "2026-05-01 \(h % 24):00", "2026-05-01 \(h % 24):30", 1, source: "iPhone", device: F.phone)
    }.enumerated().map { index, sample in
      var sample = sample
      if index >= 24 {
        sample.start = sample.start.addingTimeInterval(86_400)
        sample.end = sample.end.addingTimeInterval(86_400)
      }
      return sample
    }
    let start = try #require(DayStart("04:00"))
    let day = try #require(LocalDate("2026-05-01"))
    let hours = SampleLog(samples).tally(CountingOptions(unit: .hour, dayStart: start, from: day, to: day))
    #expect(hours.buckets.count == 24)
    #expect(hours.buckets.first?.label(unit: .hour) == "2026-05-01T04:00+00:00")
    #expect(hours.buckets.last?.label(unit: .hour) == "2026-05-02T03:00+00:00")
    let days = SampleLog(samples).tally(CountingOptions(dayStart: start, from: day, to: day))
    #expect(days.buckets.map(\.steps) == [24])
  }

  @Test("Local days of single samples follow the day start")
  func localDayFinder() throws {
    var finder = LocalDayFinder(rule: .recorded, dayStart: try #require(DayStart("04:00")))
    let early = F.date("2026-05-02 03:59", offsetHours: 8).epochMilliseconds
    let late = F.date("2026-05-02 04:00", offsetHours: 8).epochMilliseconds
    #expect(finder.day(of: early, recordedOffsetSeconds: 8 * 3600) == LocalDate("2026-05-01"))
    #expect(finder.day(of: late, recordedOffsetSeconds: 8 * 3600) == LocalDate("2026-05-02"))
  }

  @Test(
    "Single samples in the hour Chatham's clocks repeat keep the day that began the first time round",
    arguments: [
      // (UTC instant, day by a 03:00 day start, day by a 03:54 day start, day by midnight)
      ("2026-04-04 13:14", "2026-04-04", "2026-04-04", "2026-04-05"),  // 02:59 +13:45
      ("2026-04-04 13:15", "2026-04-05", "2026-04-04", "2026-04-05"),  // 03:00 +13:45, the first
      ("2026-04-04 14:00", "2026-04-05", "2026-04-04", "2026-04-05"),  // 02:45 +12:45, again
      ("2026-04-04 14:14", "2026-04-05", "2026-04-04", "2026-04-05"),  // 02:59 +12:45, again
      ("2026-04-04 15:09", "2026-04-05", "2026-04-05", "2026-04-05"),  // 03:54 +12:45
      ("2026-04-05 14:14", "2026-04-05", "2026-04-05", "2026-04-06"),  // 02:59 +12:45, a day on
      ("2026-04-05 14:15", "2026-04-06", "2026-04-05", "2026-04-06"),  // 03:00 +12:45
    ])
  func localDayFinderInChathamsRepeatedHour(instant: String, threeAM: String, late: String, midnight: String)
    throws
  {
    let zone = try #require(TimeZone(identifier: "Pacific/Chatham"))
    let t = F.date(instant).epochMilliseconds
    for (start, expected) in [("03:00", threeAM), ("03:54", late), ("00:00", midnight)] {
      // A finder that has seen an instant long before, and a fresh one.
      var warm = LocalDayFinder(rule: .zone(zone), dayStart: try #require(DayStart(start)))
      _ = warm.day(of: F.date("2026-03-01 00:00").epochMilliseconds, recordedOffsetSeconds: 0)
      var fresh = LocalDayFinder(rule: .zone(zone), dayStart: try #require(DayStart(start)))
      #expect(warm.day(of: t, recordedOffsetSeconds: 0) == LocalDate(expected), "\(start)")
      #expect(fresh.day(of: t, recordedOffsetSeconds: 0) == LocalDate(expected), "\(start)")
      // The tally's day of a one-instant sample agrees.
      let sample = Sample(
        kind: .steps, start: F.date(instant), end: F.date(instant), value: 7, source: "iPhone",
        device: F.phone)
      let tally = SampleLog([sample]).tally(
        CountingOptions(timeZone: .zone(zone), dayStart: try #require(DayStart(start))))
      #expect(tally.buckets.map(\.firstDay) == [LocalDate(expected)], "\(start)")
    }
  }
}
