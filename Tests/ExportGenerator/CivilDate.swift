/// Proleptic Gregorian dates as day numbers since 1970-01-01 (no Foundation in
/// the hot path), and the export's `yyyy-MM-dd HH:mm:ss ±HHMM` text.
///
/// The same day arithmetic as StepKitCore's `LocalDate`, kept apart on purpose:
/// the generator is the oracle the export reader is tested against and shares no
/// code with it (it links no StepKit module), so a date bug in the library cannot
/// hide by appearing on both sides of a test.
struct CivilDate: Comparable {
  var year: Int
  var month: Int
  var day: Int

  static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  /// Parses `YYYY-MM-DD`.
  init?(_ text: String) {
    let parts = text.split(separator: "-")
    guard parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      (1...12).contains(month), (1...31).contains(day), (1971...2999).contains(year)
    else { return nil }
    self.year = year
    self.month = month
    self.day = day
  }

  init(daysSinceEpoch days: Int) {
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    day = doy - (153 * mp + 2) / 5 + 1
    month = mp < 10 ? mp + 3 : mp - 9
    year = yoe + era * 400 + (month <= 2 ? 1 : 0)
  }

  var daysSinceEpoch: Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = month > 2 ? month - 3 : month + 9
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// Monday = 0 … Sunday = 6.
  var weekday: Int {
    ((daysSinceEpoch % 7) + 7 + 3) % 7
  }

  /// `YYYY-MM-DD` as bytes.
  var isoBytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(10)
    appendDigits(&bytes, year, 4)
    bytes.append(UInt8(ascii: "-"))
    appendDigits(&bytes, month, 2)
    bytes.append(UInt8(ascii: "-"))
    appendDigits(&bytes, day, 2)
    return bytes
  }

  var iso: String { String(decoding: isoBytes, as: UTF8.self) }
}

func appendDigits(_ bytes: inout [UInt8], _ value: Int, _ width: Int) {
  var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
  var remaining = value
  var index = width - 1
  while index >= 0 {
    digits[index] = UInt8(ascii: "0") + UInt8(remaining % 10)
    remaining /= 10
    index -= 1
  }
  bytes += digits
}

/// ` +0100` style offset text, with the leading space the export writes.
func offsetBytes(_ seconds: Int) -> [UInt8] {
  var bytes: [UInt8] = [UInt8(ascii: " "), seconds < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")]
  let magnitude = abs(seconds) / 60
  appendDigits(&bytes, magnitude / 60, 2)
  appendDigits(&bytes, magnitude % 60, 2)
  return bytes
}
