import StepKitCore

/// `stepkit summary EXPORT...`: each export's data yield, one row per export,
/// for studies: days with data, valid days, mean and median steps over valid
/// days, the share of steps from each source class, typed-in steps left out.
struct SummaryCommand: Subcommand {
  static let name = "summary"
  static let abstract = "Per export: days with data, valid days, mean and median steps, source shares."
  static let discussion = """
    Usage: stepkit summary EXPORT... [options]

    One row per export, from its daily rows (as `stepkit steps` prints them,
    under the same --policy, --time-zone and --day-start):
      first_day, last_day  the first and last day with data (a day with at
                           least one hour holding counted steps)
      days                 days in the range; days_with_data: days with data
      valid_days           days that meet --valid-day (default hours:10: at
                           least 10 local clock hours with counted steps)
      mean_valid_steps     sum of the valid days' steps / valid_days
      median_valid_steps   middle of the valid days' steps (mean of the two
                           middle ones for an even count); both empty without
                           valid days
      steps                counted steps over all days
      share_apple_watch, share_iphone, share_other, share_typed_in
                           each source class's counted steps / all counted steps
      typed_in_steps_left_out  typed-in steps the policy did not count (0 with --policy all)
      valid_day, day_start     the rules used; error: why an export could not be read

    Examples:
      stepkit summary cohort/ --format csv > summary.csv
      stepkit summary cohort/ --valid-day hours:10,steps:500 --day-start 04:00 --format json
      stepkit summary export.zip
    """

  static let arguments = ArgumentSpec(
    options: CountingArguments.rangeOptions + CountingArguments.policyOptions + CountingArguments.dayOptions
      + [.format] + CountingArguments.cohortOptions,
    flags: [.quiet],
    positionals: [CountingArguments.exportsArgument])

  var settings: CountingArguments
  var format: OutputFormat

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    settings = try CountingArguments(parsed, unit: .day)
    format = try CountingArguments.format(parsed, terminal: console.outputIsTerminal)
  }

  func run(_ console: Console) throws(CommandError) {
    let (members, _, notes) = try Cohort.members(settings.exports, idRule: settings.idRule)
    if !settings.quiet { notes.forEach(console.error) }
    let rule = settings.validDay
    var tableRows: [[(String, JSONValue)]] = []
    switch format {
    case .csv: console.output(SummaryFormatter.header + "\n")
    case .json:
      console.output(
        "{\n  \"options\": "
          + JSONFormatter.options(settings.counting, export: nil, rule: rule, idRule: settings.idRule)
          .rendered(
            indent: 2) + ",\n  \"exports\": [\n")
    case .table: break
    }
    var isFirst = true
    let allRead = try Cohort.run(members, settings: settings, keepsSamples: false, console: console) {
      member, outcome in
      let fields: [(String, JSONValue)]
      switch outcome {
      case .counted(let tally, _, _, _, _):
        fields = SummaryFormatter.fields(
          member, DaySummary(tally, rule: rule), options: settings.counting, rule: rule, error: nil)
      case .failed(let message):
        fields = SummaryFormatter.fields(member, nil, options: settings.counting, rule: rule, error: message)
      case .unchanged:
        return  // Only `sqlite` asks for fingerprints.
      }
      switch format {
      case .csv: console.output(SummaryFormatter.csvLine(fields))
      case .json:
        console.output((isFirst ? "" : ",\n") + "    " + JSONValue.object(fields).rendered(indent: 4))
      case .table: tableRows.append(fields)
      }
      isFirst = false
    }
    switch format {
    case .json: console.output(JSONFormatter.cohortEnd)
    case .table: console.output(SummaryFormatter.table(tableRows, rule: rule))
    case .csv: break
    }
    if !allRead { throw .checkFailed }
  }
}
