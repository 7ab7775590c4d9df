import Foundation
import StepKitCore

/// Local days of a calendar: the one rule for where a day starts and ends.
///
/// Every "today" and every daily bucket in StepKit comes from here, so that a
/// DST change (a 23- or 25-hour day, or a day whose midnight is skipped) is
/// handled the same way everywhere.
public enum LocalDays {
  /// The local days of `calendar` that overlap `interval`, each midnight to midnight.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose midnights cut the days.
  /// - Returns: The days in order (at least one).
  public static func days(covering interval: DateInterval, calendar: Calendar) -> [DateInterval] {
    var result: [DateInterval] = []
    var start = calendar.startOfDay(for: interval.start)
    repeat {
      // Midnight of the next day, even where a DST change skips or repeats an hour.
      let next = calendar.startOfDay(for: start.addingTimeInterval(36 * 3600))
      guard next > start else { break }
      result.append(DateInterval(start: start, end: next))
      start = next
    } while start < interval.end
    return result
  }

  /// The days of `calendar`'s time zone that overlap `interval`, each from
  /// `dayStart` to the same local time the next day (23 or 25 hours across a
  /// DST change); midnight gives ``days(covering:calendar:)``.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  /// - Returns: The days in order (at least one).
  public static func days(covering interval: DateInterval, calendar: Calendar, dayStart: DayStart)
    -> [DateInterval]
  {
    guard !dayStart.isMidnight else { return days(covering: interval, calendar: calendar) }
    return dayStart.days(covering: interval, in: calendar.timeZone)
  }

  /// The day (from `dayStart` to the same local time the next day) of
  /// `calendar`'s time zone that contains `date`; midnight gives
  /// ``day(containing:calendar:)``.
  ///
  /// - Parameters:
  ///   - date: A moment of the day.
  ///   - calendar: Whose time zone's local times cut the days (read now, so
  ///     `Calendar.autoupdatingCurrent` follows the phone to a new zone).
  ///   - dayStart: The local time at which days begin.
  /// - Returns: The whole day: 24 hours, or 23 or 25 across a DST change.
  public static func day(containing date: Date, calendar: Calendar, dayStart: DayStart) -> DateInterval {
    days(covering: DateInterval(start: date, duration: 0), calendar: calendar, dayStart: dayStart)[0]
  }

  /// The part of the day (from `dayStart`) containing `now` that has passed.
  ///
  /// - Parameters:
  ///   - now: The current moment.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  /// - Returns: The day's start until `now`.
  public static func todaySoFar(at now: Date, calendar: Calendar, dayStart: DayStart) -> DateInterval {
    DateInterval(start: day(containing: now, calendar: calendar, dayStart: dayStart).start, end: now)
  }

  /// The local day of `calendar` that contains `date`, midnight to midnight
  /// (23 or 25 hours on DST changes; where a DST change skips midnight, from
  /// the day's first moment).
  ///
  /// - Parameters:
  ///   - date: A moment of the day.
  ///   - calendar: Whose midnights cut the days.
  /// - Returns: The whole day.
  public static func day(containing date: Date, calendar: Calendar) -> DateInterval {
    days(covering: DateInterval(start: date, duration: 0), calendar: calendar)[0]
  }

  /// The part of `day` inside `interval`: the first and last day of a range
  /// count only what falls within the range; an empty interval at the day's
  /// start when they do not overlap.
  ///
  /// - Parameters:
  ///   - day: A day from ``days(covering:calendar:)``.
  ///   - interval: The range asked for.
  /// - Returns: The part to count.
  public static func part(of day: DateInterval, within interval: DateInterval) -> DateInterval {
    day.intersection(with: interval) ?? DateInterval(start: day.start, duration: 0)
  }

  /// The part of the day containing `now` that has passed: its start until `now`.
  ///
  /// - Parameters:
  ///   - now: The current moment.
  ///   - calendar: Whose midnights cut the days.
  /// - Returns: Local midnight (or the day's first moment) until `now`.
  public static func todaySoFar(at now: Date, calendar: Calendar) -> DateInterval {
    DateInterval(start: day(containing: now, calendar: calendar).start, end: now)
  }
}
