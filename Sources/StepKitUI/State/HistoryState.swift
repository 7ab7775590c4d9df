import Foundation
import StepKit

/// How many days the history shows.
public enum HistoryRange: Int, Sendable, Hashable, CaseIterable, Identifiable {
  /// The last 7 days, today included.
  case week = 7
  /// The last 30 days, today included.
  case month = 30

  /// The number of days.
  public var days: Int { rawValue }

  /// The range itself, to identify it in a picker.
  public var id: Int { rawValue }

  /// The picker's title: `7 Days`, `7 天`.
  ///
  /// - Parameter language: The language.
  /// - Returns: The title.
  public func title(in language: StepKitLanguage) -> String {
    language.pick("\(days) Days", "\(days) 天", "\(days) 天")
  }

  /// The label of the range picker (hidden, read by VoiceOver): `Range`, `范围`, `範圍`.
  ///
  /// - Parameter language: The language.
  /// - Returns: The label.
  public static func pickerLabel(in language: StepKitLanguage) -> String {
    language.pick("Range", "范围", "範圍")
  }

  /// The interval from the midnight that starts the first day (`days - 1`
  /// days before today, in `calendar`) until `now`.
  ///
  /// - Parameters:
  ///   - now: The current moment.
  ///   - calendar: Whose midnights cut the days (23- and 25-hour days included).
  /// - Returns: The interval to ask ``StepCounter/dailySteps(in:)`` for.
  public func interval(endingAt now: Date, calendar: Calendar) -> DateInterval {
    let today = calendar.startOfDay(for: now)
    let first = calendar.date(byAdding: .day, value: -(days - 1), to: today) ?? today
    return DateInterval(start: calendar.startOfDay(for: first), end: max(now, today))
  }

  /// The interval from the day start that begins the first day (`days - 1`
  /// days before today, days running from `dayStart` in `calendar`'s time
  /// zone) until `now`; midnight gives ``interval(endingAt:calendar:)``.
  ///
  /// - Parameters:
  ///   - now: The current moment.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  /// - Returns: The interval to ask ``StepCounter/dailySteps(in:)`` for.
  public func interval(endingAt now: Date, calendar: Calendar, dayStart: DayStart) -> DateInterval {
    guard !dayStart.isMidnight else { return interval(endingAt: now, calendar: calendar) }
    var day = LocalDays.day(containing: now, calendar: calendar, dayStart: dayStart)
    for _ in 1..<max(days, 1) {
      day = LocalDays.day(
        containing: day.start.addingTimeInterval(-1), calendar: calendar, dayStart: dayStart)
    }
    return DateInterval(start: day.start, end: max(now, day.start))
  }
}

/// One day's bar in the history chart.
public struct HistoryBar: Sendable, Hashable, Identifiable {
  /// The day, midnight to midnight.
  public var day: DateInterval
  /// The day's steps, rounded.
  public var steps: Int
  /// Whether this is today (still counting).
  public var isToday: Bool
  /// Whether the goal was reached.
  public var reachedGoal: Bool
  /// The label under the bar (`Mon`, or the day of the month over 30 days);
  /// `nil` where the axis leaves a gap so the labels do not crowd.
  public var axisLabel: String?
  /// What VoiceOver reads as the bar's label: `Monday, November 24`.
  public var accessibilityLabel: String
  /// What VoiceOver reads as the bar's value: `8,421 steps, goal reached`.
  public var accessibilityValue: String

  /// The day's start, which identifies the bar.
  public var id: Date { day.start }
}

/// What the history view shows: a bar per day of the user's calendar, the
/// average line, and the chart's description for VoiceOver and audio graphs.
public struct HistoryState: Sendable, Hashable {
  /// The range shown.
  public var range: HistoryRange
  /// One bar per day, oldest first, today last.
  public var bars: [HistoryBar]
  /// The daily goal, drawn as a reference when set.
  public var goal: Int?
  /// Where the numbers came from.
  public var provenance: Provenance
  /// Whether the source returned any samples at all.
  public var hasData: Bool
  /// How texts are written.
  public var formatting: StepFormatting

  /// Creates the state from daily steps.
  ///
  /// - Parameters:
  ///   - daily: ``StepCounter/dailySteps(in:)`` over ``HistoryRange/interval(endingAt:calendar:)``.
  ///   - range: The range shown.
  ///   - goal: The daily goal, or `nil` for none.
  ///   - now: The current moment (which day is today).
  ///   - formatting: The language, region and calendar (the counter's calendar).
  public init(
    daily: DailySteps, range: HistoryRange, goal: Int? = TodayState.defaultGoal, now: Date,
    formatting: StepFormatting
  ) {
    self.range = range
    self.goal = goal.map { max(1, $0) }
    provenance = daily.provenance
    hasData = daily.hasData
    self.formatting = formatting
    let days = daily.days.suffix(range.days)
    let language = formatting.language
    bars = days.enumerated().map { index, day in
      let steps = day.roundedSteps
      let reached = goal.map { steps >= max(1, $0) } ?? false
      let fromEnd = days.count - 1 - index
      let label: String?
      switch range {
      case .week: label = formatting.shortWeekday(day.interval.start)
      case .month: label = fromEnd % 7 == 0 ? formatting.dayOfMonth(day.interval.start) : nil
      }
      var value = Self.stepsPhrase(steps, formatting)
      if reached { value += language.pick(", goal reached", "，已达成目标", "，已達成目標") }
      return HistoryBar(
        day: day.interval, steps: steps, isToday: day.interval.contains(now) && now < day.interval.end,
        reachedGoal: reached, axisLabel: label, accessibilityLabel: formatting.spokenDay(day.interval.start),
        accessibilityValue: value)
    }
  }

  private var language: StepKitLanguage { formatting.language }

  // MARK: Numbers

  /// The sum of the days shown.
  public var totalSteps: Int { bars.reduce(0) { $0 + $1.steps } }

  /// The days that have any steps (days without are usually days without data).
  public var daysWithSteps: Int { bars.filter { $0.steps > 0 }.count }

  /// The daily average over the days that have steps, rounded; 0 when none has.
  ///
  /// Days without any step are left out: for a person who carries an
  /// iPhone they are days without data (a new phone, a phone left at home),
  /// and counting them as zero would understate every other day.
  public var averageSteps: Int {
    daysWithSteps == 0 ? 0 : Int((Double(totalSteps) / Double(daysWithSteps)).rounded())
  }

  /// The day with the most steps (the latest of equals); `nil` when no day has steps.
  public var bestDay: HistoryBar? {
    bars.filter { $0.steps > 0 }.max {
      $0.steps < $1.steps || ($0.steps == $1.steps && $0.day.start < $1.day.start)
    }
  }

  /// Whether no day has any steps.
  public var isEmpty: Bool { daysWithSteps == 0 }

  /// The top of the step axis: the largest bar or the goal, rounded up to
  /// 1, 2 or 5 times a power of ten (at least 1,000).
  public var axisUpperBound: Int {
    let top = max(bars.map(\.steps).max() ?? 0, goal ?? 0, 1000)
    var magnitude = 1
    while magnitude * 10 <= top { magnitude *= 10 }
    for step in [1, 2, 5, 10] where step * magnitude >= top { return step * magnitude }
    return 10 * magnitude
  }

  // MARK: Texts

  /// The headline: `Last 7 Days`, `最近 7 天`.
  public var title: String {
    language.pick("Last \(range.days) Days", "最近 \(range.days) 天", "最近 \(range.days) 天")
  }

  /// The average line: `Daily average: 7,512 steps`.
  public var averageText: String {
    let average = formatting.number(averageSteps)
    return language.pick("Daily average: \(average) steps", "日均：\(average) 步", "每日平均：\(average) 步")
  }

  /// The label of the average rule in the chart: `Average`, `平均`.
  public var averageLabel: String { language.pick("Average", "平均", "平均") }

  /// What is shown instead of an empty chart: `No steps in the last 7 days.`
  public var emptyText: String {
    language.pick(
      "No steps in the last \(range.days) days.", "最近 \(range.days) 天没有步数。", "最近 \(range.days) 天沒有步數。")
  }

  /// Where the numbers came from.
  public var provenanceText: String { formatting.provenanceLine(provenance) }

  /// Guidance to show beside the chart when HealthKit returned nothing.
  public var guidance: AccessGuidance? { formatting.guidance(for: provenance, hasData: hasData) }

  /// The chart's description for VoiceOver's audio graph (`AXChartDescriptor`).
  public var chartDescription: ChartDescription {
    let stepsTitle = language.pick("Steps", "步数", "步數")
    var summary = [averageText]
    if let best = bestDay {
      summary.append(
        language.pick(
          "Most on \(best.accessibilityLabel): \(Self.stepsPhrase(best.steps, formatting))",
          "最多：\(best.accessibilityLabel)，\(Self.stepsPhrase(best.steps, formatting))",
          "最多：\(best.accessibilityLabel)，\(Self.stepsPhrase(best.steps, formatting))"))
    }
    if let goal {
      let reached = formatting.number(bars.filter(\.reachedGoal).count)
      let days = formatting.number(bars.count)
      let goalText = formatting.number(goal)
      summary.append(
        language.pick(
          "\(goalText)-step goal reached on \(reached) of \(days) days",
          "\(days) 天中有 \(reached) 天达成 \(goalText) 步目标", "\(days) 天中有 \(reached) 天達成 \(goalText) 步目標"))
    }
    let separator = language.pick(". ", "。", "。")
    return ChartDescription(
      title: language.pick(
        "Steps, last \(range.days) days", "最近 \(range.days) 天的步数", "最近 \(range.days) 天的步數"),
      summary: summary.joined(separator: separator) + separator.trimmingCharacters(in: .whitespaces),
      xAxisTitle: language.pick("Day", "日期", "日期"), yAxisTitle: stepsTitle,
      yRange: 0...Double(axisUpperBound), seriesName: stepsTitle,
      points: bars.map {
        ChartDescription.Point(
          category: $0.accessibilityLabel, value: Double($0.steps), label: $0.accessibilityValue)
      })
  }

  /// `8,421 steps`, `8,421 步`.
  static func stepsPhrase(_ steps: Int, _ formatting: StepFormatting) -> String {
    let number = formatting.number(steps)
    return formatting.language.pick(steps == 1 ? "1 step" : "\(number) steps", "\(number) 步", "\(number) 步")
  }

  /// The text VoiceOver reads for a value on the step axis.
  public func spokenSteps(_ value: Double) -> String {
    Self.stepsPhrase(Int(value.rounded()), formatting)
  }
}

/// A chart described for assistive technologies: the parts of an
/// `AXChartDescriptor` (title, summary, a categorical day axis, a numeric
/// step axis and one series), in plain Swift.
public struct ChartDescription: Sendable, Hashable {
  /// One data point: a day and its steps.
  public struct Point: Sendable, Hashable {
    /// The day, as the category on the x axis: `Monday, November 24`.
    public var category: String
    /// The steps.
    public var value: Double
    /// What is read for the point: `8,421 steps, goal reached`.
    public var label: String

    // Written out as every public value type's memberwise initializer is (Swift makes none public):
    // alike in shape only with other types' of as many fields; each names its own fields.

    /// Creates a point.
    ///
    /// - Parameters:
    ///   - category: The day.
    ///   - value: The steps.
    ///   - label: What is read for the point.
    public init(category: String, value: Double, label: String) {
      self.category = category
      self.value = value
      self.label = label
    }
  }

  /// The chart's title.
  public var title: String
  /// One or two sentences: the average, the best day, the goal.
  public var summary: String
  /// The x axis's title.
  public var xAxisTitle: String
  /// The y axis's title.
  public var yAxisTitle: String
  /// The y axis's range.
  public var yRange: ClosedRange<Double>
  /// The series' name.
  public var seriesName: String
  /// The points, in the order of the x axis.
  public var points: [Point]

  /// The x axis's categories, in order.
  public var categories: [String] { points.map(\.category) }
}
