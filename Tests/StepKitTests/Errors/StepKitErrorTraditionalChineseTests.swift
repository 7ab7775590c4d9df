import Foundation
import StepKit
import Testing

@Suite("StepKitError in Traditional Chinese")
struct StepKitErrorTraditionalChineseTests {
  static let all: [StepKitError] =
    StepKitErrorTests.all + [.motionRestricted, .writeAccessDenied(.walkingRunningDistance)]

  @Test(
    "every case has a Traditional Chinese text of its own, with a recovery where English has one",
    arguments: all)
  func everyCase(error: StepKitError) {
    let traditional = error.description(in: .traditionalChinese)
    #expect(traditional.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) }, "\(traditional)")
    #expect(traditional != error.description(in: .simplifiedChinese))
    #expect(
      (error.recoverySuggestion(in: .traditionalChinese) == nil)
        == (error.recoverySuggestion(in: .english) == nil))
    if let recovery = error.recoverySuggestion(in: .traditionalChinese) {
      #expect(recovery != error.recoverySuggestion(in: .simplifiedChinese))
    }
  }

  @Test("permission errors name Taiwan's Settings paths")
  func settingsPaths() throws {
    let motion = try #require(StepKitError.motionNotAuthorized.recoverySuggestion(in: .traditionalChinese))
    #expect(motion.contains("設定 > 隱私權與安全性 > 動作與健身"))
    let health = try #require(
      StepKitError.authorizationNotDetermined(.steps).recoverySuggestion(in: .traditionalChinese))
    #expect(health.contains("設定 > 健康 > 資料取用與裝置"))
    #expect(StepKitError.writeAccessDenied(.bodyMass).description(in: .traditionalChinese).contains("體重"))
  }
}
