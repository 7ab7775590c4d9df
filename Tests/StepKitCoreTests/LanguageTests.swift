import Testing

@testable import StepKitCore

@Suite("StepKitLanguage: one choice of English, Simplified or Traditional Chinese")
struct LanguageTests {
  @Test(
    "a script subtag decides, else the region: Taiwan, Hong Kong and Macau write Traditional Chinese",
    arguments: [
      ("en-US", StepKitLanguage.english), ("en", .english), ("zh", .simplifiedChinese),
      ("zh-Hans", .simplifiedChinese), ("zh-Hans-CN", .simplifiedChinese), ("zh-CN", .simplifiedChinese),
      ("zh-SG", .simplifiedChinese), ("zh-Hant", .traditionalChinese), ("zh-Hant-TW", .traditionalChinese),
      ("zh-TW", .traditionalChinese), ("zh-HK", .traditionalChinese), ("zh-MO", .traditionalChinese),
      ("zh-Hans-HK", .simplifiedChinese), ("zh-Hant-CN", .traditionalChinese),
      ("ZH-hant", .traditionalChinese),
      ("yue-Hant-HK", .traditionalChinese), ("yue-Hans-CN", .simplifiedChinese),
    ])
  func bcp47(identifier: String, expected: StepKitLanguage) {
    #expect(StepKitLanguage(identifier: identifier) == expected)
  }

  @Test(
    "POSIX locale names are understood the same way",
    arguments: [
      ("zh_CN.UTF-8", StepKitLanguage.simplifiedChinese), ("zh_TW.UTF-8", .traditionalChinese),
      ("zh_HK.Big5-HKSCS", .traditionalChinese), ("zh_MO", .traditionalChinese), ("en_GB.UTF-8", .english),
      ("zh_CN.UTF-8@pinyin", .simplifiedChinese),
    ])
  func posix(identifier: String, expected: StepKitLanguage) {
    #expect(StepKitLanguage(identifier: identifier) == expected)
  }

  @Test(
    "languages StepKit does not speak are skipped", arguments: ["fr-FR", "C", "POSIX", "", "zhx", "ja-JP"])
  func unspoken(identifier: String) {
    #expect(StepKitLanguage(identifier: identifier) == nil)
  }

  @Test("the first spoken language of the list wins, else English")
  func preferredFromList() {
    #expect(StepKitLanguage.preferred(from: ["fr-FR", "zh-HK", "zh-CN"]) == .traditionalChinese)
    #expect(StepKitLanguage.preferred(from: ["ja-JP", "zh-Hans-CN", "en-US"]) == .simplifiedChinese)
    #expect(StepKitLanguage.preferred(from: ["en-GB", "zh-Hant"]) == .english)
    #expect(StepKitLanguage.preferred(from: ["fr-FR", "de-DE"]) == .english)
    #expect(StepKitLanguage.preferred(from: []) == .english)
  }
}
