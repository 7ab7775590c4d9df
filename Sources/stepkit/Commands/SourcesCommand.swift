import StepKitCore

/// `stepkit sources EXPORT`: every source with its class, rank, devices,
/// sample counts and what it added after the merge: why the numbers are what they are.
struct SourcesCommand: RowsCommand {
  static let name = "sources"
  static let rows = Cohort.Rows.sources
  static let fixedUnit: BucketUnit? = .day
  static let abstract = "Each source's rank, devices, samples and the steps it contributed."
  static let discussion = """
    Usage: stepkit sources EXPORT [options]

    Lists every source in the export, highest priority first: its class
    (typed-in, Apple Watch, iPhone, other), its rank in the merge, the device
    models seen, how many step and distance samples it has, its raw steps,
    the steps it contributed after the merge, its hand-typed steps, and its
    first and last dates. Where two sources overlap, the lower rank number wins.

    Examples:
      stepkit sources export.zip
      stepkit sources export.zip --policy all
      stepkit sources export.zip --priority "Pedometer++" --format csv
      stepkit sources cohort/ --format csv > sources.csv

    Several exports, or a folder of them, are read in parallel as with
    `stepkit steps`; each row then starts with the export's id.
    """

  var settings: CountingArguments
  var format: OutputFormat

  func runSingle(_ console: Console) throws(CommandError) {
    let tally = try ExportLoading.count(settings, console: console).tally
    switch format {
    case .table: console.output(TableFormatter.sources(tally))
    case .csv: console.output(CSVFormatter.sources(tally))
    case .json: console.output(JSONFormatter.sources(tally, export: settings.export))
    }
  }
}
