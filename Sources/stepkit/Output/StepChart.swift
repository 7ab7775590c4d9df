import StepKitCore

/// The `stepkit chart` picture: counted steps in front of raw steps, one bar per day, week or
/// month, with a 7-day average line for days, as SVG (or an HTML page around it).
enum StepChart {
  /// One day of the chart.
  struct Day: Equatable, Sendable {
    var date: LocalDate
    var steps: Int64
    var rawSteps: Int64
    /// Whether any sample lies in the day (a day without data draws no bar).
    var hasData = true
  }

  /// How long one bar is (`stepkit chart --by`).
  enum Unit: String, CaseIterable, Sendable {
    case day, week, month

    /// The unit `--by auto` takes for `dayCount` days: days up to a year, weeks up to three
    /// years, months beyond, so that bars stay a few pixels wide at least.
    static func automatic(dayCount: Int) -> Unit {
      dayCount > 1096 ? .month : dayCount > 366 ? .week : .day
    }
  }

  // A list of stored fields, alike in shape only with other types' lists of as many fields:
  // nothing in it to share.

  /// One bar: a day, an ISO week (from Monday) or a month, with the mean per day with data.
  struct Bar: Equatable, Sendable {
    var start: LocalDate
    var end: LocalDate
    /// Mean counted steps per day with data (the day's own count for a day bar).
    var steps: Double
    /// Mean raw steps per day with data.
    var rawSteps: Double
    /// Days with data in the bar.
    var daysWithData: Int
  }

  /// The days of a day-bucket tally.
  static func days(_ tally: Tally) -> [Day] {
    tally.buckets.map {
      Day(date: $0.firstDay, steps: $0.roundedSteps, rawSteps: $0.roundedRawSteps, hasData: $0.hasSamples)
    }
  }

  /// `days` as bars of `unit`: weeks from Monday, calendar months; each the mean per day with data.
  static func bars(_ days: [Day], unit: Unit) -> [Bar] {
    func key(_ date: LocalDate) -> Int {
      switch unit {
      case .day: return date.daysSinceEpoch
      case .week: return date.daysSinceEpoch - (date.isoWeekday - 1)
      case .month: return date.year * 12 + date.month
      }
    }
    var bars: [Bar] = []
    var currentKey: Int?
    var steps: Int64 = 0
    var raw: Int64 = 0
    for day in days {
      let dayKey = key(day.date)
      if dayKey != currentKey {
        if var last = bars.popLast() {
          last.steps = last.daysWithData > 0 ? Double(steps) / Double(last.daysWithData) : 0
          last.rawSteps = last.daysWithData > 0 ? Double(raw) / Double(last.daysWithData) : 0
          bars.append(last)
        }
        bars.append(Bar(start: day.date, end: day.date, steps: 0, rawSteps: 0, daysWithData: 0))
        currentKey = dayKey
        steps = 0
        raw = 0
      }
      bars[bars.count - 1].end = day.date
      if day.hasData {
        bars[bars.count - 1].daysWithData += 1
        steps += day.steps
        raw += day.rawSteps
      }
    }
    if var last = bars.popLast() {
      last.steps = last.daysWithData > 0 ? Double(steps) / Double(last.daysWithData) : 0
      last.rawSteps = last.daysWithData > 0 ? Double(raw) / Double(last.daysWithData) : 0
      bars.append(last)
    }
    return bars
  }

  /// The trailing 7-day mean of counted steps over the days with data among the last seven
  /// (fewer days at the start); `nil` where none of them has data, so a gap is not drawn as 0.
  static func sevenDayAverage(_ days: [Day]) -> [Double?] {
    var result: [Double?] = []
    var window: Int64 = 0
    var withData = 0
    for index in days.indices {
      if days[index].hasData {
        window += days[index].steps
        withData += 1
      }
      if index >= 7, days[index - 7].hasData {
        window -= days[index - 7].steps
        withData -= 1
      }
      result.append(withData > 0 ? Double(window) / Double(withData) : nil)
    }
    return result
  }

  /// Round tick values for an axis from 0 to at least `maximum`: 1, 2 or 5 × 10ⁿ apart.
  static func ticks(maximum: Int64) -> [Int64] {
    guard maximum > 0 else { return [0, 1000] }
    var magnitude: Int64 = 1
    while true {
      for multiple: Int64 in [1, 2, 5] {
        let step = multiple * magnitude
        let count = (maximum + step - 1) / step
        if count <= 6 { return (0...count).map { $0 * step } }
      }
      magnitude *= 10
    }
  }

  /// The top of the y axis for `bars`: set by counted steps, what the chart is about, so that
  /// raw steps (every device's samples added up, often twice the count or more) cannot squeeze
  /// the counted bars; raw steps set it only where no bar has counted steps. A round tick value
  /// at or above ``scaleMaximum(_:)`` of those heights.
  static func axisMaximum(_ bars: [Bar]) -> Int64 {
    let counted = bars.map(\.steps)
    let heights = counted.contains { $0 > 0 } ? counted : bars.map(\.rawSteps)
    return ticks(maximum: Int64(scaleMaximum(heights).rounded(.up))).last ?? 1
  }

  /// The top of the y axis: the tallest bar, unless a few outliers stand far above the rest;
  /// then 1.25 × the 98th percentile of the bars' heights, and taller bars are drawn clipped.
  static func scaleMaximum(_ heights: [Double]) -> Double {
    let sorted = heights.filter { $0 > 0 }.sorted()
    guard let tallest = sorted.last else { return 0 }
    let percentile = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.98).rounded(.down)))]
    let cap = percentile * 1.25
    return tallest > cap && sorted.count >= 20 ? cap : tallest
  }

  static let monthNames = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// How many calendar months the bars touch.
  static func monthsSpanned(_ bars: [Bar]) -> Int {
    guard let first = bars.first, let last = bars.last else { return 0 }
    return (last.end.year * 12 + last.end.month) - (first.start.year * 12 + first.start.month) + 1
  }

  /// The x labels: for three months or more, the bars holding the first day of a month, every
  /// 1, 2, 3, 6, 12, 24 or 60 months (at most about 14 labels, on January for a year or more),
  /// each with that first day; for less, about 14 bars apart, each with its first day.
  static func labels(_ bars: [Bar]) -> [(index: Int, date: LocalDate)] {
    guard !bars.isEmpty else { return [] }
    func monthIndex(_ date: LocalDate) -> Int { date.year * 12 + date.month - 1 }
    let months = monthsSpanned(bars)
    guard months > 2 else {
      let every = max(1, Int((Double(bars.count) / 14).rounded(.up)))
      return bars.indices.filter { $0 % every == 0 }.map { ($0, bars[$0].start) }
    }
    let stride = [1, 2, 3, 6, 12, 24, 60].first { months / $0 <= 14 } ?? 120
    var result: [(index: Int, date: LocalDate)] = []
    for (index, bar) in bars.enumerated() {
      // The first of a month inside the bar: its start, or the first of its last day's month.
      let monthStart: LocalDate?
      if bar.start.day == 1 {
        monthStart = bar.start
      } else if monthIndex(bar.end) != monthIndex(bar.start) {
        monthStart = LocalDate(year: bar.end.year, month: bar.end.month, day: 1)
      } else {
        monthStart = nil
      }
      if let monthStart, monthIndex(monthStart) % stride == 0 { result.append((index, monthStart)) }
    }
    return result
  }

  /// The chart as a standalone SVG document: bars of `unit` (days when not given).
  static func svg(_ days: [Day], title: String, unit: Unit = .day) -> String {
    let width = 1100.0
    let height = 560.0
    let left = 78.0
    let right = 24.0
    let top = 74.0
    let bottom = 64.0
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let bars = bars(days, unit: unit)
    let yTicks = ticks(maximum: axisMaximum(bars))
    let yMax = Double(yTicks.last ?? 1)
    let slot = plotWidth / Double(max(bars.count, 1))
    // Bars narrower than about 3 pixels touch: a gap would only draw stripes.
    let barWidth = slot >= 3 ? max(1, slot * 0.72) : slot
    func x(_ index: Int) -> Double { left + slot * Double(index) + (slot - barWidth) / 2 }
    func y(_ value: Double) -> Double { top + plotHeight * (1 - min(value, yMax) / yMax) }
    let perDay = unit == .day ? "" : " (mean per day with data, by \(unit.rawValue))"

    var svg: [String] = []
    svg.append(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" "
        + "viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"system-ui, -apple-system, "
        + "'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif\" font-size=\"13\" shape-rendering=\"crispEdges\">"
    )
    svg.append("<title>\(escape(title))</title>")
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>")
    svg.append(
      "<text x=\"\(n(left))\" y=\"30\" font-size=\"19\" font-weight=\"600\" fill=\"#1d2433\">\(escape(title))</text>"
    )
    // Legend.
    let legendY = 52.0
    svg.append(
      "<rect x=\"\(n(left))\" y=\"\(n(legendY - 10))\" width=\"14\" height=\"12\" fill=\"#d5dae3\"/>"
        + "<text x=\"\(n(left + 20))\" y=\"\(n(legendY))\" fill=\"#3c4557\">raw steps (every sample added up)</text>"
    )
    svg.append(
      "<rect x=\"\(n(left + 270))\" y=\"\(n(legendY - 10))\" width=\"14\" height=\"12\" fill=\"#2f6fde\"/>"
        + "<text x=\"\(n(left + 290))\" y=\"\(n(legendY))\" fill=\"#3c4557\">steps (counted once, hand-typed out)</text>"
    )
    if unit == .day {
      svg.append(
        "<line x1=\"\(n(left + 560))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + 590))\" y2=\"\(n(legendY - 4))\" "
          + "stroke=\"#e8590c\" stroke-width=\"2.5\"/>"
          + "<text x=\"\(n(left + 598))\" y=\"\(n(legendY))\" fill=\"#3c4557\">7-day average of steps</text>")
    }
    let clipped = bars.indices.filter { bars[$0].daysWithData > 0 && bars[$0].steps > yMax }
    if !clipped.isEmpty {
      svg.append(
        "<path d=\"M\(n(left + 800)) \(n(legendY - 10))h10l-5 8z\" fill=\"#c92a2a\"/>"
          + "<text x=\"\(n(left + 815))\" y=\"\(n(legendY))\" fill=\"#3c4557\">taller than the axis</text>")
    }
    // Raw bars above the axis are cut at its top; so many can be (raw is often twice the count)
    // that a mark on each would fringe the chart, so the title line says how many.
    let rawCut = bars.filter { $0.daysWithData > 0 && $0.rawSteps > yMax }.count
    if rawCut > 0 {
      svg.append(
        "<text x=\"\(n(width - right))\" y=\"30\" text-anchor=\"end\" fill=\"#5b6478\">"
          + "raw steps cut at the axis in \(rawCut) \(rawCut == 1 ? "bar" : "bars")</text>")
    }
    // Y axis grid and labels.
    for tick in yTicks {
      let ty = y(Double(tick))
      svg.append(
        "<line x1=\"\(n(left))\" y1=\"\(n(ty))\" x2=\"\(n(width - right))\" y2=\"\(n(ty))\" "
          + "stroke=\"\(tick == 0 ? "#8a93a6" : "#e6e9ef")\" stroke-width=\"1\"/>")
      svg.append(
        "<text x=\"\(n(left - 8))\" y=\"\(n(ty + 4))\" text-anchor=\"end\" fill=\"#5b6478\">"
          + "\(TextFormatting.grouped(tick))</text>")
    }
    svg.append(
      "<text transform=\"translate(18 \(n(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\" "
        + "fill=\"#5b6478\">steps per day\(unit == .day ? "" : " (mean by \(unit.rawValue))")</text>")
    // Bars: raw behind, counted in front, both cut at the axis; a counted bar above it is marked.
    for (index, bar) in bars.enumerated() where bar.daysWithData > 0 {
      let period = bar.start == bar.end ? "\(bar.start)" : "\(bar.start) to \(bar.end)"
      let tooltip =
        "\(period): \(TextFormatting.grouped(Int64(bar.steps.rounded()))) steps "
        + "(raw \(TextFormatting.grouped(Int64(bar.rawSteps.rounded()))))\(perDay)"
      let rawTop = y(bar.rawSteps)
      let stepsTop = y(bar.steps)
      var group =
        "<g><title>\(escape(tooltip))</title>"
        + "<rect x=\"\(n(x(index)))\" y=\"\(n(rawTop))\" width=\"\(n(barWidth))\" "
        + "height=\"\(n(top + plotHeight - rawTop))\" fill=\"#d5dae3\"/>"
        + "<rect x=\"\(n(x(index)))\" y=\"\(n(stepsTop))\" width=\"\(n(barWidth))\" "
        + "height=\"\(n(top + plotHeight - stepsTop))\" fill=\"#2f6fde\"/>"
      if bar.steps > yMax {
        let cx = x(index) + barWidth / 2
        group += "<path d=\"M\(n(cx - 5)) \(n(top - 9))h10l-5 8z\" fill=\"#c92a2a\"/>"
      }
      svg.append(group + "</g>")
    }
    // The 7-day average, for day bars.
    let average = unit == .day ? sevenDayAverage(days) : []
    // One line per stretch of days with an average; a week without data breaks it.
    var stretch: [String] = []
    for index in 0...average.count {
      if index < average.count, let value = average[index] {
        stretch.append("\(n(x(index) + barWidth / 2)),\(n(y(value)))")
      } else if !stretch.isEmpty {
        svg.append(
          "<polyline points=\"\(stretch.joined(separator: " "))\" fill=\"none\" stroke=\"#e8590c\" "
            + "stroke-width=\"2.5\" stroke-linejoin=\"round\"/>")
        stretch = []
      }
    }
    // X axis labels: at month starts (or about 14 days apart for short ranges); the year on
    // the first label and wherever it changes.
    var lastYear: Int?
    let labels = labels(bars)
    let byMonth = monthsSpanned(bars) > 2
    for (index, date) in labels {
      let cx = x(index) + barWidth / 2
      let yearText = lastYear == date.year ? "" : "\(date.year)"
      lastYear = date.year
      svg.append(
        "<line x1=\"\(n(cx))\" y1=\"\(n(top + plotHeight))\" x2=\"\(n(cx))\" y2=\"\(n(top + plotHeight + 5))\" "
          + "stroke=\"#8a93a6\"/>")
      let text = byMonth ? monthNames[date.month - 1] : "\(monthNames[date.month - 1]) \(date.day)"
      svg.append(
        "<text x=\"\(n(cx))\" y=\"\(n(top + plotHeight + 20))\" text-anchor=\"middle\" fill=\"#5b6478\">"
          + "\(text)</text>")
      if !yearText.isEmpty {
        svg.append(
          "<text x=\"\(n(cx))\" y=\"\(n(top + plotHeight + 36))\" text-anchor=\"middle\" fill=\"#8a93a6\" "
            + "font-size=\"11\">\(yearText)</text>")
      }
    }
    if days.isEmpty {
      svg.append(
        "<text x=\"\(n(left + plotWidth / 2))\" y=\"\(n(top + plotHeight / 2))\" text-anchor=\"middle\" "
          + "fill=\"#5b6478\">no step samples in this range</text>")
    }
    svg.append("</svg>")
    return svg.joined(separator: "\n") + "\n"
  }

  /// The chart inside a small HTML page with a one-line summary.
  static func html(_ days: [Day], title: String, summary: String, unit: Unit = .day) -> String {
    """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <title>\(escape(title))</title>
    <style>
    body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
           margin: 24px; color: #1d2433; background: #f6f7f9; }
    figure { margin: 0; background: #fff; border: 1px solid #e0e4eb; border-radius: 8px;
             padding: 8px; display: inline-block; }
    svg { max-width: 100%; height: auto; }
    p { color: #3c4557; }
    </style>
    </head>
    <body>
    <p>\(escape(summary))</p>
    <figure>
    \(svg(days, title: title, unit: unit))</figure>
    </body>
    </html>

    """
  }

  /// Numbers in SVG attributes: at most one decimal, never a locale's comma.
  private static func n(_ value: Double) -> String {
    let tenths = Int64((value * 10).rounded())
    let whole = tenths / 10
    let fraction = abs(tenths % 10)
    return fraction == 0 ? String(whole) : "\(tenths < 0 && whole == 0 ? "-" : "")\(whole).\(fraction)"
  }

  static func escape(_ text: String) -> String {
    var result = ""
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      default: result.append(character)
      }
    }
    return result
  }
}
