import Foundation
import StepKitCore

/// `stepkit chart EXPORT -o steps.svg`: counted steps in front of raw steps, one bar per day
/// (with a 7-day average line), week or month, as SVG or an HTML page.
struct ChartCommand: Subcommand {
  static let name = "chart"
  static let abstract = "Draw daily steps, raw steps and a 7-day average as SVG or HTML."
  static let discussion = """
    Usage: stepkit chart EXPORT -o FILE.svg|FILE.html [options]

    Draws one bar per day: counted steps in front, raw steps (every sample
    added up) behind them, and a line for the 7-day average of counted steps.
    Over a year, a bar is a week, over three years a month (--by chooses),
    each the mean per day with data. The y axis follows the counted steps, not
    raw steps or a rare outlier: a counted bar taller than the axis is cut and
    marked with a red triangle; raw bars above it are cut, and the title line
    says in how many bars.
    The file type follows the extension: .svg, or .html for a page that any
    browser opens.

    Examples:
      stepkit chart export.zip -o steps.svg
      stepkit chart export.zip -o steps.html --from 2026-10-01 --to 2026-12-31
      stepkit chart export.zip -o steps.svg --day-start 04:00
      stepkit chart export.zip -o years.html --by month
    """

  static let arguments = ArgumentSpec(
    options: [.output, .chartBy] + CountingArguments.rangeOptions + CountingArguments.policyOptions,
    flags: [.quiet],
    positionals: [CountingArguments.exportArgument])

  var settings: CountingArguments
  var outputPath: String
  var isHTML: Bool
  /// `--by`: a bar's length, `nil` for the automatic choice.
  var unit: StepChart.Unit?

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    settings = try CountingArguments(parsed, unit: .day)
    guard let path = parsed.value(.output) else {
      throw UsageError("missing -o FILE (the .svg or .html file to write)")
    }
    let lowercased = path.lowercased()
    if lowercased.hasSuffix(".svg") {
      isHTML = false
    } else if lowercased.hasSuffix(".html") || lowercased.hasSuffix(".htm") {
      isHTML = true
    } else {
      throw UsageError("invalid -o '\(path)': the file name must end in .svg or .html")
    }
    outputPath = path
    if let text = parsed.value(.chartBy), text != "auto" {
      guard let value = StepChart.Unit(rawValue: text) else {
        // `steps` takes `--by hour`; a chart's bars are days or longer (its line is a 7-day
        // average), so say where hourly counts are rather than only what is accepted.
        let hourly =
          text == "hour" ? " (a chart draws days or longer; hourly counts: stepkit steps --by hour)" : ""
        throw UsageError("invalid --by '\(text)': expected auto, day, week or month\(hourly)")
      }
      unit = value
    }
  }

  func run(_ console: Console) throws(CommandError) {
    try CommandError.writing { () throws(OutputFileError) in try FileReplacement.checkTarget(outputPath) }
    let tally = try ExportLoading.count(settings, console: console).tally
    let days = StepChart.days(tally)
    let unit = self.unit ?? StepChart.Unit.automatic(dayCount: days.count)
    let title: String
    if let first = days.first, let last = days.last {
      let by = unit == .day ? "" : " (by \(unit.rawValue))"
      title = "Steps per day, \(first.date) to \(last.date)\(by)"
    } else {
      title = "Steps per day"
    }
    let total = tally.roundedTotal
    let text: String
    if isHTML {
      let summary =
        "\(TextFormatting.grouped(total.steps)) steps counted over \(days.count) days "
        + "(\(TextFormatting.grouped(total.rawSteps)) raw, "
        + "\(TextFormatting.grouped(total.manualSteps)) hand-typed); "
        + "policy \(settings.counting.policy.rawValue), time zone \(settings.counting.timeZone)"
        + (settings.counting.dayStart.isMidnight ? "." : ", days start at \(settings.counting.dayStart).")
      text = StepChart.html(days, title: title, summary: summary, unit: unit)
    } else {
      text = StepChart.svg(days, title: title, unit: unit)
    }
    let leftovers = try CommandError.writing { () throws(OutputFileError) in
      try FileReplacement.write(text, to: outputPath)
    }
    if !settings.quiet {
      if let note = FileReplacement.leftoversNote(leftovers) { console.error(note) }
      console.error("stepkit: wrote \(outputPath) (\(days.count) days)\n")
    }
  }
}

extension ArgumentSpec.Option {
  /// `--by auto|day|week|month` of `stepkit chart`.
  static let chartBy = Self(
    "by", value: "auto|day|week|month",
    help: "A bar's length (default auto: days up to a year, weeks up to three years, then months).")
  /// `-o FILE` of `stepkit chart`.
  static let output = Self(
    "output", short: "o", value: "FILE", help: "The .svg or .html file to write (required).")
}
