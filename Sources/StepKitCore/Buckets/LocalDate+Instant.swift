extension LocalDate {
  /// The local calendar day that holds an instant on a clock `utcOffsetSeconds`
  /// ahead of UTC: `2026-11-28T20:30:00Z` at `+08:00` is `2026-11-29`.
  ///
  /// Days are cut with floor division, so instants before 1970 fall on the
  /// right day too; the buckets cut days with the same rule.
  public init(containing epochMilliseconds: EpochMilliseconds, utcOffsetSeconds: Int) {
    let local = epochMilliseconds + Int64(utcOffsetSeconds) * 1000
    self.init(daysSinceEpoch: Int(BucketGeometry.floorDiv(local, BucketGeometry.dayMs)))
  }
}
