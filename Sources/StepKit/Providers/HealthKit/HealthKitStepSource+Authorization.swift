import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

extension HealthKitStepSource {
  static func objectType(_ type: HealthDataType) -> HKObjectType {
    switch type {
    case .biologicalSex: return HKCharacteristicType(.biologicalSex)
    case .dateOfBirth: return HKCharacteristicType(.dateOfBirth)
    default: return sampleType(type) ?? HKQuantityType(.stepCount)
    }
  }

  static func sampleType(_ type: HealthDataType) -> HKQuantityType? {
    quantityIdentifier(type).map { HKQuantityType($0) }
  }

  /// HealthKit's identifier for a quantity type; `nil` for the characteristics.
  static func quantityIdentifier(_ type: HealthDataType) -> HKQuantityTypeIdentifier? {
    switch type {
    case .steps: return .stepCount
    case .walkingRunningDistance: return .distanceWalkingRunning
    case .bodyMass: return .bodyMass
    case .height: return .height
    case .bodyTemperature: return .bodyTemperature
    case .activeEnergyBurned: return .activeEnergyBurned
    case .basalEnergyBurned: return .basalEnergyBurned
    case .biologicalSex, .dateOfBirth: return nil
    }
  }

  /// The unit StepKit reads and writes `type` in: kilograms, metres, degrees
  /// Celsius, kilocalories; counts for steps.
  static func healthUnit(_ type: HealthDataType) -> HKUnit {
    switch type {
    case .bodyMass: return .gramUnit(with: .kilo)
    case .height, .walkingRunningDistance: return .meter()
    case .bodyTemperature: return .degreeCelsius()
    case .activeEnergyBurned, .basalEnergyBurned: return .kilocalorie()
    case .steps, .biologicalSex, .dateOfBirth: return .count()
    }
  }

  static func readTypes(_ request: AuthorizationRequest) -> Set<HKObjectType> {
    Set(request.read.map(objectType)).union(request.cumulative.map(quantityType))
  }

  static func shareTypes(_ request: AuthorizationRequest) -> Set<HKSampleType> {
    Set(request.write.compactMap { sampleType($0) as HKSampleType? })
  }

  /// Shows HealthKit's prompt for the types in `request`.
  ///
  /// The Info.plist check happens in ``StepCounter/requestAuthorization(_:)``.
  ///
  /// - Parameter request: Types to read and write.
  /// - Throws: ``StepKitError/healthDataUnavailable``, ``StepKitError/authorizationCancelled``,
  ///   or another ``StepKitError``.
  public func requestAuthorization(_ request: AuthorizationRequest) async throws {
    try requireHealthData()
    let firstType = request.read.sorted { $0.rawValue < $1.rawValue }.first ?? .steps
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      store.requestAuthorization(toShare: Self.shareTypes(request), read: Self.readTypes(request)) {
        success, error in
        if let error {
          continuation.resume(throwing: StepKitError(healthKitError: error, type: firstType))
        } else if !success {
          continuation.resume(throwing: StepKitError.authorizationCancelled)
        } else {
          continuation.resume()
        }
      }
    }
  }

  /// What is known about access to the types in `request`.
  ///
  /// HealthKit never reveals read denial, so once the person has answered
  /// the prompt this is ``AuthorizationState/requestedReadAccessUnknown``.
  ///
  /// - Parameter request: Types to read and write.
  /// - Returns: ``AuthorizationState/unavailable``, ``AuthorizationState/notRequested``
  ///   or ``AuthorizationState/requestedReadAccessUnknown``.
  public func authorizationState(for request: AuthorizationRequest) async -> AuthorizationState {
    switch await authorizationOutcome(for: request) {
    case .success(let state): return state
    // An error says nothing about the prompt; see authorizationOutcome(for:) for it.
    case .failure: return .notRequested
    }
  }

  /// What is known about access to the types in `request`, or the error
  /// HealthKit answered with: a missing entitlement
  /// (``StepKitError/missingEntitlement(key:)``) or another failure. A
  /// restricted device is the state ``AuthorizationState/restricted``.
  ///
  /// - Parameter request: Types to read and write.
  /// - Returns: The state, or the mapped error.
  public func authorizationOutcome(for request: AuthorizationRequest) async -> Result<
    AuthorizationState, StepKitError
  > {
    guard HKHealthStore.isHealthDataAvailable() else { return .success(.unavailable) }
    let firstType = request.read.sorted { $0.rawValue < $1.rawValue }.first ?? .steps
    let answer: Result<Int, StepKitError> = await withCheckedContinuation { continuation in
      store.getRequestStatusForAuthorization(toShare: Self.shareTypes(request), read: Self.readTypes(request))
      {
        status, error in
        if let error {
          continuation.resume(returning: .failure(StepKitError(healthKitError: error, type: firstType)))
        } else {
          continuation.resume(returning: .success(status.rawValue))
        }
      }
    }
    switch answer {
    case .success(let raw) where raw == HKAuthorizationRequestStatus.unnecessary.rawValue:
      return .success(.requestedReadAccessUnknown)
    case .success: return .success(.notRequested)
    case .failure(.healthDataRestricted): return .success(.restricted)
    case .failure(.healthDataUnavailable): return .success(.unavailable)
    case .failure(let error): return .failure(error)
    }
  }

  /// Whether the app may write `type` (HealthKit does report write access).
  ///
  /// - Parameter type: A writable type (``HealthDataType/isWritable``).
  /// - Returns: ``AuthorizationState/authorized``, ``AuthorizationState/denied``,
  ///   ``AuthorizationState/notRequested`` or ``AuthorizationState/unavailable``.
  public func writeAccess(for type: HealthDataType) -> AuthorizationState {
    guard HKHealthStore.isHealthDataAvailable() else { return .unavailable }
    let status = store.authorizationStatus(for: Self.objectType(type))
    if status == .sharingAuthorized { return .authorized }
    if status == .sharingDenied { return .denied }
    return .notRequested
  }

  /// Lets HealthKit wake the app when new steps arrive.
  ///
  /// Needs the `com.apple.developer.healthkit.background-delivery`
  /// entitlement; HealthKit delivers steps at most hourly.
  ///
  /// - Parameter frequency: How often at most.
  /// - Throws: ``StepKitError/missingEntitlement(key:)`` when the app lacks
  ///   the background-delivery (or HealthKit) entitlement,
  ///   ``StepKitError/backgroundDeliveryFailed(code:message:)`` or
  ///   ``StepKitError/healthDataUnavailable``.
  public func enableBackgroundDelivery(frequency: BackgroundDeliveryFrequency) async throws {
    try requireHealthData()
    let hkFrequency: HKUpdateFrequency
    switch frequency {
    case .immediate: hkFrequency = .immediate
    case .hourly: hkFrequency = .hourly
    case .daily: hkFrequency = .daily
    case .weekly: hkFrequency = .weekly
    }
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      store.enableBackgroundDelivery(for: HKQuantityType(.stepCount), frequency: hkFrequency) {
        success, error in
        if success, error == nil {
          continuation.resume()
        } else {
          let mapped = error.map { StepKitError(healthKitError: $0, type: .steps) }
          switch mapped {
          case .healthDataUnavailable?, .healthDataRestricted?, .missingEntitlement?:
            continuation.resume(throwing: mapped ?? StepKitError.healthDataUnavailable)
          default:
            let nsError = error.map { $0 as NSError }
            continuation.resume(
              throwing: StepKitError.backgroundDeliveryFailed(
                code: nsError?.code ?? 0,
                message: nsError?.localizedDescription ?? "HealthKit did not enable background delivery"))
          }
        }
      }
    }
  }
}
