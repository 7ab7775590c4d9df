import CSQLite
import StepKitCore

extension SQLiteWriter {
  /// The `daily_totals` table: per local day and cumulative type, the merged
  /// total (as `stepkit totals` counts it) and the raw sum; with `cohort`, led
  /// by the export id.
  static func dailyTotalsTable(cohort: Bool) -> String {
    """
    CREATE TABLE IF NOT EXISTS daily_totals (\(cohort ? "\n  export TEXT NOT NULL REFERENCES exports (export)," : "")
      date TEXT NOT NULL,
      type TEXT NOT NULL,
      value REAL NOT NULL,
      raw_value REAL NOT NULL,
      unit TEXT NOT NULL
    );

    """
  }

  /// The `daily_totals` index, made once every row is in.
  static func dailyTotalsIndexes(cohort: Bool) -> String {
    let export = cohort ? "export, " : ""
    return "\nCREATE INDEX IF NOT EXISTS daily_totals_by_type ON daily_totals (\(export)type, date);"
  }

  /// Writes a row of `daily_totals` for each day of `tally` that holds a
  /// record of `type`, values rounded as `stepkit totals` prints them.
  ///
  /// - Parameters:
  ///   - tally: The day buckets of a log that counted `type` (``SampleLog/countedType``).
  ///   - type: The cumulative type.
  ///   - export: The export id, in a cohort database.
  /// - Throws: ``OutputFileError`` when a row cannot be written.
  func writeDailyTotals(_ tally: Tally, type: CumulativeType, export: String?) throws(OutputFileError) {
    let first: Int32 = isCohort ? 1 : 0
    let insert = try prepare("INSERT INTO daily_totals VALUES (\(Self.placeholders(5 + first)))")
    defer { sqlite3_finalize(insert) }
    if let export { bind(insert, 1, export) }
    bind(insert, first + 2, type.identifier)
    bind(insert, first + 5, type.unit.rawValue)
    let scale = (0..<type.unit.outputDecimals).reduce(1.0) { value, _ in value * 10 }
    for bucket in tally.buckets where bucket.hasSamples {
      bind(insert, first + 1, bucket.label(unit: tally.options.unit))
      // Each row rounded on its own, so that SUM() adds what `stepkit totals` prints.
      sqlite3_bind_double(insert, first + 3, Double(roundedForOutput(bucket.steps * scale)) / scale)
      sqlite3_bind_double(insert, first + 4, Double(roundedForOutput(bucket.rawSteps * scale)) / scale)
      try step(insert)
      sqlite3_reset(insert)
    }
  }
}
