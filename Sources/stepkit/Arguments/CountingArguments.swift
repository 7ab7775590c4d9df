import StepKitCore

/// How a command prints its data.
enum OutputFormat: String, CaseIterable, Sendable {
  /// Aligned columns with totals, for people.
  case table
  /// `date,steps,distance_m,raw_steps,manual_steps`, for programs.
  case csv
  /// One JSON object.
  case json
}

// A list of stored fields, alike in shape only with other types' lists of as many fields:
// nothing in it to share.

/// The options the counting commands share, turned into ``CountingOptions``.
struct CountingArguments: Sendable {
  /// Options for the engine.
  var counting: CountingOptions
  /// The exports to read, as given: paths, folders of exports, or `-` for standard input.
  var exports: [String]
  /// How many exports are read at once, or for one export.xml, how many
  /// threads scan it (`--jobs`).
  var jobs: Int
  /// Where a cohort's export ids come from (`--id-from`).
  var idRule: ExportIDRule
  /// Whether `--quiet` silences progress and notes on standard error.
  var quiet: Bool
  /// When a day is valid (`--valid-day`), for the commands that print days.
  var validDay: ValidDayRule
  /// `--valid-day` when it was given: tables show the valid column only then.
  var givenValidDay: ValidDayRule?

  /// A copy of standard input that `-` reads instead (a command that reads
  /// the export twice makes one); `nil` reads standard input itself.
  var standardInputCopy: String?

  /// The first export: the one a single-export run reads.
  var export: String { exports.first ?? "-" }

  /// The one export of `chart`.
  static let exportArgument = ArgumentSpec.Positional(
    "EXPORT", help: "an export.zip, an export.xml, or - for standard input")

  /// The exports of `steps`, `sources` and `sqlite`.
  static let exportsArgument = ArgumentSpec.Positional(
    "EXPORT",
    help: "an export.zip, an export.xml, - for standard input, or several of them or folders of them",
    repeated: true)

  /// `--jobs` and `--id-from`.
  static let cohortOptions: [ArgumentSpec.Option] = [.jobs, .idFrom]
  /// `--from` and `--to`.
  static let rangeOptions: [ArgumentSpec.Option] = [.from, .to]
  /// `--policy`, `--time-zone`, `--day-start` and `--priority`.
  static let policyOptions: [ArgumentSpec.Option] = [.policy, .timeZone, .dayStart, .priority]
  /// `--valid-day`, for the commands that print days.
  static let dayOptions: [ArgumentSpec.Option] = [.validDay]

  /// Reads the shared options from `parsed`.
  ///
  /// - Parameters:
  ///   - parsed: The parsed command line.
  ///   - unit: The bucket unit, when the command fixes it; otherwise `--by` is read.
  ///   - trailingPositionals: How many positionals after the exports are the command's own (`OUT.db`).
  /// - Throws: ``UsageError`` for a bad value.
  init(_ parsed: ParsedArguments, unit: BucketUnit? = nil, trailingPositionals: Int = 0) throws(UsageError) {
    var options = CountingOptions()
    if let text = parsed.value(.from) { options.from = try Self.date(text, option: .from) }
    if let text = parsed.value(.to) { options.to = try Self.date(text, option: .to) }
    if let from = options.from, let to = options.to, to < from {
      throw UsageError("--to \(to) is before --from \(from)")
    }
    if let unit {
      options.unit = unit
    } else if let text = parsed.value(.by) {
      guard let value = BucketUnit(rawValue: text) else {
        throw UsageError("invalid --by '\(text)': expected hour, day, week or month")
      }
      options.unit = value
    }
    if let text = parsed.value(.policy) {
      guard let value = CountingPolicy(rawValue: text) else {
        throw UsageError("invalid --policy '\(text)': expected health, device or all")
      }
      options.policy = value
    }
    if let text = parsed.value(.timeZone) {
      guard let value = TimeZoneRule(text) else {
        throw UsageError(
          "invalid --time-zone '\(text)': expected recorded or an IANA zone such as Asia/Shanghai")
      }
      options.timeZone = value
    }
    if let text = parsed.value(.dayStart) {
      guard let value = DayStart(text) else {
        throw UsageError("invalid --day-start '\(text)': expected a local time as HH:MM, 00:00 to 23:59")
      }
      options.dayStart = value
    }
    if let text = parsed.value(.priority) {
      let names = text.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
      guard !names.isEmpty else {
        throw UsageError("invalid --priority '\(text)': expected source names separated by commas")
      }
      options.ranking = SourceRanking(explicitOrder: names)
    }
    self.counting = options
    self.exports = Array(parsed.positionals.dropLast(trailingPositionals))
    if exports.isEmpty { exports = ["-"] }
    if exports.count > 1, exports.contains("-") {
      throw UsageError("- (standard input) can only be read alone, not with other exports")
    }
    self.jobs = Platform.processorCount
    if let text = parsed.value(.jobs) {
      guard let value = Int(text), value > 0 else {
        throw UsageError(
          "invalid --jobs '\(text)': expected a whole number of exports to read at once, 1 or more")
      }
      self.jobs = value
    }
    self.idRule = .name
    if let text = parsed.value(.idFrom) {
      guard let value = ExportIDRule(rawValue: text) else {
        throw UsageError("invalid --id-from '\(text)': expected name or parent")
      }
      self.idRule = value
    }
    self.quiet = parsed.has(.quiet)
    self.validDay = .default
    if let text = parsed.value(.validDay) {
      guard let value = ValidDayRule(text) else {
        throw UsageError(
          "invalid --valid-day '\(text)': expected hours:N, steps:N or hours:N,steps:N (e.g. hours:10,steps:500)"
        )
      }
      self.validDay = value
      self.givenValidDay = value
    }
  }

  /// Reads `--format`, defaulting to `table` on a terminal and `fallback` elsewhere.
  static func format(
    _ parsed: ParsedArguments, terminal: Bool, fallback: OutputFormat = .csv
  ) throws(UsageError) -> OutputFormat {
    guard let text = parsed.value(.format) else { return terminal ? .table : fallback }
    guard let format = OutputFormat(rawValue: text) else {
      throw UsageError("invalid --format '\(text)': expected table, csv or json")
    }
    return format
  }

  private static func date(_ text: String, option: ArgumentSpec.Option) throws(UsageError) -> LocalDate {
    guard let date = LocalDate(text) else {
      throw UsageError("invalid --\(option.name) '\(text)': expected a date as YYYY-MM-DD")
    }
    return date
  }
}

extension Substring {
  /// The text without leading and trailing spaces and tabs.
  var trimmingSpaces: String {
    var text = self[...]
    while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
    while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
    return String(text)
  }
}
