import StepKitCore

/// The `--format json` outputs: one object per run.
enum JSONFormatter {
  /// `stepkit steps --format json`: the options used, `days` (the CSV fields
  /// per bucket), `totals`, for days the `summary` (as `stepkit summary`),
  /// `sources` and `invalid`.
  static func steps(_ tally: Tally, export: String, rule: ValidDayRule = .default) -> String {
    var whole = ""
    writeSteps(tally, export: export, rule: rule) { whole += $0 }
    return whole
  }

  /// ``steps(_:export:rule:)`` handed to `emit` a piece at a time: the days
  /// (one flat object each, all on one line, as ``JSONValue/rendered(indent:)``
  /// writes an array of flat objects) are rendered one by one, about 64 KiB
  /// at a time, so that 34 years of hours are never one tree or one text.
  static func writeSteps(
    _ tally: Tally, export: String, rule: ValidDayRule = .default, to emit: (String) -> Void
  ) {
    let breakdown = tally.options.includesSourceBreakdown
    emit("{\n  \"options\": " + options(tally.options, export: export, rule: rule).rendered(indent: 2))
    var text = ",\n  \"days\": ["
    for (index, day) in tally.buckets.enumerated() {
      if index > 0 { text += ", " }
      text += bucket(
        bucket: day, unit: tally.options.unit, rule: rule,
        sources: breakdown ? tally.stepContributors(of: day) : nil
      ).rendered()
      if text.utf8.count >= CSVFormatter.pieceBytes {
        emit(text)
        text = ""
      }
    }
    emit(text + "]")
    let rest: [(String, JSONValue)] = [
      ("totals", totals(tally)),
      ("summary", summary(tally, rule: rule)),
      ("sources", .array(tally.sources.map(source))),
      ("invalid", invalid(tally.invalid)),
    ]
    emit(rest.map { ",\n  " + JSONValue.quoted($0.0) + ": " + $0.1.rendered(indent: 2) }.joined() + "\n}\n")
  }

  /// `stepkit sources --format json`: the options used, `sources` and `invalid`.
  static func sources(_ tally: Tally, export: String) -> String {
    let object = JSONValue.object([
      ("options", options(tally.options, export: export)),
      ("sources", .array(tally.sources.map(source))),
      ("invalid", invalid(tally.invalid)),
    ])
    return object.rendered() + "\n"
  }

  /// `stepkit steps --format json` with several exports, up to the first export:
  /// the options used and the opening of the `exports` array.
  static func cohortStart(_ options: CountingOptions, idRule: ExportIDRule, rule: ValidDayRule) -> String {
    var members = optionMembers(options, rule: rule)
    members.append(("id_from", .string(idRule.rawValue)))
    return "{\n  \"options\": " + JSONValue.object(members).rendered(indent: 2) + ",\n  \"exports\": [\n"
  }

  /// The end of a cohort's JSON, after the last export.
  static let cohortEnd = "\n  ]\n}\n"

  /// One export of a cohort, as an element of `exports`: its id, file and
  /// error, and, for `steps` (`days` set), its days and totals, then its
  /// sources and invalid records; every day and source carries the export id.
  static func cohortExport(
    _ member: CohortMember, _ outcome: CohortOutcome, days: Bool, rule: ValidDayRule = .default
  ) -> String {
    var members: [(String, JSONValue)] = [("export", .string(member.id)), ("file", .string(member.path))]
    switch outcome {
    case .counted(let tally, _, _, _, _):
      members.append(("error", .null))
      if days {
        members.append(
          (
            "days",
            .array(
              tally.buckets.map {
                bucket(
                  bucket: $0, unit: tally.options.unit, rule: rule, export: member.id,
                  sources: tally.stepContributors(of: $0))
              })
          ))
        members.append(("totals", totals(tally)))
        members.append(("summary", summary(tally, rule: rule)))
      }
      members.append(("sources", .array(tally.sources.map { source($0, export: member.id) })))
      members.append(("invalid", invalid(tally.invalid)))
    case .failed(let message):
      members.append(("error", .string(message)))
      if days { members += [("days", .array([])), ("totals", .null)] }
      members += [("sources", .array([])), ("invalid", .null)]
    case .unchanged:
      // Only `sqlite` asks for fingerprints; nothing was read.
      members.append(("error", .null))
      if days { members += [("days", .array([])), ("totals", .null)] }
      members += [("sources", .array([])), ("invalid", .null)]
    }
    return "    " + JSONValue.object(members).rendered(indent: 4)
  }

  /// The export's ``DaySummary`` as `stepkit summary` writes it, or `null` for buckets other than days.
  static func summary(_ tally: Tally, rule: ValidDayRule) -> JSONValue {
    guard tally.options.unit == .day else { return .null }
    return .object(
      SummaryFormatter.members(DaySummary(tally, rule: rule), options: tally.options, rule: rule))
  }

  /// `totals`: the sums of the rounded `days` (COUNTING.md, "Rounding").
  static func totals(_ tally: Tally) -> JSONValue {
    let total = tally.roundedTotal
    return .object([
      ("steps", .integer(total.steps)),
      ("distance_m", .integer(total.distanceMeters)),
      ("raw_steps", .integer(total.rawSteps)),
      ("manual_steps", .integer(total.manualSteps)),
      ("hours_with_data", .integer(Int64(tally.buckets.reduce(0) { $0 + $1.hoursWithData }))),
    ])
  }

  /// One bucket: the CSV fields, `valid` (`null` for buckets other than days)
  /// and, in a cohort, the sources that added counted steps.
  static func bucket(
    bucket: Tally.Bucket, unit: BucketUnit, rule: ValidDayRule = .default, export: String? = nil,
    sources: [Tally.SourceRow]? = nil
  ) -> JSONValue {
    .object(
      (export.map { [("export", JSONValue.string($0))] } ?? []) + [
        ("date", .string(bucket.label(unit: unit))),
        // A bucket without any sample is null, unlike a day of 0 counted steps.
        ("steps", bucket.hasSamples ? .integer(bucket.roundedSteps) : .null),
        ("distance_m", bucket.hasSamples ? .integer(bucket.roundedDistanceMeters) : .null),
        ("raw_steps", bucket.hasSamples ? .integer(bucket.roundedRawSteps) : .null),
        ("manual_steps", bucket.hasSamples ? .integer(bucket.roundedManualSteps) : .null),
        ("hours_with_data", .integer(Int64(bucket.hoursWithData))),
        ("valid", unit == .day ? .bool(rule.isValid(bucket)) : .null),
      ] + (sources.map { [("sources", JSONValue.array($0.map { .string($0.name) }))] } ?? []))
  }

  static func options(
    _ options: CountingOptions, export: String?, rule: ValidDayRule = .default, idRule: ExportIDRule? = nil
  ) -> JSONValue {
    .object(
      (export.map { [("export", JSONValue.string($0))] } ?? []) + optionMembers(options, rule: rule)
        + (idRule.map { [("id_from", JSONValue.string($0.rawValue))] } ?? []))
  }

  private static func optionMembers(_ options: CountingOptions, rule: ValidDayRule) -> [(String, JSONValue)] {
    [
      ("from", .string(options.from?.description)),
      ("to", .string(options.to?.description)),
      ("by", .string(options.unit.rawValue)),
      ("policy", .string(options.policy.rawValue)),
      ("time_zone", .string(options.timeZone.description)),
      ("day_start", .string(options.dayStart.description)),
      ("valid_day", .string(rule.description)),
      ("priority", .array(options.ranking.explicitOrder.map { .string($0) })),
    ]
  }

  static func source(_ row: Tally.SourceRow) -> JSONValue { source(row, export: nil) }

  static func source(_ row: Tally.SourceRow, export: String?) -> JSONValue {
    .object(
      (export.map { [("export", JSONValue.string($0))] } ?? []) + [
        ("rank", .integer(Int64(row.rank))),
        ("name", .string(row.name)),
        ("class", .string(row.classLabel)),
        ("counted", .bool(row.isCounted)),
        ("device_models", .array(row.deviceModels.map { .string($0) })),
        ("step_samples", .integer(Int64(row.stepSamples))),
        ("distance_samples", .integer(Int64(row.distanceSamples))),
        ("raw_steps", .integer(roundedForOutput(row.rawSteps))),
        ("counted_steps", .integer(roundedForOutput(row.countedSteps))),
        ("manual_steps", .integer(roundedForOutput(row.manualSteps))),
        ("raw_distance_m", .integer(roundedForOutput(row.rawDistanceMeters))),
        ("counted_distance_m", .integer(roundedForOutput(row.countedDistanceMeters))),
        ("first_start", .string(row.firstStart.map(TextFormatting.isoUTC))),
        ("last_end", .string(row.lastEnd.map(TextFormatting.isoUTC))),
      ])
  }

  static func invalid(_ report: InvalidSampleReport) -> JSONValue {
    .object([
      ("count", .integer(Int64(report.count))),
      (
        "examples",
        .array(
          report.examples.map { example in
            .object([
              ("file", .string(example.location?.file)),
              ("line", .integer(example.location?.line)),
              ("column", .integer(example.location?.column)),
              ("reason", .string(example.reason.description)),
            ])
          })
      ),
    ])
  }
}
