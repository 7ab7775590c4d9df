/// Bucket ordinals and boundaries in local time, for one ``BucketUnit``.
///
/// An ordinal numbers buckets consecutively: local hours, days, ISO weeks or
/// months since 1970. Local time is milliseconds since 1970-01-01T00:00 on
/// the local clock.
struct BucketGeometry: Sendable {
  static let hourMs: Int64 = 3_600_000
  static let dayMs: Int64 = 86_400_000

  let unit: BucketUnit

  @inline(__always)
  static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
  }

  /// The ordinal of the bucket holding local time `local`.
  @inline(__always)
  func ordinal(ofLocal local: Int64) -> Int64 {
    switch unit {
    case .hour: return Self.floorDiv(local, Self.hourMs)
    case .day: return Self.floorDiv(local, Self.dayMs)
    case .week: return Self.floorDiv(Self.floorDiv(local, Self.dayMs) + 3, 7)
    case .month:
      let date = LocalDate(daysSinceEpoch: Int(Self.floorDiv(local, Self.dayMs)))
      return Int64(date.year) * 12 + Int64(date.month - 1)
    }
  }

  /// The ordinal of the bucket holding local day `day`.
  func ordinal(ofDay day: LocalDate) -> Int64 {
    ordinal(ofLocal: Int64(day.daysSinceEpoch) * Self.dayMs)
  }

  /// Local time at which bucket `ordinal` starts.
  @inline(__always)
  func localStart(of ordinal: Int64) -> Int64 {
    switch unit {
    case .hour: return ordinal * Self.hourMs
    case .day: return ordinal * Self.dayMs
    case .week: return (ordinal * 7 - 3) * Self.dayMs
    case .month:
      let year = Int(Self.floorDiv(ordinal, 12))
      let month = Int(ordinal - Int64(year) * 12) + 1
      let first = LocalDate(year: year, month: month, day: 1) ?? LocalDate(daysSinceEpoch: 0)
      return Int64(first.daysSinceEpoch) * Self.dayMs
    }
  }

  /// The first local day of bucket `ordinal`, and its hour for hour buckets.
  func firstDay(of ordinal: Int64) -> (day: LocalDate, hour: Int?) {
    let local = localStart(of: ordinal)
    let day = LocalDate(daysSinceEpoch: Int(Self.floorDiv(local, Self.dayMs)))
    if unit == .hour {
      return (day, Int(Self.floorDiv(local, Self.hourMs) - Self.floorDiv(local, Self.dayMs) * 24))
    }
    return (day, nil)
  }
}
