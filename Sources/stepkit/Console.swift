import StepKitCore

/// Where a command writes: data to standard output, messages to standard error.
struct Console: Sendable {
  /// Writes data (the table, csv, json).
  var output: @Sendable (String) -> Void
  /// Writes messages (errors, notes, the progress bar).
  var error: @Sendable (String) -> Void
  /// Whether standard output is a terminal.
  var outputIsTerminal: Bool
  /// Whether standard error is a terminal.
  var errorIsTerminal: Bool
  /// The language of messages about an unreadable export, from the user's
  /// locale (`LC_ALL`, `LC_MESSAGES` or `LANG`: `zh_CN.UTF-8` Simplified,
  /// `zh_TW.UTF-8` or `zh_HK.UTF-8` Traditional Chinese), else English.
  var language: StepKitLanguage = .english

  /// The process's standard output and standard error.
  static var standard: Console {
    Console(
      output: { Platform.writeStandardOutput($0) },
      error: { Platform.writeStandardError($0) },
      outputIsTerminal: Platform.standardOutputIsTerminal,
      errorIsTerminal: Platform.standardErrorIsTerminal,
      language: StepKitLanguage.preferred(from: [Platform.messagesLocale]))
  }
}
