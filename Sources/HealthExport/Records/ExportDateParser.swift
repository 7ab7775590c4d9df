import StepKitCore

/// Parses the export's date formats straight from bytes (no `DateFormatter`,
/// no `String`):
///
/// - `2016-04-15 07:27:26 +0100` (also `+01:00`), what every export since
///   iOS 10 writes;
/// - `20140104084300-0800` (`yyyyMMddHHmmss±hhmm`), what iOS 8 and iOS 9 wrote.
///
/// `Z`, or no offset at all, is *not* accepted: every export date carries an offset.
enum ExportDateParser {
  /// A parsed date: the instant and the UTC offset it was written with.
  struct Parsed: Equatable {
    var epochMilliseconds: Int64
    var utcOffsetSeconds: Int
  }

  /// Where the fields of one layout start.
  private struct Layout {
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var offsetSign: Int
  }

  /// `yyyy-MM-dd HH:mm:ss ±HHMM` (25 bytes) or `… ±HH:MM` (26 bytes).
  private static let spaced = Layout(month: 5, day: 8, hour: 11, minute: 14, second: 17, offsetSign: 20)
  /// `yyyyMMddHHmmss±HHMM` (19 bytes).
  private static let compact = Layout(month: 4, day: 6, hour: 8, minute: 10, second: 12, offsetSign: 14)

  /// Parses one date in either format.
  ///
  /// - Returns: `nil` when the text is not a valid date in one of the formats.
  @inline(__always)
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Parsed? {
    let n = bytes.count
    guard let p = bytes.baseAddress else { return nil }
    let layout: Layout
    switch n {
    case 25, 26:
      let dash = UInt8(ascii: "-")
      let space = UInt8(ascii: " ")
      let colon = UInt8(ascii: ":")
      guard p[4] == dash, p[7] == dash, p[10] == space, p[13] == colon, p[16] == colon, p[19] == space
      else { return nil }
      layout = spaced
    case 19:
      layout = compact
    default:
      return nil
    }
    /// Two decimal digits at `i`, or a negative number when either is not a digit.
    @inline(__always) func twoDigits(_ i: Int) -> Int {
      let tens = Int(p[i]) &- 48
      let ones = Int(p[i + 1]) &- 48
      guard tens >= 0, tens <= 9, ones >= 0, ones <= 9 else { return -1000 }
      return tens * 10 + ones
    }
    let century = twoDigits(0)
    let yearOfCentury = twoDigits(2)
    let month = twoDigits(layout.month)
    let day = twoDigits(layout.day)
    let hour = twoDigits(layout.hour)
    let minute = twoDigits(layout.minute)
    let second = twoDigits(layout.second)
    let sign = p[layout.offsetSign]
    guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
    let offsetHours = twoDigits(layout.offsetSign + 1)
    let offsetMinutes: Int
    if n == 26 {
      guard p[23] == UInt8(ascii: ":") else { return nil }
      offsetMinutes = twoDigits(24)
    } else {
      offsetMinutes = twoDigits(layout.offsetSign + 3)
    }
    guard century >= 0, yearOfCentury >= 0 else { return nil }
    let year = century * 100 + yearOfCentury
    guard month >= 1, month <= 12, day >= 1, day <= LocalDate.daysIn(month: month, year: year),
      hour >= 0, hour <= 23, minute >= 0, minute <= 59, second >= 0, second <= 60,
      offsetHours >= 0, offsetHours <= 23, offsetMinutes >= 0, offsetMinutes <= 59
    else { return nil }
    let offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
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
