// Alike in shape on purpose: each declaration is one option's name, value and help, data.

/// The options and flags the counting commands share, each declared once:
/// command specs list them and commands read them back through the same
/// declaration (`parsed.value(.from)`), so a name is never typed twice.
extension ArgumentSpec.Option {
  /// `--from YYYY-MM-DD`.
  static let from = Self(
    "from", value: "YYYY-MM-DD", help: "First local day to report (default: the first with data).")
  /// `--to YYYY-MM-DD`.
  static let to = Self(
    "to", value: "YYYY-MM-DD", help: "Last local day to report (default: the last with data).")
  /// `--by hour|day|week|month`.
  static let by = Self(
    "by", value: "hour|day|week|month", help: "Bucket length (default: day; weeks start on Monday).")
  /// `--policy health|device|all`.
  static let policy = Self(
    "policy", value: "health|device|all",
    help:
      "health: leave out hand-typed steps (default); device: only Apple Watch and iPhone; all: keep everything."
  )
  /// `--time-zone recorded|Area/City`.
  static let timeZone = Self(
    "time-zone", value: "recorded|Area/City",
    help: "Where days begin: each sample's recorded UTC offset (default) or a named zone.")
  /// `--day-start HH:MM`.
  static let dayStart = Self(
    "day-start", value: "HH:MM",
    help: "Local time at which days (weeks, months) begin, e.g. 04:00 (default: 00:00, midnight).")
  /// `--valid-day RULE`.
  static let validDay = Self(
    "valid-day", value: "hours:N|steps:N|hours:N,steps:N",
    help: "When a day is valid: at least N hours with counted steps, N steps, or both (default: hours:10).")
  /// `--priority "Source A,Source B"`.
  static let priority = Self(
    "priority", value: "\"Source A,Source B\"",
    help: "Sources to rank first, in this order; the rest follow the default ranking.")
  /// `--format table|csv|json`.
  static let format = Self(
    "format", value: "table|csv|json", help: "Output format (default: table on a terminal, csv otherwise).")
  /// `--jobs N`.
  static let jobs = Self(
    "jobs", short: "j", value: "N",
    help:
      "With several exports, how many to read at once; with one export.xml, how many cores scan it"
      + " (default: one per core).")
  /// `--id-from name|parent`.
  static let idFrom = Self(
    "id-from", value: "name|parent",
    help:
      "With several exports, the export id: the file name without extension (default) or its folder's name.")
}

extension ArgumentSpec.Flag {
  /// `-q`, `--quiet`.
  static let quiet = Self("quiet", short: "q", help: "No progress bar or notes on standard error.")
}
