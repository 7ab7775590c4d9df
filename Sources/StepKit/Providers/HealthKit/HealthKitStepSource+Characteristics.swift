import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

extension HealthKitStepSource {
  /// The person's biological sex.
  ///
  /// - Returns: The value, ``Characteristic/notSetOrNotAllowed`` (HealthKit
  ///   answers "not set" for denied reads too) or ``Characteristic/notRequested``.
  /// - Throws: ``StepKitError/healthDataUnavailable``, ``StepKitError/healthDatabaseLocked``,
  ///   ``StepKitError/healthDataRestricted``.
  public func biologicalSex() async throws -> Characteristic<BiologicalSex> {
    try requireHealthData()
    let sex: HKBiologicalSex
    do {
      sex = try store.biologicalSex().biologicalSex
    } catch {
      return try Self.missingCharacteristic(error, type: .biologicalSex)
    }
    if sex == .female { return .value(.female) }
    if sex == .male { return .value(.male) }
    if sex == .other { return .value(.other) }
    return .notSetOrNotAllowed
  }

  /// The person's date of birth (Gregorian year, month, day).
  ///
  /// - Returns: The value, ``Characteristic/notSetOrNotAllowed`` or ``Characteristic/notRequested``.
  /// - Throws: ``StepKitError/healthDataUnavailable``, ``StepKitError/healthDatabaseLocked``,
  ///   ``StepKitError/healthDataRestricted``.
  public func dateOfBirth() async throws -> Characteristic<DateComponents> {
    try requireHealthData()
    do {
      let components = try store.dateOfBirthComponents()
      return .value(DateComponents(year: components.year, month: components.month, day: components.day))
    } catch {
      return try Self.missingCharacteristic(error, type: .dateOfBirth)
    }
  }

  /// Turns a characteristic read error into a value where it means "no value".
  static func missingCharacteristic<Value>(_ error: any Error, type: HealthDataType) throws -> Characteristic<
    Value
  > {
    let mapped = StepKitError(healthKitError: error, type: type)
    switch mapped {
    case .authorizationNotDetermined: return .notRequested
    case .healthDataUnavailable, .healthDatabaseLocked, .healthDataRestricted: throw mapped
    default: return .notSetOrNotAllowed
    }
  }

  /// Saves a body measurement as a HealthKit sample at `date`.
  ///
  /// - Parameters:
  ///   - measurement: The validated measurement.
  ///   - date: The sample's date.
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError/writeAccessDenied(_:)``, ``StepKitError/authorizationNotDetermined(_:)``,
  ///   ``StepKitError/saveFailed(_:code:message:)``, ``StepKitError/healthDataUnavailable``.
  public func save(_ measurement: BodyMeasurement, at date: Date) async throws -> SavedMeasurement {
    try requireHealthData()
    let type = measurement.type
    let sample: HKQuantitySample
    switch measurement {
    case .bodyMass(let kilograms):
      sample = HKQuantitySample(
        type: HKQuantityType(.bodyMass),
        quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: kilograms),
        start: date, end: date)
    case .height(let meters):
      sample = HKQuantitySample(
        type: HKQuantityType(.height), quantity: HKQuantity(unit: .meter(), doubleValue: meters), start: date,
        end: date)
    }
    let uuid = sample.uuid
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      store.save(sample) { success, error in
        if success, error == nil {
          continuation.resume()
          return
        }
        let mapped = error.map { StepKitError(healthKitError: $0, type: type) }
        switch mapped {
        case .writeAccessDenied?, .authorizationNotDetermined?, .healthDataUnavailable?,
          .healthDataRestricted?:
          continuation.resume(throwing: mapped ?? StepKitError.writeAccessDenied(type))
        default:
          let nsError = error.map { $0 as NSError }
          continuation.resume(
            throwing: StepKitError.saveFailed(
              type, code: nsError?.code ?? 0,
              message: nsError?.localizedDescription ?? "HealthKit did not save the sample"))
        }
      }
    }
    return SavedMeasurement(measurement: measurement, date: date, uuid: uuid)
  }
}
