import Foundation
import StepKitCore

/// `stepkit` with no arguments (or `stepkit demo`): `steps` on the bundled demo
/// export, with a two-line explanation of why `steps` differs from `raw_steps`.
struct DemoCommand: Subcommand {
  static let name = "demo"
  static let abstract = "Show `steps` on the bundled demo export (what `stepkit` alone does)."
  static let discussion = """
    Usage: stepkit [demo]

    Runs `stepkit steps` on a small export bundled with the tool: an iPhone and
    an Apple Watch counting the same walks, a third-party step app, a few
    hand-typed entries, and a trip across time zones over a DST change.
    Prints the daily table and why `steps` differs from `raw_steps`.

    Examples:
      stepkit
      swift run stepkit
    """

  static let arguments = ArgumentSpec()

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {}

  /// The bundled demo export.
  static var demoExportPath: String? {
    Bundle.module.url(forResource: "demo-export", withExtension: "xml")?.path
  }

  func run(_ console: Console) throws(CommandError) {
    guard let path = Self.demoExportPath else {
      throw .output("the bundled demo export (demo-export.xml) is missing from this build")
    }
    let (log, _) = try ExportLoading.load(path, quiet: true, console: console)
    let tally = log.tally(CountingOptions())
    console.output("Steps in the bundled demo export (stepkit steps, policy health):\n\n")
    console.output(TableFormatter.steps(tally))
    console.output("\n" + Self.explanation(tally.total) + "\n\n")
    console.output(
      """
      Run it on your own export (Health app › your picture › Export All Health Data):
        stepkit steps ~/Downloads/export.zip
        stepkit sources ~/Downloads/export.zip
        stepkit --help

      """)
  }

  /// Two lines: how much of the gap between `raw_steps` and `steps` is
  /// duplicates counted once, and how much is hand-typed steps left out.
  static func explanation(_ total: Tally.Bucket) -> String {
    let steps = total.roundedSteps
    let raw = total.roundedRawSteps
    let manual = total.roundedManualSteps
    let duplicates = max(0, raw - manual - steps)
    let g = TextFormatting.grouped
    return """
      Why steps (\(g(steps))) is less than raw_steps (\(g(raw))): \(g(duplicates)) steps were recorded by more than \
      one source at once (iPhone, Watch, apps) and count once here;
      \(g(manual)) steps were typed in by hand and are left out. `stepkit sources` shows each source's share.
      """
  }
}
