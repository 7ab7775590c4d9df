import Foundation

/// A number of steps over an interval, with its provenance.
public struct StepCount: ProvenancedResult, Hashable {
  /// The interval counted.
  public var interval: DateInterval
  /// Steps, unrounded (merged sources may contribute fractions).
  public var steps: Double
  /// Where the count came from.
  public var provenance: Provenance
  /// Whether the source returned any samples at all.
  public var hasData: Bool

  /// Creates a step count.
  ///
  /// - Parameters:
  ///   - interval: The interval counted.
  ///   - steps: Steps, unrounded.
  ///   - provenance: Where the count came from.
  ///   - hasData: Whether any sample matched.
  public init(interval: DateInterval, steps: Double, provenance: Provenance, hasData: Bool) {
    self.interval = interval
    self.steps = steps
    self.provenance = provenance
    self.hasData = hasData
  }

  /// Steps rounded to the nearest whole step (halves away from zero), as
  /// the Health app shows them.
  public var roundedSteps: Int { Int(roundedForOutput(steps)) }
}

// Shaped like StepCount on purpose: one generic amount would call both values
// `value`, where `steps` and `meters` say what they are.

/// A walking + running distance over an interval, with its provenance.
public struct DistanceAmount: ProvenancedResult, Hashable {
  /// The interval measured.
  public var interval: DateInterval
  /// Metres, unrounded.
  public var meters: Double
  /// Where the distance came from.
  public var provenance: Provenance
  /// Whether the source returned any samples at all.
  public var hasData: Bool

  /// Creates a distance.
  ///
  /// - Parameters:
  ///   - interval: The interval measured.
  ///   - meters: Metres.
  ///   - provenance: Where the distance came from.
  ///   - hasData: Whether any sample matched.
  public init(interval: DateInterval, meters: Double, provenance: Provenance, hasData: Bool) {
    self.interval = interval
    self.meters = meters
    self.provenance = provenance
    self.hasData = hasData
  }

  /// The distance as a measurement in metres (convert with `converted(to:)`).
  public var distance: Measurement<UnitLength> { Measurement(value: meters, unit: .meters) }
}

/// Steps per local day, with the provenance of the whole answer.
public struct DailySteps: ProvenancedResult, Hashable {
  /// One day's steps.
  public struct Day: Sendable, Hashable {
    /// The whole local day, midnight to midnight (23 or 25 hours on DST changes).
    public var interval: DateInterval
    /// Steps counted in the day (within the requested range).
    public var steps: Double

    // Written out as every public value type's memberwise initializer is (Swift makes none public):
    // alike in shape only with other types' of as many fields; each names its own fields.

    /// Creates a day.
    ///
    /// - Parameters:
    ///   - interval: Midnight to midnight.
    ///   - steps: Steps counted.
    public init(interval: DateInterval, steps: Double) {
      self.interval = interval
      self.steps = steps
    }
    /// Steps rounded to the nearest whole step.
    public var roundedSteps: Int { Int(roundedForOutput(steps)) }
  }

  /// The range that was asked for.
  public var interval: DateInterval
  /// The days, in order, empty days included.
  public var days: [Day]
  /// Where the answer came from.
  public var provenance: Provenance
  /// Whether the source returned any samples at all.
  public var hasData: Bool

  /// Creates daily steps.
  ///
  /// - Parameters:
  ///   - interval: The range asked for.
  ///   - days: The days, in order.
  ///   - provenance: Where the answer came from.
  ///   - hasData: Whether any sample matched.
  public init(interval: DateInterval, days: [Day], provenance: Provenance, hasData: Bool) {
    self.interval = interval
    self.days = days
    self.provenance = provenance
    self.hasData = hasData
  }

  /// The sum over all days.
  public var totalSteps: Double { days.reduce(0) { $0 + $1.steps } }
}

/// Walking + running distance per local day, with the provenance of the whole answer.
public struct DailyDistance: ProvenancedResult, Hashable {
  /// One day's distance.
  public struct Day: Sendable, Hashable {
    /// The whole local day, midnight to midnight.
    public var interval: DateInterval
    /// Metres covered in the day (within the requested range).
    public var meters: Double
    /// Creates a day.
    ///
    /// - Parameters:
    ///   - interval: Midnight to midnight.
    ///   - meters: Metres covered.
    public init(interval: DateInterval, meters: Double) {
      self.interval = interval
      self.meters = meters
    }
    /// The distance as a measurement.
    public var distance: Measurement<UnitLength> { Measurement(value: meters, unit: .meters) }
  }

  /// The range that was asked for.
  public var interval: DateInterval
  /// The days, in order.
  public var days: [Day]
  /// Where the answer came from.
  public var provenance: Provenance
  /// Whether the source returned any samples at all.
  public var hasData: Bool

  /// Creates daily distances.
  ///
  /// - Parameters:
  ///   - interval: The range asked for.
  ///   - days: The days, in order.
  ///   - provenance: Where the answer came from.
  ///   - hasData: Whether any sample matched.
  public init(interval: DateInterval, days: [Day], provenance: Provenance, hasData: Bool) {
    self.interval = interval
    self.days = days
    self.provenance = provenance
    self.hasData = hasData
  }
}
