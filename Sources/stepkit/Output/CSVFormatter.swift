import Foundation
import StepKitCore

/// The `--format csv` output: the five contract columns, one row per bucket.
enum CSVFormatter {
  /// The header, exactly as the command documents it.
  static let header = "date,steps,distance_m,raw_steps,manual_steps"

  /// Every bucket of `tally` as CSV, header first, one line each.
  static func format(_ tally: Tally) -> String {
    var lines = [header]
    lines.reserveCapacity(tally.buckets.count + 1)
    for bucket in tally.buckets {
      lines.append(
        "\(bucket.label(unit: tally.options.unit)),\(bucket.roundedSteps),"
          + "\(bucket.roundedDistanceMeters),\(bucket.roundedRawSteps),\(bucket.roundedManualSteps)")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The header of `stepkit sources --format csv`.
  static let sourcesHeader =
    "rank,source,class,counted,device_models,step_samples,distance_samples,raw_steps,"
    + "counted_steps,manual_steps,raw_distance_m,counted_distance_m,first_start,last_end"

  /// Every source of `tally` as CSV, highest rank first.
  static func sources(_ tally: Tally) -> String {
    var lines = [sourcesHeader]
    for row in tally.sources {
      let cells: [String] = [
        String(row.rank), field(row.name), field(row.classLabel),
        row.isCounted ? "true" : "false", field(row.deviceModels.joined(separator: " ")),
        String(row.stepSamples), String(row.distanceSamples),
        String(roundedForOutput(row.rawSteps)), String(roundedForOutput(row.countedSteps)),
        String(roundedForOutput(row.manualSteps)), String(roundedForOutput(row.rawDistanceMeters)),
        String(roundedForOutput(row.countedDistanceMeters)),
        row.firstStart.map(TextFormatting.isoUTC) ?? "", row.lastEnd.map(TextFormatting.isoUTC) ?? "",
      ]
      lines.append(cells.joined(separator: ","))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// One CSV field, quoted when it holds a comma, a quote or a line break.
  static func field(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
      return text
    }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
