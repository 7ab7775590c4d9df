import Foundation

/// Where local days begin (COUNTING.md, step 3).
public enum TimeZoneRule: Sendable, Hashable, CustomStringConvertible {
  /// Each sample's own recorded UTC offset: a sample recorded at `+0800` falls
  /// on days that start at 00:00 `+0800`. The default for exports.
  case recorded
  /// A named IANA time zone, DST-aware: what the Health app shows on a phone
  /// set to that zone.
  case zone(TimeZone)

  /// `recorded`, or the zone's identifier.
  public var description: String {
    switch self {
    case .recorded: return "recorded"
    case .zone(let zone): return zone.identifier
    }
  }

  /// Parses `recorded` or an IANA identifier (`Asia/Shanghai`).
  ///
  /// - Returns: `nil` when the text is neither.
  public init?(_ text: String) {
    if text == "recorded" {
      self = .recorded
    } else if text.contains("/") || text == "UTC" || text == "GMT", let zone = TimeZone(identifier: text) {
      self = .zone(zone)
    } else {
      return nil
    }
  }
}
