import Foundation

/// The access point to the Health database (`HKHealthStore`), backed by a
/// ``HealthStoreSimulation``.
public class HKHealthStore: NSObject {
  /// The simulated device and database behind this store (stand-in only).
  public let simulation: HealthStoreSimulation

  /// A store over a fresh, empty simulation.
  public override init() { simulation = HealthStoreSimulation() }

  /// A store over `simulation` (stand-in only).
  public init(simulation: HealthStoreSimulation) { self.simulation = simulation }

  /// Whether this device supports HealthKit
  /// (``HealthStoreSimulation/deviceSupportsHealthData``).
  public class func isHealthDataAvailable() -> Bool { HealthStoreSimulation.deviceSupportsHealthData }

  /// Share (write) permission for `type`.
  public func authorizationStatus(for type: HKObjectType) -> HKAuthorizationStatus {
    guard let grant = simulation.grant(for: type.identifier) else { return .notDetermined }
    return grant.share ? .sharingAuthorized : .sharingDenied
  }

  /// Shows the prompt for types not asked for yet; `success` means the prompt
  /// finished, not that access was granted.
  public func requestAuthorization(
    toShare typesToShare: Set<HKSampleType>?, read typesToRead: Set<HKObjectType>?,
    completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let supported = Self.isHealthDataAvailable()
    let read = Set((typesToRead ?? []).map(\.identifier))
    let share = Set((typesToShare ?? []).map(\.identifier))
    let error: HKError? =
      supported ? simulation.answerPrompt(for: read, share: share) : .make(.errorHealthDataUnavailable)
    simulation.handlerQueue.async { completion(error == nil, error) }
  }

  /// Whether a prompt would be shown for these types.
  public func getRequestStatusForAuthorization(
    toShare typesToShare: Set<HKSampleType>, read typesToRead: Set<HKObjectType>,
    completion: @escaping @Sendable (HKAuthorizationRequestStatus, (any Error)?) -> Void
  ) {
    let supported = Self.isHealthDataAvailable()
    let identifiers = Set(typesToShare.map(\.identifier)).union(typesToRead.map(\.identifier))
    let pending = identifiers.contains { !simulation.wasRequested($0) }
    let entitlement = simulation.entitlementError(backgroundDelivery: false)
    let restricted = simulation.isRestricted
    simulation.handlerQueue.async {
      if let entitlement {
        completion(.unknown, entitlement)
      } else if restricted {
        completion(.unknown, HKError.make(.errorHealthDataRestricted))
      } else if !supported {
        completion(.unknown, HKError.make(.errorHealthDataUnavailable))
      } else {
        completion(pending ? .shouldRequest : .unnecessary, nil)
      }
    }
  }

  /// Runs `query`; its handlers are called on a background queue. An
  /// observer query's update handler is called once at once (as devices do),
  /// then for each change.
  public func execute(_ query: HKQuery) {
    query.markExecuted()
    simulation.recordExecution(of: query)
    query.start(in: simulation, deviceSupported: Self.isHealthDataAvailable())
  }

  /// Stops `query`; its handlers are no longer called.
  public func stop(_ query: HKQuery) { simulation.unregister(query) }

  /// Saves `object` (needs share authorization; works while locked).
  public func save(
    _ object: HKObject, withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let error: HKError?
    if !Self.isHealthDataAvailable() {
      error = .make(.errorHealthDataUnavailable)
    } else if let missing = simulation.entitlementError(backgroundDelivery: false) {
      error = missing
    } else if let sample = object as? HKQuantitySample {
      if let exception = sample.raisedException {
        // The device raised this when the sample was created; the app would not be here.
        simulation.raise(exception)
        error = .make(.errorInvalidArgument)
      } else if simulation.isRestricted {
        error = .make(.errorHealthDataRestricted)
      } else if let grant = simulation.grant(for: sample.sampleType.identifier) {
        if !grant.share {
          error = .make(.errorAuthorizationDenied)
        } else if let code = simulation.saveFailure {
          error = .make(code)
        } else {
          error = nil
        }
      } else {
        error = .make(.errorAuthorizationNotDetermined)
      }
      if error == nil { simulation.store(sample) }
    } else {
      error = .make(.errorInvalidArgument)
    }
    simulation.handlerQueue.async { completion(error == nil, error) }
  }

  /// Lets HealthKit wake the app for new samples of `type` (steps: hourly at most).
  public func enableBackgroundDelivery(
    for type: HKObjectType, frequency: HKUpdateFrequency,
    withCompletion completion: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    var error: HKError?
    if !Self.isHealthDataAvailable() {
      error = .make(.errorHealthDataUnavailable)
    } else if let missing = simulation.entitlementError(backgroundDelivery: true) {
      error = missing
    } else if let code = simulation.backgroundDeliveryFailure {
      error = .make(code)
    } else {
      let isSteps = type.identifier == HKQuantityTypeIdentifier.stepCount.rawValue
      let effective = isSteps && frequency == .immediate ? .hourly : frequency
      simulation.withState { $0.backgroundDelivery[type.identifier] = effective }
    }
    let result = error
    simulation.handlerQueue.async { completion(result == nil, result) }
  }

  /// The person's biological sex; `.notSet` when unset or when reading is denied.
  public func biologicalSex() throws -> HKBiologicalSexObject {
    try characteristicCheck(.biologicalSex)
    let readable = simulation.grant(for: HKCharacteristicTypeIdentifier.biologicalSex.rawValue)?.read ?? false
    return HKBiologicalSexObject(readable ? simulation.biologicalSex : .notSet)
  }

  /// The person's date of birth; throws when unset or when reading is denied.
  public func dateOfBirthComponents() throws -> DateComponents {
    try characteristicCheck(.dateOfBirth)
    let readable = simulation.grant(for: HKCharacteristicTypeIdentifier.dateOfBirth.rawValue)?.read ?? false
    guard readable, let value = simulation.dateOfBirth else { throw HKError.make(.errorNoData) }
    return value
  }

  private func characteristicCheck(_ identifier: HKCharacteristicTypeIdentifier) throws {
    if let error = simulation.readError(
      for: HKCharacteristicType(identifier), deviceSupported: Self.isHealthDataAvailable())
    {
      throw error
    }
  }
}
