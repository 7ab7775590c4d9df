/// What a sample measures.
///
/// StepKit counts two cumulative quantities: steps, and walking + running
/// distance. Distance values are always held in metres.
public enum QuantityKind: UInt8, Sendable, Hashable, CaseIterable, Codable {
  /// A number of steps (HealthKit `HKQuantityTypeIdentifierStepCount`).
  case steps = 0
  /// Walking and running distance in metres
  /// (HealthKit `HKQuantityTypeIdentifierDistanceWalkingRunning`).
  case distance = 1

  /// The HealthKit / Apple Health export type identifier of this kind.
  public var typeIdentifier: String {
    switch self {
    case .steps: return "HKQuantityTypeIdentifierStepCount"
    case .distance: return "HKQuantityTypeIdentifierDistanceWalkingRunning"
    }
  }

  /// The kind named by a HealthKit type identifier, or `nil` for any other type.
  public init?(typeIdentifier: String) {
    switch typeIdentifier {
    case "HKQuantityTypeIdentifierStepCount": self = .steps
    case "HKQuantityTypeIdentifierDistanceWalkingRunning": self = .distance
    default: return nil
    }
  }
}
