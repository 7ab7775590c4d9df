import Foundation

/// A body measurement to save to Health, validated and in SI units.
public enum BodyMeasurement: Sendable, Hashable {
  /// Body mass in kilograms.
  case bodyMass(kilograms: Double)
  /// Height in metres.
  case height(meters: Double)

  /// Plausible body mass: 0.5 kg (a premature newborn) to 650 kg.
  public static let plausibleKilograms: ClosedRange<Double> = 0.5...650
  /// Plausible height: 0.2 m (a premature newborn) to 3 m.
  public static let plausibleMeters: ClosedRange<Double> = 0.2...3.0

  /// A body mass, converted to kilograms and checked.
  ///
  /// - Parameter mass: The measurement, in any unit of mass.
  /// - Returns: The validated measurement.
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``
  ///   when it is not finite or outside ``plausibleKilograms``.
  public static func bodyMass(_ mass: Measurement<UnitMass>) throws -> BodyMeasurement {
    let kilograms = mass.converted(to: .kilograms).value
    guard kilograms.isFinite, plausibleKilograms.contains(kilograms) else {
      throw StepKitError.implausibleMeasurement(
        .bodyMass, value: kilograms.isFinite ? kilograms : mass.value, unit: "kg",
        plausible: plausibleKilograms)
    }
    return .bodyMass(kilograms: kilograms)
  }

  /// A height, converted to metres and checked.
  ///
  /// - Parameter length: The measurement, in any unit of length.
  /// - Returns: The validated measurement.
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``
  ///   when it is not finite or outside ``plausibleMeters``.
  public static func height(_ length: Measurement<UnitLength>) throws -> BodyMeasurement {
    let meters = length.converted(to: .meters).value
    guard meters.isFinite, plausibleMeters.contains(meters) else {
      throw StepKitError.implausibleMeasurement(
        .height, value: meters.isFinite ? meters : length.value, unit: "m", plausible: plausibleMeters)
    }
    return .height(meters: meters)
  }

  /// The health data type measured.
  public var type: HealthDataType {
    switch self {
    case .bodyMass: return .bodyMass
    case .height: return .height
    }
  }

  /// The value in SI units (kilograms or metres).
  public var siValue: Double {
    switch self {
    case .bodyMass(let kilograms): return kilograms
    case .height(let meters): return meters
    }
  }
}

/// What Health stored when a measurement was saved.
public struct SavedMeasurement: Sendable, Hashable {
  /// The saved measurement.
  public var measurement: BodyMeasurement
  /// The sample's date.
  public var date: Date
  /// The saved sample's identifier in Health.
  public var uuid: UUID

  /// Creates a record of a saved measurement.
  ///
  /// - Parameters:
  ///   - measurement: What was saved.
  ///   - date: The sample's date.
  ///   - uuid: The sample's identifier.
  public init(measurement: BodyMeasurement, date: Date, uuid: UUID) {
    self.measurement = measurement
    self.date = date
    self.uuid = uuid
  }
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
