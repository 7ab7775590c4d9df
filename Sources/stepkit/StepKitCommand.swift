/// The `stepkit` tool: picks the subcommand, parses its arguments, runs it,
/// prints errors and returns the exit code.
enum StepKitCommand {
  /// Every subcommand, in the order help lists them.
  static var subcommands: [any Subcommand.Type] {
    [
      StepsCommand.self, SourcesCommand.self, SummaryCommand.self, TotalsCommand.self, RecordsCommand.self,
      ChartCommand.self,
      SQLiteCommand.self, DoctorCommand.self,
      DemoCommand.self,
    ]
  }

  static let version = "0.1.0"

  /// The tool's `--help`.
  static var help: String {
    var width = 0
    for command in subcommands { width = max(width, command.name.count) }
    var lines: [String] = []
    for command in subcommands {
      lines.append("  " + TextFormatting.padRight(command.name, width) + "  " + command.abstract)
    }
    let list = lines.joined(separator: "\n")
    return """
      stepkit: honest step counts from any Apple Health export.

      The steps the Health app shows: iPhone and Apple Watch counted once, hand-typed
      steps left out, explained source by source.

      Usage: stepkit <command> EXPORT [options]
             stepkit            (runs `steps` on the bundled demo export)

      Commands:
      \(list)

      EXPORT is an export.zip, an export.xml, or - for standard input.
      Data goes to standard output, messages to standard error. Exit codes:
      0 success, 1 the export (or an output file) has a problem, 2 a bad command line.

      Examples:
        stepkit steps ~/Downloads/export.zip
        stepkit steps export.zip --by week --format csv
        stepkit sources export.zip
        stepkit summary cohort/ --valid-day hours:10,steps:500
        stepkit chart export.zip -o steps.html
        stepkit records export.zip --type heartRate > heart_rate.csv
        stepkit sqlite export.zip health.db
        stepkit doctor MyApp/

      Run `stepkit <command> --help` for a command's options.

      """
  }

  /// Runs the tool on `arguments` (without the program name).
  ///
  /// A write error on standard output (a full disk, a failing device) ends the
  /// run with exit 1 and a message, whatever the command printed; a closed
  /// pipe (`stepkit … | head`) stays quiet.
  ///
  /// - Returns: The exit code: 0, 1 for a data or output error, 2 for a usage error.
  static func main(_ arguments: [String], console: Console) -> Int32 {
    let code = dispatch(arguments, console: console)
    guard case .failed(let error) = console.outputFailure() else { return code }
    console.error("stepkit: error: cannot write to standard output: \(error)\n")
    return max(code, 1)
  }

  private static func dispatch(_ arguments: [String], console: Console) -> Int32 {
    guard let first = arguments.first else { return run(DemoCommand.self, [], console: console) }
    switch first {
    case "-h", "--help", "help":
      if first == "help", arguments.count > 1, let command = subcommand(named: arguments[1]) {
        console.output(command.help)
      } else {
        console.output(help)
      }
      return 0
    case "--version":
      console.output("stepkit \(version)\n")
      return 0
    default:
      guard let command = subcommand(named: first) else {
        let reason = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
        console.error("stepkit: error: \(reason)\nRun 'stepkit --help' for the commands.\n")
        return 2
      }
      return run(command, Array(arguments.dropFirst()), console: console)
    }
  }

  static func subcommand(named name: String) -> (any Subcommand.Type)? {
    subcommands.first { $0.name == name }
  }

  private static func run(_ command: any Subcommand.Type, _ arguments: [String], console: Console) -> Int32 {
    let instance: any Subcommand
    do throws(UsageError) {
      let parsed = try ArgumentParser.parse(arguments, spec: command.arguments)
      if parsed.helpRequested {
        console.output(command.help)
        return 0
      }
      instance = try command.init(parsed, console: console)
    } catch {
      console.error(
        "stepkit \(command.name): error: \(error.message)\n"
          + "Run 'stepkit \(command.name) --help' for usage.\n")
      return 2
    }
    do throws(CommandError) {
      try instance.run(console)
      return 0
    } catch {
      let message = error.message(in: console.language)
      if !message.isEmpty { console.error("stepkit: error: \(message)\n") }
      return error.exitCode
    }
  }
}
