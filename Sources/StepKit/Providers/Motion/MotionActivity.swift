import Foundation

/// What this device's motion coprocessor measures.
public struct MotionCapabilities: Sendable, Hashable {
  /// Whether it counts steps (`CMPedometer.isStepCountingAvailable()`).
  public var stepCounting: Bool
  /// Whether it estimates distance (`CMPedometer.isDistanceAvailable()`).
  public var distance: Bool
  /// Whether it counts flights of stairs (`CMPedometer.isFloorCountingAvailable()`; needs a barometer).
  public var floorCounting: Bool

  // Written out as every public value type's memberwise initializer is (Swift makes none public):
  // alike in shape only with other types' of as many fields; each names its own fields.

  /// Creates a capability record.
  ///
  /// - Parameters:
  ///   - stepCounting: Whether steps are counted.
  ///   - distance: Whether distance is estimated.
  ///   - floorCounting: Whether floors are counted.
  public init(stepCounting: Bool, distance: Bool, floorCounting: Bool) {
    self.stepCounting = stepCounting
    self.distance = distance
    self.floorCounting = floorCounting
  }
}

/// Everything the motion coprocessor measured over an interval: steps, distance and floors.
public struct MotionActivity: ProvenancedResult, Hashable {
  /// The interval asked for.
  public var interval: DateInterval
  /// Steps.
  public var steps: Int
  /// Metres walked or run; `nil` where the device does not estimate distance.
  public var distanceMeters: Double?
  /// Flights of stairs climbed; `nil` where the device does not count floors.
  public var floorsAscended: Int?
  /// Flights of stairs descended; `nil` where the device does not count floors.
  public var floorsDescended: Int?
  /// Where the answer came from (always ``StepSourceKind/motion``; notes say when part of the
  /// interval lay outside the seven days of history).
  public var provenance: Provenance

  /// Creates an activity record.
  ///
  /// - Parameters:
  ///   - interval: The interval asked for.
  ///   - steps: Steps.
  ///   - distanceMeters: Metres, if measured.
  ///   - floorsAscended: Flights climbed, if counted.
  ///   - floorsDescended: Flights descended, if counted.
  ///   - provenance: Where the answer came from.
  public init(
    interval: DateInterval, steps: Int, distanceMeters: Double?, floorsAscended: Int?, floorsDescended: Int?,
    provenance: Provenance
  ) {
    self.interval = interval
    self.steps = steps
    self.distanceMeters = distanceMeters
    self.floorsAscended = floorsAscended
    self.floorsDescended = floorsDescended
    self.provenance = provenance
  }

  /// Whether any step was counted.
  public var hasData: Bool { steps > 0 }
}

/// What the motion source does with an interval that reaches back beyond the seven days of
/// history CoreMotion keeps.
public enum MotionHistoryLimit: String, Sendable, Hashable, CaseIterable {
  /// Count the part inside the window and say so: the result carries
  /// ``ResultNote/truncatedHistory(earliestAvailable:)``, and daily answers leave out the days
  /// that lie wholly before the window. The default.
  case countAvailablePart
  /// Throw ``StepKitError/motionOutsideHistory(earliestAvailable:)``.
  case fail
}
