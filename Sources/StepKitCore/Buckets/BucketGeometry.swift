/// Bucket ordinals and boundaries in local time, for one ``BucketUnit``.
///
/// An ordinal numbers buckets consecutively: local hours, days, ISO weeks or
/// months since 1970. Local time is milliseconds since 1970-01-01T00:00 on
/// the local clock.
///
/// Days, weeks and months begin at the ``DayStart`` (`dayStartMs` after local
/// midnight); hours are clock hours whatever the day start.
struct BucketGeometry: Sendable {
  static let hourMs: Int64 = 3_600_000
  static let dayMs: Int64 = 86_400_000

  let unit: BucketUnit
  /// Milliseconds after local midnight at which days begin, `0..<dayMs`.
  let dayStartMs: Int64
  /// Milliseconds after the clock hour at which hours begin, `0..<hourMs`:
  /// zero for the hour buckets; the day start's minutes for the hour slots
  /// that tile its days (``Tally/Bucket/hoursWithData``).
  let hourShiftMs: Int64

  init(unit: BucketUnit, dayStartMs: Int64 = 0, hourShiftMs: Int64 = 0) {
    self.unit = unit
    self.dayStartMs = dayStartMs
    self.hourShiftMs = hourShiftMs
  }

  /// The local day number (days since 1970) of `local` under the day start;
  /// saturating, so that the extreme times callers pass for "unbounded" stay extreme.
  @inline(__always)
  func dayNumber(ofLocal local: Int64) -> Int64 {
    let (shifted, overflow) = local.subtractingReportingOverflow(dayStartMs)
    return Self.floorDiv(overflow ? .min : shifted, Self.dayMs)
  }

  @inline(__always)
  static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
  }

  /// The ordinal of the bucket holding local time `local`.
  @inline(__always)
  func ordinal(ofLocal local: Int64) -> Int64 {
    switch unit {
    case .hour: return Self.floorDiv(hourShiftMs == 0 ? local : local &- hourShiftMs, Self.hourMs)
    case .day: return dayNumber(ofLocal: local)
    case .week: return Self.floorDiv(dayNumber(ofLocal: local) + 3, 7)
    case .month:
      let date = LocalDate(daysSinceEpoch: Int(dayNumber(ofLocal: local)))
      return Int64(date.year) * 12 + Int64(date.month - 1)
    }
  }

  /// The ordinal of the bucket holding local day `day`; for hours, the hour
  /// at which the day starts.
  func ordinal(ofDay day: LocalDate) -> Int64 {
    ordinal(ofLocal: Int64(day.daysSinceEpoch) * Self.dayMs + dayStartMs)
  }

  /// Local time at which bucket `ordinal` starts.
  @inline(__always)
  func localStart(of ordinal: Int64) -> Int64 {
    switch unit {
    case .hour: return ordinal * Self.hourMs + hourShiftMs
    case .day: return ordinal * Self.dayMs + dayStartMs
    case .week: return (ordinal * 7 - 3) * Self.dayMs + dayStartMs
    case .month:
      let year = Int(Self.floorDiv(ordinal, 12))
      let month = Int(ordinal - Int64(year) * 12) + 1
      let first = LocalDate(year: year, month: month, day: 1) ?? LocalDate(daysSinceEpoch: 0)
      return Int64(first.daysSinceEpoch) * Self.dayMs + dayStartMs
    }
  }

  /// The first local day of bucket `ordinal`, and its hour for hour buckets.
  func firstDay(of ordinal: Int64) -> (day: LocalDate, hour: Int?) {
    let local = localStart(of: ordinal)
    if unit == .hour {
      let day = LocalDate(daysSinceEpoch: Int(Self.floorDiv(local, Self.dayMs)))
      return (day, Int(Self.floorDiv(local, Self.hourMs) - Self.floorDiv(local, Self.dayMs) * 24))
    }
    return (LocalDate(daysSinceEpoch: Int(dayNumber(ofLocal: local))), nil)
  }
}
