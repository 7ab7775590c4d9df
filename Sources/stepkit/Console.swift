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
  /// Whether the user's locale asks for Chinese messages (`LC_ALL`,
  /// `LC_MESSAGES` or `LANG` starting with `zh`).
  var prefersChinese = false

  /// The process's standard output and standard error.
  static var standard: Console {
    Console(
      output: { Platform.writeStandardOutput($0) },
      error: { Platform.writeStandardError($0) },
      outputIsTerminal: Platform.standardOutputIsTerminal,
      errorIsTerminal: Platform.standardErrorIsTerminal,
      prefersChinese: Platform.messagesLocale.hasPrefix("zh"))
  }
}
