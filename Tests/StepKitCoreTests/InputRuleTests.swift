import Foundation
import Testing

@testable import StepKitCore

/// The rules of COUNTING.md "Inputs" that live in the core: which samples are
/// invalid, civil dates, and length units.
@Suite("Input rules")
struct InputRuleTests {
  @Test(
    "The rejection rule names the first thing wrong with a sample, or nothing",
    arguments: [
      // start, end, value, offset seconds, expected
      (0, 1000, 5, 0, nil),
      (1000, 1000, 5, 0, nil),
      (1000, 999, 5, 0, .endBeforeStart),
      (0, 1000, -1, 0, .negativeValue),
      (0, 1000, .nan, 0, .nonFiniteValue),
      (0, 1000, .infinity, 0, .nonFiniteValue),
      (0, 1000, 5, 2047 * 60, nil),
      (0, 1000, 5, -2048 * 60, .outOfRange),
      // 32 bits of milliseconds (49.7 days), then whole seconds up to 136 years.
      (0, Int64(UInt32.max), 5, 0, nil),
      (0, Int64(UInt32.max) * 1000, 5, 0, nil),
      (0, Int64(UInt32.max) * 1000 + 1000, 5, 0, .outOfRange),
      // A difference that does not fit in 64 bits.
      (Int64.min, Int64.max, 5, 0, .outOfRange),
    ] as [(Int64, Int64, Double, Int, InvalidSample.Reason?)])
  func rejection(start: Int64, end: Int64, value: Double, offset: Int, expected: InvalidSample.Reason?) {
    #expect(
      SampleLog.rejection(startMs: start, endMs: end, value: value, utcOffsetSeconds: offset) == expected)
    // The log applies exactly that rule.
    var log = SampleLog()
    let origin = log.origin(source: "A", device: nil)!
    let stored = log.append(
      kind: .steps, startMs: start, endMs: end, value: value, utcOffsetSeconds: offset, origin: origin,
      userEntered: false)
    #expect(stored == (expected == nil))
    #expect(log.invalid.examples.map(\.reason) == (expected.map { [$0] } ?? []))
  }

  @Test(
    "Civil dates count days from 1970 both ways",
    arguments: [
      (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 3, 1, 11_017), (2024, 2, 29, 19_782),
      (1600, 1, 1, -135_140),
    ])
  func civilDays(year: Int, month: Int, day: Int, days: Int) {
    #expect(LocalDate.daysSinceEpoch(year: year, month: month, day: day) == days)
    #expect(LocalDate(daysSinceEpoch: days) == LocalDate(year: year, month: month, day: day))
  }

  @Test("Month lengths follow the Gregorian leap rule")
  func monthLengths() {
    #expect(LocalDate.daysIn(month: 2, year: 2024) == 29)
    #expect(LocalDate.daysIn(month: 2, year: 1900) == 28)
    #expect(LocalDate.daysIn(month: 2, year: 2000) == 29)
    #expect(LocalDate.daysIn(month: 4, year: 2023) == 30)
    #expect(LocalDate.daysIn(month: 12, year: 2023) == 31)
  }

  @Test(
    "Unit bytes and unit strings give the same factors",
    arguments: [
      ("m", 1), ("km", 1000), ("cm", 0.01), ("mm", 0.001), ("mi", 1609.344), ("ft", 0.3048), ("yd", 0.9144),
      ("in", 0.0254), ("kcal", nil), ("", nil), ("M", nil), ("kmh", nil),
    ] as [(String, Double?)])
  func unitFactors(unit: String, metres: Double?) {
    #expect(LengthUnit.metresPerUnit(unit) == metres)
    var text = unit
    #expect(text.withUTF8 { LengthUnit.metresPerUnit(utf8: $0) } == metres)
  }
}

@Suite("UTC offset text")
struct UTCOffsetTextTests {
  @Test(
    "Offsets are written ±HH:MM; zero as +00:00 for local labels and Z for UTC instants",
    arguments: [
      (28_800, "+08:00", "+08:00"), (-19_800, "-05:30", "-05:30"), (0, "+00:00", "Z"),
      (-3600, "-01:00", "-01:00"),
      (45_900, "+12:45", "+12:45"),
    ])
  func text(seconds: Int, numeric: String, z: String) {
    #expect(UTCOffsetText.iso8601(seconds, zero: .numeric) == numeric)
    #expect(UTCOffsetText.iso8601(seconds, zero: .z) == z)
  }

  @Test("An hour bucket's label carries the numeric form")
  func hourLabel() {
    let bucket = Tally.Bucket(
      firstDay: LocalDate(year: 2026, month: 3, day: 8)!, hour: 7, utcOffsetSeconds: 0)
    #expect(bucket.label(unit: .hour) == "2026-03-08T07:00+00:00")
  }
}
