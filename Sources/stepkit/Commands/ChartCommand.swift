import Foundation
import StepKitCore

/// `stepkit chart EXPORT -o steps.svg`: daily counted steps in front of raw
/// steps, with a 7-day average line, as SVG or an HTML page.
struct ChartCommand: Subcommand {
  static let name = "chart"
  static let abstract = "Draw daily steps, raw steps and a 7-day average as SVG or HTML."
  static let discussion = """
    Usage: stepkit chart EXPORT -o FILE.svg|FILE.html [options]

    Draws one bar per day: counted steps in front, raw steps (every sample
    added up) behind them, and a line for the 7-day average of counted steps.
    The file type follows the extension: .svg, or .html for a page that any
    browser opens.

    Examples:
      stepkit chart export.zip -o steps.svg
      stepkit chart export.zip -o steps.html --from 2026-10-01 --to 2026-12-31
      stepkit chart export.zip -o steps.svg --day-start 04:00
    """

  static let arguments = ArgumentSpec(
    options: [.output] + CountingArguments.rangeOptions + CountingArguments.policyOptions,
    flags: [.quiet],
    positionals: [CountingArguments.exportArgument])

  var settings: CountingArguments
  var outputPath: String
  var isHTML: Bool

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
  }

  func run(_ console: Console) throws(CommandError) {
    try CommandError.writing { () throws(OutputFileError) in try FileReplacement.checkTarget(outputPath) }
    let tally = try ExportLoading.count(settings, console: console).tally
    let days = StepChart.days(tally)
    let title: String
    if let first = days.first, let last = days.last {
      title = "Steps per day, \(first.date) to \(last.date)"
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
      text = StepChart.html(days, title: title, summary: summary)
    } else {
      text = StepChart.svg(days, title: title)
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
  /// `-o FILE` of `stepkit chart`.
  static let output = Self(
    "output", short: "o", value: "FILE", help: "The .svg or .html file to write (required).")
}
