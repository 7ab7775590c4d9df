import StepKitCore

/// The `stepkit chart` picture: counted steps per day in front of raw steps,
/// with a 7-day average line, as SVG (or an HTML page around it).
enum StepChart {
  /// One day of the chart.
  struct Day: Equatable, Sendable {
    var date: LocalDate
    var steps: Int64
    var rawSteps: Int64
  }

  /// The days of a day-bucket tally.
  static func days(_ tally: Tally) -> [Day] {
    tally.buckets.map { Day(date: $0.firstDay, steps: $0.roundedSteps, rawSteps: $0.roundedRawSteps) }
  }

  /// The trailing 7-day mean of counted steps (fewer days at the start).
  static func sevenDayAverage(_ days: [Day]) -> [Double] {
    var result: [Double] = []
    var window: Int64 = 0
    for index in days.indices {
      window += days[index].steps
      if index >= 7 { window -= days[index - 7].steps }
      result.append(Double(window) / Double(min(index + 1, 7)))
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

  static let monthNames = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  ]

  /// The chart as a standalone SVG document.
  static func svg(_ days: [Day], title: String) -> String {
    let width = 1100.0
    let height = 560.0
    let left = 78.0
    let right = 24.0
    let top = 74.0
    let bottom = 64.0
    let plotWidth = width - left - right
    let plotHeight = height - top - bottom
    let maximum = days.map { max($0.steps, $0.rawSteps) }.max() ?? 0
    let yTicks = ticks(maximum: maximum)
    let yMax = Double(yTicks.last ?? 1)
    let slot = plotWidth / Double(max(days.count, 1))
    let barWidth = max(1, slot * 0.72)
    func x(_ index: Int) -> Double { left + slot * Double(index) + (slot - barWidth) / 2 }
    func y(_ value: Double) -> Double { top + plotHeight * (1 - value / yMax) }

    var svg: [String] = []
    svg.append(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" "
        + "viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"system-ui, -apple-system, "
        + "'Segoe UI', Roboto, 'Noto Sans', 'DejaVu Sans', sans-serif\" font-size=\"13\">")
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
    svg.append(
      "<line x1=\"\(n(left + 560))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + 590))\" y2=\"\(n(legendY - 4))\" "
        + "stroke=\"#e8590c\" stroke-width=\"2.5\"/>"
        + "<text x=\"\(n(left + 598))\" y=\"\(n(legendY))\" fill=\"#3c4557\">7-day average of steps</text>")
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
        + "fill=\"#5b6478\">steps per day</text>")
    // Bars: raw behind, counted in front.
    for (index, day) in days.enumerated() {
      let tooltip =
        "\(day.date): \(TextFormatting.grouped(day.steps)) steps (raw \(TextFormatting.grouped(day.rawSteps)))"
      let rawTop = y(Double(day.rawSteps))
      let stepsTop = y(Double(day.steps))
      svg.append(
        "<g><title>\(escape(tooltip))</title>"
          + "<rect x=\"\(n(x(index)))\" y=\"\(n(rawTop))\" width=\"\(n(barWidth))\" "
          + "height=\"\(n(top + plotHeight - rawTop))\" fill=\"#d5dae3\"/>"
          + "<rect x=\"\(n(x(index)))\" y=\"\(n(stepsTop))\" width=\"\(n(barWidth))\" "
          + "height=\"\(n(top + plotHeight - stepsTop))\" fill=\"#2f6fde\"/></g>")
    }
    // The 7-day average.
    let average = sevenDayAverage(days)
    if !average.isEmpty {
      let points = average.enumerated().map { index, value in
        "\(n(x(index) + barWidth / 2)),\(n(y(value)))"
      }
      svg.append(
        "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#e8590c\" "
          + "stroke-width=\"2.5\" stroke-linejoin=\"round\"/>")
    }
    // X axis labels: at most about 14, on a whole number of days apart; the year
    // is shown on the first label and wherever it changes.
    let labelEvery = max(1, Int((Double(days.count) / 14).rounded(.up)))
    var lastYear: Int?
    for (index, day) in days.enumerated() where index % labelEvery == 0 {
      let cx = x(index) + barWidth / 2
      let yearText = lastYear == day.date.year ? "" : " \(day.date.year)"
      lastYear = day.date.year
      svg.append(
        "<line x1=\"\(n(cx))\" y1=\"\(n(top + plotHeight))\" x2=\"\(n(cx))\" y2=\"\(n(top + plotHeight + 5))\" "
          + "stroke=\"#8a93a6\"/>")
      svg.append(
        "<text x=\"\(n(cx))\" y=\"\(n(top + plotHeight + 20))\" text-anchor=\"middle\" fill=\"#5b6478\">"
          + "\(monthNames[day.date.month - 1]) \(day.date.day)</text>")
      if !yearText.isEmpty {
        svg.append(
          "<text x=\"\(n(cx))\" y=\"\(n(top + plotHeight + 36))\" text-anchor=\"middle\" fill=\"#8a93a6\" "
            + "font-size=\"11\">\(day.date.year)</text>")
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
  static func html(_ days: [Day], title: String, summary: String) -> String {
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
    \(svg(days, title: title))</figure>
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
