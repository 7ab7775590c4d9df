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
  /// Flights climbed (count, cumulative).
  public static let flightsClimbed = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierFlightsClimbed")
  /// UV exposure (count, discrete).
  public static let uvExposure = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierUVExposure")
  /// Insulin delivered (IU, cumulative; iOS 11).
  public static let insulinDelivery = HKQuantityTypeIdentifier("HKQuantityTypeIdentifierInsulinDelivery")
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

  /// The quantity type for `identifier`, or `nil` for an identifier HealthKit
  /// does not define (here: one the stand-in's table does not know).
  ///
  /// - Parameter identifier: The identifier.
  /// - Returns: The type, or `nil`.
  public class func quantityType(forIdentifier identifier: HKQuantityTypeIdentifier) -> HKQuantityType? {
    HKQuantityType.table[identifier.rawValue] == nil ? nil : HKQuantityType(identifier)
  }

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

  /// How HealthKit combines this type's values (`aggregationStyle`):
  /// cumulative types are summed, discrete ones are not. `.discreteArithmetic`
  /// for a type the stand-in does not know.
  public var aggregationStyle: HKQuantityAggregationStyle {
    Self.table[identifier]?.cumulative == true ? .cumulative : .discreteArithmetic
  }

  /// Whether quantities of this type can be expressed in `unit` (`is(compatibleWith:)`):
  /// whether the unit measures the dimension of the type's unit in Apple's header.
  ///
  /// - Parameter unit: The unit.
  /// - Returns: Whether it fits; `false` for a type the stand-in does not know.
  public func `is`(compatibleWith unit: HKUnit) -> Bool {
    expectedDimension.map { unit.dimension == $0 } ?? false
  }

  /// Whether quantities of this type can be expressed in `unit`.
  func accepts(_ unit: HKUnit) -> Bool { self.is(compatibleWith: unit) }

  /// The dimension of the unit Apple's header names for the type, or `nil`
  /// for a type the stand-in does not know.
  var expectedDimension: HKUnit.Dimension? { Self.table[identifier]?.dimension }

  /// The unit the stand-in sums and compares this type in (count, metre,
  /// gram, kelvin, joule, second, litre).
  var baseUnit: HKUnit {
    switch expectedDimension {
    case .count?, nil: return HKUnit.count()
    case .length?: return HKUnit.meter()
    case .mass?: return HKUnit.gramUnit(with: .none)
    case .temperature?: return HKUnit.kelvin()
    case .energy?: return HKUnit.joule()
    case .time?: return HKUnit.second()
    case .volume?: return HKUnit.liter()
    case .pharmacology?: return HKUnit.internationalUnit()
    }
  }

  /// Each quantity type's unit dimension and aggregation, as the comments of
  /// Apple's `HKTypeIdentifiers.h` (iOS 18) give them: `count, Cumulative`,
  /// `min, Cumulative`, `kg, Discrete (Arithmetic)`, … Types whose unit is a
  /// compound (`count/min`, `m/s`, `%`) are left out.
  static let table: [String: (dimension: HKUnit.Dimension, cumulative: Bool)] = {
    var table: [String: (dimension: HKUnit.Dimension, cumulative: Bool)] = [:]
    func add(_ dimension: HKUnit.Dimension, cumulative: Bool, _ names: [String]) {
      for name in names { table["HKQuantityTypeIdentifier" + name] = (dimension, cumulative) }
    }
    add(
      .count, cumulative: true,
      [
        "StepCount", "FlightsClimbed", "NikeFuel", "PushCount", "SwimmingStrokeCount",
        "NumberOfAlcoholicBeverages", "NumberOfTimesFallen", "InhalerUsage",
      ])
    add(
      .length, cumulative: true,
      [
        "DistanceWalkingRunning", "DistanceCycling", "DistanceSwimming", "DistanceWheelchair",
        "DistanceDownhillSnowSports", "DistanceCrossCountrySkiing", "DistancePaddleSports", "DistanceRowing",
        "DistanceSkatingSports",
      ])
    add(.energy, cumulative: true, ["ActiveEnergyBurned", "BasalEnergyBurned", "DietaryEnergyConsumed"])
    add(.time, cumulative: true, ["AppleExerciseTime", "AppleMoveTime", "AppleStandTime", "TimeInDaylight"])
    add(.volume, cumulative: true, ["DietaryWater"])
    add(.pharmacology, cumulative: true, ["InsulinDelivery"])
    add(
      .mass, cumulative: true,
      [
        "Biotin", "Caffeine", "Calcium", "Carbohydrates", "Chloride", "Cholesterol", "Chromium", "Copper",
        "FatMonounsaturated", "FatPolyunsaturated", "FatSaturated", "FatTotal", "Fiber", "Folate", "Iodine",
        "Iron", "Magnesium", "Manganese", "Molybdenum", "Niacin", "PantothenicAcid", "Phosphorus",
        "Potassium",
        "Protein", "Riboflavin", "Selenium", "Sodium", "Sugar", "Thiamin", "VitaminA", "VitaminB12",
        "VitaminB6", "VitaminC", "VitaminD", "VitaminE", "VitaminK", "Zinc",
      ].map { "Dietary" + $0 })
    add(.mass, cumulative: false, ["BodyMass", "LeanBodyMass"])
    add(
      .length, cumulative: false,
      [
        "Height", "WaistCircumference", "SixMinuteWalkTestDistance", "WalkingStepLength",
        "RunningStrideLength",
        "UnderwaterDepth",
      ])
    add(
      .temperature, cumulative: false,
      [
        "BodyTemperature", "BasalBodyTemperature", "AppleSleepingWristTemperature", "WaterTemperature",
      ])
    add(.time, cumulative: false, ["HeartRateVariabilitySDNN", "RunningGroundContactTime"])
    add(.volume, cumulative: false, ["ForcedVitalCapacity", "ForcedExpiratoryVolume1"])
    // UV exposure is a count but discrete (its header comment names no unit).
    add(.count, cumulative: false, ["BodyMassIndex", "UVExposure", "AppleSleepingBreathingDisturbances"])
    return table
  }()
}

/// How HealthKit combines a quantity type's values (`HKQuantityAggregationStyle`).
public enum HKQuantityAggregationStyle: Int, Sendable {
  /// Summed over time (steps, energy, exercise minutes).
  case cumulative = 0
  /// Averaged (body mass, height).
  case discreteArithmetic = 1
  /// Averaged weighted by time (heart rate).
  case discreteTemporallyWeighted = 2
  /// Averaged as an equivalent continuous level (audio exposure).
  case discreteEquivalentContinuousLevel = 3
}
