/// Rounds a sum for output: to the nearest integer, halves away from zero
/// (COUNTING.md: "rounding happens only on output").
///
/// Total for every `Double`: NaN gives 0, and a sum beyond what `Int64`
/// holds gives `Int64.max` (or `.min`) rather than a trap. Exports never get
/// there (a sample of more than ``SampleLog/mostPlausiblePerMinute`` a minute
/// is invalid); ``exceedsExactOutput(_:)`` tells a caller that must refuse
/// such a sum instead of printing it.
@inlinable
public func roundedForOutput(_ value: Double) -> Int64 {
  guard value.isFinite else { return value.isNaN ? 0 : (value < 0 ? .min : .max) }
  let rounded = value.rounded(.toNearestOrAwayFromZero)
  // 2^63 is exactly representable; every double below it converts.
  if rounded >= 9_223_372_036_854_775_808.0 { return .max }
  if rounded < -9_223_372_036_854_775_808.0 { return .min }
  return Int64(rounded)
}

/// Whether `value` is too large to print as an exact integer: at or beyond
/// 2^53, where doubles no longer hold every integer, so the sum's last
/// digits would be made up.
@inlinable
public func exceedsExactOutput(_ value: Double) -> Bool {
  !(abs(value) < 9_007_199_254_740_992.0)
}
