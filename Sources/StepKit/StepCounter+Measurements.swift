import Dispatch
import Foundation

// Body temperature and energy: saving, the most recent sample, and energy
// burned over an interval, with completion-handler twins.
extension StepCounter {
  /// Saves body temperature to Health, converted to degrees Celsius and
  /// checked for plausibility (``BodyMeasurement/plausibleDegreesCelsius``).
  ///
  /// - Parameters:
  ///   - bodyTemperature: The temperature, in any unit.
  ///   - date: The sample's date; now by default.
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``,
  ///   ``StepKitError/missingUsageDescription(key:)``, ``StepKitError/writeAccessDenied(_:)``,
  ///   ``StepKitError/missingEntitlement(key:)``, ``StepKitError/saveFailed(_:code:message:)``.
  @discardableResult
  public func save(bodyTemperature: Measurement<UnitTemperature>, at date: Date? = nil) async throws
    -> SavedMeasurement
  {
    try await save(BodyMeasurement.bodyTemperature(bodyTemperature), at: date)
  }

  /// Saves active energy burned between `start` and `end`, converted to
  /// kilocalories and checked against what a person plausibly burns in that
  /// time (``BodyMeasurement/maximumActiveKilocaloriesPerHour``).
  ///
  /// - Parameters:
  ///   - activeEnergyBurned: The energy, in any unit.
  ///   - start: When the activity started.
  ///   - end: When it ended (after `start`).
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError/invalidInterval(start:end:)``, and see ``save(bodyTemperature:at:)``.
  @discardableResult
  public func save(activeEnergyBurned: Measurement<UnitEnergy>, from start: Date, to end: Date) async throws
    -> SavedMeasurement
  {
    try await saveEnergy(.activeEnergyBurned, activeEnergyBurned, start, end)
  }

  /// Saves resting (basal) energy burned between `start` and `end`, checked
  /// against ``BodyMeasurement/maximumBasalKilocaloriesPerHour``.
  ///
  /// - Parameters:
  ///   - basalEnergyBurned: The energy, in any unit.
  ///   - start: The interval's start.
  ///   - end: Its end (after `start`).
  /// - Returns: What was saved.
  /// - Throws: See ``save(activeEnergyBurned:from:to:)``.
  @discardableResult
  public func save(basalEnergyBurned: Measurement<UnitEnergy>, from start: Date, to end: Date) async throws
    -> SavedMeasurement
  {
    try await saveEnergy(.basalEnergyBurned, basalEnergyBurned, start, end)
  }

  private func saveEnergy(
    _ type: HealthDataType, _ energy: Measurement<UnitEnergy>, _ start: Date, _ end: Date
  )
    async throws -> SavedMeasurement
  {
    guard end > start else { throw StepKitError.invalidInterval(start: start, end: end) }
    let interval = DateInterval(start: start, end: end)
    return try await save(BodyMeasurement.energyBurned(type, energy, over: interval), over: interval)
  }

  /// The newest sample of body mass, height, body temperature or energy in
  /// Health (by end date).
  ///
  /// HealthKit hides read denial: an app not allowed to read sees only the
  /// samples it saved itself, so `nil` means "none, or not allowed to read".
  ///
  /// - Parameter type: ``HealthDataType/bodyMass``, ``HealthDataType/height``,
  ///   ``HealthDataType/bodyTemperature``, ``HealthDataType/activeEnergyBurned`` or
  ///   ``HealthDataType/basalEnergyBurned``.
  /// - Returns: The newest sample, or `nil`.
  /// - Throws: ``StepKitError/unsupportedDataType(_:)`` for other types;
  ///   ``StepKitError/authorizationNotDetermined(_:)``, ``StepKitError/healthDatabaseLocked``,
  ///   ``StepKitError/missingEntitlement(key:)`` and the other HealthKit errors.
  public func mostRecentMeasurement(of type: HealthDataType) async throws -> SavedMeasurement? {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    return try await health.mostRecentMeasurement(of: type)
  }

  /// Active or resting energy burned in `interval`, merged by HealthKit
  /// across iPhone, Apple Watch and apps (typed-in entries left out under the
  /// `health` policy).
  ///
  /// - Parameters:
  ///   - type: ``HealthDataType/activeEnergyBurned`` or ``HealthDataType/basalEnergyBurned``.
  ///   - interval: The interval.
  /// - Returns: The amount, with ``EnergyAmount/hasData`` `false` when no sample matched.
  /// - Throws: ``StepKitError/unsupportedDataType(_:)`` for other types, or a HealthKit error.
  @available(*, deprecated, renamed: "total(of:in:)", message: "total(of:in:) reads any cumulative type")
  public func energyBurned(_ type: HealthDataType, in interval: DateInterval) async throws -> EnergyAmount {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    return try await health.energyBurned(type, in: interval, policy: policy)
  }

  // MARK: Completion handlers

  /// Saves body temperature; see ``save(bodyTemperature:at:)``.
  ///
  /// - Parameters:
  ///   - bodyTemperature: The temperature, in any unit.
  ///   - date: The sample's date; now by default.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with what was saved or the error.
  public func save(
    bodyTemperature: Measurement<UnitTemperature>, at date: Date? = nil, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<SavedMeasurement, StepKitError>) -> Void
  ) {
    let celsius = bodyTemperature.converted(to: .celsius).value
    deliver(on: queue, to: completion) {
      try await self.save(bodyTemperature: Measurement(value: celsius, unit: .celsius), at: date)
    }
  }

  /// Saves active energy; see ``save(activeEnergyBurned:from:to:)``.
  ///
  /// - Parameters:
  ///   - activeEnergyBurned: The energy, in any unit.
  ///   - start: The interval's start.
  ///   - end: Its end.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with what was saved or the error.
  public func save(
    activeEnergyBurned: Measurement<UnitEnergy>, from start: Date, to end: Date, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<SavedMeasurement, StepKitError>) -> Void
  ) {
    saveEnergy(.activeEnergyBurned, activeEnergyBurned, start, end, queue: queue, completion: completion)
  }

  /// Saves resting energy; see ``save(basalEnergyBurned:from:to:)``.
  ///
  /// - Parameters:
  ///   - basalEnergyBurned: The energy, in any unit.
  ///   - start: The interval's start.
  ///   - end: Its end.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with what was saved or the error.
  public func save(
    basalEnergyBurned: Measurement<UnitEnergy>, from start: Date, to end: Date, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<SavedMeasurement, StepKitError>) -> Void
  ) {
    saveEnergy(.basalEnergyBurned, basalEnergyBurned, start, end, queue: queue, completion: completion)
  }

  private func saveEnergy(
    _ type: HealthDataType, _ energy: Measurement<UnitEnergy>, _ start: Date, _ end: Date,
    queue: DispatchQueue,
    completion: @escaping @Sendable (Result<SavedMeasurement, StepKitError>) -> Void
  ) {
    // Converted here, as in the other completion twins, so the task captures a Double.
    let kilocalories = energy.converted(to: .kilocalories).value
    deliver(on: queue, to: completion) {
      try await self.saveEnergy(type, Measurement(value: kilocalories, unit: .kilocalories), start, end)
    }
  }

  /// The newest sample of a measurement type; see ``mostRecentMeasurement(of:)``.
  ///
  /// - Parameters:
  ///   - type: A measurement type.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the sample (`nil` for none) or the error.
  public func mostRecentMeasurement(
    of type: HealthDataType, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<SavedMeasurement?, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.mostRecentMeasurement(of: type) }
  }

  /// Energy burned in `interval`; see ``energyBurned(_:in:)``.
  ///
  /// - Parameters:
  ///   - type: Active or resting energy.
  ///   - interval: The interval.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the amount or the error.
  @available(
    *, deprecated, renamed: "total(of:in:queue:completion:)",
    message: "total(of:in:) reads any cumulative type"
  )
  public func energyBurned(
    _ type: HealthDataType, in interval: DateInterval, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<EnergyAmount, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.energyBurned(type, in: interval) }
  }
}
