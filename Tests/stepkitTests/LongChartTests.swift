import StepKitCore
import Testing

@testable import stepkit

/// `stepkit chart` over long histories: bars of weeks and months, month-start ticks, and a y axis
/// that one outlier cannot flatten. Expected values are worked out by hand from the days given.
@Suite("Charts of long histories")
struct LongChartTests {
  static func days(from start: String, count: Int, steps: (Int) -> Int64?) -> [StepChart.Day] {
    let first = LocalDate(start)?.daysSinceEpoch ?? 0
    return (0..<count).map { index in
      let value = steps(index)
      return StepChart.Day(
        date: LocalDate(daysSinceEpoch: first + index), steps: value ?? 0, rawSteps: (value ?? 0) * 2,
        hasData: value != nil)
    }
  }

  @Test("--by auto: days up to a year, weeks up to three years, months beyond")
  func automatic() {
    #expect(StepChart.Unit.automatic(dayCount: 300) == .day)
    #expect(StepChart.Unit.automatic(dayCount: 366) == .day)
    #expect(StepChart.Unit.automatic(dayCount: 1001) == .week)
    #expect(StepChart.Unit.automatic(dayCount: 1096) == .week)
    #expect(StepChart.Unit.automatic(dayCount: 3650) == .month)
  }

  @Test("A week bar runs Monday to Sunday and is the mean of its days with data")
  func weeks() {
    // 2026-11-04 is a Wednesday: the first bar holds Wed–Sun (5 days), the second Mon–Tue.
    // Days 0–4: 1000, no data, 3000, 4000, 5000 → mean over 4 days = 3250.
    let days = Self.days(from: "2026-11-04", count: 7) { $0 == 1 ? nil : Int64(($0 + 1) * 1000) }
    let bars = StepChart.bars(days, unit: .week)
    #expect(bars.map { $0.start.description } == ["2026-11-04", "2026-11-09"])
    #expect(bars.map { $0.end.description } == ["2026-11-08", "2026-11-10"])
    #expect(bars.map(\.daysWithData) == [4, 2])
    #expect(bars[0].steps == 3250)
    #expect(bars[1].steps == 6500)  // (6000 + 7000) / 2
    #expect(bars[0].rawSteps == 6500)
  }

  @Test("A month bar is the calendar month; a month without data draws no bar")
  func months() {
    // 2026-01-30 to 2026-03-02: Jan 30–31 (2 days), February without data, March 1–2.
    let days = Self.days(from: "2026-01-30", count: 32) { index in
      index < 2 ? 800 : index >= 30 ? 1200 : nil
    }
    let bars = StepChart.bars(days, unit: .month)
    #expect(bars.map { $0.start.description } == ["2026-01-30", "2026-02-01", "2026-03-01"])
    #expect(bars.map(\.daysWithData) == [2, 0, 2])
    let svg = StepChart.svg(days, title: "t", unit: .month)
    // Two bars drawn (raw behind, counted in front), none for February.
    #expect(svg.components(separatedBy: "fill=\"#2f6fde\"/>").count - 1 == 2 + 1)  // + the legend
  }

  @Test("One outlier does not set the axis: 1.25 × the 98th percentile, and the cut bar is marked")
  func outlier() {
    // 100 days of 10,000 and one day of 30,000 raw (15,000 counted): the 98th percentile of the
    // bar heights (max of counted and raw) is 20,000, so the axis stops at 25,000 < 30,000.
    let heights = [Double](repeating: 20_000, count: 100) + [30_000]
    #expect(StepChart.scaleMaximum(heights) == 25_000)
    // Without an outlier, the tallest bar sets it.
    #expect(StepChart.scaleMaximum([Double](repeating: 20_000, count: 100) + [21_000]) == 21_000)
    // Too few bars to call one an outlier.
    #expect(StepChart.scaleMaximum([1000, 2000, 30_000]) == 30_000)
    // 100 days of 10,000 counted and one of 30,000: the axis stops at 12,500, rounded up to the
    // tick 15,000, and the 30,000 bar is cut.
    let days = Self.days(from: "2026-01-01", count: 101) { $0 == 50 ? 30_000 : 10_000 }
    #expect(StepChart.axisMaximum(StepChart.bars(days, unit: .day)) == 15_000)
    let svg = StepChart.svg(days, title: "t")
    // The triangle in the legend and over the one cut bar.
    #expect(svg.components(separatedBy: "fill=\"#c92a2a\"").count - 1 == 2)
    #expect(svg.contains("taller than the axis"))
    #expect(svg.contains(">15,000</text>"))
    #expect(!svg.contains(">20,000</text>"))
  }

  @Test("Counted steps set the axis: raw steps far above them are cut, counted, and not marked")
  func axisFollowsCountedSteps() {
    // 300 days of 5,000 to 8,000 counted steps; raw three times that, and 30,000 raw on every
    // tenth day (10 % of the days, too many for the percentile to call outliers). The counted
    // bars are at most 8,000, a round tick, so the axis stops there: the raw bars of all 300
    // days are cut, none counted. Raw heights setting the axis would put it at 30,000 or more.
    let base = LocalDate("2025-02-01")?.daysSinceEpoch ?? 0
    let days = (0..<300).map { index -> StepChart.Day in
      let counted = Int64(5000 + (index % 4) * 1000)
      return StepChart.Day(
        date: LocalDate(daysSinceEpoch: base + index), steps: counted,
        rawSteps: index % 10 == 0 ? 30_000 : counted * 3)
    }
    #expect(StepChart.axisMaximum(StepChart.bars(days, unit: .day)) == 8000)
    let svg = StepChart.svg(days, title: "t")
    #expect(svg.contains(">8,000</text>"))
    #expect(!svg.contains(">10,000</text>"))
    #expect(!svg.contains("#c92a2a"))
    #expect(svg.contains("raw steps cut at the axis in 300 bars"))
    // Where no bar has counted steps (every sample dropped by the policy), raw steps set it.
    let rawOnly = days.map { StepChart.Day(date: $0.date, steps: 0, rawSteps: $0.rawSteps) }
    #expect(StepChart.axisMaximum(StepChart.bars(rawOnly, unit: .day)) == 30_000)
  }

  @Test("Ticks fall on month starts: every quarter over three years, each January over ten")
  func monthTicks() {
    let three = StepChart.bars(Self.days(from: "2023-01-01", count: 1096) { _ in 5000 }, unit: .week)
    let labels = StepChart.labels(three)
    #expect(labels.allSatisfy { $0.date.day == 1 && [1, 4, 7, 10].contains($0.date.month) })
    #expect(labels.count == 12)  // 2023-01 to 2025-10: 3 years × 4 quarters
    let ten = StepChart.bars(Self.days(from: "2016-01-01", count: 3653) { _ in 5000 }, unit: .month)
    let yearly = StepChart.labels(ten)
    #expect(yearly.map(\.date.month) == [Int](repeating: 1, count: 10))
    #expect(yearly.first?.date.year == 2016)
    #expect(yearly.last?.date.year == 2025)
  }

  @Test("The 7-day average skips days without data and breaks where a week has none")
  func averageGap() {
    let days = Self.days(from: "2026-01-01", count: 20) { index in
      index < 3 ? 1000 : index < 11 ? nil : 3000
    }
    let average = StepChart.sevenDayAverage(days)
    #expect(average[2] == 1000)
    #expect(average[5] == 1000)  // days 0–2 in the window, 3–5 without data
    #expect(average[10] == nil)  // days 4–10: none with data
    #expect(average[11] == 3000)
    let svg = StepChart.svg(days, title: "t")
    #expect(svg.components(separatedBy: "<polyline").count - 1 == 2)
  }
}
