import StepKitCore

/// The `--format table` outputs: aligned columns with totals, for people.
enum TableFormatter {
  /// The line above one export's table in a run of several: `p001 (cohort/p001.zip)`.
  static func heading(_ member: CohortMember) -> String {
    "\(member.id) (\(member.path))\n"
  }

  /// The buckets of `tally` with a totals row.
  /// The buckets with their hours with data, and with `rule` (days only)
  /// whether each day is valid.
  static func steps(_ tally: Tally, rule: ValidDayRule?) -> String {
    let unit = tally.options.unit
    let dateHeader: String
    switch unit {
    case .hour: dateHeader = "hour"
    case .day: dateHeader = "date"
    case .week: dateHeader = "week of"
    case .month: dateHeader = "month"
    }
    let days = unit == .day && rule != nil
    var rows: [[String]] = [
      [dateHeader, "steps", "km", "raw steps", "hand-typed", "hours"] + (days ? ["valid"] : [])
    ]
    for bucket in tally.buckets {
      rows.append(
        cells(bucket, label: bucket.label(unit: unit))
          + (days ? [rule?.isValid(bucket) == true ? "yes" : "no"] : []))
    }
    // The total row adds up the rows as printed (COUNTING.md, "Rounding"), km as hundredths.
    let total = tally.roundedTotal
    let totalHundredths = tally.buckets.reduce(Int64(0)) {
      RoundedTotals.adding($0, TextFormatting.hundredths(ofMetres: $1.roundedDistanceMeters))
    }
    let validCount = tally.buckets.filter { rule?.isValid($0) == true }.count
    rows.append(
      [
        "total", TextFormatting.grouped(total.steps), TextFormatting.kilometres(hundredths: totalHundredths),
        TextFormatting.grouped(total.rawSteps), TextFormatting.grouped(total.manualSteps),
        TextFormatting.grouped(Int64(tally.buckets.reduce(0) { $0 + $1.hoursWithData })),
      ] + (days ? ["\(validCount)"] : []))
    var lines = TextFormatting.columns(rows, rightAligned: [false, true, true, true, true, true, true])
    let width = lines.map(TextFormatting.displayWidth).max() ?? 0
    lines.insert(String(repeating: "─", count: width), at: 1)
    lines.insert(String(repeating: "─", count: width), at: lines.count - 1)
    return lines.joined(separator: "\n") + "\n"
  }

  private static func cells(_ bucket: Tally.Bucket, label: String) -> [String] {
    [
      label,
      TextFormatting.grouped(bucket.roundedSteps),
      TextFormatting.kilometres(bucket.roundedDistanceMeters),
      TextFormatting.grouped(bucket.roundedRawSteps),
      TextFormatting.grouped(bucket.roundedManualSteps),
      TextFormatting.grouped(Int64(bucket.hoursWithData)),
    ]
  }

  /// Each source with its class, rank, devices, sample counts and steps.
  static func sources(_ tally: Tally) -> String {
    guard !tally.sources.isEmpty else { return "No step or distance samples in this export.\n" }
    var rows: [[String]] = [
      [
        "rank", "source", "class", "devices", "samples", "raw steps", "counted", "hand-typed",
        "first", "last",
      ]
    ]
    for row in tally.sources {
      rows.append([
        String(row.rank),
        TextFormatting.terminalSafe(row.name),
        row.classLabel,
        row.deviceModels.isEmpty ? "-" : row.deviceModels.joined(separator: ", "),
        sampleCounts(row),
        TextFormatting.grouped(roundedForOutput(row.rawSteps)),
        row.isCounted ? TextFormatting.grouped(roundedForOutput(row.countedSteps)) : "left out",
        TextFormatting.grouped(roundedForOutput(row.manualSteps)),
        row.firstStart.map { String(TextFormatting.isoUTC($0).prefix(10)) } ?? "-",
        row.lastEnd.map { String(TextFormatting.isoUTC($0).prefix(10)) } ?? "-",
      ])
    }
    // Sums of the rows as printed (COUNTING.md, "Rounding"); a left-out source prints no count.
    rows.append([
      "", "total", "", "", "",
      TextFormatting.grouped(RoundedTotals.sumOfRounded(tally.sources.map(\.rawSteps))),
      TextFormatting.grouped(
        RoundedTotals.sumOfRounded(tally.sources.map { $0.isCounted ? $0.countedSteps : 0 })),
      TextFormatting.grouped(RoundedTotals.sumOfRounded(tally.sources.map(\.manualSteps))),
      "", "",
    ])
    var lines = TextFormatting.columns(
      rows, rightAligned: [true, false, false, false, true, true, true, true, false, false])
    lines = lines.map { line in
      var trimmed = Substring(line)
      while trimmed.last == " " { trimmed = trimmed.dropLast() }
      return String(trimmed)
    }
    let width = lines.map(TextFormatting.displayWidth).max() ?? 0
    lines.insert(String(repeating: "─", count: width), at: 1)
    lines.insert(String(repeating: "─", count: width), at: lines.count - 1)
    lines.append("")
    lines.append(
      "rank: 1 wins where sources overlap (policy \(tally.options.policy.rawValue)). "
        + "counted: steps a source added after the merge; first/last: UTC dates.")
    lines.append("samples: step samples + distance samples.")
    return lines.joined(separator: "\n") + "\n"
  }

  private static func sampleCounts(_ row: Tally.SourceRow) -> String {
    "\(TextFormatting.grouped(Int64(row.stepSamples))) + \(TextFormatting.grouped(Int64(row.distanceSamples)))"
  }
}
