import Foundation
import StepKit
import StepKitUI
import Testing

/// Dates, calendars and formatting the tests share. `date` and `calendar` are
/// also in StepKitTests' `HealthFixture`: test targets share no code without a
/// support module of their own, which two small functions do not justify.
enum Fixture {
  /// `2026-11-29T18:00:00+08:00` as a date.
  static func date(_ text: String) throws -> Date {
    try #require(ISO8601DateFormatter().date(from: text), "not an ISO 8601 date: \(text)")
  }

  /// The Gregorian calendar in `zone`.
  static func calendar(_ zone: String) throws -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: zone))
    return calendar
  }

  /// Formatting in `language` with a US, Taiwan or China region and the Shanghai calendar.
  static func formatting(
    _ language: StepKitLanguage, locale: String = "en_US", zone: String = "Asia/Shanghai"
  ) throws
    -> StepFormatting
  {
    StepFormatting(language: language, locale: Locale(identifier: locale), calendar: try calendar(zone))
  }

  /// A HealthKit-like provenance.
  static func health(fallback: FallbackReason? = nil, notes: [ResultNote] = []) -> Provenance {
    Provenance(
      source: .healthKit, policy: .health, manualEntries: .excluded, fallbackReason: fallback, notes: notes)
  }

  /// A count of `steps` over the day of `now`.
  static func count(_ steps: Double, provenance: Provenance = health(), hasData: Bool = true) -> StepCount {
    StepCount(
      interval: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 86_400), steps: steps,
      provenance: provenance, hasData: hasData)
  }

  /// The first `count` elements of `sequence`; `step` runs after each one (with how many arrived).
  static func first<S: AsyncSequence & Sendable>(
    _ count: Int, of sequence: S, after step: (Int) async throws -> Void = { _ in }
  ) async throws -> [S.Element] where S.Element: Sendable {
    var received: [S.Element] = []
    for try await element in sequence {
      received.append(element)
      if received.count == count { break }
      try await step(received.count)
    }
    try #require(received.count == count, "the sequence ended after \(received.count) of \(count) elements")
    return received
  }
}
