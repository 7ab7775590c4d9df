/// Rounds a sum for output: to the nearest integer, halves away from zero
/// (COUNTING.md: "rounding happens only on output").
@inlinable
public func roundedForOutput(_ value: Double) -> Int64 {
  guard value.isFinite else { return 0 }
  return Int64(value.rounded(.toNearestOrAwayFromZero))
}
