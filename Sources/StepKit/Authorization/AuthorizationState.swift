import Foundation

/// What a source can truthfully say about the app's access to step data.
///
/// HealthKit never reveals whether a person denied *read* access: a denied
/// app simply sees no data. So after the prompt, HealthKit's honest answer is
/// ``requestedReadAccessUnknown``, never "authorized".
///
/// | State | HealthKit | CoreMotion |
/// |---|---|---|
/// | ``unavailable`` | `isHealthDataAvailable()` is false (some iPads, Mac) | no pedometer |
/// | ``notRequested`` | the prompt was never shown for these types | `.notDetermined` |
/// | ``requestedReadAccessUnknown`` | the prompt was answered; read access hidden | never |
/// | ``authorized`` | never for reading | `.authorized` |
/// | ``denied`` | never for reading | `.denied` |
/// | ``restricted`` | never | `.restricted` (parental controls, MDM) |
public enum AuthorizationState: String, Sendable, Hashable, Codable, CaseIterable {
  /// This device cannot provide the data at all.
  case unavailable
  /// The app has not asked yet; asking will show the system prompt.
  case notRequested
  /// The app asked and the person answered, but HealthKit hides whether read
  /// access was granted: no data may mean denied.
  case requestedReadAccessUnknown
  /// Access is known to be granted.
  case authorized
  /// Access is known to be denied.
  case denied
  /// Access is blocked by a restriction the person cannot change.
  case restricted

  /// A one-line English explanation, suitable for a settings screen.
  public var explanation: String {
    switch self {
    case .unavailable: return "This device cannot provide step data."
    case .notRequested: return "The app has not asked for access yet."
    case .requestedReadAccessUnknown:
      return "Access was requested. Health does not tell apps whether reading was allowed; "
        + "if no steps appear, check " + StepKitError.settingsPathForHealth(in: .english) + "."
    case .authorized: return "Access is granted."
    case .denied: return "Access was denied."
    case .restricted: return "Access is restricted on this device."
    }
  }
}

/// The health data StepKit reads or writes.
public enum HealthDataType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
  /// Step count (read).
  case steps
  /// Walking + running distance (read).
  case walkingRunningDistance
  /// Biological sex (a characteristic; read only).
  case biologicalSex
  /// Date of birth (a characteristic; read only).
  case dateOfBirth
  /// Body mass (read and write).
  case bodyMass
  /// Height (read and write).
  case height
  /// Body temperature (read and write).
  case bodyTemperature
  /// Active energy burned (read and write).
  case activeEnergyBurned
  /// Resting (basal) energy burned (read and write).
  case basalEnergyBurned

  /// The English name shown in messages.
  public var description: String { name(in: .english) }

  /// The type's name in `language`, as the Health app words it.
  ///
  /// - Parameter language: English, Simplified or Traditional Chinese.
  /// - Returns: The name.
  public func name(in language: StepKitLanguage) -> String {
    switch (self, language) {
    case (_, .traditionalChinese): return traditionalChineseName
    case (.steps, .english): return "Steps"
    case (.steps, .simplifiedChinese): return "步数"
    case (.walkingRunningDistance, .english): return "Walking + Running Distance"
    case (.walkingRunningDistance, .simplifiedChinese): return "步行 + 跑步距离"
    case (.biologicalSex, .english): return "Sex"
    case (.biologicalSex, .simplifiedChinese): return "性别"
    case (.dateOfBirth, .english): return "Date of Birth"
    case (.dateOfBirth, .simplifiedChinese): return "出生日期"
    case (.bodyMass, .english): return "Weight"
    case (.bodyMass, .simplifiedChinese): return "体重"
    case (.height, .english): return "Height"
    case (.height, .simplifiedChinese): return "身高"
    case (.bodyTemperature, .english): return "Body Temperature"
    case (.bodyTemperature, .simplifiedChinese): return "体温"
    case (.activeEnergyBurned, .english): return "Active Energy"
    case (.activeEnergyBurned, .simplifiedChinese): return "活动能量"
    case (.basalEnergyBurned, .english): return "Resting Energy"
    case (.basalEnergyBurned, .simplifiedChinese): return "静息能量"
    }
  }

  /// Whether StepKit can write this type: body mass, height, body
  /// temperature, active and resting energy.
  public var isWritable: Bool {
    switch self {
    case .bodyMass, .height, .bodyTemperature, .activeEnergyBurned, .basalEnergyBurned: return true
    case .steps, .walkingRunningDistance, .biologicalSex, .dateOfBirth: return false
    }
  }
}

/// What to ask HealthKit for.
public struct AuthorizationRequest: Sendable, Hashable {
  /// Types to read.
  public var read: Set<HealthDataType>
  /// Types to write (only the writable ones: ``HealthDataType/isWritable``).
  public var write: Set<HealthDataType>
  /// Cumulative quantity types to read, any of them (flights climbed,
  /// exercise minutes, cycling distance, …), for
  /// ``StepCounter/total(of:in:)`` and ``StepCounter/dailyTotals(of:in:)``.
  public var cumulative: Set<CumulativeType>

  /// Creates a request.
  ///
  /// ```swift
  /// let flights = CumulativeType(named: "flightsClimbed")!
  /// try await counter.requestAuthorization(AuthorizationRequest(read: [.steps], cumulative: [flights]))
  /// ```
  ///
  /// - Parameters:
  ///   - read: Types to read; steps and distance by default.
  ///   - write: Types to write; none by default.
  ///   - cumulative: Further cumulative quantity types to read; none by default.
  public init(
    read: Set<HealthDataType> = [.steps, .walkingRunningDistance], write: Set<HealthDataType> = [],
    cumulative: Set<CumulativeType> = []
  ) {
    self.read = read
    self.write = write.filter(\.isWritable)
    self.cumulative = cumulative
  }

  /// Steps and walking + running distance, read only.
  public static let stepsAndDistance = AuthorizationRequest()

  /// Every type to read, and every writable type (body mass, height, body
  /// temperature, active and resting energy) to write.
  public static let everything = AuthorizationRequest(
    read: Set(HealthDataType.allCases), write: Set(HealthDataType.allCases.filter(\.isWritable)))

  /// The Info.plist keys HealthKit requires for this request: always
  /// `NSHealthShareUsageDescription`, plus `NSHealthUpdateUsageDescription`
  /// when writing.
  public var requiredInfoPlistKeys: [String] {
    var keys = [InfoPlistKey.healthShareUsageDescription]
    if !write.isEmpty { keys.append(InfoPlistKey.healthUpdateUsageDescription) }
    return keys
  }
}

/// Names of the Info.plist keys and entitlements StepKit depends on.
public enum InfoPlistKey {
  /// Why the app reads health data. Without it HealthKit terminates the app
  /// when it asks for read access.
  public static let healthShareUsageDescription = "NSHealthShareUsageDescription"
  /// Why the app writes health data. Without it HealthKit terminates the app
  /// when it asks for write access.
  public static let healthUpdateUsageDescription = "NSHealthUpdateUsageDescription"
  /// Why the app reads motion data. Without it the system terminates the app
  /// on its first pedometer query.
  public static let motionUsageDescription = "NSMotionUsageDescription"
  /// The HealthKit entitlement (`.entitlements`).
  public static let healthKitEntitlement = "com.apple.developer.healthkit"
  /// The entitlement HealthKit background delivery needs (iOS 15 and later).
  public static let healthKitBackgroundDeliveryEntitlement =
    "com.apple.developer.healthkit.background-delivery"
}
