/// What a command accepts: options that take a value, flags, and positional arguments.
struct ArgumentSpec: Sendable {
  /// An option that takes a value: `--from 2026-11-01` or `--from=2026-11-01`.
  struct Option: Sendable {
    /// The long name without dashes (`from`).
    var name: String
    /// An optional one-letter alias (`o` for `-o`).
    var short: Character?
    /// How help shows the value (`YYYY-MM-DD`).
    var valueName: String
    /// One line of help.
    var help: String

    init(_ name: String, short: Character? = nil, value valueName: String, help: String) {
      self.name = name
      self.short = short
      self.valueName = valueName
      self.help = help
    }
  }

  /// A flag that takes no value: `--quiet`.
  struct Flag: Sendable {
    /// The long name without dashes.
    var name: String
    /// An optional one-letter alias.
    var short: Character?
    /// One line of help.
    var help: String

    init(_ name: String, short: Character? = nil, help: String) {
      self.name = name
      self.short = short
      self.help = help
    }
  }

  /// A positional argument.
  struct Positional: Sendable {
    /// How help and errors name it (`EXPORT`).
    var name: String
    /// What it is, for the "missing" error and help.
    var help: String
    /// Whether it may be left out.
    var isOptional: Bool
    /// Whether it may be given more than once (`EXPORT...`); at most one
    /// positional of a command is, and the others take their places around it.
    var isRepeated: Bool

    init(_ name: String, help: String, optional isOptional: Bool = false, repeated isRepeated: Bool = false) {
      self.name = name
      self.help = help
      self.isOptional = isOptional
      self.isRepeated = isRepeated
    }
  }

  var options: [Option] = []
  var flags: [Flag] = []
  var positionals: [Positional] = []

  /// The option named `name` (long) or aliased `short`.
  func option(named name: String) -> Option? { options.first { $0.name == name } }
  func option(short: Character) -> Option? { options.first { $0.short == short } }
  func flag(named name: String) -> Flag? { flags.first { $0.name == name } }
  func flag(short: Character) -> Flag? { flags.first { $0.short == short } }

  /// The option and flag lines of a help text, aligned.
  var helpLines: String {
    var rows: [(String, String)] = []
    for positional in positionals {
      rows.append(("  \(positional.name)\(positional.isRepeated ? "..." : "")", positional.help))
    }
    for option in options {
      let short = option.short.map { "-\($0), " } ?? ""
      rows.append(("  \(short)--\(option.name) \(option.valueName)", option.help))
    }
    for flag in flags {
      let short = flag.short.map { "-\($0), " } ?? ""
      rows.append(("  \(short)--\(flag.name)", flag.help))
    }
    rows.append(("  -h, --help", "Show this help."))
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { left, right in
      left + String(repeating: " ", count: width - left.count + 2) + right
    }.joined(separator: "\n")
  }
}
