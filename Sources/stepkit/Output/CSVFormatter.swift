import Foundation
import StepKitCore

/// The `--format csv` output: the five contract columns, one row per bucket.
enum CSVFormatter {
  /// The header, exactly as the command documents it.
  static let header = "date,steps,distance_m,raw_steps,manual_steps"

  /// The header of several exports in one run: the export id first.
  static let cohortHeader = "export," + header

  /// Every bucket of `tally` as CSV, one line each: header first, or, for one
  /// export of several, no header and the export id in a first column.
  static func format(_ tally: Tally, export: String? = nil) -> String {
    let prefix = export.map { field($0) + "," }
    // A row is at most about 70 bytes plus the export id.
    var text = UTF8Text(reservingCapacity: (tally.buckets.count + 1) * (72 + (prefix?.utf8.count ?? 0)))
    if prefix == nil { text.append(header + "\n") }
    let unit = tally.options.unit
    for bucket in tally.buckets {
      if let prefix { text.append(prefix) }
      text.appendLabel(of: bucket, unit: unit)
      text.append(ascii: ",")
      text.append(bucket.roundedSteps)
      text.append(ascii: ",")
      text.append(bucket.roundedDistanceMeters)
      text.append(ascii: ",")
      text.append(bucket.roundedRawSteps)
      text.append(ascii: ",")
      text.append(bucket.roundedManualSteps)
      text.append(ascii: "\n")
    }
    return text.string
  }

  /// The header of `stepkit sources --format csv`.
  static let sourcesHeader =
    "rank,source,class,counted,device_models,step_samples,distance_samples,raw_steps,"
    + "counted_steps,manual_steps,raw_distance_m,counted_distance_m,first_start,last_end"

  /// The sources header of several exports in one run: the export id first.
  static let cohortSourcesHeader = "export," + sourcesHeader

  /// Every source of `tally` as CSV, highest rank first: header first, or, for
  /// one export of several, no header and the export id in a first column.
  static func sources(_ tally: Tally, export: String? = nil) -> String {
    var lines = export == nil ? [sourcesHeader] : []
    for row in tally.sources {
      let lead: [String] = export.map { [field($0)] } ?? []
      lines.append((lead + cells(row)).joined(separator: ","))
    }
    return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
  }

  private static func cells(_ row: Tally.SourceRow) -> [String] {
    [
      String(row.rank), field(row.name), field(row.classLabel),
      row.isCounted ? "true" : "false", field(row.deviceModels.joined(separator: " ")),
      String(row.stepSamples), String(row.distanceSamples),
      String(roundedForOutput(row.rawSteps)), String(roundedForOutput(row.countedSteps)),
      String(roundedForOutput(row.manualSteps)), String(roundedForOutput(row.rawDistanceMeters)),
      String(roundedForOutput(row.countedDistanceMeters)),
      row.firstStart.map(TextFormatting.isoUTC) ?? "", row.lastEnd.map(TextFormatting.isoUTC) ?? "",
    ]
  }

  /// One CSV field, quoted when it holds a comma, a quote or a line break.
  static func field(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
      return text
    }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
