/// A calendar date in the proleptic Gregorian calendar, without a time zone.
public struct LocalDate: Hashable, Sendable, Comparable, Codable, CustomStringConvertible {
  /// The year (`2026`).
  public var year: Int
  /// The month, 1...12.
  public var month: Int
  /// The day of the month, 1...31.
  public var day: Int

  /// Creates a date; returns `nil` when the day does not exist.
  public init?(year: Int, month: Int, day: Int) {
    guard (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year)
    else { return nil }
    self.year = year
    self.month = month
    self.day = day
  }

  /// Parses `YYYY-MM-DD`.
  public init?(_ text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
    else { return nil }
    self.init(year: y, month: m, day: d)
  }

  /// The date `days` days after 1970-01-01 (negative before it).
  public init(daysSinceEpoch days: Int) {
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    self.year = yoe + era * 400 + (m <= 2 ? 1 : 0)
    self.month = m
    self.day = d
  }

  /// Days since 1970-01-01.
  public var daysSinceEpoch: Int { Self.daysSinceEpoch(year: year, month: month, day: day) }

  /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
  /// days_from_civil), for callers that hold the parts and want no value.
  ///
  /// - Parameters:
  ///   - year: Any year.
  ///   - month: 1...12.
  ///   - day: 1...31; no check that the day exists (see ``daysIn(month:year:)``).
  /// - Returns: The day number, negative before 1970.
  @inlinable
  public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = month > 2 ? month - 3 : month + 9
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// ISO 8601 weekday: 1 = Monday … 7 = Sunday.
  public var isoWeekday: Int {
    let d = daysSinceEpoch
    // 1970-01-01 was a Thursday (4).
    return ((d % 7 + 7) % 7 + 3) % 7 + 1
  }

  /// `YYYY-MM-DD`.
  public var description: String {
    "\(LocalDate.pad(year, 4))-\(LocalDate.pad(month, 2))-\(LocalDate.pad(day, 2))"
  }

  /// Orders by ascending value.
  public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  /// The number of days in `month` (1...12) of `year`: 28 to 31.
  @inlinable
  public static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  static func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(abs(value))
    let padded = String(repeating: "0", count: max(0, width - digits.count)) + digits
    return value < 0 ? "-" + padded : padded
  }
}
