import Testing

@testable import StepKitCore

@Suite("The local day of an instant")
struct LocalDateInstantTests {
  @Test(
    "an instant falls on the day its offset's clock shows, before and after 1970",
    arguments: [
      (Int64(1_795_897_800_000), 28_800, "2026-11-29"),  // 2026-11-28T20:30Z at +08:00
      (Int64(1_795_897_800_000), -36_000, "2026-11-28"),  // the same instant at -10:00
      (Int64(0), 0, "1970-01-01"),
      (Int64(-1), 0, "1969-12-31"),
      (Int64(-86_400_000), 0, "1969-12-31"),
      (Int64(-86_400_001), 0, "1969-12-30"),
      (Int64(0), -1, "1969-12-31"),
    ])
  func localDay(epochMilliseconds: Int64, offset: Int, expected: String) {
    #expect(LocalDate(containing: epochMilliseconds, utcOffsetSeconds: offset) == LocalDate(expected))
  }
}
