/// The one way StepKit writes a UTC offset (ISO 8601): `+08:00`, `-05:30`.
public enum UTCOffsetText {
  /// How offset zero is written.
  public enum Zero: Sendable {
    /// `+00:00`: a local time that happens to be at UTC (an hour bucket's label).
    case numeric
    /// `Z`: an instant written in UTC (`2026-03-07T15:00:00Z`).
    case z
  }

  /// `+08:00`, `-05:30`, and for zero `+00:00` or `Z`.
  ///
  /// - Parameters:
  ///   - seconds: The offset east of UTC, in seconds (whole minutes are shown).
  ///   - zero: How to write offset zero.
  /// - Returns: The offset text.
  public static func iso8601(_ seconds: Int, zero: Zero) -> String {
    if seconds == 0 && zero == .z { return "Z" }
    let minutes = abs(seconds) / 60
    return (seconds < 0 ? "-" : "+") + LocalDate.pad(minutes / 60, 2) + ":" + LocalDate.pad(minutes % 60, 2)
  }
}
