import Foundation
import StepKit

/// What a person needs to know when steps are missing or access is not
/// granted: what is missing, where to fix it, and the one button that helps.
///
/// HealthKit never says that reading was denied: a denied app sees no data.
/// So guidance about Health read access is worded as "may be off" and sends
/// the person to Health › Sharing › Apps, while Motion & Fitness, whose
/// denial is known, is fixed in the app's own Settings page.
///
/// ```swift
/// let guidance = AccessGuidance(error: .motionNotAuthorized, formatting: StepFormatting())
/// guidance.title         // "Motion & Fitness is off"
/// guidance.action        // .open(.appSettings)
/// ```
public struct AccessGuidance: Sendable, Hashable {
  /// The situation the guidance is about.
  public enum Situation: Sendable, Hashable {
    /// HealthKit's access state for the steps request.
    case health(AuthorizationState)
    /// CoreMotion's Motion & Fitness state.
    case motion(AuthorizationState)
    /// A StepKit error.
    case error(StepKitError)
    /// HealthKit returned no steps at all; read access may be off.
    case noDataMayMeanDeniedAccess
  }

  /// A place outside the app where access is changed.
  public enum Place: String, Sendable, Hashable, CaseIterable {
    /// The Health app (Sharing › Apps lists what each app may read).
    case healthApp
    /// The app's own page in Settings (Motion & Fitness, Health).
    case appSettings

    /// The URL that opens the place: the Health app's `x-apple-health://`
    /// scheme, or the value of UIKit's `UIApplication.openSettingsURLString`.
    public var url: URL {
      switch self {
      case .healthApp: return Self.healthAppURL
      case .appSettings: return Self.appSettingsURL
      }
    }

    // Both are constant, well-formed URLs; the app-settings one is StepKitError.appSettingsURL.
    private static let healthAppURL = URL(string: "x-apple-health://")!
    private static let appSettingsURL = URL(string: "app-settings:")!
  }

  /// What the guidance's button does.
  public enum Action: Sendable, Hashable {
    /// Shows HealthKit's prompt (``StepCounter/requestAuthorization(_:)``); it can still be shown.
    case requestHealthAccess
    /// Shows the Motion & Fitness prompt (``StepCounter/requestMotionAuthorization()``).
    case requestMotionAccess
    /// Opens a place outside the app.
    case open(Place)
  }

  /// What the guidance is about.
  public var situation: Situation
  /// A short headline.
  public var title: String
  /// What is missing, in one or two sentences.
  public var message: String
  /// What to do and where (`Health › Sharing › Apps › this app`), when the person can act.
  public var hint: String?
  /// The button that helps, if any.
  public var action: Action?
  /// The button's title.
  public var actionTitle: String?

  /// Whether the guidance offers the system prompt (it can still be shown).
  public var canRequestAccess: Bool {
    action == .requestHealthAccess || action == .requestMotionAccess
  }

  // MARK: Building guidance

  /// Guidance for what is known about the app's access, or `nil` when
  /// nothing stands in the way of counting.
  ///
  /// HealthKit comes first: an error HealthKit answered with is shown as
  /// it is (``AuthorizationStatus/healthKitError``); a prompt not yet shown is offered; Health
  /// being unavailable or restricted hands over to Motion & Fitness, whose
  /// state is then explained. After the Health prompt was answered, nothing
  /// is said until a result comes back empty (see ``noDataMayMeanDeniedAccess(formatting:)``).
  ///
  /// - Parameters:
  ///   - status: The counter's ``StepCounter/authorizationStatus(for:)``.
  ///   - formatting: The language.
  /// - Returns: The guidance, or `nil`.
  public static func guidance(for status: AuthorizationStatus, formatting: StepFormatting) -> AccessGuidance?
  {
    // HealthKit could not say (a missing entitlement): its error, not a prompt that would fail.
    if let error = status.healthKitError { return AccessGuidance(error: error, formatting: formatting) }
    switch status.healthKit {
    case .notRequested?: return health(.notRequested, formatting: formatting)
    case .requestedReadAccessUnknown?, .authorized?: return nil
    case .unavailable?, .restricted?, .denied?, nil:
      // Health cannot count here, so Motion & Fitness must.
      switch status.motion {
      case let state? where state == .notRequested || state == .denied || state == .restricted:
        return motion(state, formatting: formatting)
      case .authorized?, .requestedReadAccessUnknown?: return nil
      case .unavailable?, .notRequested?, .denied?, .restricted?, nil:
        // Neither source can count: say why Health cannot.
        return status.healthKit.map { health($0, formatting: formatting) }
          ?? (status.motion == nil ? nil : AccessGuidance(error: .motionNotAvailable, formatting: formatting))
      }
    }
  }

  /// Guidance for a HealthKit state.
  ///
  /// - Parameters:
  ///   - state: HealthKit's state for the steps request.
  ///   - formatting: The language.
  /// - Returns: The guidance.
  public static func health(_ state: AuthorizationState, formatting: StepFormatting) -> AccessGuidance {
    let language = formatting.language
    switch state {
    case .notRequested:
      return AccessGuidance(
        situation: .health(state), title: language.pick("See your steps", "查看你的步数", "查看你的步數"),
        message: language.pick(
          "Allow access to Steps in Health so the app can show today’s count and your history.",
          "允许访问“健康”中的步数，App 才能显示今天的步数和历史记录。",
          "允許取用「健康」中的步數，App 才能顯示今天的步數和歷史紀錄。"),
        hint: nil, action: .requestHealthAccess, actionTitle: title(of: .requestHealthAccess, language))
    case .requestedReadAccessUnknown, .authorized, .denied:
      return noDataMayMeanDeniedAccess(formatting: formatting)
    case .unavailable:
      return AccessGuidance(error: .healthDataUnavailable, formatting: formatting)
    case .restricted:
      return AccessGuidance(error: .healthDataRestricted, formatting: formatting)
    }
  }

  /// Guidance for a Motion & Fitness state.
  ///
  /// - Parameters:
  ///   - state: CoreMotion's state.
  ///   - formatting: The language.
  /// - Returns: The guidance.
  public static func motion(_ state: AuthorizationState, formatting: StepFormatting) -> AccessGuidance {
    let language = formatting.language
    switch state {
    case .notRequested:
      return AccessGuidance(
        situation: .motion(state),
        title: language.pick("Count steps with this iPhone", "用这台 iPhone 计步", "用這部 iPhone 計步"),
        message: language.pick(
          "Allow Motion & Fitness access so the app can count steps with this iPhone’s motion sensors.",
          "允许访问“运动与健身”，App 才能用这台 iPhone 的运动传感器计步。",
          "允許取用「動作與健身」，App 才能用這部 iPhone 的動作感測器計步。"),
        hint: nil, action: .requestMotionAccess, actionTitle: title(of: .requestMotionAccess, language))
    case .denied, .requestedReadAccessUnknown, .authorized:
      return AccessGuidance(error: .motionNotAuthorized, formatting: formatting)
    case .restricted: return AccessGuidance(error: .motionRestricted, formatting: formatting)
    case .unavailable: return AccessGuidance(error: .motionNotAvailable, formatting: formatting)
    }
  }

  /// Guidance for HealthKit's empty answer: no steps can mean that reading is off.
  ///
  /// - Parameter formatting: The language.
  /// - Returns: The guidance, with a button that opens the Health app.
  public static func noDataMayMeanDeniedAccess(formatting: StepFormatting) -> AccessGuidance {
    let language = formatting.language
    let settings = Self.displayPath(StepKitError.settingsPathForHealth(in: language))
    return AccessGuidance(
      situation: .noDataMayMeanDeniedAccess,
      title: language.pick("No steps from Health", "“健康”中没有步数", "「健康」中沒有步數"),
      message: language.pick(
        "Health doesn’t tell apps whether they may read data, so no steps can mean that access is off.",
        "“健康”不会告诉 App 是否允许读取数据，所以没有步数可能表示访问已关闭。",
        "「健康」不會告訴 App 是否允許讀取資料，所以沒有步數可能表示取用已關閉。"),
      hint: language.pick(
        "Check that Steps is on in \(healthAppPath(in: language)) › this app, or in \(settings).",
        "请在 \(healthAppPath(in: language)) › 本 App 或 \(settings) 中确认已打开“步数”。",
        "請在 \(healthAppPath(in: language)) › 本 App 或 \(settings) 中確認已開啟「步數」。"),
      action: .open(.healthApp), actionTitle: title(of: .open(.healthApp), language))
  }

  /// Guidance for a StepKit error: its own description and recovery
  /// suggestion, a headline, and the button that helps.
  ///
  /// - Parameters:
  ///   - error: The error.
  ///   - formatting: The language.
  public init(error: StepKitError, formatting: StepFormatting) {
    let language = formatting.language
    let title: String
    var action: Action?
    switch error {
    case .authorizationNotDetermined, .quantityAuthorizationNotDetermined, .authorizationCancelled:
      title = language.pick("Health access not granted yet", "尚未允许访问“健康”", "尚未允許取用「健康」")
      action = .requestHealthAccess
    case .writeAccessDenied:
      title = language.pick("Saving to Health is off", "未允许写入“健康”", "未允許寫入「健康」")
      action = .open(.healthApp)
    case .healthDataUnavailable:
      title = language.pick("Health isn’t available", "“健康”不可用", "「健康」無法使用")
    case .healthDataRestricted, .motionRestricted:
      title = language.pick("Access is restricted", "访问受到限制", "取用受到限制")
    case .healthDatabaseLocked:
      title = language.pick("iPhone is locked", "iPhone 已锁定", "iPhone 已鎖定")
    case .motionNotAuthorized:
      title = language.pick("Motion & Fitness is off", "“运动与健身”已关闭", "「動作與健身」已關閉")
      action = .open(.appSettings)
    case .motionNotAvailable:
      title = language.pick("No step counter", "没有计步功能", "沒有計步功能")
    case .missingUsageDescription:
      title = language.pick("The app can’t ask for access", "App 无法请求权限", "App 無法要求權限")
    default:
      title = language.pick("Steps couldn’t be read", "无法读取步数", "無法讀取步數")
    }
    let situation: Situation
    switch error {
    case .authorizationNotDetermined, .quantityAuthorizationNotDetermined: situation = .health(.notRequested)
    case .motionNotAuthorized: situation = .motion(.denied)
    default: situation = .error(error)
    }
    self.init(
      situation: situation, title: title, message: error.description(in: language),
      hint: error.recoverySuggestion(in: language).map(Self.displayPath), action: action,
      actionTitle: action.map { Self.title(of: $0, language) })
  }

  init(
    situation: Situation, title: String, message: String, hint: String?, action: Action?, actionTitle: String?
  ) {
    self.situation = situation
    self.title = title
    self.message = message
    self.hint = hint
    self.action = action
    self.actionTitle = actionTitle
  }

  // MARK: Places

  /// Where in the Health app a person sees what each app may read:
  /// `Health › Sharing › Apps`, `健康 › 共享 › App`, `健康 › 分享 › App`.
  ///
  /// - Parameter language: The language.
  /// - Returns: The path.
  public static func healthAppPath(in language: StepKitLanguage) -> String {
    language.pick("Health › Sharing › Apps", "健康 › 共享 › App", "健康 › 分享 › App")
  }

  /// A Settings path written with `›`, as the guidance shows it.
  static func displayPath(_ text: String) -> String {
    text.replacingOccurrences(of: " > ", with: " › ")
  }

  static func title(of action: Action, _ language: StepKitLanguage) -> String {
    switch action {
    case .requestHealthAccess: return language.pick("Allow Access to Health", "允许访问“健康”", "允許取用「健康」")
    case .requestMotionAccess:
      return language.pick("Allow Motion & Fitness", "允许访问“运动与健身”", "允許取用「動作與健身」")
    case .open(.healthApp): return language.pick("Open Health", "打开“健康”", "打開「健康」")
    case .open(.appSettings): return language.pick("Open Settings", "打开设置", "打開設定")
    }
  }
}
