import HealthExport
import StepKitCore

/// Reads an export into a ``SampleLog`` for every command: the input, the
/// progress bar and the invalid-record note.
enum ExportLoading {
  /// The reader's input for a command-line argument: `-` is standard input.
  ///
  /// With `standardInputCopy`, the path of a copy of standard input, `-` reads
  /// that copy, still named `<stdin>` (for a command that reads the export twice).
  static func input(for argument: String, standardInputCopy: String? = nil) -> ExportInput {
    guard argument == "-" else { return .path(argument) }
    guard let standardInputCopy else { return .standardInput }
    return .namedFile(path: standardInputCopy, name: "<stdin>")
  }

  /// Reads `argument`'s export.
  ///
  /// - Parameters:
  ///   - argument: A path, or `-` for standard input.
  ///   - threads: How many threads may scan an export.xml (`--jobs`).
  ///   - storage: How the log keeps its samples (and a tally of it, what each counted for).
  ///   - quiet: No progress bar and no note about quirks.
  ///   - console: Where the progress bar and the notes go.
  /// - Returns: The samples and what the export says about itself.
  /// - Throws: ``CommandError/export(_:)``.
  static func load(
    _ argument: String, threads: Int = ExportReader.defaultThreadCount, countedType: CumulativeType? = nil,
    standardInputCopy: String? = nil, storage: SampleStorage = .standard, quiet: Bool, console: Console
  ) throws(CommandError) -> (
    SampleLog, ExportInfo
  ) {
    let bar: ProgressBar? = quiet || !console.errorTakesEscapes ? nil : ProgressBar(write: console.error)
    defer { bar?.finish() }
    let (log, info) = try read(
      argument, threads: threads, countedType: countedType, standardInputCopy: standardInputCopy,
      storage: storage,
      progress: bar.map { bar in
        { @Sendable report in bar.update(bytesRead: report.bytesRead, totalBytes: report.totalBytes) }
      })
    if !quiet, let note = quirkNote(info) { console.error(note) }
    return (log, info)
  }

  /// What every counting command does first: reads the export of `settings`
  /// (with the progress bar), counts it, and notes its invalid records.
  ///
  /// - Parameters:
  ///   - settings: The export and the counting options.
  ///   - countedType: The one cumulative type to count (``SampleLog/countedType``),
  ///     or `nil` for steps and distance.
  ///   - storage: How the log keeps its samples and the tally what each counted for.
  ///   - console: Where the progress bar and the notes go.
  /// - Returns: The samples and their tally under `settings.counting`, `--priority` names
  ///   matched with the export's sources (``PriorityNames``).
  /// - Throws: ``CommandError/export(_:)``; ``CommandError/usage(_:)`` for a `--priority` name
  ///   that no source of the export has.
  static func count(
    _ settings: CountingArguments, countedType: CumulativeType? = nil, storage: SampleStorage = .standard,
    console: Console
  ) throws(CommandError) -> (
    log: SampleLog, tally: Tally
  ) {
    let (log, _) = try load(
      settings.export, threads: settings.jobs, countedType: countedType,
      standardInputCopy: settings.standardInputCopy, storage: storage, quiet: settings.quiet,
      console: console)
    var counting = settings.counting
    if !counting.ranking.explicitOrder.isEmpty {
      // `--priority` names as the export writes them; a name it lacks is an error, not ignored.
      do {
        counting.ranking.explicitOrder = try PriorityNames.resolve(
          counting.ranking.explicitOrder, sources: log.sourceNames, export: settings.export)
      } catch {
        throw .usage(error)
      }
    }
    try checkRange(log, counting)
    let tally = log.tally(counting, threads: settings.jobs)
    try checkStorage(log, tally.countedValues, quiet: settings.quiet, console: console)
    try checkSums(tally)
    if !settings.quiet, let note = invalidNote(tally.invalid) { console.error(note) }
    return (log, tally)
  }

  /// The most rows (buckets) one export's tally may have: 34 years of hours,
  /// so that the rows, which are held to be printed, stay within memory.
  static let mostRows: Int64 = 300_000

  /// Fails, before counting, when the tally under `options` would have more
  /// than ``mostRows`` rows: a range that wide comes from `--from`/`--to`, or
  /// from a sample far from the others (samples before 2000 and after the
  /// export date are invalid already, but an export may have no date).
  ///
  /// - Throws: ``CommandError/output(_:)`` naming the range and what to do.
  static func checkRange(_ log: SampleLog, _ options: CountingOptions) throws(CommandError) {
    let rows = log.bucketCountBound(options)
    guard rows > mostRows else { return }
    let unit: String
    switch options.unit {
    case .hour: unit = "hours"
    case .day: unit = "days"
    case .week: unit = "weeks"
    case .month: unit = "months"
    }
    var span = "--from and --to span"
    if options.from == nil || options.to == nil, let (start, end) = log.timeSpan {
      func day(_ ms: Int64) -> LocalDate {
        LocalDate(daysSinceEpoch: Int(clamping: ms / 86_400_000 - (ms % 86_400_000 < 0 ? 1 : 0)))
      }
      span = "the samples run from \(day(start)) to \(day(end)) (UTC):"
    }
    throw .output(
      "\(span) \(TextFormatting.grouped(rows)) \(unit), more than the \(TextFormatting.grouped(mostRows))"
        + " rows stepkit prints at once; choose a part with --from and --to, or a longer --by")
  }

  /// Fails when a sum is too large to print as an exact integer (2^53 or
  /// more): the export holds values no walk makes, which the reader did not
  /// turn away one by one (each is within its own limit).
  ///
  /// - Throws: ``CommandError/output(_:)``.
  static func checkSums(_ tally: Tally) throws(CommandError) {
    var steps = 0.0
    var metres = 0.0
    for source in tally.sources {
      steps += source.rawSteps
      metres += source.rawDistanceMeters
    }
    guard exceedsExactOutput(steps) || exceedsExactOutput(metres) else { return }
    throw .output(
      "the samples add up to more than 9,007,199,254,740,992 steps or metres, beyond what prints exactly;"
        + " the export's values are not a person's")
  }

  /// Fails when samples kept in the temporary file could not be read back
  /// (the counts would be wrong); notes, unless `quiet`, when they could not
  /// be written there and stayed in memory.
  ///
  /// - Parameters:
  ///   - log: The log read or counted.
  ///   - counted: The tally's counted values, when they were recorded.
  ///   - quiet: No note.
  ///   - console: Where the note goes; `nil` for none.
  /// - Throws: ``CommandError/output(_:)``.
  static func checkStorage(
    _ log: SampleLog, _ counted: CountedValues? = nil, quiet: Bool, console: Console?
  ) throws(CommandError) {
    let language = console?.language ?? .english
    for failure in [log.storageFailure, counted?.storageFailure].compactMap({ $0 }) {
      if failure.losesSamples { throw .output(failure.message(in: language)) }
      if !quiet { console?.error("stepkit: \(failure.message(in: language))\n") }
    }
  }

  /// Reads `argument`'s export on up to `threads` threads, reporting progress to `progress`.
  ///
  /// - Throws: ``CommandError/export(_:)``, also when the export has step or
  ///   distance records and every one of them is invalid.
  static func read(
    _ argument: String, threads: Int, countedType: CumulativeType? = nil, standardInputCopy: String? = nil,
    storage: SampleStorage = .standard, progress: (@Sendable (ExportProgress) -> Void)?
  ) throws(CommandError)
    -> (
      SampleLog, ExportInfo
    )
  {
    var log = SampleLog(storage: storage)
    log.countedType = countedType
    let info: ExportInfo
    do {
      info = try ExportReader.read(
        input(for: argument, standardInputCopy: standardInputCopy), into: &log, threads: threads,
        progress: progress)
    } catch let error as HealthExportError {
      throw .export(error)
    } catch {
      throw .output("\(argument): \(error.localizedDescription)")
    }
    // Nothing to count is not an empty success (COUNTING.md, Inputs).
    if info.stepAndDistanceRecords > 0, info.invalidRecords == info.stepAndDistanceRecords {
      throw .export(
        .noValidRecords(file: info.fileName, count: info.invalidRecords, examples: log.invalid.examples))
    }
    return (log, info)
  }

  /// The notes about what was read in a way one might not expect: which of
  /// several Health exports in one archive, and the iOS 8 metadata
  /// attributes skipped; `nil` when there is nothing to say.
  ///
  /// `stepkit: 2 attributes named with spaces (an iOS 8 export bug) skipped; their records were read`
  static func quirkNote(_ info: ExportInfo) -> String? {
    var note = ""
    if let read = info.xmlEntryName, !info.otherXMLEntryNames.isEmpty {
      let others = info.otherXMLEntryNames.map(TextFormatting.terminalSafe).joined(separator: ", ")
      note +=
        "stepkit: the archive holds more than one Health export; read \(TextFormatting.terminalSafe(read)),"
        + " not \(others)\n"
    }
    if info.malformedAttributes > 0 {
      let noun = info.malformedAttributes == 1 ? "attribute" : "attributes"
      note +=
        "stepkit: \(info.malformedAttributes) \(noun) named with spaces (an iOS 8 export bug) skipped;"
        + " their records were read\n"
    }
    return note.isEmpty ? nil : note
  }

  /// The one-line note about invalid records, or `nil` when there were none.
  ///
  /// `stepkit: 3 invalid records not counted: export.xml:12:3 (negative value), export.xml:40:3, export.xml:41:3`
  static func invalidNote(_ report: InvalidSampleReport, what: String = "not counted") -> String? {
    guard report.count > 0 else { return nil }
    let shown = report.examples.prefix(3)
    var parts: [String] = []
    for (index, example) in shown.enumerated() {
      let place = example.location?.description ?? "unknown place"
      parts.append(TextFormatting.terminalSafe(index == 0 ? "\(place) (\(example.reason))" : place))
    }
    let noun = report.count == 1 ? "record" : "records"
    var line = "stepkit: \(report.count) invalid \(noun) \(what): " + parts.joined(separator: ", ")
    if report.count > shown.count { line += ", …" }
    return line + "\n"
  }
}
