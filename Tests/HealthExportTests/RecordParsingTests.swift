import Foundation
import Testing

@testable import HealthExport

@Suite("Date and number parsing")
struct RecordParsingTests {
  @Test(
    "Export dates parse to the instant and offset",
    arguments: [
      ("2016-04-15 07:27:26 +0100", 1_460_701_646_000, 3600),
      ("1970-01-01 00:00:00 +0000", 0, 0),
      ("2024-02-29 23:59:59 -0930", 1_709_285_399_000, -34_200),
      ("2024-02-29 08:00:00 +05:30", 1_709_173_800_000, 19_800),
      ("1969-12-31 23:59:59 +0000", -1000, 0),
    ] as [(String, Int64, Int)])
  func dates(text: String, milliseconds: Int64, offset: Int) {
    let parsed = ExportDateParser.parse(text)
    #expect(parsed == ExportDateParser.Parsed(epochMilliseconds: milliseconds, utcOffsetSeconds: offset))
  }

  @Test("The day cache gives what the full parser gives, date after date")
  func dayCache() {
    let dates = [
      "2016-04-15 07:27:26 +0100", "2016-04-15 23:59:60 +0100", "2016-04-15 00:00:00 -0930",
      "2016-04-15 24:00:00 +0100", "2016-04-15 07:27:26 *0100", "2016-04-15 07:2x:26 +0100",
      "2016-04-15 07:27:26 +01:00", "2016-04-15T07:27:26 +0100", "2016-04-16 07:27:26 +0100",
      "2023-02-29 08:00:00 +0000", "2023-02-29 09:00:00 +0000", "1969-12-31 23:59:59 +0000",
      "1969-12-31 00:00:01 +1400", "2016-04-15 07:27:26 +2400", "20140104084300-0800",
      "2016-04-15 07:27:26 +0160", "2016-04-15 07:27:26 +0100",
      // The same hour and offset, minutes and seconds apart, good and bad.
      "2016-04-15 07:28:05 +0100", "2016-04-15 07:59:60 +0100", "2016-04-15 07:00:00 +0100",
      "2016-04-15 07:60:00 +0100", "2016-04-15 07:27:61 +0100", "2016-04-15 07:2:726 +0100",
      "2016-04-15 07;27:26 +0100", "2016-04-15 07:27;26 +0100", "2016-04-15 07:/7:26 +0100",
      "2016-04-15 07:27:2: +0100", "2016-04-15 07:27:26 +0200", "2016-04-15 07:27:26 -0100",
      "2016-04-15 08:27:26 +0100", "2016-04-15 07:27:26 +0100",
      // Back and forth between two hours, then a third; the other hour's bytes with another day or offset.
      "2016-04-15 07:59:00 +0100", "2016-04-15 08:01:00 +0100", "2016-04-15 07:58:59 +0100",
      "2016-04-15 08:02:00 +0100", "2016-04-15 07:5x:59 +0100", "2016-04-15 08:61:00 +0100",
      "2016-04-15 09:00:00 +0100", "2016-04-15 07:59:00 +0100", "2016-04-15 09:00:01 +0100",
      "2016-04-16 07:59:00 +0100", "2016-04-15 09:00:02 +0200", "2016-04-15 07:59:00 +0200",
    ]
    var cache = ExportDateParser.DayCache()
    for text in dates + dates.reversed() {
      var copy = text
      let cached = copy.withUTF8 { ExportDateParser.parse($0, cache: &cache) }
      #expect(cached == ExportDateParser.parse(text), "\(text)")
    }
  }

  @Test("A record's two dates parse together as they do one after the other")
  func datePairs() {
    let dates = [
      "2016-04-15 07:27:26 +0100", "2016-04-15 07:29:03 +0100", "2016-04-15 07:31:00 +0100",
      "2016-04-15 07:59:60 +0100", "2016-04-15 07:00:00 +0100",
      // The cached hour in the start, a bad minute or second in the end, and the reverse.
      "2016-04-15 07:60:00 +0100", "2016-04-15 07:27:61 +0100", "2016-04-15 07:2a:26 +0100",
      "2016-04-15 07:27:2a +0100", "2016-04-15 07:27/26 +0100", "2016-04-15 07;27:26 +0100",
      "2016-04-15 07:27:26 +0100", "2016-04-15 07:27:26 +0100",
      // The same day and hour, another offset; the same offset, another hour or day.
      "2016-04-15 07:27:26 +0200", "2016-04-15 07:27:26 -0100", "2016-04-15 07:28:26 +0100",
      "2016-04-15 08:01:26 +0100", "2016-04-16 08:01:26 +0100", "2016-04-16 08:01:27 +0100",
      "2016-04-16 08:01:27 +01:00", "20140104084300-0800", "2016-04-16 08:01:27 +0100",
      "2016-04-16 08:61:27 +0100", "2016-04-16 08:01:27 +0100",
      // Two sources a stretch apart across an hour's end: start and end in either of two hours.
      "2016-04-16 08:58:00 +0100", "2016-04-16 09:01:00 +0100", "2016-04-16 08:57:00 +0100",
      "2016-04-16 08:59:00 +0100", "2016-04-16 09:02:00 +0100", "2016-04-16 09:03:6 +0100",
      "2016-04-16 08:59:30 +0100", "2016-04-16 09:04:00 +0100",
    ]
    var together = ExportDateParser.DayCache()
    var apart = ExportDateParser.DayCache()
    @Sendable func parse(_ text: String, _ cache: inout ExportDateParser.DayCache) -> ExportDateParser.Parsed?
    {
      var copy = text
      return copy.withUTF8 { ExportDateParser.parse($0, cache: &cache) }
    }
    for (start, end) in zip(dates + dates.reversed(), dates.dropFirst() + dates.reversed() + [dates[0]]) {
      var startCopy = start
      var endCopy = end
      let pair = startCopy.withUTF8 { startBytes in
        endCopy.withUTF8 { ExportDateParser.parse(start: startBytes, end: $0, cache: &together) }
      }
      let first = parse(start, &apart)
      let second = parse(end, &apart)
      if let first, let second {
        let expected = ExportDateParser.Span(
          startMs: first.epochMilliseconds, endMs: second.epochMilliseconds,
          utcOffsetSeconds: first.utcOffsetSeconds)
        #expect(pair == expected, "\(start), \(end)")
      } else {
        #expect(pair == nil, "\(start), \(end)")
      }
      // Both caches hold the same hour and day: the next date parses alike through each.
      #expect(parse(end, &together) == parse(end, &apart), "\(end)")
    }
  }

  @Test(
    "Invalid dates are rejected",
    arguments: [
      "", "2016-04-15", "2016-04-15T07:27:26+0100", "2016-04-15 07:27:26", "2023-02-29 08:00:00 +0000",
      "2016-13-15 07:27:26 +0100", "2016-04-31 07:27:26 +0100", "2016-04-15 24:00:00 +0100",
      "2016-04-15 07:60:26 +0100", "2016-04-15 07:27:26 *0100", "2016-04-15 07:27:26 +01000",
      "2016-04-1a 07:27:26 +0100", "２016-04-15 07:27:26 +0100",
    ])
  func invalidDates(text: String) {
    #expect(ExportDateParser.parse(text) == nil)
  }

  @Test(
    "Values parse exactly as Double(String) does",
    arguments: [
      "0", "812", "0.00288", "0.0059", "12.5", "-3", "1e-05", "1.5E3", "123456789012345678", "0.1",
      "7.000000000000001", "-0", "-0.25", "00012", "0.000000000000001", "999999999999999",
      "99999999999999999", "1234567890123456", "0.25974",
      // Up to eight bytes, read as one word: the point in every place, digits at the edges.
      "12345678", "99999999", "00000000", "1234.567", "9999.999", ".1234567", "1234567.", "0.05472",
      "9.9999999", "0.9", "9", "10", "1.5", "1.25e3",
    ])
  func numbers(text: String) {
    var copy = text
    let parsed = copy.withUTF8 { DecimalParser.parse($0) }
    #expect(parsed == Double(text))
    #expect(Self.parsePadded(text) == parsed, "\(text)")
  }

  /// `text` parsed by ``DecimalParser/parse(paddedBytes:)``, followed by
  /// bytes that would spoil it if they were read as its own: digits, a point, a minus.
  static func parsePadded(_ text: String) -> Double? {
    let bytes = Array(text.utf8) + Array("7.-5.9999".utf8)
    return bytes.withUnsafeBufferPointer {
      DecimalParser.parse(paddedBytes: UnsafeBufferPointer(rebasing: $0[..<text.utf8.count]))
    }
  }

  @Test(
    "Non-numbers are rejected",
    arguments: [
      "", "abc", "1,5", " 12", "12 ", "--1", ".", "-", "1.2.3", "1-2", "-.", "1/2", "..", "1..2",
      "12:45", "1.2/", "\u{0}1", "1\u{FF}", "１2", "1.2.3.4", "123456.7.",
    ])
  func nonNumbers(text: String) {
    var copy = text
    #expect(copy.withUTF8 { DecimalParser.parse($0) } == nil)
    #expect(Self.parsePadded(text) == nil, "\(text)")
  }

  @Test("Values of up to eight bytes parse alike read as a word or byte by byte")
  func paddedNumbers() {
    // Every digit in every lane, and the point in every place, for each length.
    for length in 1...8 {
      for digit in 0...9 {
        for place in -1..<length {
          var text = ""
          for lane in 0..<length {
            text += lane == place ? "." : String((digit + lane * 3) % 10)
          }
          var copy = text
          let parsed = copy.withUTF8 { DecimalParser.parse($0) }
          #expect(Self.parsePadded(text) == parsed, "\(text)")
        }
      }
    }
  }
}
