/// The arguments of one command line, sorted by what they are.
struct ParsedArguments: Sendable, Equatable {
  /// Option values by long name.
  var values: [String: String] = [:]
  /// The flags given, by long name.
  var flags: Set<String> = []
  /// Positional arguments in order.
  var positionals: [String] = []
  /// Whether `-h` or `--help` was given.
  var helpRequested = false

  /// The value of `option`, when given.
  func value(_ option: ArgumentSpec.Option) -> String? { values[option.name] }

  /// Whether `flag` was given.
  func has(_ flag: ArgumentSpec.Flag) -> Bool { flags.contains(flag.name) }
}

/// A command line that cannot be run: exit code 2, a one-line reason and a usage hint.
struct UsageError: Error, Equatable, Sendable {
  /// The one-line reason (`unknown option '--frm'`).
  var message: String

  init(_ message: String) { self.message = message }
}
