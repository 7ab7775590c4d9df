import Foundation

/// The total of one cumulative quantity type over an interval (flights
/// climbed, exercise minutes, cycling distance, active energy, …), merged
/// across sources, in the type's canonical unit.
public struct CumulativeTotal: ProvenancedResult, Hashable {
  /// The type.
  public var type: CumulativeType
  /// The interval measured.
  public var interval: DateInterval
  /// The total in ``CumulativeType/unit``: kcal, m, count, min, g or mL.
  public var value: Double
  /// Where the total came from.
  public var provenance: Provenance
  /// Whether any sample matched (`false` may mean read access was denied).
  public var hasData: Bool

  // Written out as every public value type's memberwise initializer is (Swift makes none public):
  // alike in shape only with other types' of as many fields; each names its own fields.

  /// Creates a total.
  ///
  /// - Parameters:
  ///   - type: The type.
  ///   - interval: The interval measured.
  ///   - value: The total in the type's canonical unit.
  ///   - provenance: Where it came from.
  ///   - hasData: Whether any sample matched.
  public init(
    type: CumulativeType, interval: DateInterval, value: Double, provenance: Provenance, hasData: Bool
  ) {
    self.type = type
    self.interval = interval
    self.value = value
    self.provenance = provenance
    self.hasData = hasData
  }
}

/// The totals of one cumulative quantity type per local day.
public struct DailyCumulativeTotals: ProvenancedResult, Hashable {
  /// One day's total.
  public struct Day: Sendable, Hashable {
    /// The whole local day (23 or 25 hours across a DST change).
    public var interval: DateInterval
    /// The day's total (within the requested range) in the type's canonical unit.
    public var value: Double

    /// Creates a day.
    ///
    /// - Parameters:
    ///   - interval: The whole day.
    ///   - value: Its total.
    public init(interval: DateInterval, value: Double) {
      self.interval = interval
      self.value = value
    }
  }

  /// The type.
  public var type: CumulativeType
  /// The range that was asked for.
  public var interval: DateInterval
  /// The days, in order, empty ones included.
  public var days: [Day]
  /// Where the totals came from.
  public var provenance: Provenance
  /// Whether any day had samples.
  public var hasData: Bool

  /// Creates daily totals.
  ///
  /// - Parameters:
  ///   - type: The type.
  ///   - interval: The range asked for.
  ///   - days: The days, in order.
  ///   - provenance: Where they came from.
  ///   - hasData: Whether any sample matched.
  public init(
    type: CumulativeType, interval: DateInterval, days: [Day], provenance: Provenance, hasData: Bool
  ) {
    self.type = type
    self.interval = interval
    self.days = days
    self.provenance = provenance
    self.hasData = hasData
  }

  /// The sum of the days.
  public var total: Double { days.reduce(0) { $0 + $1.value } }
}
