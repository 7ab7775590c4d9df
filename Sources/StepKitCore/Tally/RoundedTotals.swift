/// Totals as outputs print them: each one the sum of the rows' rounded values.
///
/// COUNTING.md, "Rounding": every row is rounded on its own (``roundedForOutput(_:)``), and a
/// total is the sum of the rounded rows, never the rounding of the unrounded sum. So a printed
/// total always equals the sum of the printed rows (in a table, CSV, JSON or SQLite, whoever adds
/// them up), and a day's number never depends on which other days are printed with it. The price
/// is that a total may differ from the rounded exact sum by up to half a unit per row; in practice
/// by a few steps over years, since the rows' rounding errors mostly cancel.
public struct RoundedTotals: Sendable, Hashable {
  /// The sum of the buckets' ``Tally/Bucket/roundedSteps``.
  public var steps: Int64 = 0
  /// The sum of the buckets' ``Tally/Bucket/roundedDistanceMeters``.
  public var distanceMeters: Int64 = 0
  /// The sum of the buckets' ``Tally/Bucket/roundedRawSteps``.
  public var rawSteps: Int64 = 0
  /// The sum of the buckets' ``Tally/Bucket/roundedManualSteps``.
  public var manualSteps: Int64 = 0

  /// The totals of `buckets`, each the sum of the rounded values.
  ///
  /// - Parameter buckets: The rows as they are printed.
  public init(_ buckets: some Sequence<Tally.Bucket>) {
    for bucket in buckets {
      steps = Self.adding(steps, bucket.roundedSteps)
      distanceMeters = Self.adding(distanceMeters, bucket.roundedDistanceMeters)
      rawSteps = Self.adding(rawSteps, bucket.roundedRawSteps)
      manualSteps = Self.adding(manualSteps, bucket.roundedManualSteps)
    }
  }

  /// The sum of `values`, each rounded for output first: the total of rows printed with
  /// ``roundedForOutput(_:)``.
  ///
  /// - Parameter values: The rows' unrounded values.
  /// - Returns: The sum of the rounded values (saturating at the ends of `Int64`).
  public static func sumOfRounded(_ values: some Sequence<Double>) -> Int64 {
    values.reduce(0) { adding($0, roundedForOutput($1)) }
  }

  /// `a + b`, held at `Int64`'s ends instead of trapping: how a total adds its rows.
  ///
  /// - Parameters:
  ///   - a: The total so far.
  ///   - b: The next row.
  /// - Returns: The sum, or `Int64.max` / `Int64.min` where it would not fit.
  public static func adding(_ a: Int64, _ b: Int64) -> Int64 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    guard overflow else { return sum }
    return b > 0 ? .max : .min
  }
}

extension Tally {
  /// The totals every output prints: the sums of the buckets' rounded values
  /// (``RoundedTotals``), so that they equal the sums of the printed rows.
  public var roundedTotal: RoundedTotals { RoundedTotals(buckets) }
}
