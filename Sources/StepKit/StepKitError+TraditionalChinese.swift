import Foundation

// The Traditional Chinese texts of StepKitError (Taiwan, Hong Kong, Macau),
// kept beside the English and Simplified Chinese ones case for case. The
// switches have no `default`, so a new case does not compile until it has
// its Traditional Chinese text. Alike in shape with the other languages' on purpose.
extension StepKitError {
  var traditionalChineseDescription: String {
    switch self {
    case .healthDataUnavailable: return "此裝置不支援健康資料。"
    case .healthDataRestricted: return "此裝置上的健康資料取用受到限制。"
    case .healthDatabaseLocked: return "裝置鎖定時無法讀取健康資料。"
    case .authorizationNotDetermined(let type):
      return "App 尚未要求取用「\(type.name(in: .traditionalChinese))」的權限。"
    case .quantityAuthorizationNotDetermined(let type):
      return "App 尚未要求取用「\(type.name(in: .traditionalChinese))」的權限。"
    case .writeAccessDenied(let type):
      return "App 無權將「\(type.name(in: .traditionalChinese))」寫入健康。"
    case .authorizationCancelled: return "健康資料取用要求已取消。"
    case .missingUsageDescription(let key):
      return "App 的 Info.plist 缺少 \(key)；要求權限時系統會終止 App。"
    case .queryFailed(let code, let message): return "讀取健康資料失敗（HealthKit 錯誤 \(code)）：\(message)"
    case .saveFailed(let type, let code, let message):
      return "儲存「\(type.name(in: .traditionalChinese))」失敗（HealthKit 錯誤 \(code)）：\(message)"
    case .backgroundDeliveryFailed(let code, let message):
      return "啟用背景更新失敗（HealthKit 錯誤 \(code)）：\(message)"
    case .backgroundTimeExpired: return "系統給 App 的背景執行時間已用完，步數尚未統計完成。"
    case .implausibleMeasurement(let type, let value, let unit, let plausible):
      return "\(type.name(in: .traditionalChinese)) \(Self.format(value)) \(unit) 不合理"
        + "（應在 \(Self.format(plausible.lowerBound))–\(Self.format(plausible.upperBound)) \(unit) 之間）。"
    case .invalidInterval(let start, let end):
      return "時間區間 \(start) 至 \(end) 無效：結束時間不能早於開始時間。"
    case .sourceNotConfigured(let kind): return "未設定 \(kind) 步數來源。"
    case .missingEntitlement(let key):
      return key == InfoPlistKey.healthKitEntitlement
        ? "App 未以 HealthKit 授權（entitlement，\(key)）簽署，HealthKit 拒絕所有要求。"
        : "App 未以 \(key) 授權（entitlement）簽署，HealthKit 無法在有新資料時喚醒 App。"
    case .unsupportedDataType(let type): return "此呼叫不適用於「\(type.name(in: .traditionalChinese))」。"
    case .unsupportedQuantityType(let type):
      return "「健康」不會累加「\(type.name(in: .traditionalChinese))」，因此沒有總量。"
    case .motionNotAvailable: return "此裝置沒有計步功能。"
    case .motionNotAuthorized: return "App 無權讀取「動作與健身」資料。"
    case .motionRestricted: return "此裝置上的「動作與健身」取用受到限制。"
    case .motionNotEntitled: return "App 沒有讀取動作資料的授權（entitlement）。"
    case .motionOutsideHistory(let earliest):
      return "動作協同處理器只保留最近七天的資料；\(earliest) 之前的資料已無法取得。"
    case .motionQueryFailed(let code, let message): return "讀取動作資料失敗（Core Motion 錯誤 \(code)）：\(message)"
    }
  }

  var traditionalChineseRecovery: String? {
    let health = Self.settingsPathForHealth(in: .traditionalChinese)
    let motion = Self.settingsPathForMotion(in: .traditionalChinese)
    switch self {
    case .healthDataUnavailable: return "請使用 iPhone 或 Apple Watch。在此裝置上只能使用其本身的動作感測器計步。"
    case .healthDataRestricted: return "請聯絡裝置管理者，或檢查 設定 > 螢幕使用時間 > 內容與隱私權限制。"
    case .healthDatabaseLocked: return "請解鎖裝置後再試一次。"
    case .authorizationNotDetermined, .quantityAuthorizationNotDetermined:
      return "請在 App 要求時允許取用，或稍後在 \(health) > 本 App 中開啟。"
    case .writeAccessDenied(let type):
      return "請在 \(health) > 本 App > 允許寫入 中開啟「\(type.name(in: .traditionalChinese))」，或前往本 App 的設定頁面。"
    case .authorizationCancelled: return "請重新要求並選擇允許取用的資料。"
    case .missingUsageDescription(let key): return "請在 App 目標的 Info.plist 中加入 \(key)，並說明 App 為何需要這些資料。"
    case .queryFailed, .backgroundDeliveryFailed: return "請稍後再試。如果問題持續發生，請檢查 \(health) > 本 App。"
    case .saveFailed: return "請確認已在 \(health) > 本 App 中允許寫入，然後再試一次。"
    case .backgroundTimeExpired: return "無需操作：下一次背景更新或開啟 App 時會重新統計。"
    case .implausibleMeasurement: return "請檢查數值及其單位。"
    case .invalidInterval: return "請傳入結束時間不早於開始時間的區間。"
    case .sourceNotConfigured: return "請為 StepCounter 提供其策略所需的步數來源。"
    case .missingEntitlement(let key):
      return key == InfoPlistKey.healthKitEntitlement
        ? "請在 Xcode 中打開 App 目標的「Signing & Capabilities」標籤頁，加入 HealthKit 功能。"
        : "請在 Xcode 中打開 App 目標的「Signing & Capabilities」標籤頁，勾選 HealthKit 下的「Background Delivery」。"
    case .unsupportedDataType: return "測量值請使用體重、身高、體溫、活動能量或靜息能量。"
    case .unsupportedQuantityType: return "請逐筆讀取其樣本，而非總量。"
    case .motionNotAvailable: return nil
    case .motionNotAuthorized:
      return "請在 \(motion) 中為本 App 開啟權限，或前往本 App 的設定頁面，"
        + "並確認 \(motion) > 健身追蹤 中已開啟「健身追蹤」。"
    case .motionRestricted:
      return "請檢查 設定 > 螢幕使用時間 > 內容與隱私權限制 中的限制（或聯絡裝置管理者），"
        + "並在 \(motion) > 健身追蹤 中開啟「健身追蹤」。"
    case .motionNotEntitled: return "請檢查 App 的簽署與 entitlements。"
    case .motionOutsideHistory: return "請只查詢最近七天，或從「健康」讀取更早的資料。"
    case .motionQueryFailed: return "請稍後再試。"
    }
  }
}
