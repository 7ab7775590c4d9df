import Foundation
import Testing

@testable import stepkit

/// Runs `stepkit` in process with a console that records what it writes.
func runInProcess(_ arguments: [String], outputIsTerminal: Bool = false) -> (
  code: Int32, output: String, error: String
) {
  let output = WrittenText()
  let error = WrittenText()
  let console = Console(
    output: { output.append($0) }, error: { error.append($0) }, outputIsTerminal: outputIsTerminal,
    errorIsTerminal: false)
  let code = StepKitCommand.main(arguments, console: console)
  return (code, output.all.joined(), error.all.joined())
}

@Suite("Dispatch and exit codes")
struct DispatchTests {
  @Test("help lists every subcommand; each subcommand has help with examples")
  func help() {
    let tool = runInProcess(["--help"])
    #expect(tool.code == 0)
    for command in StepKitCommand.subcommands {
      #expect(tool.output.contains("  \(command.name)"))
      let own = runInProcess([command.name, "--help"])
      #expect(own.code == 0)
      #expect(own.output.hasPrefix("Usage: stepkit"))
      #expect(own.output.contains("Examples:"))
      #expect(own.error.isEmpty)
    }
  }

  @Test("usage errors exit 2 with the reason and a hint on standard error")
  func usageError() {
    let result = runInProcess(["steps", "export.zip", "--policy", "strict"])
    #expect(result.code == 2)
    #expect(result.output.isEmpty)
    #expect(
      result.error
        == "stepkit steps: error: invalid --policy 'strict': expected health, device or all\n"
        + "Run 'stepkit steps --help' for usage.\n")
    #expect(runInProcess(["--frobnicate"]).code == 2)
  }

  @Test("a missing export exits 1 naming the file")
  func dataError() {
    let result = runInProcess(["sources", "/nonexistent/export.zip"])
    #expect(result.code == 1)
    #expect(result.error.hasPrefix("stepkit: error: "))
    #expect(result.error.contains("/nonexistent/export.zip"))
  }

  @Test("a terminal gets a table, a pipe gets csv")
  func defaultFormat() {
    let fixture = StepkitRunner.fixtures.appendingPathComponent("watch-and-phone.xml").path
    let piped = runInProcess(["steps", fixture, "-q"])
    #expect(piped.output.hasPrefix("date,steps,distance_m,raw_steps,manual_steps,hours_with_data,valid\n"))
    let terminal = runInProcess(["steps", fixture, "-q"], outputIsTerminal: true)
    #expect(terminal.output.hasPrefix("date         steps"))
    #expect(terminal.error.isEmpty)
  }
}
