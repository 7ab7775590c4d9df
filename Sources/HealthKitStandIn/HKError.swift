import Foundation

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The domain of HealthKit's errors (`HKErrorDomain`).
public let HKErrorDomain: String = "com.apple.healthkit"

/// A HealthKit error, as Swift imports `HKErrorCode` with `NSErrorDomain: HKErrorDomain`.
public struct HKError: Error, Hashable, CustomNSError, @unchecked Sendable {
  // Safe to share: immutable; `userInfo` holds property-list values (strings, numbers) that are
  // never changed after the error is made, as `NSError`'s own user info is treated.
  // Alike in shape with other raw-valued enumerations on purpose: each raw value is HealthKit's.

  /// The error codes of `HKDefines.h` (iOS 16.5), with their raw values.
  public enum Code: Int, Sendable, Hashable {
    /// No error.
    case noError = 0
    /// HealthKit is not available on this device.
    case errorHealthDataUnavailable = 1
    /// Access is restricted (device management).
    case errorHealthDataRestricted = 2
    /// An invalid argument.
    case errorInvalidArgument = 3
    /// Write access was denied (saves only).
    case errorAuthorizationDenied = 4
    /// The app has not asked for access yet.
    case errorAuthorizationNotDetermined = 5
    /// The device is locked; protected data is unavailable.
    case errorDatabaseInaccessible = 6
    /// The person cancelled.
    case errorUserCanceled = 7
    /// Another workout session started.
    case errorAnotherWorkoutSessionStarted = 8
    /// The person left the workout session.
    case errorUserExitedWorkoutSession = 9
    /// Required authorization was denied.
    case errorRequiredAuthorizationDenied = 10
    /// No data matched.
    case errorNoData = 11
  }

  /// The error's code.
  public let code: Code
  /// The `NSError` user info.
  public let userInfo: [String: Any]

  /// Creates an error.
  ///
  /// - Parameters:
  ///   - code: The code.
  ///   - userInfo: The user info (`NSLocalizedDescriptionKey` for a message).
  public init(_ code: Code, userInfo: [String: Any] = [:]) {
    self.code = code
    self.userInfo = userInfo
  }

  /// The error domain.
  public static var errorDomain: String { HKErrorDomain }
  /// The error's code as an integer.
  public var errorCode: Int { code.rawValue }
  /// The error's user info.
  public var errorUserInfo: [String: Any] { userInfo }

  /// Errors are equal when their codes are.
  public static func == (lhs: HKError, rhs: HKError) -> Bool { lhs.code == rhs.code }
  /// Hashes the code.
  public func hash(into hasher: inout Hasher) { hasher.combine(code) }

  /// The message in the user info, or a fixed text per code.
  public var localizedDescription: String {
    (userInfo[NSLocalizedDescriptionKey] as? String) ?? "HealthKit error \(code.rawValue)"
  }

  // A table of HealthKit's messages, alike in shape only with other switches that name a text per case.

  /// An error with the message HealthKit gives for the code.
  static func make(_ code: Code) -> HKError {
    let message: String
    switch code {
    case .errorHealthDataUnavailable: message = "Health data is unavailable on this device"
    case .errorDatabaseInaccessible: message = "Protected health data is inaccessible"
    case .errorAuthorizationNotDetermined: message = "Authorization not determined"
    case .errorAuthorizationDenied: message = "Not authorized"
    case .errorNoData: message = "No data available for the specified predicate."
    case .errorUserCanceled: message = "Authorization request canceled"
    default: message = "HealthKit error \(code.rawValue)"
    }
    return HKError(code, userInfo: [NSLocalizedDescriptionKey: message])
  }

  /// What a build signed without `entitlement` gets from HealthKit: code 4
  /// (the code of `errorAuthorizationDenied`) with the entitlement in the message.
  static func missingEntitlement(_ entitlement: String) -> HKError {
    HKError(
      .errorAuthorizationDenied, userInfo: [NSLocalizedDescriptionKey: "Missing \(entitlement) entitlement."])
  }
}

// HealthKit's enumerations with their raw values, alike in shape on purpose: the stand-in
// declares each as HealthKit does, and a raw value is what the real framework answers.

/// Share (write) permission for a type (`HKAuthorizationStatus`).
public enum HKAuthorizationStatus: Int, Sendable {
  /// Not asked yet.
  case notDetermined = 0
  /// Writing is not allowed (also reported for read-only grants).
  case sharingDenied = 1
  /// Writing is allowed.
  case sharingAuthorized = 2
}

/// Whether a prompt would be shown (`HKAuthorizationRequestStatus`, iOS 12).
public enum HKAuthorizationRequestStatus: Int, Sendable {
  /// Could not be determined.
  case unknown = 0
  /// The app has not asked for every type yet.
  case shouldRequest = 1
  /// The app has asked for every type.
  case unnecessary = 2
}

/// How often background delivery may wake the app (`HKUpdateFrequency`).
public enum HKUpdateFrequency: Int, Sendable {
  /// Immediately.
  case immediate = 1
  /// Hourly.
  case hourly = 2
  /// Daily.
  case daily = 3
  /// Weekly.
  case weekly = 4
}

/// Biological sex (`HKBiologicalSex`).
public enum HKBiologicalSex: Int, Sendable {
  /// Not set, or read access denied.
  case notSet = 0
  /// Female.
  case female = 1
  /// Male.
  case male = 2
  /// Other.
  case other = 3
}

/// The biological sex characteristic (`HKBiologicalSexObject`).
public class HKBiologicalSexObject: NSObject {
  /// The value.
  public let biologicalSex: HKBiologicalSex
  init(_ value: HKBiologicalSex) { biologicalSex = value }
}
