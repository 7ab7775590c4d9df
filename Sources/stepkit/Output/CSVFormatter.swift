import Foundation
import StepKitCore

/// The `--format csv` output: the contract columns, one row per bucket.
enum CSVFormatter {
  /// The header, exactly as the command documents it.
  static let header = "date,steps,distance_m,raw_steps,manual_steps,hours_with_data,valid"

  /// The header of several exports in one run: the export id first, the
  /// contributing sources last.
  static let cohortHeader = "export," + header + ",sources"

  /// Every bucket of `tally` as CSV, one line each: header first, or, for one
  /// export of several, no header, the export id in a first column and the
  /// sources that added counted steps in a last one. `valid` is `true` or
  /// `false` by `rule` for days, empty for other buckets.
  static func format(_ tally: Tally, rule: ValidDayRule = .default, export: String? = nil) -> String {
    var whole = ""
    write(tally, rule: rule, export: export) { whole += $0 }
    return whole
  }

  /// The bytes of text ``write(_:rule:export:to:)`` hands over at a time.
  static let pieceBytes = 1 << 16

  /// ``format(_:rule:export:)`` handed to `emit` about ``pieceBytes`` at a
  /// time, so that a tally of many rows (34 years of hours) is never held as
  /// one text as well.
  static func write(
    _ tally: Tally, rule: ValidDayRule = .default, export: String? = nil, to emit: (String) -> Void
  ) {
    let prefix = export.map { field($0) + "," }
    var text = UTF8Text(reservingCapacity: pieceBytes + 1024)
    if prefix == nil { text.append(header + "\n") }
    let unit = tally.options.unit
    for bucket in tally.buckets {
      if text.bytes.count >= pieceBytes {
        emit(text.string)
        text.removeAll()
      }
      if let prefix { text.append(prefix) }
      text.appendLabel(of: bucket, unit: unit)
      if bucket.hasSamples {
        text.append(ascii: ",")
        text.append(bucket.roundedSteps)
        text.append(ascii: ",")
        text.append(bucket.roundedDistanceMeters)
        text.append(ascii: ",")
        text.append(bucket.roundedRawSteps)
        text.append(ascii: ",")
        text.append(bucket.roundedManualSteps)
      } else {
        // A bucket without any sample: empty counts, unlike a day of 0 counted steps.
        text.append(",,,,")
      }
      text.append(ascii: ",")
      text.append(Int64(bucket.hoursWithData))
      text.append(ascii: ",")
      if unit == .day { text.append(rule.isValid(bucket) ? "true" : "false") }
      if prefix != nil {
        text.append(ascii: ",")
        text.append(field(sourceList(tally.stepContributors(of: bucket))))
      }
      text.append(ascii: "\n")
    }
    if !text.bytes.isEmpty { emit(text.string) }
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

  /// Source names as one field: `Ada’s Apple Watch; Ada’s iPhone`.
  static func sourceList(_ sources: [Tally.SourceRow]) -> String {
    sources.map(\.name).joined(separator: "; ")
  }

  /// One CSV field, quoted when it holds a comma, a quote or a line break.
  static func field(_ text: String) -> String {
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else {
      return text
    }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }
}
