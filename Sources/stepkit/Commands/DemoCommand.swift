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

  /// The bundled demo export: `demo-export.xml` in the resource bundle built
  /// next to the executable (`StepKit_stepkit.resources` on Linux,
  /// `StepKit_stepkit.bundle` on Apple platforms), or `nil` when the
  /// executable was copied away from it. (`Bundle.module` would stop the
  /// process in that case; this says so instead.)
  static var demoExportPath: String? {
    var directories: [URL] = []
    if let resources = Bundle.main.resourceURL { directories.append(resources) }
    directories.append(Bundle.main.bundleURL)
    if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
      directories.append(executable.deletingLastPathComponent())
    }
    for directory in directories {
      for name in ["StepKit_stepkit.resources", "StepKit_stepkit.bundle"] {
        let bundleURL = directory.appendingPathComponent(name)
        for candidate in [
          bundleURL.appendingPathComponent("demo-export.xml"),
          bundleURL.appendingPathComponent("Contents/Resources/demo-export.xml"),
        ] where FileManager.default.isReadableFile(atPath: candidate.path) {
          return candidate.path
        }
      }
    }
    return nil
  }

  func run(_ console: Console) throws(CommandError) {
    guard let path = Self.demoExportPath else {
      throw .output(
        "the bundled demo export is missing: keep StepKit_stepkit.resources next to the stepkit "
          + "executable, or run `stepkit steps EXPORT` on your own export")
    }
    let (log, _) = try ExportLoading.load(path, quiet: true, console: console)
    let tally = log.tally(CountingOptions())
    console.output("Steps in the bundled demo export (stepkit steps, policy health):\n\n")
    console.output(TableFormatter.steps(tally, rule: nil))
    console.output("\n" + Self.explanation(tally.roundedTotal) + "\n\n")
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
  static func explanation(_ total: RoundedTotals) -> String {
    let steps = total.steps
    let raw = total.rawSteps
    let manual = total.manualSteps
    let duplicates = max(0, raw - manual - steps)
    let g = TextFormatting.grouped
    return """
      Why steps (\(g(steps))) is less than raw_steps (\(g(raw))): \(g(duplicates)) steps were recorded by more than \
      one source at once (iPhone, Watch, apps) and count once here;
      \(g(manual)) steps were typed in by hand and are left out. `stepkit sources` shows each source's share.
      """
  }
}
