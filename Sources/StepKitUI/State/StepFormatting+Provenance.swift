import Foundation
import StepKit

extension StepFormatting {
  /// Where a number came from, in one line: `From Health: iPhone and Apple
  /// Watch counted once, steps typed in by hand left out.`, or `From this
  /// iPhone’s motion sensors, because the iPhone is locked, so Health can’t be read.`
  ///
  /// - Parameter provenance: The result's provenance.
  /// - Returns: The line.
  public func provenanceLine(_ provenance: Provenance) -> String {
    let base: String
    switch provenance.source {
    case .healthKit:
      switch provenance.manualEntries {
      case .included:
        base = language.pick(
          "From Health, steps typed in by hand included", "来自“健康”，包括手动输入的步数", "來自「健康」，包括手動輸入的步數")
      case .excluded, .notApplicable:
        base = language.pick(
          "From Health: iPhone and Apple Watch counted once, steps typed in by hand left out",
          "来自“健康”：iPhone 和 Apple Watch 的步数只计一次，不计手动输入的步数",
          "來自「健康」：iPhone 和 Apple Watch 的步數只計一次，不計手動輸入的步數")
      }
    case .motion:
      base = language.pick("From this iPhone’s motion sensors", "来自这台 iPhone 的运动传感器", "來自這部 iPhone 的動作感測器")
    case .simulated:
      base = language.pick("Simulated steps", "模拟步数", "模擬步數")
    }
    guard let reason = provenance.fallbackReason else { return base + language.pick(".", "。", "。") }
    let reasonText = because(reason)
    // Chinese text leaves a space before a Latin word (`因为 iPhone`), as Apple's does.
    let space = language != .english && reasonText.unicodeScalars.first.map { $0.isASCII } == true ? " " : ""
    return base + language.pick(", because ", "，因为", "，因為") + space + reasonText
      + language.pick(".", "。", "。")
  }

  /// Why a fallback answered, as the end of a sentence.
  func because(_ reason: FallbackReason) -> String {
    switch reason {
    case .healthDataUnavailable:
      return language.pick("Health isn’t available on this device", "此设备不支持“健康”", "此裝置不支援「健康」")
    case .healthDatabaseLocked:
      return language.pick(
        "the iPhone is locked, so Health can’t be read", "iPhone 已锁定，无法读取“健康”", "iPhone 已鎖定，無法讀取「健康」")
    case .healthKitReturnedNoData:
      return language.pick("Health returned no steps", "“健康”没有返回步数", "「健康」沒有傳回步數")
    case .healthKitNotAuthorized:
      return language.pick(
        "the app hasn’t asked for Health access yet", "App 尚未请求访问“健康”", "App 尚未要求取用「健康」")
    case .healthKitNotConfigured:
      return language.pick("the app doesn’t read Health", "App 不读取“健康”", "App 不讀取「健康」")
    case .healthKitFailed(let error):
      let text = error.description(in: language)
      return language.pick("Health failed: ", "“健康”出错：", "「健康」出錯：") + text.trimmingCharacters(in: ["。", "."])
    }
  }

  /// The guidance a result calls for: Health's empty answer, or a prompt not yet shown.
  func guidance(for provenance: Provenance, hasData: Bool) -> AccessGuidance? {
    if provenance.notes.contains(.noDataMayMeanDeniedAccess)
      || provenance.fallbackReason == .healthKitReturnedNoData
      || (!hasData && provenance.source == .healthKit)
    {
      return .noDataMayMeanDeniedAccess(formatting: self)
    }
    if provenance.fallbackReason == .healthKitNotAuthorized {
      return .health(.notRequested, formatting: self)
    }
    return nil
  }
}
