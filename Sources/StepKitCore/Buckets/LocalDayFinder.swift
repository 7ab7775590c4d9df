import Foundation

/// The local day an instant falls on under a ``TimeZoneRule``, by the rule
/// the tally's day buckets use (COUNTING.md, step 3), for outputs that
/// label single samples with their day.
///
/// ```swift
/// var days = LocalDayFinder(rule: options.timeZone)
/// let day = days.day(of: sample.start.epochMilliseconds, recordedOffsetSeconds: sample.utcOffsetSeconds)
/// ```
///
/// For a named zone it remembers the offset until the zone's next transition,
/// so that samples in time order cost one `TimeZone` call per transition.
public struct LocalDayFinder: Sendable {
  private let rule: TimeZoneRule
  private let dayStartMs: Int64
  /// For a named zone: the span the cached offset holds for, and the offset (ms).
  private var cachedFrom = Int64.max
  private var cachedUntil = Int64.min
  private var cachedOffsetMs: Int64 = 0
  /// For a named zone: the local time the clock had passed before the
  /// cached span's offset began (``ZoneOffsets/passedLocals``).
  private var cachedPassedLocal = Int64.min
  /// The last day found, by its number: most instants fall on the day of the one before.
  private var lastDayNumber = Int64.min
  private var lastDay = LocalDate(daysSinceEpoch: 0)

  /// A finder for `rule`, with days that begin at `dayStart` (midnight by default).
  public init(rule: TimeZoneRule, dayStart: DayStart = .midnight) {
    self.rule = rule
    self.dayStartMs = dayStart.milliseconds
  }

  /// The local day of the instant `epochMilliseconds`.
  ///
  /// - Parameters:
  ///   - epochMilliseconds: The instant.
  ///   - recordedOffsetSeconds: The UTC offset recorded with it (used by ``TimeZoneRule/recorded``).
  /// - Returns: The day whose day starts (local midnights by default) enclose the instant.
  public mutating func day(of epochMilliseconds: EpochMilliseconds, recordedOffsetSeconds: Int) -> LocalDate {
    let local =
      epochMilliseconds + offsetMs(at: epochMilliseconds, recordedOffsetSeconds: recordedOffsetSeconds)
    var day = BucketGeometry.floorDiv(local - dayStartMs, BucketGeometry.dayMs)
    // An instant that reads a time again after the clocks went back over the
    // day start belongs to the day that began the first time round.
    if cachedPassedLocal > (day + 1) * BucketGeometry.dayMs + dayStartMs { day += 1 }
    if day != lastDayNumber {
      lastDayNumber = day
      lastDay = LocalDate(daysSinceEpoch: Int(day))
    }
    return lastDay
  }

  private mutating func offsetMs(at t: Int64, recordedOffsetSeconds: Int) -> Int64 {
    switch rule {
    case .recorded:
      return Int64(recordedOffsetSeconds) * 1000
    case .zone(let zone):
      if t >= cachedFrom && t < cachedUntil { return cachedOffsetMs }
      (cachedOffsetMs, cachedUntil) = ZoneOffsets.offset(of: zone, at: t)
      cachedFrom = t
      cachedPassedLocal = Self.passedLocal(zone, at: t)
      return cachedOffsetMs
    }
  }

  /// The latest local time `zone`'s clock read before the offset it has at `t`
  /// began (``ZoneOffsets/passedLocals``), judged over the days before `t`
  /// (no day start lies further back than that from a time the clock reads again).
  private static func passedLocal(_ zone: TimeZone, at t: Int64) -> Int64 {
    let table = ZoneOffsets(zone: zone, lowerMs: t &- 2 * BucketGeometry.dayMs, upperMs: t)
    return table.passedLocals[table.segment(at: t, hint: 0)]
  }
}
