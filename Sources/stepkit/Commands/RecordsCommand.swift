import HealthExport
import StepKitCore

/// `stepkit records EXPORT --type TYPE`: every record of one type, as the
/// `records` table of `stepkit sqlite` holds it, streamed as CSV or JSON.
struct RecordsCommand: Subcommand {
  static let name = "records"
  static let abstract = "Every record of one type (heart rate, sleep, …) as CSV or JSON, for pandas and R."
  static let discussion = """
    Usage: stepkit records EXPORT --type TYPE [options]

    Prints every record of one type as the export holds it, one row each,
    with the columns of the records table of `stepkit sqlite`: type, unit,
    value (a number), value_text (a category's value, such as a sleep stage),
    start and end in UTC, utc_offset (the recorded offset, seconds),
    local_date, source, source_version, the device's name, manufacturer,
    model, hardware and software, creation_date, and metadata as one JSON
    object. Nothing is merged or left out: records that overlap, from several
    sources or typed in by hand, are all printed (`stepkit totals` merges).
    TYPE is a HealthKit identifier (HKQuantityTypeIdentifierHeartRate,
    HKCategoryTypeIdentifierSleepAnalysis) or its short form (heartRate,
    sleepAnalysis, stepCount). Records of other types are passed over unread;
    the rows are written as they are read, in bounded memory, the export
    read on a second core meanwhile (--jobs 1: one core).
    --from and --to keep the records whose local_date lies between them.

    Examples:
      stepkit records export.zip --type heartRate > heart_rate.csv
      stepkit records export.zip --type sleepAnalysis --format json -o sleep.json
      stepkit records export.zip --type stepCount --from 2026-01-01 --to 2026-01-31
      stepkit records export.zip --type heartRate --time-zone Europe/Berlin --day-start 04:00
    """

  static let arguments = ArgumentSpec(
    options: [options.type, options.format] + CountingArguments.rangeOptions + [
      .timeZone, .dayStart, options.output, .jobs,
    ],
    flags: [.quiet],
    positionals: [CountingArguments.exportArgument])

  var settings: CountingArguments
  var format: RecordsOutput.Format
  /// `--type` as given.
  var typeName: String
  /// The identifiers `--type` may stand for.
  var filter: RecordTypeFilter
  /// `-o FILE`, or `nil` for standard output.
  var outputPath: String?

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    guard let name = parsed.value(Self.options.type) else {
      throw UsageError(
        "missing --type TYPE (such as heartRate; `stepkit totals EXPORT --list` names the export's types)")
    }
    typeName = name
    filter = RecordTypeFilter(try Self.identifiers(named: name))
    let formatName = parsed.value(Self.options.format) ?? RecordsOutput.Format.csv.rawValue
    guard let chosen = RecordsOutput.Format(rawValue: formatName) else {
      throw UsageError("invalid --format '\(formatName)': expected csv or json")
    }
    format = chosen
    outputPath = parsed.value(Self.options.output)
    settings = try CountingArguments(parsed)
    guard settings.exports.count == 1 else { throw UsageError("records reads one export at a time") }
  }

  /// The prefixes of HealthKit's record type identifiers, which a short form leaves out.
  static let identifierPrefixes = [
    "HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier", "HKDataType", "HKCorrelationTypeIdentifier",
  ]

  /// The identifiers `name` may stand for: a cumulative type's, as `stepkit
  /// totals --type` finds it (``CumulativeType/init(named:)``: `steps`,
  /// `activeEnergyBurned`, without case); an identifier as given (`HK…`);
  /// or, for another short form (`heartRate`), the identifier of each kind
  /// of type with that name.
  ///
  /// - Throws: ``UsageError`` for a name that cannot be a type's.
  static func identifiers(named name: String) throws(UsageError) -> [String] {
    if let type = CumulativeType(named: name) { return [type.identifier] }
    guard !name.isEmpty, name.utf8.count <= RecordTypeFilter.longestIdentifierBytes,
      name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" })
    else {
      throw UsageError(
        "invalid --type '\(TextFormatting.terminalSafe(name))': expected a HealthKit identifier"
          + " (HKQuantityTypeIdentifierHeartRate) or its short form (heartRate)")
    }
    if name.hasPrefix("HK") { return [name] }
    let capitalized = name.prefix(1).uppercased() + name.dropFirst()
    return identifierPrefixes.map { $0 + capitalized }
  }

  func run(_ console: Console) throws(CommandError) {
    let file: FileReplacement?
    if let outputPath {
      file = try CommandError.writing { () throws(OutputFileError) in
        try FileReplacement(replacing: outputPath)
      }
    } else {
      file = nil
    }
    var output = RecordsOutput(
      format: format,
      days: LocalDayFinder(rule: settings.counting.timeZone, dayStart: settings.counting.dayStart),
      from: settings.counting.from, to: settings.counting.to
    ) { bytes in
      if let file {
        try file.append(UnsafeRawBufferPointer(bytes))
      } else {
        console.output(bytes: UnsafeRawBufferPointer(bytes))
        if console.outputFailure() != nil { throw OutputStopped() }
      }
    }
    let bar: ProgressBar? =
      settings.quiet || !console.errorTakesEscapes ? nil : ProgressBar(write: console.error)
    let input = ExportLoading.input(for: settings.export)
    let report: WholeExportReport
    do {
      defer { bar?.finish() }
      report = try ExportReader.forEachRecord(
        in: input, ofTypes: filter, threads: settings.jobs,
        progress: bar.map { bar in
          { @Sendable report in bar.update(bytesRead: report.bytesRead, totalBytes: report.totalBytes) }
        }
      ) { try output.write($0) }
    } catch let error as HealthExportError {
      throw .export(error)
    } catch let error as OutputFileError {
      throw .output(error.description)
    } catch is OutputStopped {
      throw .outputStopped
    } catch {
      throw .output("\(settings.export): \(error.localizedDescription)")
    }
    if report.records == 0, report.invalid.count == 0 {
      file?.discard()
      throw .usage(UsageError(unknownTypeMessage(input)))
    }
    do {
      try output.finish()
      try file?.commit()
    } catch let error as OutputFileError {
      throw .output(error.description)
    } catch {
      throw .outputStopped
    }
    guard !settings.quiet else { return }
    if let note = ExportLoading.quirkNote(report.info) { console.error(note) }
    if let note = ExportLoading.invalidNote(report.invalid, what: "not written") { console.error(note) }
    WholeExportWrite.notes(
      invalidUTF8: output.recordsWithInvalidUTF8, repeatedKeys: output.recordsWithRepeatedKeys,
      writtenTo: "the output"
    ).forEach(console.error)
    if output.rows == 0, output.outsideRange > 0 {
      console.error(
        "stepkit: none of the \(TextFormatting.grouped(Int64(output.outsideRange))) records of \(typeName)"
          + " lies between --from and --to; leave them out to see every record\n")
    }
    if let outputPath {
      console.error("stepkit: wrote \(outputPath) (\(TextFormatting.grouped(Int64(output.rows))) records)\n")
    }
  }

  /// `no records of type 'hartRate' in export.zip; did you mean 'heartRate'? Its types: …`, the
  /// nearest types first, when the export can be read again to find them.
  private func unknownTypeMessage(_ input: ExportInput) -> String {
    let head = "no records of type '\(TextFormatting.terminalSafe(typeName))' in \(settings.export)"
    guard settings.export != "-", let types = try? Self.typesPresent(in: input), !types.isEmpty else {
      return head + "; `stepkit totals EXPORT --list` names the types an export holds"
    }
    let key = Array(typeName.lowercased().unicodeScalars)
    func distance(_ identifier: String) -> Int {
      min(
        PriorityNames.distance(key, Array(identifier.lowercased().unicodeScalars)),
        PriorityNames.distance(key, Array(TotalsFormatter.shortForm(identifier).lowercased().unicodeScalars)))
    }
    let nearest = types.map { ($0, distance($0)) }.sorted { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
      .prefix(5).map { TotalsFormatter.shortForm($0.0) }
    return head + "; did you mean '\(nearest[0])'? Its nearest types: " + nearest.joined(separator: ", ")
      + " (`stepkit totals EXPORT --list` names them all)"
  }
}

extension RecordsCommand {
  /// The types of the records of `input` that can be read (invalid records of
  /// a type do not stop the reading, as they stop `stepkit totals --list`).
  static func typesPresent(in input: ExportInput) throws -> [String] {
    var types: [[UInt8]] = []
    try ExportReader.forEachElement(in: input) { element in
      guard case .record(let record) = element, let type = record.bytes(.type),
        types.last?.elementsEqual(type) != true, !types.contains(where: { $0.elementsEqual(type) })
      else { return }
      types.append(Array(type))
    }
    return types.map { String(decoding: $0, as: UTF8.self) }
  }
}

/// Standard output took no more data: the reading stops.
private struct OutputStopped: Error {}

extension RecordsCommand {
  /// `--type TYPE`, `--format csv|json` and `-o FILE`, which mean here what they do not mean for
  /// `totals` and `chart`.
  static let options =
    (
      type: ArgumentSpec.Option(
        "type", value: "TYPE",
        help:
          "The record type: a HealthKit identifier or its short form (heartRate, sleepAnalysis, stepCount)."),
      format: ArgumentSpec.Option(
        "format", value: "csv|json",
        help: "csv (default): a header and a line per record; json: one array of objects, one per line."),
      output: ArgumentSpec.Option(
        "output", short: "o", value: "FILE",
        help: "Write to FILE, replacing it only once complete (default: standard output).")
    )
}
