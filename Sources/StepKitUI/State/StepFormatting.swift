import Foundation
import StepKit

/// How StepKitUI writes numbers, distances and days: in one of StepKit's
/// languages, with the person's region and calendar.
///
/// The language comes from the person's preferred languages
/// (``StepKitLanguage/preferred``); the region (for digit grouping and
/// kilometres or miles) and the calendar come from their settings.
public struct StepFormatting: Sendable, Hashable {
  /// The language of every text.
  public var language: StepKitLanguage
  /// The locale numbers and dates are formatted with: the language, in the person's region.
  public var locale: Locale
  /// Whose days, weekdays and midnights the texts use.
  public var calendar: Calendar
  /// Whether distances are shown in kilometres (else miles).
  public var usesKilometers: Bool

  /// Creates formatting for a language, region and calendar.
  ///
  /// - Parameters:
  ///   - language: The language; the person's preferred one by default.
  ///   - locale: The person's locale, for its region; the current one by default.
  ///   - calendar: Whose days the texts use; the current calendar by default.
  public init(
    language: StepKitLanguage = .preferred, locale: Locale = .autoupdatingCurrent,
    calendar: Calendar = .autoupdatingCurrent
  ) {
    self.language = language
    let region = Self.region(ofLocaleIdentifier: locale.identifier)
    let base = language.rawValue.replacingOccurrences(of: "-", with: "_")
    self.locale = Locale(identifier: region.map { "\(base)_\($0)" } ?? base)
    self.calendar = calendar
    usesKilometers = locale.usesMetricSystem
  }

  /// `value` with the region's digit grouping: `12,030`.
  ///
  /// - Parameter value: A whole number.
  /// - Returns: The text.
  public func number(_ value: Int) -> String {
    value.formatted(.number.locale(locale))
  }

  /// `fraction` as a whole percentage, rounded down so that 99.9% never reads as 100: `84`.
  func percent(_ fraction: Double) -> String {
    number(Int((fraction * 100).rounded(.down)))
  }

  /// A walking distance with one decimal in kilometres or miles: `5.2 km`, `5.2 公里`.
  ///
  /// - Parameter meters: The distance in metres.
  /// - Returns: The text.
  public func distance(meters: Double) -> String {
    let value = usesKilometers ? meters / 1000 : meters / 1609.344
    let digits = value.formatted(.number.precision(.fractionLength(1)).locale(locale))
    switch (language, usesKilometers) {
    case (.english, true): return "\(digits) km"
    case (.english, false): return "\(digits) mi"
    case (.simplifiedChinese, true), (.traditionalChinese, true): return "\(digits) 公里"
    case (.simplifiedChinese, false), (.traditionalChinese, false): return "\(digits) 英里"
    }
  }

  /// The distance spelled out for VoiceOver: `5.2 kilometres`.
  func spokenDistance(meters: Double) -> String {
    let value = usesKilometers ? meters / 1000 : meters / 1609.344
    let digits = value.formatted(.number.precision(.fractionLength(1)).locale(locale))
    switch (language, usesKilometers) {
    case (.english, true): return "\(digits) kilometers"
    case (.english, false): return "\(digits) miles"
    default: return distance(meters: meters)
    }
  }

  /// The short weekday of `date`: `Mon`, `周一`, `週一`.
  func shortWeekday(_ date: Date) -> String {
    date.formatted(dateStyle.weekday(.abbreviated))
  }

  /// The day of the month of `date`: `24`, `24日`.
  func dayOfMonth(_ date: Date) -> String {
    date.formatted(dateStyle.day())
  }

  /// The weekday, month and day of `date`, for VoiceOver: `Monday, November 24`.
  func spokenDay(_ date: Date) -> String {
    date.formatted(dateStyle.weekday(.wide).month(.wide).day())
  }

  private var dateStyle: Date.FormatStyle {
    Date.FormatStyle(locale: locale, calendar: calendar, timeZone: calendar.timeZone)
  }

  /// The region subtag of a locale identifier (`DE` in `de_DE`, `TW` in `zh-Hant_TW`), if it has one.
  static func region(ofLocaleIdentifier identifier: String) -> String? {
    let core = identifier.split(separator: "@", maxSplits: 1).first ?? ""
    let subtags = core.split(whereSeparator: { $0 == "_" || $0 == "-" }).dropFirst()
    return subtags.first { subtag in
      (subtag.count == 2 && subtag.allSatisfy(\.isLetter))
        || (subtag.count == 3 && subtag.allSatisfy(\.isNumber))
    }.map { $0.uppercased() }
  }
}

extension StepKitLanguage {
  /// The text for this language.
  func pick(_ english: String, _ simplified: String, _ traditional: String) -> String {
    switch self {
    case .english: return english
    case .simplifiedChinese: return simplified
    case .traditionalChinese: return traditional
    }
  }
}
