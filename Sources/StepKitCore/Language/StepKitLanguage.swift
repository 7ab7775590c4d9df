import Foundation

/// The languages StepKit's messages are written in: English, Simplified
/// Chinese and Traditional Chinese.
///
/// One choice serves the whole package: ``StepKitError`` in StepKit,
/// `HealthExportError` in HealthExport, the StepKitUI views and the
/// `stepkit` command all take a `StepKitLanguage`, and
/// ``preferred(from:)`` is the only place that reads a language identifier.
///
/// ```swift
/// StepKitLanguage.preferred(from: ["zh-Hant-TW", "en-US"])  // .traditionalChinese
/// StepKitLanguage.preferred(from: ["zh_HK.UTF-8"])          // .traditionalChinese (a POSIX locale)
/// StepKitLanguage.preferred(from: ["fr-FR", "zh-CN"])       // .simplifiedChinese
/// ```
public enum StepKitLanguage: String, Sendable, Hashable, Codable, CaseIterable {
  /// English.
  case english = "en"
  /// Simplified Chinese (mainland China, Singapore).
  case simplifiedChinese = "zh-Hans"
  /// Traditional Chinese (Taiwan, Hong Kong, Macau).
  case traditionalChinese = "zh-Hant"

  /// The first of the person's preferred languages (`Locale.preferredLanguages`)
  /// that StepKit speaks, else English.
  public static var preferred: StepKitLanguage {
    preferred(from: Locale.preferredLanguages)
  }

  /// The first language in `identifiers` that StepKit speaks, else English.
  ///
  /// - Parameter identifiers: BCP 47 identifiers (`zh-Hant-TW`) or POSIX
  ///   locale names (`zh_TW.UTF-8`), most preferred first.
  /// - Returns: The language to use.
  public static func preferred(from identifiers: [String]) -> StepKitLanguage {
    for identifier in identifiers {
      if let language = StepKitLanguage(identifier: identifier) { return language }
    }
    return .english
  }

  /// The language an identifier names, when StepKit speaks it.
  ///
  /// A script subtag decides (`zh-Hans-HK` is Simplified, `zh-Hant-CN`
  /// Traditional); without one, the region does: Taiwan, Hong Kong and Macau
  /// (`zh-TW`, `zh-HK`, `zh-MO`) write Traditional Chinese, everywhere else
  /// (`zh`, `zh-CN`, `zh-SG`) Simplified. Cantonese (`yue`) is written in
  /// Traditional characters unless its script says `Hans`.
  ///
  /// - Parameter identifier: A BCP 47 identifier or a POSIX locale name
  ///   (`_` separators, `.UTF-8` and `@modifier` suffixes are understood).
  /// - Returns: `nil` for a language StepKit does not speak (`fr-FR`, `C`).
  public init?(identifier: String) {
    var text = Substring(identifier.lowercased())
    if let end = text.firstIndex(where: { $0 == "." || $0 == "@" }) { text = text[..<end] }
    let subtags = text.split(whereSeparator: { $0 == "-" || $0 == "_" })
    guard let language = subtags.first else { return nil }
    let rest = subtags.dropFirst()
    switch language {
    case "en":
      self = .english
    case "zh", "yue":
      if rest.contains("hant") {
        self = .traditionalChinese
      } else if rest.contains("hans") {
        self = .simplifiedChinese
      } else if language == "yue" || rest.contains(where: Self.traditionalRegions.contains) {
        self = .traditionalChinese
      } else {
        self = .simplifiedChinese
      }
    default:
      return nil
    }
  }

  /// Regions whose Chinese is written in Traditional characters.
  private static let traditionalRegions: Set<Substring> = ["tw", "hk", "mo"]
}
