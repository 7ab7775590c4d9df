import StepKitCore

/// `stepkit summary`: one row per export with its data yield (``DaySummary``),
/// as CSV, JSON or a table.
enum SummaryFormatter {
  /// The source classes in the order of their share columns.
  static let shareClasses: [(SourceClass, String)] = [
    (.appleWatch, "share_apple_watch"), (.iPhone, "share_iphone"), (.other, "share_other"),
    (.typedIn, "share_typed_in"),
  ]

  /// The CSV header.
  static let header =
    "export,file,first_day,last_day,days,days_with_data,valid_days,mean_valid_steps,median_valid_steps,steps,"
    + shareClasses.map(\.1).joined(separator: ",") + ",typed_in_steps_left_out,valid_day,day_start,error"

  /// The fields of one export, in ``header`` order (`nil` for an empty field).
  static func fields(
    _ member: CohortMember, _ summary: DaySummary?, options: CountingOptions, rule: ValidDayRule,
    error: String?
  )
    -> [(String, JSONValue)]
  {
    [("export", .string(member.id)), ("file", .string(member.path))]
      + members(summary, options: options, rule: rule) + [("error", .string(error))]
  }

  /// The summary's own fields, from `first_day` to `day_start` (all `null` without a summary).
  static func members(_ summary: DaySummary?, options: CountingOptions, rule: ValidDayRule) -> [(
    String, JSONValue
  )] {
    var fields: [(String, JSONValue)] = [
      ("first_day", .string(summary?.firstDay?.description)),
      ("last_day", .string(summary?.lastDay?.description)),
      ("days", .integer(summary?.days)),
      ("days_with_data", .integer(summary?.daysWithData)),
      ("valid_days", .integer(summary?.validDays)),
      ("mean_valid_steps", summary?.meanValidSteps.map { .decimal($0, digits: 1) } ?? .null),
      ("median_valid_steps", summary?.medianValidSteps.map { .decimal($0, digits: 1) } ?? .null),
      ("steps", summary.map { .integer($0.steps) } ?? .null),
    ]
    for (sourceClass, name) in shareClasses {
      fields.append((name, summary.map { .decimal($0.stepShares[sourceClass] ?? 0, digits: 4) } ?? .null))
    }
    fields += [
      ("typed_in_steps_left_out", summary.map { .integer($0.typedInStepsLeftOut) } ?? .null),
      ("valid_day", .string(rule.description)),
      ("day_start", .string(options.dayStart.description)),
    ]
    return fields
  }

  /// One CSV line of ``fields(_:_:options:rule:error:)``.
  static func csvLine(_ fields: [(String, JSONValue)]) -> String {
    fields.map { _, value -> String in
      switch value {
      case .null: return ""
      case .string(let text): return CSVFormatter.field(text)
      default: return value.rendered()
      }
    }.joined(separator: ",") + "\n"
  }

  /// The table of every export's summary.
  static func table(_ rows: [[(String, JSONValue)]], rule: ValidDayRule) -> String {
    var lines: [[String]] = [
      [
        "export", "first", "last", "days", "with data", "valid", "mean", "median", "Watch", "iPhone", "other",
        "typed-in", "typed-in left out",
      ]
    ]
    for fields in rows {
      let values = Dictionary(fields, uniquingKeysWith: { first, _ in first })
      func text(_ key: String) -> String {
        switch values[key] ?? .null {
        case .null: return "-"
        case .string(let text): return text
        case .integer(let value): return TextFormatting.grouped(value)
        case .decimal(let value, _) where key.hasPrefix("share_"):
          return TextFormatting.fixed(value * 100, digits: 1) + "%"
        case .decimal(let value, _): return TextFormatting.grouped(roundedForOutput(value))
        default: return values[key]?.rendered() ?? "-"
        }
      }
      // Its error was reported on standard error as it came.
      if case .string = values["error"] ?? .null {
        lines.append([text("export"), "unreadable"] + Array(repeating: "-", count: 11))
        continue
      }
      lines.append(
        [
          "export", "first_day", "last_day", "days", "days_with_data", "valid_days", "mean_valid_steps",
          "median_valid_steps",
        ].map(text) + shareClasses.map { text($0.1) } + [text("typed_in_steps_left_out")])
    }
    var rendered = TextFormatting.columns(
      lines, rightAligned: [false, false, false] + Array(repeating: true, count: 10))
    let width = rendered.map(TextFormatting.displayWidth).max() ?? 0
    rendered.insert(String(repeating: "─", count: width), at: 1)
    return rendered.joined(separator: "\n")
      + "\n\nvalid: days with \(rule.description.replacingOccurrences(of: ",", with: " and ")); "
      + "mean and median steps over valid days; shares of counted steps by source class.\n"
  }
}
