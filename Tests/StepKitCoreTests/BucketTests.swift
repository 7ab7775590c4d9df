import Foundation
import Testing

@testable import StepKitCore

@Suite("Buckets and time zones")
struct BucketTests {
  typealias F = Fixture

  /// One 100-step sample per UTC hour from `from` (inclusive) for `hours` hours.
  static func hourly(from: Date, hours: Int) -> [Sample] {
    (0..<hours).map { h in
      let start = from.addingTimeInterval(Double(h) * 3600)
      return Sample(
        kind: .steps, start: start, end: start.addingTimeInterval(3600), value: 100, source: "iPhone",
        device: F.phone)
    }
  }

  @Test(
    "DST days have 23 and 25 hours in a named zone",
    arguments: [
      ("America/New_York", "2026-03-08", 2300.0),
      ("America/New_York", "2026-11-01", 2500.0),
      ("Europe/Berlin", "2026-03-29", 2300.0),
      ("Europe/Berlin", "2026-10-25", 2500.0),
      ("Asia/Shanghai", "2026-03-08", 2400.0),
    ])
  func dstDays(zoneID: String, day: String, expected: Double) throws {
    let zone = try #require(TimeZone(identifier: zoneID))
    let samples = Self.hourly(from: F.date(day).addingTimeInterval(-3 * 86_400), hours: 24 * 7)
    let date = try #require(LocalDate(day))
    let tally = SampleLog(samples).tally(CountingOptions(timeZone: .zone(zone), from: date, to: date))
    #expect(tally.buckets.count == 1)
    #expect(tally.buckets.first?.steps == expected)
  }

  @Test("Hour buckets in a named zone carry the hour's offset; the repeated hour is one bucket")
  func hourBucketsAcrossFallBack() throws {
    let zone = try #require(TimeZone(identifier: "America/New_York"))
    let day = try #require(LocalDate("2026-11-01"))
    let samples = Self.hourly(from: F.date("2026-11-01 00:00", offsetHours: -4), hours: 25)
    let tally = SampleLog(samples).tally(
      CountingOptions(unit: .hour, timeZone: .zone(zone), from: day, to: day))
    #expect(tally.buckets.count == 24)
    #expect(tally.buckets[0].label(unit: .hour) == "2026-11-01T00:00-04:00")
    #expect(tally.buckets[1].steps == 200)  // 01:00 EDT and 01:00 EST
    #expect(tally.buckets[2].label(unit: .hour) == "2026-11-01T02:00-05:00")
    #expect(tally.total.steps == 2500)
  }

  @Test("Empty hours take the offset of the nearest earlier hour with data, the first one's before it")
  func emptyHoursCarryOffsets() throws {
    // 10:00 in Shanghai (02:00 UTC), then 14:00 in Berlin (12:00 UTC), worked out by hand.
    let samples = [
      F.steps("2026-05-02 10:00", "2026-05-02 10:30", 100, source: "iPhone", device: F.phone, offsetHours: 8),
      F.steps("2026-05-02 14:00", "2026-05-02 14:30", 200, source: "iPhone", device: F.phone, offsetHours: 2),
    ]
    let from = try #require(LocalDate("2026-05-01"))
    let to = try #require(LocalDate("2026-05-08"))
    let tally = SampleLog(samples).tally(CountingOptions(unit: .hour, from: from, to: to))
    let buckets = Array(tally.buckets)
    #expect(buckets.count == 8 * 24)
    func offset(_ index: Int) -> Int? { buckets[index].utcOffsetSeconds }
    // 05-01 and 05-02 up to 13:00 (before and between the two): Shanghai's.
    #expect((0..<(24 + 14)).allSatisfy { offset($0) == 8 * 3600 })
    // From 14:00 on 05-02 to the end, a week later: Berlin's.
    #expect(((24 + 14)..<(8 * 24)).allSatisfy { offset($0) == 2 * 3600 })
    #expect(buckets[24 + 10].steps == 100 && buckets[24 + 14].steps == 200)
    #expect(buckets.filter(\.hasSamples).count == 2)
    #expect(buckets.map(\.hoursWithData).reduce(0, +) == 2)
    // Each bucket is worked out as it is read: the same in any order, and read twice.
    #expect(tally.buckets.reversed().elementsEqual(buckets.reversed()))
    #expect(tally.buckets[24 + 14] == buckets[24 + 14] && tally.buckets[191] == buckets[191])
  }

  /// Pacific/Chatham changes its clocks by an hour at a quarter to the hour (the tz database,
  /// `zdump -v Pacific/Chatham`): on 2026-04-04 at 14:00 UTC back from 03:45 +13:45 to 02:45
  /// +12:45, on 2026-09-26 at 14:00 UTC forward from 02:45 +12:45 to 03:45 +13:45. An hour bucket
  /// is an hour from a clock's :00, named by the clock at its start, as HealthKit's hourly
  /// statistics (an anchor at midnight plus `DateComponents(hour: 1)` steps) and
  /// `Calendar.dateInterval(of: .hour, for:)` have it. One sample of a step a minute from 11:15 to
  /// 16:15 UTC; worked out by hand from the two offsets, the hours begin at a quarter past each
  /// UTC hour:
  /// - back: 11:15 reads 01:00 +13:45, 12:15 02:00, 13:15 03:00, 14:15 03:00 again (+12:45),
  ///   15:15 04:00. Hour 3 holds two hours; the quarter 14:00–14:15 that reads 02:45–03:00 lies in
  ///   the hour that began at 03:00 +13:45.
  /// - forward: 11:15 reads 00:00 +12:45, 12:15 01:00, 13:15 02:00, 14:15 04:00 +13:45, 15:15
  ///   05:00. No hour 3: the quarter 14:00–14:15 that reads 03:45–04:00 lies in the hour that began
  ///   at 02:00 +12:45.
  @Test(
    "Hour buckets where the clock changes at a quarter to the hour are named by the clock at their start",
    arguments: [
      ("2026-04-05", [1: 60.0, 2: 60, 3: 120, 4: 60]),
      ("2026-09-27", [0: 60.0, 1: 60, 2: 60, 4: 60, 5: 60]),
    ])
  func hourBucketsAcrossQuarterHourChanges(day: String, expected: [Int: Double]) throws {
    let zone = try #require(TimeZone(identifier: "Pacific/Chatham"))
    let date = try #require(LocalDate(day))
    let dayBefore = LocalDate(daysSinceEpoch: date.daysSinceEpoch - 1)
    let sample = Sample(
      kind: .steps, start: F.date("\(dayBefore) 11:15"), end: F.date("\(dayBefore) 16:15"), value: 300,
      source: "iPhone", device: F.phone)
    let tally = SampleLog([sample]).tally(
      CountingOptions(unit: .hour, timeZone: .zone(zone), from: date, to: date))
    var found: [Int: Double] = [:]
    for bucket in tally.buckets where bucket.steps != 0 { found[try #require(bucket.hour)] = bucket.steps }
    #expect(found.count == expected.count)
    for (hour, steps) in expected {
      #expect(abs((found[hour] ?? 0) - steps) < 1e-9, "hour \(hour)")
    }
    #expect(abs(tally.total.steps - 300) < 1e-9)
  }

  /// The case the reference comparison found: a sample that begins inside the quarter hour after
  /// Chatham's change, 14:05–14:10 UTC, and an instant at 14:05. Its hour began at 13:15 UTC,
  /// which reads 03:00 +13:45 on 2026-04-04 and 02:00 +12:45 on 2026-09-26, whatever the clock
  /// reads at 14:05 (02:50 and 03:50).
  @Test(
    "A sample inside the quarter hour after Chatham's change lies in the hour that began before it",
    arguments: [("2026-04-05", 3), ("2026-09-27", 2)])
  func sampleInsideChathamsQuarterHour(day: String, hour: Int) throws {
    let zone = try #require(TimeZone(identifier: "Pacific/Chatham"))
    let date = try #require(LocalDate(day))
    let dayBefore = LocalDate(daysSinceEpoch: date.daysSinceEpoch - 1)
    let samples = [
      Sample(
        kind: .steps, start: F.date("\(dayBefore) 14:05"), end: F.date("\(dayBefore) 14:10"), value: 50,
        source: "iPhone", device: F.phone),
      Sample(
        kind: .steps, start: F.date("\(dayBefore) 14:05"), end: F.date("\(dayBefore) 14:05"), value: 7,
        source: "Watch", device: F.watch),
    ]
    let tally = SampleLog(samples).tally(
      CountingOptions(unit: .hour, timeZone: .zone(zone), from: date, to: date))
    let counted = tally.buckets.filter { $0.rawSteps != 0 }
    #expect(counted.map(\.hour) == [hour])
    #expect(counted.first?.rawSteps == 57)
  }

  @Test("Recorded offsets follow each sample through a trip")
  func recordedOffsetsDuringATrip() {
    let samples = [
      // Shanghai, 23:00 local on May 1.
      F.steps("2026-05-01 23:00", "2026-05-01 23:30", 100, source: "iPhone", device: F.phone, offsetHours: 8),
      // Flew to Los Angeles: 10:00 local on May 1 again (later in absolute time).
      F.steps(
        "2026-05-01 10:00", "2026-05-01 10:30", 200, source: "iPhone", device: F.phone, offsetHours: -7),
      // Next morning in Los Angeles.
      F.steps(
        "2026-05-02 08:00", "2026-05-02 08:30", 400, source: "iPhone", device: F.phone, offsetHours: -7),
    ]
    let tally = SampleLog(samples).tally(CountingOptions())
    #expect(tally.buckets.map(\.firstDay.description) == ["2026-05-01", "2026-05-02"])
    #expect(tally.buckets.map(\.steps) == [300, 400])
    // The same samples on Shanghai's calendar land elsewhere.
    let shanghai = SampleLog(samples).tally(
      CountingOptions(timeZone: .zone(TimeZone(identifier: "Asia/Shanghai")!)))
    #expect(shanghai.buckets.map(\.steps) == [100, 600])
  }

  @Test("Weeks start on Monday; months are calendar months; empty buckets inside the range are kept")
  func weeksMonthsAndGaps() {
    let samples = [
      F.steps("2026-11-29 10:00", "2026-11-29 10:10", 10, source: "iPhone", device: F.phone),  // Sunday
      F.steps("2026-11-30 10:00", "2026-11-30 10:10", 20, source: "iPhone", device: F.phone),  // Monday
      F.steps("2027-01-15 10:00", "2027-01-15 10:10", 30, source: "iPhone", device: F.phone),
    ]
    let log = SampleLog(samples)
    let weeks = log.tally(CountingOptions(unit: .week))
    #expect(weeks.buckets.first?.firstDay.description == "2026-11-23")
    #expect(weeks.buckets.first?.steps == 10)
    #expect(weeks.buckets[1].firstDay.description == "2026-11-30")
    #expect(weeks.buckets.count == 8)
    let months = log.tally(CountingOptions(unit: .month))
    #expect(months.buckets.map { $0.label(unit: .month) } == ["2026-11", "2026-12", "2027-01"])
    #expect(months.buckets.map(\.steps) == [30, 0, 30])
    let days = log.tally(
      CountingOptions(unit: .day, from: LocalDate("2026-11-28"), to: LocalDate("2026-12-01")))
    #expect(days.buckets.map(\.steps) == [0, 10, 20, 0])
  }

  @Test("A range cuts samples at its edges in proportion to time")
  func rangeCutsSamples() {
    let sample = F.steps("2026-05-01 22:00", "2026-05-02 02:00", 400, source: "iPhone", device: F.phone)
    let tally = SampleLog([sample]).tally(
      CountingOptions(from: LocalDate("2026-05-02"), to: LocalDate("2026-05-02")))
    #expect(tally.buckets.map(\.steps) == [200])
    #expect(tally.sources.first?.rawSteps == 200)
  }

  @Test("Hour labels use the recorded offset")
  func hourLabels() {
    let sample = F.steps(
      "2026-11-29 08:10", "2026-11-29 08:20", 5, source: "iPhone", device: F.phone, offsetHours: 8)
    let tally = SampleLog([sample]).tally(CountingOptions(unit: .hour))
    #expect(tally.buckets.map { $0.label(unit: .hour) } == ["2026-11-29T08:00+08:00"])
  }

  @Test("Rounding is half away from zero, on output only")
  func rounding() {
    #expect(roundedForOutput(2.5) == 3)
    #expect(roundedForOutput(0.49999) == 0)
    #expect(roundedForOutput(1.5) == 2)
    #expect(roundedForOutput(-2.5) == -3)
    #expect(roundedForOutput(.nan) == 0)
  }

  @Test("Civil date arithmetic round-trips", arguments: [-800_000, -1, 0, 59, 20_000, 20_786, 2_000_000])
  func civilDates(day: Int) {
    let date = LocalDate(daysSinceEpoch: day)
    #expect(date.daysSinceEpoch == day)
  }

  @Test("The splitter names the last bucket only for a stretch wholly inside it, never near Int64's ends")
  func lastBucket() {
    let day = BucketGeometry.dayMs
    var splitter = BucketSplitter(geometry: BucketGeometry(unit: .day), zone: nil)
    #expect(splitter.lastOrdinal(holdingStart: 0, end: 0, recordedOffsetMs: 0) == nil)
    var shares: [(Int64, Double)] = []
    splitter.splitInFull(start: 10 * day + 5, end: 10 * day + 9, value: 4, recordedOffsetMs: 0) {
      ordinal, share, _ in shares.append((ordinal, share))
    }
    #expect(shares.map(\.0) == [10] && shares.map(\.1) == [4])
    #expect(splitter.lastOrdinal(holdingStart: 10 * day, end: 11 * day, recordedOffsetMs: 0) == 10)
    #expect(splitter.lastOrdinal(holdingStart: 10 * day, end: 11 * day + 1, recordedOffsetMs: 0) == nil)
    #expect(splitter.lastOrdinal(holdingStart: 10 * day - 1, end: 10 * day, recordedOffsetMs: 0) == nil)
    // An offset moves the stretch into the next day.
    #expect(splitter.lastOrdinal(holdingStart: 10 * day, end: 10 * day, recordedOffsetMs: day) == nil)
    // A bucket this close to the end of Int64 is not kept, so sums that wrap never match it.
    let late = Int64.max - 3 * day
    splitter.splitInFull(start: late, end: late, value: 1, recordedOffsetMs: 0) { _, _, _ in }
    #expect(splitter.lastOrdinal(holdingStart: late, end: late, recordedOffsetMs: 0) == nil)
    #expect(splitter.lastOrdinal(holdingStart: 10 * day, end: 10 * day, recordedOffsetMs: 0) == nil)
  }

  @Test("LocalDate parses only real dates")
  func localDateParsing() {
    #expect(LocalDate("2024-02-29") != nil)
    #expect(LocalDate("2026-02-29") == nil)
    #expect(LocalDate("2026-1-01") == nil)
    #expect(LocalDate("2026-11-29")?.isoWeekday == 7)
  }
}

@Suite("Hour labels of empty hours")
struct EmptyHourLabelTests {
  @Test("Empty hours before the first sample take its recorded offset")
  func emptyHoursBeforeFirstSample() throws {
    let sample = Fixture.steps(
      "2026-03-29 07:10", "2026-03-29 07:20", 5, source: "iPhone", device: Fixture.phone, offsetHours: 2)
    let day = try #require(LocalDate("2026-03-29"))
    let tally = SampleLog([sample]).tally(CountingOptions(unit: .hour, from: day, to: day))
    #expect(tally.buckets.count == 24)
    #expect(tally.buckets.first?.label(unit: .hour) == "2026-03-29T00:00+02:00")
    #expect(tally.buckets.last?.label(unit: .hour) == "2026-03-29T23:00+02:00")
  }
}
