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
    var whole = ""
    writeSteps(tally, rule: rule) { whole += $0 }
    return whole
  }

  /// ``steps(_:rule:)`` handed to `emit` about 64 KiB at a time: each row's
  /// cells are made twice, once to measure the columns and once to write
  /// them, rather than kept, so that 34 years of hours are never one table
  /// of strings.
  static func writeSteps(_ tally: Tally, rule: ValidDayRule?, to emit: (String) -> Void) {
    let unit = tally.options.unit
    let dateHeader: String
    switch unit {
    case .hour: dateHeader = "hour"
    case .day: dateHeader = "date"
    case .week: dateHeader = "week of"
    case .month: dateHeader = "month"
    }
    let days = unit == .day && rule != nil
    let header = [dateHeader, "steps", "km", "raw steps", "hand-typed", "hours"] + (days ? ["valid"] : [])
    func row(_ bucket: Tally.Bucket) -> [String] {
      let valid = days ? [rule?.isValid(bucket) == true ? "yes" : "no"] : []
      // A bucket without any sample: `–`, not 0 (a run of `collapsedRun` or more is one line).
      guard bucket.hasSamples else { return [bucket.label(unit: unit), "–", "–", "–", "–", "0"] + valid }
      return cells(bucket, label: bucket.label(unit: unit)) + valid
    }
    let buckets = tally.buckets
    let runs = noDataRuns(buckets)
    func collapsed(_ run: Range<Int>) -> Bool {
      !buckets[run.lowerBound].hasSamples && run.count >= collapsedRun
    }
    // The total row adds up the rows as printed (COUNTING.md, "Rounding"), km as hundredths.
    let rounded = tally.roundedTotal
    let totalHundredths = buckets.reduce(Int64(0)) {
      RoundedTotals.adding($0, TextFormatting.hundredths(ofMetres: $1.roundedDistanceMeters))
    }
    let validCount = buckets.reduce(0) { $0 + (rule?.isValid($1) == true ? 1 : 0) }
    let total =
      [
        "total", TextFormatting.grouped(rounded.steps),
        TextFormatting.kilometres(hundredths: totalHundredths),
        TextFormatting.grouped(rounded.rawSteps), TextFormatting.grouped(rounded.manualSteps),
        TextFormatting.grouped(Int64(buckets.reduce(0) { $0 + $1.hoursWithData })),
      ] + (days ? ["\(validCount)"] : [])
    var widths = header.map(TextFormatting.displayWidth)
    var noteWidth = 0
    func measure(_ cells: [String]) {
      for (index, cell) in cells.enumerated() {
        widths[index] = max(widths[index], TextFormatting.displayWidth(cell))
      }
    }
    for run in runs {
      if collapsed(run) {
        noteWidth = max(noteWidth, TextFormatting.displayWidth(noDataLine(buckets[run], unit: unit)))
      } else {
        for bucket in buckets[run] { measure(row(bucket)) }
      }
    }
    measure(total)
    let rightAligned = [false, true, true, true, true, true, true]
    func line(_ cells: [String]) -> String {
      TextFormatting.line(cells, widths: widths, rightAligned: rightAligned) + "\n"
    }
    // Every line has every column, each padded to its width (the last is right-aligned); a
    // collapsed run's line stands outside the columns.
    let ruleWidth = max(widths.reduce(0, +) + 2 * (widths.count - 1), noteWidth)
    let rule = String(repeating: "─", count: ruleWidth) + "\n"
    var text = line(header) + rule
    for run in runs {
      if collapsed(run) {
        text += noDataLine(buckets[run], unit: unit) + "\n"
      } else {
        for bucket in buckets[run] {
          text += line(row(bucket))
          if text.utf8.count >= CSVFormatter.pieceBytes {
            emit(text)
            text = ""
          }
        }
      }
    }
    emit(text + rule + line(total))
  }

  /// Runs of this many buckets without any sample, or more, take one line in a table.
  static let collapsedRun = 3

  /// One line for a run of buckets without any sample: `2026-03-05 … 2026-03-19  no data (15 days)`.
  static func noDataLine(_ run: Slice<Tally.Buckets>, unit: BucketUnit) -> String {
    let first = run.first?.label(unit: unit) ?? ""
    let last = run.last?.label(unit: unit) ?? ""
    return "\(first) … \(last)  no data (\(run.count) \(noun(unit, count: run.count)))"
  }

  /// `rows` in aligned columns, where row `i` of `notes` is that line as it stands, outside the
  /// columns (an empty row holds its place).
  static func columns(_ rows: [[String]], notes: [Int: String], rightAligned: [Bool]) -> [String] {
    let aligned = TextFormatting.columns(rows.filter { !$0.isEmpty }, rightAligned: rightAligned)
    var lines: [String] = []
    var next = aligned.makeIterator()
    for index in rows.indices {
      if let note = notes[index] { lines.append(note) } else if let line = next.next() { lines.append(line) }
    }
    return lines
  }

  /// `buckets` cut into runs that all have samples or all have none, in order.
  static func noDataRuns(_ buckets: Tally.Buckets) -> [Range<Int>] {
    var runs: [Range<Int>] = []
    var start = 0
    var previous: Bool?
    // Each bucket read once: a counted tally works them out as they are read.
    for (index, bucket) in buckets.enumerated() {
      if let previous, bucket.hasSamples != previous {
        runs.append(start..<index)
        start = index
      }
      previous = bucket.hasSamples
    }
    if !buckets.isEmpty { runs.append(start..<buckets.count) }
    return runs
  }

  // A switch per unit, alike in shape only with the header's: the words differ (`date`, `week of`).

  /// `day`, `hour`, `week`, `month`, plural beyond one.
  private static func noun(_ unit: BucketUnit, count: Int) -> String {
    let word: String
    switch unit {
    case .hour: word = "hour"
    case .day: word = "day"
    case .week: word = "week"
    case .month: word = "month"
    }
    return count == 1 ? word : word + "s"
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
