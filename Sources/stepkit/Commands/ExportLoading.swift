import HealthExport
import StepKitCore

/// Reads an export into a ``SampleLog`` for every command: the input, the
/// progress bar and the invalid-record note.
enum ExportLoading {
  /// The reader's input for a command-line argument: `-` is standard input.
  static func input(for argument: String) -> ExportInput {
    argument == "-" ? .standardInput : .path(argument)
  }

  /// Reads `argument`'s export.
  ///
  /// - Parameters:
  ///   - argument: A path, or `-` for standard input.
  ///   - quiet: No progress bar and no note about quirks.
  ///   - console: Where the progress bar goes.
  /// - Returns: The samples and what the export says about itself.
  /// - Throws: ``CommandError/export(_:)``.
  static func load(_ argument: String, quiet: Bool, console: Console) throws(CommandError) -> (
    SampleLog, ExportInfo
  ) {
    var log = SampleLog()
    let bar: ProgressBar? = quiet || !console.errorIsTerminal ? nil : ProgressBar(write: console.error)
    let progress: (@Sendable (ExportProgress) -> Void)? = bar.map { bar in
      { @Sendable report in bar.update(bytesRead: report.bytesRead, totalBytes: report.totalBytes) }
    }
    let info: ExportInfo
    do {
      info = try ExportReader.read(input(for: argument), into: &log, progress: progress)
      bar?.finish()
    } catch let error as HealthExportError {
      bar?.finish()
      throw .export(error)
    } catch {
      bar?.finish()
      throw .output("\(argument): \(error.localizedDescription)")
    }
    // Nothing to count is not an empty success (COUNTING.md, Inputs).
    if info.stepAndDistanceRecords > 0, info.invalidRecords == info.stepAndDistanceRecords {
      throw .export(
        .noValidRecords(file: info.fileName, count: info.invalidRecords, examples: log.invalid.examples))
    }
    if !quiet, let note = quirkNote(info) { console.error(note) }
    return (log, info)
  }

  /// The one-line note about the iOS 8 metadata attributes, or `nil` when there were none.
  ///
  /// `stepkit: 2 attributes named with spaces (an iOS 8 export bug) skipped; their records were read`
  static func quirkNote(_ info: ExportInfo) -> String? {
    guard info.malformedAttributes > 0 else { return nil }
    let noun = info.malformedAttributes == 1 ? "attribute" : "attributes"
    return "stepkit: \(info.malformedAttributes) \(noun) named with spaces (an iOS 8 export bug) skipped;"
      + " their records were read\n"
  }

  /// The one-line note about invalid records, or `nil` when there were none.
  ///
  /// `stepkit: 3 invalid records not counted: export.xml:12:3 (negative value), export.xml:40:3, export.xml:41:3`
  static func invalidNote(_ report: InvalidSampleReport) -> String? {
    guard report.count > 0 else { return nil }
    let shown = report.examples.prefix(3)
    var parts: [String] = []
    for (index, example) in shown.enumerated() {
      let place = example.location?.description ?? "unknown place"
      parts.append(index == 0 ? "\(place) (\(example.reason))" : place)
    }
    let noun = report.count == 1 ? "record" : "records"
    var line = "stepkit: \(report.count) invalid \(noun) not counted: " + parts.joined(separator: ", ")
    if report.count > shown.count { line += ", …" }
    return line + "\n"
  }
}
