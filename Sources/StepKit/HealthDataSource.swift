import Foundation

/// A step source that is also a health store: authorization, characteristics,
/// body measurements, background delivery.
///
/// ``HealthKitStepSource`` is the real one; ``SimulatedStepSource`` plays
/// it in tests and previews.
public protocol HealthDataSource: StepSource {
  /// Shows the system prompt for the types in `request` (unless the person
  /// already answered for all of them).
  ///
  /// The caller checks the Info.plist first (``StepCounter`` does).
  ///
  /// - Parameter request: Types to read and write.
  /// - Throws: ``StepKitError``.
  func requestAuthorization(_ request: AuthorizationRequest) async throws

  /// What is known about access to the types in `request`.
  ///
  /// - Parameter request: Types to read and write.
  /// - Returns: ``AuthorizationState/notRequested`` while a prompt would still
  ///   be shown, ``AuthorizationState/requestedReadAccessUnknown`` after.
  func authorizationState(for request: AuthorizationRequest) async -> AuthorizationState

  /// The person's biological sex.
  ///
  /// - Returns: The value, or why there is none.
  /// - Throws: ``StepKitError`` when Health is unavailable or locked.
  func biologicalSex() async throws -> Characteristic<BiologicalSex>

  /// The person's date of birth (Gregorian year, month and day).
  ///
  /// - Returns: The value, or why there is none.
  /// - Throws: ``StepKitError`` when Health is unavailable or locked.
  func dateOfBirth() async throws -> Characteristic<DateComponents>

  /// Saves a body measurement as a sample at `date`.
  ///
  /// - Parameters:
  ///   - measurement: The validated measurement.
  ///   - date: The sample's date.
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError``; a failed save is always reported.
  func save(_ measurement: BodyMeasurement, at date: Date) async throws -> SavedMeasurement

  /// Lets HealthKit wake the app when new step samples arrive.
  ///
  /// - Parameter frequency: How often at most.
  /// - Throws: ``StepKitError/backgroundDeliveryFailed(code:message:)``.
  func enableBackgroundDelivery(frequency: BackgroundDeliveryFrequency) async throws
}
