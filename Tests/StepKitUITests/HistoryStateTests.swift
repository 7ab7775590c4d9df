import Foundation
import StepKit
import StepKitUI
import Testing

@Suite("History: a bar per day of the user's calendar, the average, and the chart's description")
struct HistoryStateTests {
  /// Seven days ending on a Sunday afternoon in Shanghai.
  func week(_ steps: [Int], goal: Int? = 10_000, language: StepKitLanguage = .english) async throws
    -> HistoryState
  {
    let calendar = try Fixture.calendar("Asia/Shanghai")
    let clock = ManualClock(now: try Fixture.date("2026-11-29T18:00:00+08:00"))
    let counter = PreviewCounters.walker(days: steps, clock: clock, calendar: calendar)
    let loader = HistoryLoader(
      counter: counter, goal: goal, formatting: try Fixture.formatting(language, locale: "en_GB"))
    return try Self.shown(await loader.load(.week))
  }

  /// The days a phase shows; records an issue and throws when it shows something else.
  static func shown(_ phase: HistoryPhase, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
    -> HistoryState
  {
    guard case .showing(let state) = phase else {
      Issue.record("expected days, got \(phase)", sourceLocation: sourceLocation)
      throw CancellationError()
    }
    return state
  }

  @Test("the range starts at the midnight six days before today and ends now")
  func interval() throws {
    let calendar = try Fixture.calendar("Asia/Shanghai")
    let now = try Fixture.date("2026-11-29T18:00:00+08:00")
    let week = HistoryRange.week.interval(endingAt: now, calendar: calendar)
    #expect(week.start == (try Fixture.date("2026-11-23T00:00:00+08:00")))
    #expect(week.end == now)
    #expect(
      HistoryRange.month.interval(endingAt: now, calendar: calendar).start
        == (try Fixture.date("2026-10-31T00:00:00+08:00")))
  }

  @Test("days follow the user's calendar across a daylight-saving change (a 25-hour day)")
  func daylightSaving() async throws {
    let calendar = try Fixture.calendar("America/New_York")
    let clock = ManualClock(now: try Fixture.date("2026-11-04T12:00:00-05:00"))
    let counter = PreviewCounters.walker(
      days: [1000, 2000, 3000, 4000, 5000, 6000, 7000], clock: clock, calendar: calendar)
    let state = try Self.shown(
      await HistoryLoader(counter: counter, formatting: try Fixture.formatting(.english)).load(.week))
    #expect(state.bars.count == 7)
    #expect(state.bars.first?.day.start == (try Fixture.date("2026-10-29T00:00:00-04:00")))
    let sunday = state.bars[3]
    #expect(sunday.day.start == (try Fixture.date("2026-11-01T00:00:00-04:00")))
    #expect(sunday.day.duration == 25 * 3600)
    #expect(sunday.accessibilityLabel == "Sunday, November 1")
    #expect(state.bars.map(\.steps) == [1000, 2000, 3000, 4000, 5000, 6000, 3500])
    #expect(state.bars.last?.isToday == true)
    #expect(state.bars.dropLast().allSatisfy { !$0.isToday })
  }

  @Test("bars carry the merged count (Watch over iPhone, counted once), weekday labels and VoiceOver texts")
  func bars() async throws {
    let state = try await week([8_000, 12_030, 0, 6_000, 10_000, 9_000, 10_000])
    // Today (Sunday) is counted up to 18:00, which is after the last walk of the day.
    #expect(state.bars.map(\.steps) == [8_000, 12_030, 0, 6_000, 10_000, 9_000, 10_000])
    #expect(state.bars.map(\.axisLabel) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    #expect(state.bars[1].accessibilityLabel == "Tuesday 24 November")
    #expect(state.bars[1].accessibilityValue == "12,030 steps, goal reached")
    #expect(state.bars[0].accessibilityValue == "8,000 steps")
    #expect(state.bars.filter(\.reachedGoal).count == 3)
    #expect(state.title == "Last 7 Days")
    #expect(HistoryRange.allCases.map { $0.title(in: .english) } == ["7 Days", "30 Days"])
    #expect(HistoryRange.pickerLabel(in: .traditionalChinese) == "範圍")
  }

  @Test("the average is over the days that have steps; the axis tops at 1, 2 or 5 times a power of ten")
  func average() async throws {
    let state = try await week([8_000, 12_030, 0, 6_000, 10_000, 9_000, 10_000])
    #expect(state.daysWithSteps == 6)
    #expect(state.totalSteps == 55_030)
    #expect(state.averageSteps == 9_172)
    #expect(state.averageText == "Daily average: 9,172 steps")
    #expect(state.axisUpperBound == 20_000)
    let quiet = try await week([100, 200, 0, 0, 0, 0, 300], goal: nil)
    #expect(quiet.axisUpperBound == 1_000)
    #expect(quiet.averageSteps == 200)
    // No samples at all: HealthKit's silence may mean that reading is off.
    let empty = try await week([], goal: nil)
    #expect(empty.bars.count == 7)
    #expect(empty.isEmpty)
    #expect(empty.averageSteps == 0)
    #expect(empty.emptyText == "No steps in the last 7 days.")
    #expect(empty.guidance?.situation == .noDataMayMeanDeniedAccess)
  }

  @Test("the audio graph describes the days, the average, the best day and the goal")
  func chartDescription() async throws {
    let state = try await week([8_000, 12_030, 0, 6_000, 10_000, 9_000, 10_000])
    let chart = state.chartDescription
    #expect(chart.title == "Steps, last 7 days")
    #expect(
      chart.summary
        == "Daily average: 9,172 steps. Most on Tuesday 24 November: 12,030 steps. 10,000-step goal reached on 3 of 7 days."
    )
    #expect(chart.categories.count == 7)
    #expect(
      chart.points[1]
        == .init(category: "Tuesday 24 November", value: 12_030, label: "12,030 steps, goal reached"))
    #expect(chart.yRange == 0...20_000)
    #expect(chart.xAxisTitle == "Day")
    #expect(state.spokenSteps(12_030.4) == "12,030 steps")
  }

  @Test("the chart reads in Traditional Chinese")
  func traditionalChinese() async throws {
    let state = try await week(
      [8_000, 12_030, 0, 6_000, 10_000, 9_000, 10_000], language: .traditionalChinese)
    #expect(state.title == "最近 7 天")
    #expect(state.averageText == "每日平均：9,172 步")
    #expect(state.chartDescription.summary.hasSuffix("7 天中有 3 天達成 10,000 步目標。"))
    #expect(state.bars[1].accessibilityValue == "12,030 步，已達成目標")
  }

  @Test("thirty days: a label every seventh day counted back from today")
  func month() async throws {
    let calendar = try Fixture.calendar("Asia/Shanghai")
    let clock = ManualClock(now: try Fixture.date("2026-11-29T18:00:00+08:00"))
    let counter = PreviewCounters.walker(clock: clock, calendar: calendar)
    let state = try Self.shown(
      await HistoryLoader(counter: counter, formatting: try Fixture.formatting(.english)).load(.month))
    #expect(state.bars.count == 30)
    #expect(state.bars.map(\.steps) == PreviewCounters.month)
    #expect(state.bars.compactMap(\.axisLabel) == ["1", "8", "15", "22", "29"])
    #expect(state.bars.first?.day.start == (try Fixture.date("2026-10-31T00:00:00+08:00")))
  }

  @Test("a failing source gives guidance instead of a chart")
  func failure() async throws {
    let counter = PreviewCounters.failing(
      with: .healthDatabaseLocked, clock: ManualClock(now: Date(timeIntervalSince1970: 1e9)))
    let phase = await HistoryLoader(counter: counter, formatting: try Fixture.formatting(.english)).load(
      .week)
    guard case .failed(let guidance) = phase else {
      Issue.record("expected guidance, got \(phase)")
      return
    }
    #expect(guidance.situation == .error(.healthDatabaseLocked))
  }
}
