import Foundation
import StepKit
import Testing

@Suite("StepKitError: English and Simplified Chinese, with where to go in Settings")
struct StepKitErrorTests {
  static let all: [StepKitError] = [
    .healthDataUnavailable, .healthDataRestricted, .healthDatabaseLocked, .authorizationNotDetermined(.steps),
    .writeAccessDenied(.bodyMass), .authorizationCancelled,
    .missingUsageDescription(key: "NSHealthShareUsageDescription"),
    .queryFailed(code: 3, message: "bad"), .saveFailed(.height, code: 3, message: "bad"),
    .backgroundDeliveryFailed(code: 4, message: "Missing entitlement"), .backgroundTimeExpired,
    .implausibleMeasurement(.bodyMass, value: 900, unit: "kg", plausible: 0.5...650),
    .invalidInterval(start: Date(timeIntervalSince1970: 10), end: Date(timeIntervalSince1970: 0)),
    .sourceNotConfigured(.motion), .motionNotAvailable, .motionNotAuthorized, .motionNotEntitled,
    .motionOutsideHistory(earliestAvailable: Date(timeIntervalSince1970: 0)),
    .motionQueryFailed(code: 103, message: "x"),
  ]

  @Test("every case has distinct English and Chinese descriptions", arguments: all)
  func bothLanguages(error: StepKitError) {
    let english = error.description(in: .english)
    let chinese = error.description(in: .simplifiedChinese)
    #expect(!english.isEmpty)
    #expect(english != chinese)
    #expect(chinese.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) }, "\(chinese)")
    #expect(english.unicodeScalars.allSatisfy { $0.value < 0x2E80 }, "\(english)")
    #expect(
      (error.recoverySuggestion(in: .english) == nil)
        == (error.recoverySuggestion(in: .simplifiedChinese) == nil))
  }

  @Test(
    "permission errors say where in Settings to grant access",
    arguments: [
      (
        StepKitError.authorizationNotDetermined(.steps), "Settings > Health > Data Access & Devices",
        "设置 > 健康 > 数据访问与设备"
      ),
      (.writeAccessDenied(.bodyMass), "Settings > Health > Data Access & Devices", "设置 > 健康 > 数据访问与设备"),
      (.motionNotAuthorized, "Settings > Privacy & Security > Motion & Fitness", "设置 > 隐私与安全性 > 运动与健身"),
    ])
  func settingsPaths(error: StepKitError, english: String, chinese: String) throws {
    #expect(try #require(error.recoverySuggestion(in: .english)).contains(english))
    #expect(try #require(error.recoverySuggestion(in: .simplifiedChinese)).contains(chinese))
  }

  @Test("the missing key is named in both languages")
  func namesMissingKey() {
    let error = StepKitError.missingUsageDescription(key: "NSHealthUpdateUsageDescription")
    #expect(error.description(in: .english).contains("NSHealthUpdateUsageDescription"))
    #expect(error.description(in: .simplifiedChinese).contains("NSHealthUpdateUsageDescription"))
  }

  @Test("errors bridge to NSError in StepKitErrorDomain with distinct codes")
  func nsError() {
    let codes = Self.all.map { ($0 as NSError).code }
    #expect(Set(codes).count == codes.count)
    let locked = StepKitError.healthDatabaseLocked as NSError
    #expect(locked.domain == "StepKitErrorDomain")
    #expect(locked.localizedDescription == StepKitError.healthDatabaseLocked.description(in: .preferred))
    #expect(StepKitError.motionNotAuthorized.errorCode == 305)
  }

  @Test(
    "the preferred language follows the person's languages",
    arguments: [
      (["zh-Hans-CN", "en-US"], StepKitLanguage.simplifiedChinese), (["en-GB", "zh-Hans"], .english),
      (["fr-FR", "zh-CN"], .simplifiedChinese), (["fr-FR"], .english), (["zh"], .simplifiedChinese),
    ])
  func preferredLanguage(identifiers: [String], expected: StepKitLanguage) {
    #expect(StepKitLanguage.preferred(from: identifiers) == expected)
  }

  @Test("other errors are wrapped with their code and message")
  func wrapping() {
    let other = NSError(domain: "Elsewhere", code: 7, userInfo: [NSLocalizedDescriptionKey: "broken"])
    #expect(StepKitError.wrapping(other) == .queryFailed(code: 7, message: "broken"))
    #expect(StepKitError.wrapping(StepKitError.motionNotAvailable) == .motionNotAvailable)
  }
}
