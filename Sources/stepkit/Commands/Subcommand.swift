import HealthExport
import StepKitCore

/// One `stepkit` subcommand: its help, what it accepts, and how it runs.
protocol Subcommand {
  /// The name typed after `stepkit`.
  static var name: String { get }
  /// One line for the tool's command list.
  static var abstract: String { get }
  /// Usage, description and examples (the options are appended from ``arguments``).
  static var discussion: String { get }
  /// What the command accepts.
  static var arguments: ArgumentSpec { get }

  /// Reads the command's settings.
  ///
  /// - Throws: ``UsageError`` for a bad value.
  init(_ parsed: ParsedArguments, console: Console) throws(UsageError)

  /// Runs the command.
  ///
  /// - Throws: ``CommandError``.
  func run(_ console: Console) throws(CommandError)
}

extension Subcommand {
  /// The full `--help` text.
  static var help: String {
    discussion + "\n\nArguments and options:\n" + arguments.helpLines + "\n"
  }
}

/// `steps` and `sources`: one export's table, or, when the arguments name
/// several exports or a folder, each export's rows (``Cohort/printRows(_:of:format:settings:console:)``).
protocol RowsCommand: Subcommand {
  /// What a cohort prints for each export.
  static var rows: Cohort.Rows { get }
  /// The bucket the rows always use, or `nil` to read `--by`.
  static var fixedUnit: BucketUnit? { get }
  /// The counting settings, with the exports to read.
  var settings: CountingArguments { get }
  /// How the rows are printed.
  var format: OutputFormat { get }

  /// Counts and prints the one export.
  ///
  /// - Throws: ``CommandError``.
  func runSingle(_ console: Console) throws(CommandError)

  /// A command with these settings (the memberwise initializer).
  init(settings: CountingArguments, format: OutputFormat)
}

extension RowsCommand {
  /// The range, `--by` (unless the unit is fixed), the policy, `--format`,
  /// the cohort options and `--quiet`, over one or more exports.
  static var arguments: ArgumentSpec {
    ArgumentSpec(
      options: CountingArguments.rangeOptions + (fixedUnit == nil ? [.by] : [])
        + CountingArguments.policyOptions + (rows == .steps ? CountingArguments.dayOptions : [])
        + [.format] + CountingArguments.cohortOptions,
      flags: [.quiet],
      positionals: [CountingArguments.exportsArgument])
  }

  /// Reads the counting settings, then `--format` (a table on a terminal, csv otherwise).
  ///
  /// - Throws: ``UsageError`` for a bad value.
  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    self.init(
      settings: try CountingArguments(parsed, unit: Self.fixedUnit),
      format: try CountingArguments.format(parsed, terminal: console.outputIsTerminal))
  }

  /// Runs ``runSingle(_:)`` for one export, or prints every export's rows.
  ///
  /// - Throws: ``CommandError``.
  func run(_ console: Console) throws(CommandError) {
    let (members, isCohort, notes) = try Cohort.members(settings.exports, idRule: settings.idRule)
    if !settings.quiet { notes.forEach(console.error) }
    guard isCohort else { return try runSingle(console) }
    try Cohort.printRows(members, of: Self.rows, format: format, settings: settings, console: console)
  }
}

/// Why a command stopped: the exit code and what to say.
enum CommandError: Error {
  /// A bad command line: exit 2.
  case usage(UsageError)
  /// The export could not be read: exit 1, with file, line and column.
  case export(HealthExportError)
  /// An output file could not be written, or the bundled demo is missing: exit 1.
  case output(String)
  /// A check found problems and printed them already: exit 1, nothing more to say.
  case checkFailed
  /// Standard output took no more data, so the rest of the work was dropped:
  /// a write error is reported by ``StepKitCommand/main(_:console:)`` (exit 1),
  /// a closed pipe ends the run quietly (exit 0).
  case outputStopped

  /// The process exit code.
  var exitCode: Int32 {
    switch self {
    case .usage: return 2
    case .export, .output, .checkFailed: return 1
    case .outputStopped: return 0
    }
  }

  /// The one-line message; an unreadable export is described in `language`
  /// (the user's locale's, see ``Console/language``).
  func message(in language: StepKitLanguage = .english) -> String {
    switch self {
    case .usage(let error): return error.message
    case .export(let error):
      return error.description(in: language)
    case .output(let message): return message
    case .checkFailed, .outputStopped: return ""
    }
  }
}

extension CommandError {
  /// Runs `body`, reporting a file it cannot write as ``output(_:)``.
  ///
  /// - Returns: What `body` returns.
  /// - Throws: ``output(_:)`` with the file error's description.
  @discardableResult
  static func writing<Value>(_ body: () throws(OutputFileError) -> Value) throws(CommandError) -> Value {
    do throws(OutputFileError) {
      return try body()
    } catch {
      throw .output(error.description)
    }
  }
}
