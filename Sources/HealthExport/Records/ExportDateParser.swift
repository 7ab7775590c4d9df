import StepKitCore

/// Parses the export's date format, `yyyy-MM-dd HH:mm:ss ±HHMM`, straight
/// from bytes (no `DateFormatter`, no `String`).
enum ExportDateParser {
  /// A parsed date: the instant and the UTC offset it was written with.
  struct Parsed: Equatable {
    var epochMilliseconds: Int64
    var utcOffsetSeconds: Int
  }

  /// Parses `2016-04-15 07:27:26 +0100` (also `+01:00`, and `Z` or no offset
  /// as UTC is *not* accepted: every export date carries an offset).
  ///
  /// - Returns: `nil` when the text is not a valid date in that format.
  @inline(__always)
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Parsed? {
    let n = bytes.count
    guard n == 25 || n == 26, let p = bytes.baseAddress else { return nil }
    @inline(__always) func digit(_ i: Int) -> Int {
      let d = Int(p[i]) &- 48
      return d >= 0 && d <= 9 ? d : -1000
    }
    guard p[4] == 45, p[7] == 45, p[10] == 32, p[13] == 58, p[16] == 58, p[19] == 32 else { return nil }
    let year = digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3)
    let month = digit(5) * 10 + digit(6)
    let day = digit(8) * 10 + digit(9)
    let hour = digit(11) * 10 + digit(12)
    let minute = digit(14) * 10 + digit(15)
    let second = digit(17) * 10 + digit(18)
    let sign = p[20]
    guard sign == 43 || sign == 45 else { return nil }
    let offsetHours = digit(21) * 10 + digit(22)
    let offsetMinutes: Int
    if n == 26 {
      guard p[23] == 58 else { return nil }
      offsetMinutes = digit(24) * 10 + digit(25)
    } else {
      offsetMinutes = digit(23) * 10 + digit(24)
    }
    guard year >= 0, month >= 1, month <= 12, day >= 1, day <= LocalDate.daysIn(month: month, year: year),
      hour >= 0, hour <= 23, minute >= 0, minute <= 59, second >= 0, second <= 60,
      offsetHours >= 0, offsetHours <= 23, offsetMinutes >= 0, offsetMinutes <= 59
    else { return nil }
    let offset = (sign == 45 ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
    let days = LocalDate.daysSinceEpoch(year: year, month: month, day: day)
    let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
    return Parsed(epochMilliseconds: seconds * 1000, utcOffsetSeconds: offset)
  }

  /// Parses a date held in a `String`.
  static func parse(_ text: String) -> Parsed? {
    var copy = text
    return copy.withUTF8 { parse($0) }
  }
}
