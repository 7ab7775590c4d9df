import StepKitCore

/// `stepkit steps EXPORT`: the step counts the Health app would show, per day
/// (or hour, week, month), with hand-typed steps out and iPhone + Watch counted once.
struct StepsCommand: RowsCommand {
  static let name = "steps"
  static let rows = Cohort.Rows.steps
  static let fixedUnit: BucketUnit? = nil
  static let abstract = "Step counts per day (hour, week, month) as the Health app shows them."
  static let discussion = """
    Usage: stepkit steps EXPORT [options]

    Counts the steps in an Apple Health export the way the Health app does:
    overlapping iPhone, Apple Watch and app samples are counted once, from the
    highest-ranked source, and steps typed in by hand are left out.
    Columns: steps (counted), distance (walking + running), raw steps (every
    sample added up, as a naive sum would), hand-typed steps, hours with
    data (local clock hours holding counted steps, a wear-time proxy) and
    whether the day is valid by --valid-day. With several exports, the
    sources that added counted steps to the day close each row.

    Examples:
      stepkit steps export.zip
      stepkit steps export.zip --from 2026-11-01 --to 2026-11-30 --format csv > november.csv
      stepkit steps export.xml --by week --time-zone Asia/Shanghai
      stepkit steps export.zip --policy device --format json
      stepkit steps export.zip --day-start 04:00 --valid-day hours:10,steps:500
      stepkit steps export.zip --priority "Ada's Apple Watch,Pedometer++"
      unzip -p export.zip apple_health_export/export.xml | stepkit steps - --format csv
      stepkit steps cohort/ --format csv > cohort.csv
      stepkit steps participants/ --id-from parent --jobs 4 --format csv > cohort.csv

    Several exports, or a folder of them (searched for exports by content:
    .xml files holding <HealthData>, .zip files holding one; other files are
    listed as skipped), are read in parallel, --jobs at a time. Each row
    then starts with an export column, the export's id, and rows follow the
    order of the arguments (a folder's exports sorted by path), however the
    reading is scheduled. An export that cannot be read is reported on
    standard error, listed at the end, and makes the exit code 1; the others
    are printed.
    """

  var settings: CountingArguments
  var format: OutputFormat

  func runSingle(_ console: Console) throws(CommandError) {
    var settings = settings
    // json days name the sources that added to them, as a cohort's rows do.
    settings.counting.includesSourceBreakdown = format == .json
    let (log, tally) = try ExportLoading.count(settings, console: console)
    if !settings.quiet,
      let note = Self.emptyNote(
        tally, sampleCount: log.count, timeSpan: log.timeSpan, export: settings.export)
    {
      console.error(note)
    }
    // Row after row, a piece at a time: 34 years of hours are never one text.
    switch format {
    case .csv: CSVFormatter.write(tally, rule: settings.validDay, to: console.output)
    case .json:
      JSONFormatter.writeSteps(tally, export: settings.export, rule: settings.validDay, to: console.output)
    case .table: TableFormatter.writeSteps(tally, rule: settings.givenValidDay, to: console.output)
    }
  }

  /// Why no data was printed, when none was: no samples at all, or a
  /// `--from`/`--to` range without data (before or after the export's samples).
  ///
  /// - Parameters:
  ///   - tally: The rows printed.
  ///   - sampleCount: The export's valid step and distance samples.
  ///   - timeSpan: Their earliest start and latest end (``SampleLog/timeSpan``).
  ///   - export: The export, for the message.
  static func emptyNote(
    _ tally: Tally, sampleCount: Int, timeSpan: (EpochMilliseconds, EpochMilliseconds)? = nil, export: String
  ) -> String? {
    guard !tally.buckets.contains(where: \.hasSamples) else { return nil }
    guard sampleCount > 0 else { return "stepkit: no step or distance samples in \(export)\n" }
    let range: String
    switch (tally.options.from, tally.options.to) {
    case (let from?, let to?): range = "from \(from) to \(to)"
    case (let from?, nil): range = "from \(from) on"
    case (nil, let to?): range = "up to \(to)"
    case (nil, nil): range = "in the range"
    }
    var note = "stepkit: no data \(range)"
    if let (first, last) = timeSpan {
      note +=
        "; the export's samples run from \(TextFormatting.localDateTime(first, offsetSeconds: 0).prefix(10)) to "
        + "\(TextFormatting.localDateTime(last, offsetSeconds: 0).prefix(10)) (UTC)"
    }
    return note + "; leave out --from and --to to see every day of the export\n"
  }
}
