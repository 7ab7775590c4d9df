import Foundation

/// Everything that can go wrong in StepKit, with what a person needs to act.
///
/// Each case has an English, a Simplified Chinese and a Traditional Chinese
/// description and recovery suggestion (``description(in:)``, ``recoverySuggestion(in:)``);
/// `LocalizedError` picks the language from the person's preferred
/// languages. Recovery suggestions name the place in Settings where access
/// is granted; ``appSettingsURL`` opens the app's own Settings page.
public enum StepKitError: Error, Equatable, Hashable, Sendable {
  // MARK: HealthKit

  /// Health data is not available on this device (HealthKit's
  /// `errorHealthDataUnavailable`: some iPads, Mac). Not recoverable on this
  /// device; CoreMotion may still count this iPhone's steps.
  case healthDataUnavailable
  /// Access to health data is restricted, for example by a device
  /// management profile (`errorHealthDataRestricted`).
  case healthDataRestricted
  /// The device is locked, so the protected Health database cannot be read
  /// now (`errorDatabaseInaccessible`). Try again after the person unlocks.
  case healthDatabaseLocked
  /// The app has not asked for access to `type` yet
  /// (`errorAuthorizationNotDetermined`). Call
  /// ``StepCounter/requestAuthorization(_:)`` first.
  case authorizationNotDetermined(HealthDataType)
  /// The app has not asked to read `type`, a cumulative quantity type
  /// other than steps, walking + running distance and energy (for those
  /// four, ``authorizationNotDetermined(_:)`` names them as before). Add the
  /// type to ``AuthorizationRequest/cumulative`` and call
  /// ``StepCounter/requestAuthorization(_:)`` first.
  case quantityAuthorizationNotDetermined(CumulativeType)
  /// The person did not allow the app to write `type`
  /// (`errorAuthorizationDenied`, which HealthKit reports only for writes).
  case writeAccessDenied(HealthDataType)
  /// The person dismissed the authorization prompt (`errorUserCanceled`).
  case authorizationCancelled
  /// The app's Info.plist lacks `key` (for example
  /// `NSHealthShareUsageDescription`, `NSHealthUpdateUsageDescription` or
  /// `NSMotionUsageDescription`). The system terminates an app that asks
  /// for access without it, so StepKit checks first and throws this instead.
  case missingUsageDescription(key: String)
  /// A HealthKit query failed; `code` is the `HKError.Code` raw value.
  case queryFailed(code: Int, message: String)
  /// Saving a sample of `type` failed; `code` is the `HKError.Code` raw value.
  case saveFailed(HealthDataType, code: Int, message: String)
  /// Enabling background delivery failed (often a missing
  /// `com.apple.developer.healthkit.background-delivery` entitlement).
  case backgroundDeliveryFailed(code: Int, message: String)
  /// The app is not signed with the entitlement `key`
  /// (`com.apple.developer.healthkit`, or
  /// `com.apple.developer.healthkit.background-delivery`): HealthKit answers
  /// code 4 with "Missing … entitlement." to every request, query and
  /// characteristic read (or background-delivery request). The fix is in
  /// Xcode's Signing & Capabilities tab, not on the device.
  case missingEntitlement(key: String)
  /// The time iOS gives an app in the background ran out before today's
  /// count was read and handed to `onUpdate` (background delivery): StepKit
  /// called HealthKit's completion handler rather than leave it uncalled when
  /// the app is suspended. The next delivery, or the app in the foreground,
  /// counts again.
  case backgroundTimeExpired
  /// A measurement to save is not plausible for `type`: `value` (in `unit`)
  /// lies outside `plausible`, or is not a finite positive number.
  case implausibleMeasurement(HealthDataType, value: Double, unit: String, plausible: ClosedRange<Double>)
  /// An interval whose end lies before its start, or that is not finite.
  case invalidInterval(start: Date, end: Date)
  /// The counter's strategy needs a source of `kind` that it was not given.
  case sourceNotConfigured(StepSourceKind)
  /// The call does not apply to `type` (for example the most recent
  /// measurement of steps, or energy burned of body mass).
  case unsupportedDataType(HealthDataType)
  /// HealthKit does not sum `type` (it aggregates it as discrete values,
  /// as UV exposure), or the source cannot read it.
  case unsupportedQuantityType(CumulativeType)

  // MARK: CoreMotion

  /// This device has no step counter (`CMErrorMotionActivityNotAvailable`, 104).
  case motionNotAvailable
  /// The person did not allow Motion & Fitness access, or turned it off
  /// (`CMErrorMotionActivityNotAuthorized`, 105). Whether turning off Fitness
  /// Tracking reports this or ``motionRestricted`` is not documented, so the
  /// recovery suggestion of both names that switch.
  case motionNotAuthorized
  /// Motion & Fitness access is blocked for every app
  /// (`CMAuthorizationStatus.restricted`): by a Screen Time restriction or a
  /// device management profile, or because Fitness Tracking is turned off in
  /// Settings > Privacy & Security > Motion & Fitness.
  case motionRestricted
  /// The app lacks the entitlement for motion activity
  /// (`CMErrorMotionActivityNotEntitled`, 106).
  case motionNotEntitled
  /// The interval starts before `earliestAvailable`: CoreMotion keeps only
  /// the last seven days.
  case motionOutsideHistory(earliestAvailable: Date)
  /// A CoreMotion query failed with `code` (a `CMError` raw value).
  case motionQueryFailed(code: Int, message: String)

  /// Opens the app's own page in Settings (the value of UIKit's
  /// `UIApplication.openSettingsURLString`).
  public static let appSettingsURL = URL(string: "app-settings:")

  /// Where in Settings a person grants an app access to health data.
  ///
  /// - Parameter language: English, Simplified or Traditional Chinese.
  /// - Returns: `Settings > Health > Data Access & Devices`, `设置 > 健康 > 数据访问与设备` or `設定 > 健康 > 資料取用與裝置`.
  public static func settingsPathForHealth(in language: StepKitLanguage) -> String {
    switch language {
    case .english: return "Settings > Health > Data Access & Devices"
    case .simplifiedChinese: return "设置 > 健康 > 数据访问与设备"
    case .traditionalChinese: return "設定 > 健康 > 資料取用與裝置"
    }
  }

  /// Where in Settings a person grants Motion & Fitness access.
  ///
  /// - Parameter language: English, Simplified or Traditional Chinese.
  /// - Returns: `Settings > Privacy & Security > Motion & Fitness`, `设置 > 隐私与安全性 > 运动与健身` or
  ///   `設定 > 隱私權與安全性 > 動作與健身`.
  public static func settingsPathForMotion(in language: StepKitLanguage) -> String {
    switch language {
    case .english: return "Settings > Privacy & Security > Motion & Fitness"
    case .simplifiedChinese: return "设置 > 隐私与安全性 > 运动与健身"
    case .traditionalChinese: return "設定 > 隱私權與安全性 > 動作與健身"
    }
  }
}

extension StepKitError: LocalizedError {
  /// The description in the person's preferred language.
  public var errorDescription: String? { description(in: .preferred) }
  /// The recovery suggestion in the person's preferred language.
  public var recoverySuggestion: String? { recoverySuggestion(in: .preferred) }
  /// The failure reason (the same text as the description).
  public var failureReason: String? { description(in: .preferred) }
}

extension StepKitError: CustomNSError {
  /// The domain of StepKit's `NSError`s (what Objective-C callers see).
  public static var errorDomain: String { "StepKitErrorDomain" }

  /// A stable code per case: 1xx HealthKit, 2xx input, 3xx CoreMotion.
  public var errorCode: Int {
    switch self {
    case .healthDataUnavailable: return 101
    case .healthDataRestricted: return 102
    case .healthDatabaseLocked: return 103
    case .authorizationNotDetermined: return 104
    case .writeAccessDenied: return 105
    case .authorizationCancelled: return 106
    case .missingUsageDescription: return 107
    case .queryFailed: return 108
    case .saveFailed: return 109
    case .backgroundDeliveryFailed: return 110
    case .missingEntitlement: return 111
    case .backgroundTimeExpired: return 112
    case .quantityAuthorizationNotDetermined: return 113
    case .implausibleMeasurement: return 201
    case .invalidInterval: return 202
    case .sourceNotConfigured: return 203
    case .unsupportedDataType: return 204
    case .unsupportedQuantityType: return 205
    case .motionNotAvailable: return 304
    case .motionNotAuthorized: return 305
    case .motionRestricted: return 309
    case .motionNotEntitled: return 306
    case .motionOutsideHistory: return 307
    case .motionQueryFailed: return 308
    }
  }

  /// The description and recovery suggestion, in the preferred language.
  public var errorUserInfo: [String: Any] {
    var info: [String: Any] = [NSLocalizedDescriptionKey: description(in: .preferred)]
    if let recovery = recoverySuggestion(in: .preferred) {
      info[NSLocalizedRecoverySuggestionErrorKey] = recovery
    }
    return info
  }

  /// `error` as a StepKit error: itself when it is one, otherwise a query failure carrying its code and message.
  ///
  /// - Parameter error: Any error.
  /// - Returns: The StepKit error.
  public static func wrapping(_ error: any Error) -> StepKitError {
    if let known = error as? StepKitError { return known }
    let nsError = error as NSError
    return .queryFailed(code: nsError.code, message: nsError.localizedDescription)
  }
}

extension StepKitError: CustomStringConvertible {
  /// The English description.
  public var description: String { description(in: .english) }
}

extension StepKitError {
  /// The description of the error in `language`.
  ///
  /// - Parameter language: English, Simplified or Traditional Chinese.
  /// - Returns: One sentence saying what went wrong.
  public func description(in language: StepKitLanguage) -> String {
    switch language {
    case .english: return englishDescription
    case .simplifiedChinese: return chineseDescription
    case .traditionalChinese: return traditionalChineseDescription
    }
  }

  /// What the person can do about the error, in `language`.
  ///
  /// - Parameter language: English, Simplified or Traditional Chinese.
  /// - Returns: Where to go in Settings, or what to try; `nil` when nothing helps.
  public func recoverySuggestion(in language: StepKitLanguage) -> String? {
    switch language {
    case .english: return englishRecovery
    case .simplifiedChinese: return chineseRecovery
    case .traditionalChinese: return traditionalChineseRecovery
    }
  }

  /// Whether another source (CoreMotion) may answer instead, and why.
  public var fallbackReason: FallbackReason {
    switch self {
    case .healthDataUnavailable: return .healthDataUnavailable
    case .healthDatabaseLocked: return .healthDatabaseLocked
    case .authorizationNotDetermined, .quantityAuthorizationNotDetermined: return .healthKitNotAuthorized
    default: return .healthKitFailed(self)
    }
  }

  var englishDescription: String {
    switch self {
    case .healthDataUnavailable: return "Health data is not available on this device."
    case .healthDataRestricted: return "Access to health data is restricted on this device."
    case .healthDatabaseLocked: return "Health data cannot be read while the device is locked."
    case .authorizationNotDetermined(let type):
      return "The app has not asked for access to \(type.name(in: .english)) yet."
    case .quantityAuthorizationNotDetermined(let type):
      return "The app has not asked for access to \(type.name(in: .english)) yet."
    case .writeAccessDenied(let type):
      return "The app is not allowed to save \(type.name(in: .english)) to Health."
    case .authorizationCancelled: return "The health data access request was cancelled."
    case .missingUsageDescription(let key):
      return "The app's Info.plist has no \(key); the system would terminate the app when it asks for access."
    case .queryFailed(let code, let message):
      return "Reading health data failed (HealthKit error \(code)): \(message)"
    case .saveFailed(let type, let code, let message):
      return "Saving \(type.name(in: .english)) failed (HealthKit error \(code)): \(message)"
    case .backgroundDeliveryFailed(let code, let message):
      return "Enabling background delivery failed (HealthKit error \(code)): \(message)"
    case .missingEntitlement(let key):
      return key == InfoPlistKey.healthKitEntitlement
        ? "The app is not signed with the HealthKit entitlement (\(key)), so HealthKit refuses every request."
        : "The app is not signed with the \(key) entitlement, so HealthKit cannot wake it for new data."
    case .backgroundTimeExpired:
      return "The time the system gives the app in the background ran out before the steps were counted."
    case .implausibleMeasurement(let type, let value, let unit, let plausible):
      return "\(type.name(in: .english)) of \(Self.format(value)) \(unit) is not plausible "
        + "(expected \(Self.format(plausible.lowerBound))–\(Self.format(plausible.upperBound)) \(unit))."
    case .invalidInterval(let start, let end):
      return "The interval from \(start) to \(end) is not valid: it must not end before it starts."
    case .sourceNotConfigured(let kind): return "No \(kind) step source is configured."
    case .unsupportedDataType(let type):
      return "This call does not apply to \(type.name(in: .english))."
    case .unsupportedQuantityType(let type):
      return "Health does not add up \(type.name(in: .english)) over time, so it has no total."
    case .motionNotAvailable: return "This device has no step counter."
    case .motionNotAuthorized: return "The app is not allowed to read Motion & Fitness data."
    case .motionRestricted: return "Motion & Fitness access is restricted on this device."
    case .motionNotEntitled: return "The app is not entitled to read motion activity."
    case .motionOutsideHistory(let earliest):
      return "The motion coprocessor keeps only the last seven days; data before \(earliest) is gone."
    case .motionQueryFailed(let code, let message):
      return "Reading motion data failed (Core Motion error \(code)): \(message)"
    }
  }

  var englishRecovery: String? {
    let health = Self.settingsPathForHealth(in: .english)
    let motion = Self.settingsPathForMotion(in: .english)
    switch self {
    case .healthDataUnavailable:
      return "Use an iPhone or Apple Watch. On this device, steps can come only from its own motion sensors."
    case .healthDataRestricted:
      return
        "Ask the device's administrator, or check Settings > Screen Time > Content & Privacy Restrictions."
    case .healthDatabaseLocked: return "Unlock the device and try again."
    case .authorizationNotDetermined, .quantityAuthorizationNotDetermined:
      return "Allow access when the app asks, or later in \(health) > this app."
    case .writeAccessDenied(let type):
      return
        "Turn on \(type.name(in: .english)) under \(health) > this app > Allow to Write, or in the app's Settings page."
    case .authorizationCancelled: return "Ask again and choose which data to allow."
    case .missingUsageDescription(let key):
      return "Add \(key) with a sentence saying why the app needs the data to the app target's Info.plist."
    case .queryFailed, .backgroundDeliveryFailed:
      return "Try again later. If it persists, check \(health) > this app."
    case .saveFailed: return "Check that writing is allowed in \(health) > this app, then try again."
    case .missingEntitlement(let key):
      return key == InfoPlistKey.healthKitEntitlement
        ? "In Xcode, open the app target's Signing & Capabilities tab and add the HealthKit capability."
        : "In Xcode, open the app target's Signing & Capabilities tab and tick Background Delivery "
          + "under HealthKit."
    case .backgroundTimeExpired:
      return "Nothing to do: the next background delivery, or opening the app, counts again."
    case .implausibleMeasurement: return "Check the value and its unit."
    case .invalidInterval: return "Pass an interval whose end is not before its start."
    case .sourceNotConfigured: return "Create the StepCounter with the source its strategy needs."
    case .unsupportedDataType:
      return "Use body mass, height, body temperature, or active or resting energy for measurements."
    case .unsupportedQuantityType: return "Read its samples one by one instead of a total."
    case .motionNotAvailable: return nil
    case .motionNotAuthorized:
      return "Turn on this app under \(motion), or in the app's Settings page, "
        + "and check that Fitness Tracking is on in \(motion) > Fitness Tracking."
    case .motionRestricted:
      return "Check Screen Time restrictions in Settings > Screen Time > Content & Privacy Restrictions "
        + "(or ask the device's administrator), and turn on Fitness Tracking in \(motion) > Fitness Tracking."
    case .motionNotEntitled: return "Check the app's signing and entitlements."
    case .motionOutsideHistory: return "Ask for the last seven days only, or read older days from Health."
    case .motionQueryFailed: return "Try again later."
    }
  }

  static func format(_ value: Double) -> String {
    if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(format: "%.2f", value)
  }
}
