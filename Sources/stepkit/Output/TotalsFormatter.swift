import StepKitCore

/// The outputs of `stepkit totals`: one cumulative type's merged and raw
/// sums per bucket (a ``Tally`` of a log with a ``SampleLog/countedType``,
/// whose `steps` and `rawSteps` are that type's), and `--list`.
enum TotalsFormatter {
  /// The CSV header.
  static let header = "date,value,raw_value"

  /// Every bucket as `date,value,raw_value`, values in the type's unit.
  static func csv(_ tally: Tally, type: CumulativeType) -> String {
    let places = type.unit.outputDecimals
    var text = UTF8Text(reservingCapacity: (tally.buckets.count + 1) * 40)
    text.append(header + "\n")
    for bucket in tally.buckets {
      text.appendLabel(of: bucket, unit: tally.options.unit)
      guard bucket.hasSamples else {
        text.append(",,\n")  // no record of the type: no data, unlike a merged 0
        continue
      }
      text.append("," + TextFormatting.fixed(bucket.steps, digits: places))
      text.append("," + TextFormatting.fixed(bucket.rawSteps, digits: places) + "\n")
    }
    return text.string
  }

  /// The buckets with a total row, the unit named in the column headings.
  static func table(_ tally: Tally, type: CumulativeType) -> String {
    let places = type.unit.outputDecimals
    let unit = type.unit.rawValue
    var rows: [[String]] = [[dateHeader(tally.options.unit), "\(type.shortName) (\(unit))", "raw (\(unit))"]]
    let buckets = tally.buckets
    var notes: [Int: String] = [:]
    for run in TableFormatter.noDataRuns(buckets) {
      let label = { (index: Int) in buckets[index].label(unit: tally.options.unit) }
      if buckets[run.lowerBound].hasSamples {
        rows += run.map {
          [
            label($0), grouped(buckets[$0].steps, digits: places),
            grouped(buckets[$0].rawSteps, digits: places),
          ]
        }
      } else if run.count >= TableFormatter.collapsedRun {
        notes[rows.count] = TableFormatter.noDataLine(buckets[run], unit: tally.options.unit)
        rows.append([])
      } else {
        rows += run.map { [label($0), "–", "–"] }
      }
    }
    // Sums of the rows as printed (COUNTING.md, "Rounding").
    let total = printedTotals(tally, digits: places)
    rows.append([
      "total", grouped(TextFormatting.fixed(scaled: total.value, digits: places)),
      grouped(TextFormatting.fixed(scaled: total.raw, digits: places)),
    ])
    var lines = TableFormatter.columns(rows, notes: notes, rightAligned: [false, true, true])
    let width = lines.map(TextFormatting.displayWidth).max() ?? 0
    lines.insert(String(repeating: "─", count: width), at: 1)
    lines.insert(String(repeating: "─", count: width), at: lines.count - 1)
    return lines.joined(separator: "\n") + "\n"
  }

  /// One object: the options, the type with its unit, `days`, `totals`, `sources`, `invalid`.
  static func json(_ tally: Tally, type: CumulativeType, export: String) -> String {
    let places = type.unit.outputDecimals
    let days = tally.buckets.map { bucket in
      JSONValue.object([
        ("date", .string(bucket.label(unit: tally.options.unit))),
        ("value", bucket.hasSamples ? .decimal(bucket.steps, digits: places) : .null),
        ("raw_value", bucket.hasSamples ? .decimal(bucket.rawSteps, digits: places) : .null),
      ])
    }
    let total = printedTotals(tally, digits: places)
    let sources = tally.sources.map { row in
      JSONValue.object([
        ("rank", .integer(Int64(row.rank))),
        ("name", .string(row.name)),
        ("class", .string(row.sourceClass.description)),
        ("counted", .bool(row.isCounted)),
        ("device_models", .array(row.deviceModels.map { .string($0) })),
        ("samples", .integer(Int64(row.stepSamples))),
        ("raw_value", .decimal(row.rawSteps, digits: places)),
        ("counted_value", .decimal(row.countedSteps, digits: places)),
        ("manual_value", .decimal(row.manualSteps, digits: places)),
      ])
    }
    let object = JSONValue.object([
      ("options", JSONFormatter.options(tally.options, export: export)),
      ("type", .string(type.identifier)),
      ("unit", .string(type.unit.rawValue)),
      ("days", .array(days)),
      (
        "totals",
        .object([
          ("value", .scaled(total.value, digits: places)),
          ("raw_value", .scaled(total.raw, digits: places)),
          ("manual_value", .scaled(total.manual, digits: places)),
        ])
      ),
      ("sources", .array(sources)),
      ("invalid", JSONFormatter.invalid(tally.invalid)),
    ])
    return object.rendered() + "\n"
  }

  /// `--list`: every type present, most records first, with its short name
  /// and, for a cumulative type, its unit (discrete types are listed with none).
  static func list(_ counts: [String: Int], format: OutputFormat) -> String {
    let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    func row(_ entry: (key: String, value: Int)) -> (type: String, short: String, unit: String?, count: Int) {
      let cumulative = CumulativeType(identifier: entry.key)
      return (
        entry.key, cumulative?.shortName ?? shortForm(entry.key), cumulative?.unit.rawValue, entry.value
      )
    }
    let rows = sorted.map(row)
    switch format {
    case .csv:
      return
        (["type,short_name,unit,records"]
        + rows.map {
          [CSVFormatter.field($0.type), CSVFormatter.field($0.short), $0.unit ?? "", String($0.count)]
            .joined(separator: ",")
        }).joined(separator: "\n") + "\n"
    case .json:
      return JSONValue.object([
        (
          "types",
          .array(
            rows.map {
              .object([
                ("type", .string($0.type)), ("short_name", .string($0.short)),
                ("unit", .string($0.unit)), ("records", .integer(Int64($0.count))),
              ])
            })
        )
      ]).rendered() + "\n"
    case .table:
      var table: [[String]] = [["type", "unit", "records"]]
      for entry in rows {
        table.append([entry.short, entry.unit ?? "-", TextFormatting.grouped(Int64(entry.count))])
      }
      return TextFormatting.columns(table, rightAligned: [false, false, true]).joined(separator: "\n") + "\n"
    }
  }

  /// `HKCategoryTypeIdentifierSleepAnalysis` → `sleepAnalysis`.
  static func shortForm(_ identifier: String) -> String {
    for prefix in [
      "HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKDataType", "HKCorrelationTypeIdentifier",
    ]
    where identifier.hasPrefix(prefix) && identifier.count > prefix.count {
      let rest = identifier.dropFirst(prefix.count)
      if rest.dropFirst().first?.isUppercase == true { return String(rest) }
      return rest.prefix(1).lowercased() + rest.dropFirst()
    }
    return identifier
  }

  /// The totals as printed: each the sum of the rows rounded to `digits` decimals, in units of
  /// the last digit (COUNTING.md, "Rounding"), so that they equal the sums of the printed rows.
  static func printedTotals(_ tally: Tally, digits: Int) -> (value: Int64, raw: Int64, manual: Int64) {
    var total: (value: Int64, raw: Int64, manual: Int64) = (0, 0, 0)
    for bucket in tally.buckets {
      total.value = RoundedTotals.adding(total.value, TextFormatting.scaled(bucket.steps, digits: digits))
      total.raw = RoundedTotals.adding(total.raw, TextFormatting.scaled(bucket.rawSteps, digits: digits))
      total.manual = RoundedTotals.adding(
        total.manual, TextFormatting.scaled(bucket.manualSteps, digits: digits))
    }
    return total
  }

  private static func grouped(_ value: Double, digits places: Int) -> String {
    grouped(TextFormatting.fixed(value, digits: places))
  }

  /// A number printed by ``TextFormatting/fixed(_:digits:)`` with its thousands grouped.
  private static func grouped(_ text: String) -> String {
    let negative = text.hasPrefix("-")
    let digits = negative ? String(text.dropFirst()) : text
    let parts = digits.split(separator: ".", maxSplits: 1)
    var whole = TextFormatting.grouped(Int64(parts[0]) ?? 0)
    if parts.count > 1 { whole += "." + parts[1] }
    return negative ? "-" + whole : whole
  }

  private static func dateHeader(_ unit: BucketUnit) -> String {
    switch unit {
    case .hour: return "hour"
    case .day: return "date"
    case .week: return "week of"
    case .month: return "month"
    }
  }
}
