import Foundation
import StepKitCore
import Testing

@testable import stepkit

/// `samples.local_date` follows the same time-zone rule as the `days` table.
@Suite("SQLite local dates")
struct SQLiteLocalDateTests {
  /// One walk at 20:00 UTC, recorded at +08:00: 04:00 on the 30th where it
  /// was recorded, 15:00 on the 29th in New York (UTC-5 in November).
  static func log() -> SampleLog {
    let start = Date(timeIntervalSince1970: 1_795_982_400)  // 2026-11-29T20:00:00Z
    return SampleLog([
      Sample(
        kind: .steps, start: start, end: start.addingTimeInterval(600), value: 900, utcOffsetSeconds: 28_800,
        source: "Watch")
    ])
  }

  @Test(
    "local_date is the day the days table counts the sample on",
    arguments: [("recorded", "2026-11-30"), ("America/New_York", "2026-11-29"), ("Asia/Tokyo", "2026-11-30")])
  func localDateFollowsTheRule(zone: String, day: String) throws {
    let log = Self.log()
    let rule = try #require(TimeZoneRule(zone))
    let tally = log.tally(CountingOptions(timeZone: rule, recordsCountedValues: true))
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-\(UUID().uuidString).db").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try SQLiteWriter(path: path).write(tally, log: log)
    #expect(try query(path, "SELECT date, steps FROM days") == [[day, "900"]])
    #expect(try query(path, "SELECT local_date, utc_offset FROM samples") == [[day, "28800"]])
  }

  @Test("A named zone's day changes at its own midnight, across a DST change")
  func finderAcrossDST() throws {
    var days = LocalDayFinder(rule: try #require(TimeZoneRule("America/New_York")))
    // 2026-03-08 04:59Z is 23:59 EST on the 7th; 05:00Z is midnight; after
    // 07:00Z (03:00 EDT) the offset is -4, so 03:59Z on the 9th is 23:59 on the 8th.
    #expect(days.day(of: 1_772_945_940_000, recordedOffsetSeconds: 0).description == "2026-03-07")
    #expect(days.day(of: 1_772_946_000_000, recordedOffsetSeconds: 0).description == "2026-03-08")
    #expect(days.day(of: 1_773_028_740_000, recordedOffsetSeconds: 0).description == "2026-03-08")
    #expect(days.day(of: 1_773_028_800_000, recordedOffsetSeconds: 0).description == "2026-03-09")
    // Going back in time misses the cache and is still right.
    #expect(days.day(of: 1_772_945_940_000, recordedOffsetSeconds: 0).description == "2026-03-07")
  }
}
