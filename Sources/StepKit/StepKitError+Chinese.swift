import Foundation

// The Simplified Chinese texts of StepKitError, kept beside the English ones
// case for case. Alike in shape with the other languages' switches on purpose: a text per case.
extension StepKitError {
  var chineseDescription: String {
    switch self {
    case .healthDataUnavailable: return "此设备不支持健康数据。"
    case .healthDataRestricted: return "此设备上的健康数据访问受到限制。"
    case .healthDatabaseLocked: return "设备锁定时无法读取健康数据。"
    case .authorizationNotDetermined(let type):
      return "应用尚未请求访问“\(type.name(in: .simplifiedChinese))”的权限。"
    case .quantityAuthorizationNotDetermined(let type):
      return "应用尚未请求访问“\(type.name(in: .simplifiedChinese))”的权限。"
    case .writeAccessDenied(let type):
      return "应用无权将“\(type.name(in: .simplifiedChinese))”写入健康。"
    case .authorizationCancelled: return "健康数据访问请求已取消。"
    case .missingUsageDescription(let key):
      return "应用的 Info.plist 缺少 \(key)；请求权限时系统会终止应用。"
    case .queryFailed(let code, let message): return "读取健康数据失败（HealthKit 错误 \(code)）：\(message)"
    case .saveFailed(let type, let code, let message):
      return "保存“\(type.name(in: .simplifiedChinese))”失败（HealthKit 错误 \(code)）：\(message)"
    case .backgroundDeliveryFailed(let code, let message):
      return "启用后台更新失败（HealthKit 错误 \(code)）：\(message)"
    case .missingEntitlement(let key):
      return key == InfoPlistKey.healthKitEntitlement
        ? "应用未使用 HealthKit 授权（entitlement，\(key)）签名，HealthKit 拒绝所有请求。"
        : "应用未使用 \(key) 授权（entitlement）签名，HealthKit 无法在有新数据时唤醒应用。"
    case .backgroundTimeExpired: return "系统给应用的后台运行时间已用完，步数尚未统计完成。"
    case .implausibleMeasurement(let type, let value, let unit, let plausible):
      return "\(type.name(in: .simplifiedChinese)) \(Self.format(value)) \(unit) 不合理"
        + "（应在 \(Self.format(plausible.lowerBound))–\(Self.format(plausible.upperBound)) \(unit) 之间）。"
    case .invalidInterval(let start, let end):
      return "时间区间 \(start) 至 \(end) 无效：结束时间不能早于开始时间。"
    case .sourceNotConfigured(let kind): return "未配置 \(kind) 步数来源。"
    case .unsupportedDataType(let type): return "此调用不适用于“\(type.name(in: .simplifiedChinese))”。"
    case .unsupportedQuantityType(let type):
      return "“健康”不会累加“\(type.name(in: .simplifiedChinese))”，因此没有总量。"
    case .motionNotAvailable: return "此设备没有计步功能。"
    case .motionNotAuthorized: return "应用无权读取“运动与健身”数据。"
    case .motionRestricted: return "此设备上的“运动与健身”访问受到限制。"
    case .motionNotEntitled: return "应用没有读取运动数据的授权（entitlement）。"
    case .motionOutsideHistory(let earliest):
      return "运动协处理器只保留最近七天的数据；\(earliest) 之前的数据已不可用。"
    case .motionQueryFailed(let code, let message): return "读取运动数据失败（Core Motion 错误 \(code)）：\(message)"
    }
  }

  var chineseRecovery: String? {
    let health = Self.settingsPathForHealth(in: .simplifiedChinese)
    let motion = Self.settingsPathForMotion(in: .simplifiedChinese)
    switch self {
    case .healthDataUnavailable: return "请使用 iPhone 或 Apple Watch。在此设备上只能使用其自身的运动传感器计步。"
    case .healthDataRestricted: return "请联系设备管理员，或检查 设置 > 屏幕使用时间 > 内容和隐私访问限制。"
    case .healthDatabaseLocked: return "请解锁设备后重试。"
    case .authorizationNotDetermined, .quantityAuthorizationNotDetermined:
      return "请在应用请求时允许访问，或稍后在 \(health) > 本应用 中开启。"
    case .writeAccessDenied(let type):
      return "请在 \(health) > 本应用 > 允许写入 中打开“\(type.name(in: .simplifiedChinese))”，或前往本应用的设置页面。"
    case .authorizationCancelled: return "请重新请求并选择允许访问的数据。"
    case .missingUsageDescription(let key): return "请在应用目标的 Info.plist 中添加 \(key)，并说明应用为何需要这些数据。"
    case .queryFailed, .backgroundDeliveryFailed: return "请稍后重试。如果问题仍然存在，请检查 \(health) > 本应用。"
    case .saveFailed: return "请确认已在 \(health) > 本应用 中允许写入，然后重试。"
    case .missingEntitlement(let key):
      return key == InfoPlistKey.healthKitEntitlement
        ? "请在 Xcode 中打开应用目标的“Signing & Capabilities”标签页，添加 HealthKit 功能。"
        : "请在 Xcode 中打开应用目标的“Signing & Capabilities”标签页，勾选 HealthKit 下的“Background Delivery”。"
    case .backgroundTimeExpired: return "无需操作：下一次后台更新或打开应用时会重新统计。"
    case .implausibleMeasurement: return "请检查数值及其单位。"
    case .invalidInterval: return "请传入结束时间不早于开始时间的区间。"
    case .sourceNotConfigured: return "请为 StepCounter 提供其策略所需的步数来源。"
    case .unsupportedDataType: return "测量值请使用体重、身高、体温、活动能量或静息能量。"
    case .unsupportedQuantityType: return "请逐条读取其样本，而不是总量。"
    case .motionNotAvailable: return nil
    case .motionNotAuthorized:
      return "请在 \(motion) 中为本应用开启权限，或前往本应用的设置页面，"
        + "并确认 \(motion) > 健身追踪 中已打开“健身追踪”。"
    case .motionRestricted:
      return "请检查 设置 > 屏幕使用时间 > 内容和隐私访问限制 中的限制（或联系设备管理员），"
        + "并在 \(motion) > 健身追踪 中打开“健身追踪”。"
    case .motionNotEntitled: return "请检查应用的签名和 entitlements。"
    case .motionOutsideHistory: return "请只查询最近七天，或从“健康”读取更早的数据。"
    case .motionQueryFailed: return "请稍后重试。"
    }
  }
}
