import Foundation

/// A body measurement to save to Health (validated) or read from it, in
/// the units Health stores: kilograms, metres, degrees Celsius, kilocalories.
public enum BodyMeasurement: Sendable, Hashable {
  /// Body mass in kilograms.
  case bodyMass(kilograms: Double)
  /// Height in metres.
  case height(meters: Double)
  /// Body temperature in degrees Celsius.
  case bodyTemperature(degreesCelsius: Double)
  /// Active energy burned over the sample's interval, in kilocalories.
  case activeEnergyBurned(kilocalories: Double)
  /// Resting (basal) energy burned over the sample's interval, in kilocalories.
  case basalEnergyBurned(kilocalories: Double)

  /// Plausible body mass: 0.5 kg (a premature newborn) to 650 kg.
  public static let plausibleKilograms: ClosedRange<Double> = 0.5...650
  /// Plausible height: 0.2 m (a premature newborn) to 3 m.
  public static let plausibleMeters: ClosedRange<Double> = 0.2...3.0
  /// Plausible body temperature: 30 °C (severe hypothermia) to 45 °C (beyond
  /// the highest fever survived); outside it a value is a typo or a wrong unit.
  public static let plausibleDegreesCelsius: ClosedRange<Double> = 30...45
  /// The most active energy a person plausibly burns per hour: 2,000 kcal
  /// (elite endurance athletes reach about 1,500).
  public static let maximumActiveKilocaloriesPerHour = 2_000.0
  /// The most resting energy a person plausibly burns per hour: 250 kcal
  /// (6,000 kcal a day, above the largest measured basal rates).
  public static let maximumBasalKilocaloriesPerHour = 250.0

  /// A body mass, converted to kilograms and checked.
  ///
  /// - Parameter mass: The measurement, in any unit of mass.
  /// - Returns: The validated measurement.
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``
  ///   when it is not finite or outside ``plausibleKilograms``.
  public static func bodyMass(_ mass: Measurement<UnitMass>) throws -> BodyMeasurement {
    .bodyMass(
      kilograms: try checked(.bodyMass, mass, in: .kilograms, symbol: "kg", plausible: plausibleKilograms))
  }

  /// A height, converted to metres and checked.
  ///
  /// - Parameter length: The measurement, in any unit of length.
  /// - Returns: The validated measurement.
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``
  ///   when it is not finite or outside ``plausibleMeters``.
  public static func height(_ length: Measurement<UnitLength>) throws -> BodyMeasurement {
    .height(meters: try checked(.height, length, in: .meters, symbol: "m", plausible: plausibleMeters))
  }

  /// A body temperature, converted to degrees Celsius and checked.
  ///
  /// - Parameter temperature: The measurement, in any unit of temperature.
  /// - Returns: The validated measurement.
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``
  ///   when it is not finite or outside ``plausibleDegreesCelsius``.
  public static func bodyTemperature(_ temperature: Measurement<UnitTemperature>) throws -> BodyMeasurement {
    .bodyTemperature(
      degreesCelsius: try checked(
        .bodyTemperature, temperature, in: .celsius, symbol: "°C", plausible: plausibleDegreesCelsius))
  }

  /// Energy burned over `interval`, converted to kilocalories and checked
  /// against the most a person plausibly burns in that time.
  ///
  /// - Parameters:
  ///   - type: ``HealthDataType/activeEnergyBurned`` or ``HealthDataType/basalEnergyBurned``.
  ///   - energy: The energy, in any unit.
  ///   - interval: When it was burned; it must not be empty.
  /// - Returns: The validated measurement.
  /// - Throws: ``StepKitError/unsupportedDataType(_:)`` for another type,
  ///   ``StepKitError/invalidInterval(start:end:)`` for an empty or reversed interval,
  ///   ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)`` for a negative,
  ///   non-finite or implausibly large amount.
  public static func energyBurned(
    _ type: HealthDataType, _ energy: Measurement<UnitEnergy>, over interval: DateInterval
  ) throws -> BodyMeasurement {
    let perHour: Double
    switch type {
    case .activeEnergyBurned: perHour = maximumActiveKilocaloriesPerHour
    case .basalEnergyBurned: perHour = maximumBasalKilocaloriesPerHour
    default: throw StepKitError.unsupportedDataType(type)
    }
    guard interval.duration > 0, interval.duration.isFinite else {
      throw StepKitError.invalidInterval(start: interval.start, end: interval.end)
    }
    let kilocalories = try checked(
      type, energy, in: .kilocalories, symbol: "kcal", plausible: 0...(perHour * interval.duration / 3600))
    return type == .activeEnergyBurned
      ? .activeEnergyBurned(kilocalories: kilocalories) : .basalEnergyBurned(kilocalories: kilocalories)
  }

  /// `measurement` in `unit`, when that is finite and plausible.
  ///
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``
  ///   naming the converted value, or the value as given when the conversion
  ///   is not finite.
  private static func checked<UnitType: Dimension>(
    _ type: HealthDataType, _ measurement: Measurement<UnitType>, in unit: UnitType, symbol: String,
    plausible: ClosedRange<Double>
  ) throws -> Double {
    let value = measurement.converted(to: unit).value
    guard value.isFinite, plausible.contains(value) else {
      throw StepKitError.implausibleMeasurement(
        type, value: value.isFinite ? value : measurement.value, unit: symbol, plausible: plausible)
    }
    return value
  }

  /// The health data type measured.
  public var type: HealthDataType {
    switch self {
    case .bodyMass: return .bodyMass
    case .height: return .height
    case .bodyTemperature: return .bodyTemperature
    case .activeEnergyBurned: return .activeEnergyBurned
    case .basalEnergyBurned: return .basalEnergyBurned
    }
  }

  /// The value in Health's units (kilograms, metres, degrees Celsius or kilocalories).
  public var siValue: Double {
    switch self {
    case .bodyMass(let kilograms): return kilograms
    case .height(let meters): return meters
    case .bodyTemperature(let celsius): return celsius
    case .activeEnergyBurned(let kilocalories), .basalEnergyBurned(let kilocalories): return kilocalories
    }
  }

  /// The symbol of ``siValue``'s unit: `kg`, `m`, `°C` or `kcal`.
  public var unitSymbol: String {
    switch self {
    case .bodyMass: return "kg"
    case .height: return "m"
    case .bodyTemperature: return "°C"
    case .activeEnergyBurned, .basalEnergyBurned: return "kcal"
    }
  }

  /// A measurement of `type` with `value` in Health's unit for it, unchecked
  /// (what Health holds is reported as it is).
  static func reading(_ type: HealthDataType, value: Double) -> BodyMeasurement? {
    switch type {
    case .bodyMass: return .bodyMass(kilograms: value)
    case .height: return .height(meters: value)
    case .bodyTemperature: return .bodyTemperature(degreesCelsius: value)
    case .activeEnergyBurned: return .activeEnergyBurned(kilocalories: value)
    case .basalEnergyBurned: return .basalEnergyBurned(kilocalories: value)
    case .steps, .walkingRunningDistance, .biologicalSex, .dateOfBirth: return nil
    }
  }
}

/// A measurement sample in Health: one just saved, or the most recent one read.
public struct SavedMeasurement: Sendable, Hashable {
  /// The measurement.
  public var measurement: BodyMeasurement
  /// The sample's interval: one moment for body mass, height and temperature,
  /// the time the energy was burned for energy.
  public var interval: DateInterval
  /// The sample's identifier in Health.
  public var uuid: UUID

  /// The sample's date: the end of ``interval`` (its only moment for body
  /// mass, height and temperature).
  public var date: Date { interval.end }

  /// Creates a record of a measurement at one moment.
  ///
  /// - Parameters:
  ///   - measurement: The measurement.
  ///   - date: The sample's date.
  ///   - uuid: The sample's identifier.
  public init(measurement: BodyMeasurement, date: Date, uuid: UUID) {
    self.init(measurement: measurement, interval: DateInterval(start: date, duration: 0), uuid: uuid)
  }

  /// Creates a record of a measurement over an interval.
  ///
  /// - Parameters:
  ///   - measurement: The measurement.
  ///   - interval: The sample's interval.
  ///   - uuid: The sample's identifier.
  public init(measurement: BodyMeasurement, interval: DateInterval, uuid: UUID) {
    self.measurement = measurement
    self.interval = interval
    self.uuid = uuid
  }
}

/// Energy burned over an interval (active or resting), with its provenance.
public struct EnergyAmount: ProvenancedResult, Hashable {
  /// ``HealthDataType/activeEnergyBurned`` or ``HealthDataType/basalEnergyBurned``.
  public var type: HealthDataType
  /// The interval measured.
  public var interval: DateInterval
  /// Kilocalories, merged across sources by HealthKit.
  public var kilocalories: Double
  /// Where the amount came from.
  public var provenance: Provenance
  /// Whether any sample matched.
  public var hasData: Bool

  // Written out as every public value type's memberwise initializer is (Swift makes none public):
  // alike in shape only with other types' of as many fields; each names its own fields.

  /// Creates an energy amount.
  ///
  /// - Parameters:
  ///   - type: Active or resting energy.
  ///   - interval: The interval measured.
  ///   - kilocalories: Kilocalories.
  ///   - provenance: Where the amount came from.
  ///   - hasData: Whether any sample matched.
  public init(
    type: HealthDataType, interval: DateInterval, kilocalories: Double, provenance: Provenance, hasData: Bool
  ) {
    self.type = type
    self.interval = interval
    self.kilocalories = kilocalories
    self.provenance = provenance
    self.hasData = hasData
  }

  /// The amount as a measurement (convert with `converted(to:)`).
  public var energy: Measurement<UnitEnergy> { Measurement(value: kilocalories, unit: .kilocalories) }
}

/// Biological sex as Health records it.
public enum BiologicalSex: String, Sendable, Hashable, Codable {
  /// Female.
  case female
  /// Male.
  case male
  /// Other.
  case other
}

/// The answer to a characteristic query: a value, or why there is none.
///
/// HealthKit answers "not set" for both an unset value and denied read
/// access, so the two cannot be told apart: ``notSetOrNotAllowed``.
public enum Characteristic<Value: Sendable & Hashable>: Sendable, Hashable {
  /// The value in Health.
  case value(Value)
  /// Not set in Health, or the person did not allow reading it.
  case notSetOrNotAllowed
  /// The app has not asked for access to it yet.
  case notRequested

  /// The value, when there is one.
  public var value: Value? {
    if case .value(let value) = self { return value }
    return nil
  }
}

/// How often HealthKit may wake the app with new samples in the background.
public enum BackgroundDeliveryFrequency: String, Sendable, Hashable, CaseIterable {
  /// As soon as possible (HealthKit enforces hourly at most for steps).
  case immediate
  /// At most once an hour.
  case hourly
  /// At most once a day.
  case daily
  /// At most once a week.
  case weekly
}
