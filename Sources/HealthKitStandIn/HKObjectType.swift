import Foundation

/// A quantity type identifier (`HKQuantityTypeIdentifier`, an `NS_STRING_ENUM`).
public struct HKQuantityTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// The identifier string.
  public var rawValue: String
  /// Creates an identifier.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Creates an identifier.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Step count (count, cumulative).
  public static let stepCount = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierStepCount")
  /// Walking + running distance (length, cumulative).
  public static let distanceWalkingRunning = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierDistanceWalkingRunning")
  /// Body mass (mass, discrete).
  public static let bodyMass = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBodyMass")
  /// Height (length, discrete).
  public static let height = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierHeight")
  /// Body temperature (temperature, discrete).
  public static let bodyTemperature = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBodyTemperature")
  /// Resting energy burned (energy, cumulative).
  public static let basalEnergyBurned = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierBasalEnergyBurned")
  /// Active energy burned (energy, cumulative).
  public static let activeEnergyBurned = HKQuantityTypeIdentifier(
    "HKQuantityTypeIdentifierActiveEnergyBurned")
  /// Exercise minutes (time, cumulative); computed by Apple, apps may read but not share it.
  public static let appleExerciseTime = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierAppleExerciseTime")
}

/// A characteristic type identifier (`HKCharacteristicTypeIdentifier`).
public struct HKCharacteristicTypeIdentifier: RawRepresentable, Hashable, Sendable {
  /// The identifier string.
  public var rawValue: String
  /// Creates an identifier.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Creates an identifier.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Biological sex.
  public static let biologicalSex = HKCharacteristicTypeIdentifier(
    "HKCharacteristicTypeIdentifierBiologicalSex")
  /// Date of birth.
  public static let dateOfBirth = HKCharacteristicTypeIdentifier("HKCharacteristicTypeIdentifierDateOfBirth")
}

/// The base of every HealthKit data type (`HKObjectType`).
public class HKObjectType: NSObject {
  /// The type's identifier.
  public let identifier: String

  init(identifier: String) { self.identifier = identifier }

  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKObjectType else { return false }
    return other.identifier == identifier
  }

  public override var hash: Int { identifier.hashValue }
}

/// A characteristic type (`HKCharacteristicType`).
public class HKCharacteristicType: HKObjectType {
  /// The characteristic type for `identifier` (iOS 15 overlay).
  public convenience init(_ identifier: HKCharacteristicTypeIdentifier) {
    self.init(identifier: identifier.rawValue)
  }
}

/// A sample type (`HKSampleType`).
public class HKSampleType: HKObjectType {}

/// A quantity type (`HKQuantityType`).
public class HKQuantityType: HKSampleType {
  /// The quantity type for `identifier` (iOS 15 overlay).
  public convenience init(_ identifier: HKQuantityTypeIdentifier) {
    self.init(identifier: identifier.rawValue)
  }

  /// Whether quantities of this type can be expressed in `unit`.
  func accepts(_ unit: HKUnit) -> Bool {
    unit.dimension == expectedDimension
  }

  var expectedDimension: HKUnit.Dimension {
    switch identifier {
    case HKQuantityTypeIdentifier.stepCount.rawValue: return .count
    case HKQuantityTypeIdentifier.bodyMass.rawValue: return .mass
    case HKQuantityTypeIdentifier.bodyTemperature.rawValue: return .temperature
    case HKQuantityTypeIdentifier.basalEnergyBurned.rawValue,
      HKQuantityTypeIdentifier.activeEnergyBurned.rawValue:
      return .energy
    default: return .length
    }
  }

  /// The unit the stand-in sums and compares this type in (count, metre, gram, kelvin, joule).
  var baseUnit: HKUnit {
    switch expectedDimension {
    case .count: return HKUnit.count()
    case .length: return HKUnit.meter()
    case .mass: return HKUnit.gramUnit(with: .none)
    case .temperature: return HKUnit.kelvin()
    case .energy: return HKUnit.joule()
    }
  }
}
