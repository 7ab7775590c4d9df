import Foundation
import StepKit
import StepKitUI
import Testing

/// The history detail's rows. Expected values are worked by hand from Apple's documented Data
/// Sources order (typed-in entries, the Watch, the iPhone, other apps) and pro-rating by time.
@Suite("History detail: where a day's steps came from")
struct SourceBreakdownStateTests {
  /// Watch 1,000 (09:00–10:00), iPhone 800 (09:30–10:30), an app 300 (09:15–09:45), 250 typed in.
  func loader(_ language: StepKitLanguage, locale: String) throws -> (HistoryLoader, DateInterval) {
    let clock = ManualClock(now: try Fixture.date("2026-11-29T18:00:00+08:00"))
    func steps(_ value: Double, _ start: String, _ end: String, _ source: String, typed: Bool = false) throws
      -> Sample
    {
      Sample(
        kind: .steps, start: try Fixture.date("2026-11-29T\(start):00+08:00"),
        end: try Fixture.date("2026-11-29T\(end):00+08:00"), value: value, source: source,
        isUserEntered: typed)
    }
    let health = SimulatedStepSource(
      samples: [
        try steps(1000, "09:00", "10:00", "Apple Watch"), try steps(800, "09:30", "10:30", "iPhone"),
        try steps(300, "09:15", "09:45", "Pedometer Plus"),
        try steps(250, "11:00", "11:10", "Health", typed: true),
      ], kind: .healthKit, clock: clock)
    let counter = StepCounter(
      health: health, motion: nil, strategy: .healthKit, calendar: try Fixture.calendar("Asia/Shanghai"),
      clock: clock, bundle: DictionaryBundleInfo.complete)
    let loader = HistoryLoader(counter: counter, formatting: try Fixture.formatting(language, locale: locale))
    let day = DateInterval(start: try Fixture.date("2026-11-29T00:00:00+08:00"), duration: 86_400)
    return (loader, day)
  }

  @Test("English: a row per source, counted of raw, the sum and why fewer count")
  func english() async throws {
    let (loader, day) = try loader(.english, locale: "en_US")
    guard case .showing(let state) = await loader.loadBreakdown(for: day) else {
      Issue.record("no breakdown")
      return
    }
    #expect(state.rows.map(\.name) == ["Apple Watch", "iPhone", "Pedometer Plus", "Health"])
    #expect(
      state.rows.map(\.detail) == [
        "1,000 counted", "400 of 800 counted", "none of 300 counted", "none of 250 counted",
      ])
    #expect(state.rows[1].accessibilityLabel == "iPhone: 400 of 800 steps counted")
    #expect(state.countedSteps == 1400 && state.rawSteps == 2350)
    #expect(state.totalText == "1,400 of 2,350 recorded steps counted")
    #expect(state.title == "Sources, Sunday, November 29")
    #expect(state.explanation?.contains("Data Sources") == true)
    #expect(state.day.end == (try Fixture.date("2026-11-29T18:00:00+08:00")))  // today: until now
  }

  @Test("Simplified and Traditional Chinese")
  func chinese() async throws {
    let (simplified, day) = try loader(.simplifiedChinese, locale: "zh_CN")
    guard case .showing(let state) = await simplified.loadBreakdown(for: day) else {
      Issue.record("no breakdown")
      return
    }
    #expect(state.rows[1].detail == "800 步中计入 400")
    #expect(state.totalText == "记录的 2,350 步中计入 1,400 步")
    let (traditional, _) = try loader(.traditionalChinese, locale: "zh_TW")
    guard case .showing(let taiwan) = await traditional.loadBreakdown(for: day) else {
      Issue.record("no breakdown")
      return
    }
    #expect(taiwan.rows[2].detail == "300 步均未計入")
    #expect(taiwan.explanation?.contains("資料來源") == true)
  }

  @Test("a day with nothing recorded, and a failing read, are shown as such")
  func emptyAndFailing() async throws {
    let (loader, day) = try loader(.english, locale: "en_US")
    guard
      case .showing(let empty) = await loader.loadBreakdown(
        for: DateInterval(start: day.start.addingTimeInterval(-7 * 86_400), duration: 86_400))
    else {
      Issue.record("no breakdown")
      return
    }
    #expect(empty.isEmpty && empty.explanation == nil)
    #expect(empty.emptyText == "No steps recorded.")
    (loader.counter.health as? SimulatedStepSource)?.failNext(.steps, with: .healthDatabaseLocked)
    guard case .failed(let guidance) = await loader.loadBreakdown(for: day) else {
      Issue.record("no guidance")
      return
    }
    #expect(guidance.situation == .error(.healthDatabaseLocked))
  }
}
