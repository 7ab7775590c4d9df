import Foundation

/// The local time at which days begin: midnight by default, or any `HH:MM`
/// ("my day resets at 4 am", night-shift studies, sleep-aware apps).
///
/// A day then runs from that local time to the same local time the next day:
/// 24 hours, or 23 and 25 across a DST change, as with midnight. Weeks start
/// at that time on Monday and months at that time on their first day. Where a
/// DST change skips the day-start time, the day starts at the first moment
/// after the gap (the same rule as a skipped midnight); where the clocks go
/// back over it, at the first time the clock reads it.
///
/// ```swift
/// let options = CountingOptions(dayStart: DayStart("04:00")!)
/// ```
public struct DayStart: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The hour, 0...23.
  public let hour: Int
  /// The minute, 0...59.
  public let minute: Int

  /// Midnight: calendar days.
  public static let midnight = DayStart(validHour: 0, minute: 0)

  /// A day start at `hour:minute`; `nil` outside 00:00...23:59.
  public init?(hour: Int, minute: Int = 0) {
    guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
    self.init(validHour: hour, minute: minute)
  }

  private init(validHour hour: Int, minute: Int) {
    self.hour = hour
    self.minute = minute
  }

  /// Parses `HH:MM` (`04:00`, `4:30`); `nil` for anything else.
  public init?(_ text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
      parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
      let hour = Int(parts[0]), let minute = Int(parts[1])
    else { return nil }
    self.init(hour: hour, minute: minute)
  }

  /// `HH:MM`.
  public var description: String { LocalDate.pad(hour, 2) + ":" + LocalDate.pad(minute, 2) }

  /// Milliseconds after local midnight.
  public var milliseconds: Int64 { Int64(hour * 60 + minute) * 60_000 }

  /// Whether days are calendar days.
  public var isMidnight: Bool { hour == 0 && minute == 0 }

  /// The day (by this day start in `timeZone`) that holds `date`: which
  /// local day it belongs to, and the instants it runs between.
  ///
  /// - Parameters:
  ///   - date: A moment of the day.
  ///   - timeZone: Whose local times cut the days (DST-aware).
  /// - Returns: The day's label (the local date it starts on) and its interval.
  public func day(containing date: Date, in timeZone: TimeZone) -> (label: LocalDate, interval: DateInterval)
  {
    let t = date.epochMilliseconds
    let zone = ZoneOffsets(
      zone: timeZone, lowerMs: t &- 2 * BucketGeometry.dayMs, upperMs: t &+ 2 * BucketGeometry.dayMs)
    let geometry = BucketGeometry(unit: .day, dayStartMs: milliseconds)
    let segment = zone.segment(at: t, hint: 0)
    let ordinal = zone.ordinal(at: t, segment: segment, geometry)
    let low = t - 2 * BucketGeometry.dayMs
    let start = zone.firstInstant(
      from: low, segment: zone.segment(at: low, hint: 0), localAtLeast: geometry.localStart(of: ordinal))
    let end = zone.firstInstant(
      from: start, segment: zone.segment(at: start, hint: 0),
      localAtLeast: geometry.localStart(of: ordinal + 1))
    return (
      geometry.firstDay(of: ordinal).day,
      DateInterval(start: Date(epochMilliseconds: start), end: Date(epochMilliseconds: end))
    )
  }

  /// The days (by this day start in `timeZone`) that overlap `interval`, in order.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - timeZone: Whose local times cut the days.
  /// - Returns: At least one day.
  public func days(covering interval: DateInterval, in timeZone: TimeZone) -> [DateInterval] {
    var days = [day(containing: interval.start, in: timeZone).interval]
    while let last = days.last, last.end < interval.end {
      days.append(day(containing: last.end, in: timeZone).interval)
    }
    return days
  }
}
