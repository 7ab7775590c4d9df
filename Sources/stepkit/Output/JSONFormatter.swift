import StepKitCore

/// The `--format json` outputs: one object per run.
enum JSONFormatter {
  /// `stepkit steps --format json`: the options used, `days` (the CSV fields
  /// per bucket), `totals`, `sources` and `invalid`.
  static func steps(_ tally: Tally, export: String) -> String {
    let days = tally.buckets.map { bucket(bucket: $0, unit: tally.options.unit) }
    let total = tally.total
    let object = JSONValue.object([
      ("options", options(tally.options, export: export)),
      ("days", .array(days)),
      (
        "totals",
        .object([
          ("steps", .integer(total.roundedSteps)),
          ("distance_m", .integer(total.roundedDistanceMeters)),
          ("raw_steps", .integer(total.roundedRawSteps)),
          ("manual_steps", .integer(total.roundedManualSteps)),
        ])
      ),
      ("sources", .array(tally.sources.map(source))),
      ("invalid", invalid(tally.invalid)),
    ])
    return object.rendered() + "\n"
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

  static func bucket(bucket: Tally.Bucket, unit: BucketUnit) -> JSONValue {
    .object([
      ("date", .string(bucket.label(unit: unit))),
      ("steps", .integer(bucket.roundedSteps)),
      ("distance_m", .integer(bucket.roundedDistanceMeters)),
      ("raw_steps", .integer(bucket.roundedRawSteps)),
      ("manual_steps", .integer(bucket.roundedManualSteps)),
    ])
  }

  static func options(_ options: CountingOptions, export: String) -> JSONValue {
    .object([
      ("export", .string(export)),
      ("from", .string(options.from?.description)),
      ("to", .string(options.to?.description)),
      ("by", .string(options.unit.rawValue)),
      ("policy", .string(options.policy.rawValue)),
      ("time_zone", .string(options.timeZone.description)),
      ("priority", .array(options.ranking.explicitOrder.map { .string($0) })),
    ])
  }

  static func source(_ row: Tally.SourceRow) -> JSONValue {
    .object([
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
