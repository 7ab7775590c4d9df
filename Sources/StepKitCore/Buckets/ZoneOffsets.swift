import Foundation

/// A named time zone's UTC offsets over a span of time, as a table of
/// transitions, so that the hot loop never calls into `TimeZone`.
struct ZoneOffsets: Sendable {
  /// Segment starts (ms); `starts[0]` is `Int64.min`.
  private(set) var starts: [Int64]
  /// Offset of each segment, milliseconds.
  private(set) var offsets: [Int64]
  /// For each segment, the local time the clock had passed before it began
  /// (`Int64.min` for the first): higher than the segment's own readings
  /// for the hour after a change that sets the clocks back.
  private(set) var passedLocals: [Int64]

  /// Builds the table for `zone` covering `[lowerMs, upperMs]` (with a day of margin).
  init(zone: TimeZone, lowerMs: Int64, upperMs: Int64) {
    let margin: Int64 = 2 * 86_400_000
    let upper = upperMs &+ margin
    var (offset, next) = Self.offset(of: zone, at: lowerMs &- margin)
    starts = [Int64.min]
    offsets = [offset]
    while next <= upper {
      let transition = next
      (offset, next) = Self.offset(of: zone, at: transition)
      if offset != offsets[offsets.count - 1] {
        starts.append(transition)
        offsets.append(offset)
      }
      guard next > transition else { break }
    }
    passedLocals = [Int64.min]
    for i in starts.indices.dropFirst() {
      passedLocals.append(max(passedLocals[i - 1], starts[i] &+ offsets[i - 1]))
    }
  }

  /// The one place StepKitCore asks a `TimeZone` for its offsets: `zone`'s
  /// UTC offset at the instant `t` (ms), and the instant of its next
  /// transition after `t` (`Int64.max` when it has none), until which the
  /// offset holds.
  static func offset(of zone: TimeZone, at t: Int64) -> (offsetMs: Int64, nextTransitionMs: Int64) {
    let instant = Date(epochMilliseconds: t)
    let offset = Int64(zone.secondsFromGMT(for: instant)) * 1000
    let next = zone.nextDaylightSavingTimeTransition(after: instant)?.epochMilliseconds ?? Int64.max
    return (offset, next)
  }

  /// The index of the segment holding `t`.
  @inline(__always)
  func segment(at t: Int64, hint: Int) -> Int {
    var i = min(hint, starts.count - 1)
    if starts[i] <= t {
      while i + 1 < starts.count && starts[i + 1] <= t { i += 1 }
      return i
    }
    // Binary search for a jump backwards.
    var lo = 0
    var hi = i
    while lo < hi {
      let mid = (lo + hi + 1) / 2
      if starts[mid] <= t { lo = mid } else { hi = mid - 1 }
    }
    return lo
  }

  /// The offset (ms) of segment `i`.
  @inline(__always)
  func offset(ofSegment i: Int) -> Int64 { offsets[i] }

  /// The instant segment `i` begins (`Int64.min` for the first).
  @inline(__always)
  func start(ofSegment i: Int) -> Int64 { starts[i] }

  /// The ordinal of the bucket of `geometry` holding the instant `t` of
  /// segment `segment`: for hours, the clock hour it reads.
  ///
  /// A day (week, month) begins the first time the clock reads its day
  /// start. When the clocks go back over the day start (Pacific/Chatham's
  /// from 03:45 to 02:45, with days that start at 03:00), the instants after
  /// the change read times before it a second time but belong to the day
  /// that began the first time round, not to the day before.
  @inline(__always)
  func ordinal(at t: Int64, segment: Int, _ geometry: BucketGeometry) -> Int64 {
    let ordinal = geometry.ordinal(ofLocal: t + offsets[segment])
    guard geometry.unit != .hour, passedLocals[segment] > geometry.localStart(of: ordinal + 1) else {
      return ordinal
    }
    return ordinal + 1
  }

  /// The first instant at or after `t` whose local time is at least `local`.
  @inline(__always)
  func firstInstant(from t: Int64, segment: Int, localAtLeast local: Int64) -> Int64 {
    var i = segment
    while true {
      let segmentStart = max(starts[i], t)
      let end: Int64 = i + 1 < starts.count ? starts[i + 1] : Int64.max
      let candidate = max(segmentStart, local - offsets[i])
      if candidate < end { return candidate }
      i += 1
    }
  }
}
