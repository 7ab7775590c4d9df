/// The one unit StepKit holds a cumulative type's values in, whatever unit
/// its records name (COUNTING.md, Which quantities).
public enum CanonicalUnit: String, Sendable, Hashable, CaseIterable, Codable {
  /// A count (steps, flights, pushes, strokes): HealthKit's `count`.
  case count
  /// Metres: every distance.
  case metres = "m"
  /// Kilocalories (the food "Calorie"): every energy.
  case kilocalories = "kcal"
  /// Minutes: exercise, move, stand and daylight time.
  case minutes = "min"
  /// Grams: dietary nutrients.
  case grams = "g"
  /// Millilitres: water.
  case millilitres = "mL"
  /// International units: insulin delivery (HealthKit's `IU`).
  case internationalUnits = "IU"

  /// How many decimals outputs print values of this unit with: whole counts
  /// and metres (as `distance_m`), two decimals for the others.
  public var outputDecimals: Int {
    switch self {
    case .count, .metres: return 0
    case .kilocalories, .minutes, .grams, .millilitres, .internationalUnits: return 2
    }
  }

  /// How many of this unit one of `unit` is (`kJ` is 1 / 4.184 kcal), or
  /// `nil` for a unit that does not measure what this unit measures.
  ///
  /// - Parameter unit: The unit string as an export or `HKUnit.unitString` writes it.
  public func factor(_ unit: String) -> Double? {
    var text = unit
    return text.withUTF8 { factor(utf8: $0) }
  }

  /// How many of this unit one of `unit`, given as UTF-8 bytes, is: the one
  /// table of conversions for every cumulative type, so that a reader can
  /// convert without making a `String`.
  ///
  /// - Parameter unit: The unit's UTF-8 bytes.
  /// - Returns: The factor, or `nil` for a unit of another dimension or one not known.
  @inlinable
  public func factor(utf8 unit: UnsafeBufferPointer<UInt8>) -> Double? {
    switch self {
    case .metres: return LengthUnit.metresPerUnit(utf8: unit)
    case .count: return Self.matches(unit, "count") ? 1 : nil
    case .kilocalories:
      // `Cal` is the food calorie, 1 kcal; `cal` the small calorie.
      if Self.matches(unit, "kcal") || Self.matches(unit, "Cal") { return 1 }
      if Self.matches(unit, "kJ") { return 1 / 4.184 }
      if Self.matches(unit, "J") { return 1 / 4184 }
      if Self.matches(unit, "cal") { return 0.001 }
      return nil
    case .minutes:
      if Self.matches(unit, "min") { return 1 }
      if Self.matches(unit, "s") { return 1.0 / 60 }
      if Self.matches(unit, "ms") { return 1.0 / 60_000 }
      if Self.matches(unit, "hr") { return 60 }
      if Self.matches(unit, "d") { return 1440 }
      return nil
    case .grams:
      if Self.matches(unit, "g") { return 1 }
      if Self.matches(unit, "mg") { return 0.001 }
      if Self.matches(unit, "mcg") { return 0.000_001 }
      if Self.matches(unit, "kg") { return 1000 }
      if Self.matches(unit, "oz") { return 28.349_523_125 }
      if Self.matches(unit, "lb") { return 453.592_37 }
      return nil
    case .millilitres:
      if Self.matches(unit, "mL") { return 1 }
      if Self.matches(unit, "L") { return 1000 }
      if Self.matches(unit, "dL") { return 100 }
      if Self.matches(unit, "cL") { return 10 }
      if Self.matches(unit, "fl_oz_us") { return 29.573_529_562_5 }
      if Self.matches(unit, "fl_oz_imp") { return 28.413_062_5 }
      if Self.matches(unit, "cup_us") { return 236.588_236_5 }
      if Self.matches(unit, "cup_imp") { return 284.130_625 }
      return nil
    case .internationalUnits:
      // A unit of its own: an IU of insulin is no fixed mass.
      return Self.matches(unit, "IU") ? 1 : nil
    }
  }

  @inlinable
  static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
    guard bytes.count == text.utf8CodeUnitCount else { return false }
    let other = text.utf8Start
    for i in 0..<bytes.count where bytes[i] != other[i] { return false }
    return true
  }
}

/// A cumulative quantity type: one the Health app sums per day and merges
/// across sources (steps, distances, energy, flights, exercise minutes, …).
///
/// Every such type is counted on its own, by the rules of COUNTING.md: its
/// own source ranking, policy filter and day buckets, with values in one
/// ``CanonicalUnit``. Discrete types (heart rate, body mass) are never summed
/// and are not cumulative types.
///
/// ```swift
/// let energy = CumulativeType(named: "activeEnergyBurned")!
/// energy.identifier       // "HKQuantityTypeIdentifierActiveEnergyBurned"
/// energy.unit             // .kilocalories
/// energy.unit.factor("kJ") // 0.239…
/// ```
public struct CumulativeType: Sendable, Hashable, Codable, CustomStringConvertible {
  /// The HealthKit identifier, as exports write it in `type`
  /// (`HKQuantityTypeIdentifierActiveEnergyBurned`).
  public let identifier: String
  /// The canonical unit values are converted to.
  public let unit: CanonicalUnit
  /// The identifier's UTF-8 bytes followed by a `"`: what a record's `type`
  /// attribute holds, closing quote included, for a reader comparing bytes.
  public let quotedIdentifierBytes: [UInt8]

  /// A cumulative type with this identifier and unit.
  ///
  /// - Parameters:
  ///   - identifier: The HealthKit identifier.
  ///   - unit: Its canonical unit.
  public init(identifier: String, unit: CanonicalUnit) {
    self.identifier = identifier
    self.unit = unit
    quotedIdentifierBytes = Array(identifier.utf8) + [UInt8(ascii: "\"")]
  }

  /// The short form of the identifier: `activeEnergyBurned` for
  /// `HKQuantityTypeIdentifierActiveEnergyBurned`.
  public var shortName: String {
    for prefix in Self.identifierPrefixes where identifier.hasPrefix(prefix) {
      let rest = identifier.dropFirst(prefix.count)
      guard let first = rest.first else { break }
      // `UVExposure` would stay as it is; `ActiveEnergyBurned` becomes `activeEnergyBurned`.
      let second = rest.dropFirst().first
      if second?.isUppercase == true { return String(rest) }
      return first.lowercased() + rest.dropFirst()
    }
    return identifier
  }

  /// The short name.
  public var description: String { shortName }

  /// The cumulative type named `name`: a HealthKit identifier or its short
  /// form (`activeEnergyBurned`, `ActiveEnergyBurned`, `flightsClimbed`, or
  /// `steps`, `energy` … for the most asked-for ones), compared without case.
  ///
  /// - Parameter name: The name as a person types it.
  /// - Returns: The type, or `nil` for a name of no known cumulative type.
  public init?(named name: String) {
    let wanted = name.lowercased()
    if let alias = Self.aliases[wanted], let type = Self.known.first(where: { $0.identifier == alias }) {
      self = type
      return
    }
    for type in Self.known
    where type.identifier.lowercased() == wanted || type.shortName.lowercased() == wanted {
      self = type
      return
    }
    return nil
  }

  /// The cumulative type with exactly this HealthKit identifier, or `nil`
  /// for a discrete type or an identifier that is not known.
  public init?(identifier: String) {
    guard let type = Self.byIdentifier[identifier] else { return nil }
    self = type
  }

  /// Steps.
  public static let stepCount = CumulativeType(identifier: "HKQuantityTypeIdentifierStepCount", unit: .count)
  /// Walking + running distance.
  public static let distanceWalkingRunning = CumulativeType(
    identifier: "HKQuantityTypeIdentifierDistanceWalkingRunning", unit: .metres)
  /// Active energy.
  public static let activeEnergyBurned = CumulativeType(
    identifier: "HKQuantityTypeIdentifierActiveEnergyBurned", unit: .kilocalories)
  /// Resting (basal) energy.
  public static let basalEnergyBurned = CumulativeType(
    identifier: "HKQuantityTypeIdentifierBasalEnergyBurned", unit: .kilocalories)
  /// Flights climbed.
  public static let flightsClimbed = CumulativeType(
    identifier: "HKQuantityTypeIdentifierFlightsClimbed", unit: .count)

  /// Every cumulative quantity type HealthKit defines (iOS 18), in the order
  /// the Health app's Activity category roughly lists them. UV exposure is a
  /// count but discrete (`HKTypeIdentifiers.h`: "Scalar(Count), Discrete"):
  /// a day's UV index readings are not added up.
  public static let known: [CumulativeType] = {
    func q(_ name: String, _ unit: CanonicalUnit) -> CumulativeType {
      CumulativeType(identifier: "HKQuantityTypeIdentifier" + name, unit: unit)
    }
    var types: [CumulativeType] = [
      stepCount, distanceWalkingRunning, activeEnergyBurned, basalEnergyBurned, flightsClimbed,
      q("AppleExerciseTime", .minutes), q("AppleMoveTime", .minutes), q("AppleStandTime", .minutes),
      q("DistanceCycling", .metres), q("DistanceSwimming", .metres), q("DistanceWheelchair", .metres),
      q("DistanceDownhillSnowSports", .metres), q("DistanceCrossCountrySkiing", .metres),
      q("DistancePaddleSports", .metres), q("DistanceRowing", .metres), q("DistanceSkatingSports", .metres),
      q("PushCount", .count), q("SwimmingStrokeCount", .count), q("NikeFuel", .count),
      q("NumberOfTimesFallen", .count), q("InhalerUsage", .count), q("NumberOfAlcoholicBeverages", .count),
      q("TimeInDaylight", .minutes),
      q("DietaryEnergyConsumed", .kilocalories), q("DietaryWater", .millilitres),
      q("InsulinDelivery", .internationalUnits),
    ]
    let nutrients = [
      "Biotin", "Caffeine", "Calcium", "Carbohydrates", "Chloride", "Cholesterol", "Chromium", "Copper",
      "FatMonounsaturated", "FatPolyunsaturated", "FatSaturated", "FatTotal", "Fiber", "Folate", "Iodine",
      "Iron", "Magnesium", "Manganese", "Molybdenum", "Niacin", "PantothenicAcid", "Phosphorus", "Potassium",
      "Protein", "Riboflavin", "Selenium", "Sodium", "Sugar", "Thiamin", "VitaminA", "VitaminB12",
      "VitaminB6", "VitaminC", "VitaminD", "VitaminE", "VitaminK", "Zinc",
    ]
    types += nutrients.map { q("Dietary" + $0, .grams) }
    return types
  }()

  private static let byIdentifier: [String: CumulativeType] = Dictionary(
    known.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })

  private static let identifierPrefixes = ["HKQuantityTypeIdentifier"]

  /// Everyday names for the most asked-for types.
  private static let aliases: [String: String] = [
    "steps": stepCount.identifier, "distance": distanceWalkingRunning.identifier,
    "energy": activeEnergyBurned.identifier, "active": activeEnergyBurned.identifier,
    "basal": basalEnergyBurned.identifier, "resting": basalEnergyBurned.identifier,
    "flights": flightsClimbed.identifier, "exercise": "HKQuantityTypeIdentifierAppleExerciseTime",
  ]
}
