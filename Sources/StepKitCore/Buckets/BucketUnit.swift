/// The length of the buckets a tally is split into.
public enum BucketUnit: String, Sendable, Hashable, CaseIterable, Codable {
  /// Local clock hours.
  case hour
  /// Local calendar days, midnight to midnight (23 or 25 hours on DST days).
  case day
  /// ISO 8601 weeks, Monday to Sunday.
  case week
  /// Calendar months.
  case month
}
