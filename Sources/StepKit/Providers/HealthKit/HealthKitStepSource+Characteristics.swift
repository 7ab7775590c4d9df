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
  ///   ``StepKitError/healthDataRestricted``, ``StepKitError/missingEntitlement(key:)``.
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
  ///   ``StepKitError/healthDataRestricted``, ``StepKitError/missingEntitlement(key:)``.
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
    case .healthDataUnavailable, .healthDatabaseLocked, .healthDataRestricted, .missingEntitlement:
      throw mapped
    default: return .notSetOrNotAllowed
    }
  }

  /// Saves a measurement as a HealthKit sample over `interval` (one moment
  /// for body mass, height and temperature).
  ///
  /// Saves work while the device is locked (HealthKit keeps them and merges
  /// them on unlock).
  ///
  /// - Parameters:
  ///   - measurement: The validated measurement.
  ///   - interval: The sample's interval.
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError/writeAccessDenied(_:)``, ``StepKitError/authorizationNotDetermined(_:)``,
  ///   ``StepKitError/missingEntitlement(key:)``, ``StepKitError/saveFailed(_:code:message:)``,
  ///   ``StepKitError/healthDataUnavailable``.
  public func save(_ measurement: BodyMeasurement, over interval: DateInterval) async throws
    -> SavedMeasurement
  {
    try requireHealthData()
    let type = measurement.type
    guard let quantityType = Self.sampleType(type) else { throw StepKitError.unsupportedDataType(type) }
    let sample = HKQuantitySample(
      type: quantityType, quantity: HKQuantity(unit: Self.healthUnit(type), doubleValue: measurement.siValue),
      start: interval.start, end: interval.end)
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
          .healthDataRestricted?, .missingEntitlement?:
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
    return SavedMeasurement(measurement: measurement, interval: interval, uuid: uuid)
  }
}
