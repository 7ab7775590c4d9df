import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

extension StepKitError {
  /// Maps an error from HealthKit to the StepKit error a person can act on.
  ///
  /// - Parameters:
  ///   - error: What HealthKit reported.
  ///   - type: The data type involved.
  init(healthKitError error: any Error, type: HealthDataType) {
    if let known = error as? StepKitError {
      self = known
      return
    }
    guard let healthKit = error as? HKError else {
      let nsError = error as NSError
      self = .queryFailed(code: nsError.code, message: nsError.localizedDescription)
      return
    }
    let code = healthKit.code
    if code == .errorHealthDataUnavailable {
      self = .healthDataUnavailable
    } else if code == .errorHealthDataRestricted {
      self = .healthDataRestricted
    } else if code == .errorDatabaseInaccessible {
      self = .healthDatabaseLocked
    } else if code == .errorAuthorizationNotDetermined {
      self = .authorizationNotDetermined(type)
    } else if code == .errorAuthorizationDenied {
      // Code 4 is also what a build without the HealthKit entitlement gets,
      // for every call; only the message tells the two apart.
      if let key = Self.missingEntitlementKey(in: healthKit.localizedDescription) {
        self = .missingEntitlement(key: key)
      } else {
        self = .writeAccessDenied(type)
      }
    } else if code == .errorUserCanceled {
      self = .authorizationCancelled
    } else {
      self = .queryFailed(code: code.rawValue, message: healthKit.localizedDescription)
    }
  }

  /// The entitlement a HealthKit message names as missing
  /// (`Missing com.apple.developer.healthkit entitlement.`), if it does.
  static func missingEntitlementKey(in message: String) -> String? {
    let words = message.split(whereSeparator: { $0 == " " || $0 == "\"" || $0 == "'" })
    guard let missing = words.firstIndex(where: { $0.lowercased() == "missing" }),
      words.indices.contains(missing + 1),
      words[(missing + 1)...].contains(where: { $0.lowercased().hasPrefix("entitlement") })
    else { return nil }
    let key = String(words[missing + 1])
    return key.hasPrefix("com.apple.developer.healthkit") ? key : nil
  }

  /// Maps an error from a query reading `kind`.
  init(healthKitError error: any Error, reading kind: QuantityKind) {
    self.init(healthKitError: error, type: kind == .steps ? .steps : .walkingRunningDistance)
  }

  /// Whether HealthKit said that no sample matched (`errorNoData`), which a
  /// statistics query reports instead of a zero sum.
  static func isNoData(_ error: any Error) -> Bool {
    guard let healthKit = error as? HKError else { return false }
    return healthKit.code == .errorNoData
  }
}
