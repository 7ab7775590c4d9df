import HealthExport
import StepKitCore

/// `stepkit totals EXPORT --type TYPE`: the merged daily totals of any
/// cumulative type (active energy, flights, cycling distance, …), counted as
/// steps are; `--list` names the types an export holds.
struct TotalsCommand: Subcommand {
  static let name = "totals"
  static let abstract =
    "Daily totals of any cumulative type (energy, flights, …) as the Health app merges them."
  static let discussion = """
    Usage: stepkit totals EXPORT --type TYPE [options]
           stepkit totals EXPORT --list

    Counts one cumulative type the way the Health app does, by the rules
    steps follow: overlapping Apple Watch, iPhone and app records counted
    once, from the highest-ranked source of that type, and entries typed in
    by hand left out (--policy all keeps them). Values are converted to the
    type's unit: kcal for energy, m for distances, min for times, count for
    the rest (g for nutrients, mL for water, IU for insulin), whatever unit
    the records name.
    TYPE is a HealthKit identifier (HKQuantityTypeIdentifierActiveEnergyBurned)
    or its short form (activeEnergyBurned, flightsClimbed, appleExerciseTime).
    Columns: date, value (merged), raw_value (every record added up).
    --list names the types in the export with their record counts and,
    for cumulative ones, their unit.

    Examples:
      stepkit totals export.zip --list
      stepkit totals export.zip --type activeEnergyBurned
      stepkit totals export.zip --type flightsClimbed --by week --format csv
      stepkit totals export.zip --type HKQuantityTypeIdentifierDistanceCycling --format json
    """

  static let arguments = ArgumentSpec(
    options: [.type] + CountingArguments.rangeOptions + [.by] + CountingArguments.policyOptions + [
      .format, .jobs,
    ],
    flags: [.list, .quiet],
    positionals: [CountingArguments.exportArgument])

  var settings: CountingArguments
  var format: OutputFormat
  /// The type to count; `nil` with `--list`.
  var type: CumulativeType?

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    settings = try CountingArguments(parsed)
    guard settings.exports.count == 1 else { throw UsageError("totals reads one export at a time") }
    format = try CountingArguments.format(parsed, terminal: console.outputIsTerminal)
    if parsed.has(.list) {
      guard parsed.value(.type) == nil else { throw UsageError("--list and --type cannot be used together") }
      type = nil
      return
    }
    guard let name = parsed.value(.type) else {
      throw UsageError("missing --type TYPE (such as activeEnergyBurned; --list names the export's types)")
    }
    guard let found = CumulativeType(named: name) else {
      throw UsageError(
        "invalid --type '\(name)': not a cumulative type (such as activeEnergyBurned, flightsClimbed,"
          + " distanceCycling); discrete types such as heart rate are not summed")
    }
    type = found
  }

  func run(_ console: Console) throws(CommandError) {
    guard let type else { return try list(console) }
    let (log, tally) = try ExportLoading.count(settings, countedType: type, console: console)
    if !settings.quiet, tally.buckets.isEmpty {
      console.error(
        log.count == 0
          ? "stepkit: no \(type.identifier) records in \(settings.export); --list names the export's types\n"
          : "stepkit: no records between --from and --to; leave them out to see every day of the export\n")
    }
    switch format {
    case .table: console.output(TotalsFormatter.table(tally, type: type))
    case .csv: console.output(TotalsFormatter.csv(tally, type: type))
    case .json: console.output(TotalsFormatter.json(tally, type: type, export: settings.export))
    }
  }

  private func list(_ console: Console) throws(CommandError) {
    let counts: [String: Int]
    do {
      counts = try ExportReader.recordTypeCounts(in: ExportLoading.input(for: settings.export))
    } catch let error as HealthExportError {
      throw .export(error)
    } catch {
      throw .output("\(settings.export): \(error.localizedDescription)")
    }
    console.output(TotalsFormatter.list(counts, format: format))
  }
}

extension ArgumentSpec.Option {
  /// `--type TYPE`.
  static let type = Self(
    "type", value: "TYPE",
    help: "The cumulative type: a HealthKit identifier or its short form (activeEnergyBurned).")
}

extension ArgumentSpec.Flag {
  /// `--list`.
  static let list = Self("list", help: "Name the record types in the export with their record counts.")
}
