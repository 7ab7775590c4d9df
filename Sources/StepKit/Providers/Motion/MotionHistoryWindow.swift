import Foundation

/// The seven days of history CoreMotion keeps, and how an interval fits into them.
struct MotionHistoryWindow: Sendable, Equatable {
  /// How far back CoreMotion's pedometer history reaches.
  static let length: TimeInterval = 7 * 24 * 60 * 60

  /// The earliest moment still in the history.
  let earliest: Date

  /// The window as it stands at `now`.
  init(now: Date) {
    earliest = now.addingTimeInterval(-Self.length)
  }

  /// How an interval fits.
  enum Fit: Equatable {
    /// Wholly inside: ask for all of it.
    case inside(DateInterval)
    /// Partly before the window: only this part can be asked for.
    case truncated(DateInterval)
    /// Wholly before the window.
    case outside
  }

  /// How `interval` fits into the window.
  func fit(_ interval: DateInterval) -> Fit {
    if interval.start >= earliest { return .inside(interval) }
    if interval.end <= earliest { return .outside }
    return .truncated(DateInterval(start: earliest, end: interval.end))
  }
}
