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
    return LocalDate(daysSinceEpoch: Int(BucketGeometry.floorDiv(local - dayStartMs, BucketGeometry.dayMs)))
  }

  private mutating func offsetMs(at t: Int64, recordedOffsetSeconds: Int) -> Int64 {
    switch rule {
    case .recorded:
      return Int64(recordedOffsetSeconds) * 1000
    case .zone(let zone):
      if t >= cachedFrom && t < cachedUntil { return cachedOffsetMs }
      (cachedOffsetMs, cachedUntil) = ZoneOffsets.offset(of: zone, at: t)
      cachedFrom = t
      return cachedOffsetMs
    }
  }
}
