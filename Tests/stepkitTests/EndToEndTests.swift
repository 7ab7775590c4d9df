import Foundation
import Testing

/// One run of the built binary, its golden file and its exit code.
struct GoldenCase: CustomTestStringConvertible, Sendable {
  var name: String
  var arguments: [String]
  var stdin: String? = nil
  var exitCode: Int32 = 0
  var environment: [String: String] = [:]
  /// Whether the command reports on standard output even when it exits non-zero (doctor).
  var reportsOnStandardOutput = false

  var testDescription: String { name }
}

@Suite("stepkit end to end (golden files)")
struct EndToEndTests {
  static let fixture = "watch-and-phone.xml"
  static let demo = "../../../Sources/stepkit/Resources/demo-export.xml"
  /// The real exports from public projects, stored once, with the reader's tests.
  static let real = "../../HealthExportTests/Fixtures/"
  /// A real export from a public project, stored with the reader's tests.
  static let tdda = real + "tdda-export6s3sample.xml"

  static let cases: [GoldenCase] = [
    // Formats.
    GoldenCase(name: "steps-table", arguments: ["steps", fixture, "--format", "table"]),
    GoldenCase(name: "steps-csv-default-off-terminal", arguments: ["steps", fixture]),
    GoldenCase(name: "steps-json", arguments: ["steps", fixture, "--format", "json"]),
    // Policies.
    GoldenCase(
      name: "steps-policy-health", arguments: ["steps", fixture, "--policy", "health", "--format", "csv"]),
    GoldenCase(
      name: "steps-policy-device", arguments: ["steps", fixture, "--policy", "device", "--format", "csv"]),
    GoldenCase(name: "steps-policy-all", arguments: ["steps", fixture, "--policy=all", "--format=csv"]),
    GoldenCase(
      name: "steps-priority",
      arguments: ["steps", fixture, "--priority", "Mi Fitness,Ada’s iPhone", "--format", "csv"]),
    // Time zones and buckets.
    GoldenCase(
      name: "steps-time-zone-named",
      arguments: ["steps", fixture, "--time-zone", "Asia/Shanghai", "--format", "csv"]),
    GoldenCase(
      name: "steps-time-zone-new-york",
      arguments: ["steps", fixture, "--time-zone", "America/New_York", "--format", "csv"]),
    GoldenCase(name: "steps-by-week", arguments: ["steps", fixture, "--by", "week", "--format", "csv"]),
    GoldenCase(
      name: "steps-by-week-table", arguments: ["steps", fixture, "--by", "week", "--format", "table"]),
    GoldenCase(name: "steps-by-month", arguments: ["steps", fixture, "--by", "month", "--format", "csv"]),
    GoldenCase(
      name: "steps-by-hour",
      arguments: [
        "steps", fixture, "--by", "hour", "--from", "2026-03-08", "--to", "2026-03-08", "--format", "csv",
      ]),
    GoldenCase(
      name: "steps-range",
      arguments: ["steps", fixture, "--from", "2026-03-04", "--to", "2026-03-12", "--format", "csv", "-q"]),
    GoldenCase(name: "steps-range-outside-data", arguments: ["steps", fixture, "--to", "2020-01-01"]),
    // Inputs.
    GoldenCase(
      name: "steps-zip-localized-entry", arguments: ["steps", "localized-name.zip", "--format", "csv"]),
    GoldenCase(name: "steps-stdin", arguments: ["steps", "-", "--format", "csv"], stdin: fixture),
    GoldenCase(
      name: "steps-stdin-zip", arguments: ["steps", "-", "--format", "csv"], stdin: "localized-name.zip"),
    GoldenCase(
      name: "steps-real-tdda", arguments: ["steps", real + "tdda-export6s3sample.xml", "--format", "csv"]),
    GoldenCase(
      name: "steps-real-hk2sqlite", arguments: ["steps", real + "hk2sqlite-export.xml", "--format", "table"]),
    GoldenCase(
      name: "steps-real-hk2sqlite-zip-xml",
      arguments: ["steps", real + "hk2sqlite-zip-export.xml", "--format", "json"]),
    GoldenCase(name: "steps-ios8", arguments: ["steps", "ios8-export.xml", "--format", "csv"]),
    GoldenCase(
      name: "steps-ios8-policy-all",
      arguments: ["steps", "ios8-export.xml", "--policy", "all", "--format", "csv"]
    ),
    GoldenCase(name: "steps-clock-glitch", arguments: ["steps", "clock-glitch.xml", "--format", "csv"]),
    // Sources.
    GoldenCase(name: "sources-ios8", arguments: ["sources", "ios8-export.xml", "--format", "table"]),
    GoldenCase(
      name: "sources-per-kind-classes",
      arguments: ["sources", "per-kind-classes.xml", "--policy", "all", "--format", "table"]),
    GoldenCase(
      name: "steps-per-kind-classes",
      arguments: ["steps", "per-kind-classes.xml", "--policy", "all", "--format", "csv"]),
    GoldenCase(name: "sources-table", arguments: ["sources", fixture, "--format", "table"]),
    GoldenCase(
      name: "sources-policy-all-csv", arguments: ["sources", fixture, "--policy", "all", "--format", "csv"]),
    GoldenCase(name: "sources-json", arguments: ["sources", fixture, "--format", "json", "--quiet"]),
    GoldenCase(
      name: "sources-real-tdda",
      arguments: ["sources", real + "tdda-export6s3sample.xml", "--format", "table"]),
    GoldenCase(
      name: "sources-fresh-addresses", arguments: ["sources", "fresh-addresses.xml", "--format", "table"]),
    GoldenCase(
      name: "sources-fresh-addresses-json",
      arguments: ["sources", "fresh-addresses.xml", "--format", "json", "--quiet"]),
    // The bundled demo.
    GoldenCase(name: "demo", arguments: []),
    GoldenCase(name: "demo-explicit", arguments: ["demo"]),
    GoldenCase(name: "sources-demo", arguments: ["sources", demo, "--format", "table"]),
    GoldenCase(
      name: "steps-demo-berlin-weeks",
      arguments: ["steps", demo, "--by", "week", "--time-zone", "Europe/Berlin"]),
    // Days from a day start, valid days and the summary.
    GoldenCase(
      name: "steps-demo-day-start",
      arguments: [
        "steps", demo, "--day-start", "04:00", "--time-zone", "Europe/Berlin", "--from", "2026-03-27", "--to",
        "2026-03-31", "--valid-day", "hours:4,steps:5000", "--format", "table",
      ]),
    GoldenCase(
      name: "summary-demo-csv",
      arguments: ["summary", demo, "--valid-day", "hours:4", "--day-start", "04:00", "--format", "csv"]),
    GoldenCase(
      name: "summary-cohort-json",
      arguments: ["summary", "cohort", "--valid-day", "steps:1000", "--format", "json", "-q"], exitCode: 1,
      reportsOnStandardOutput: true),
    GoldenCase(
      name: "summary-cohort-table", arguments: ["summary", "cohort", "--format", "table", "-q"], exitCode: 1,
      reportsOnStandardOutput: true),
    GoldenCase(
      name: "error-bad-day-start", arguments: ["steps", fixture, "--day-start", "25:00"], exitCode: 2),
    GoldenCase(
      name: "error-bad-valid-day", arguments: ["steps", fixture, "--valid-day", "hours>10"], exitCode: 2),
    // Help.
    GoldenCase(name: "help", arguments: ["--help"]),
    GoldenCase(name: "help-summary", arguments: ["summary", "--help"]),
    GoldenCase(name: "help-steps", arguments: ["steps", "--help"]),
    GoldenCase(name: "help-sources", arguments: ["sources", "-h"]),
    GoldenCase(name: "help-chart", arguments: ["help", "chart"]),
    GoldenCase(name: "help-sqlite", arguments: ["sqlite", "--help"]),
    // Usage errors: exit 2, one line and a hint.
    GoldenCase(
      name: "error-unknown-option", arguments: ["steps", fixture, "--frm", "2026-03-01"], exitCode: 2),
    GoldenCase(name: "error-bad-by", arguments: ["steps", fixture, "--by", "fortnight"], exitCode: 2),
    GoldenCase(name: "error-bad-date", arguments: ["steps", fixture, "--from", "2026-02-30"], exitCode: 2),
    GoldenCase(
      name: "error-bad-zone", arguments: ["steps", fixture, "--time-zone", "Atlantis/Capital"], exitCode: 2),
    GoldenCase(name: "error-missing-export", arguments: ["sources"], exitCode: 2),
    GoldenCase(name: "error-unknown-command", arguments: ["stpes", fixture], exitCode: 2),
    GoldenCase(name: "error-chart-extension", arguments: ["chart", fixture, "-o", "steps.png"], exitCode: 2),
    // A chart's bars are days or longer: `--by hour` is refused, pointing to `steps --by hour`.
    GoldenCase(
      name: "error-chart-by-hour", arguments: ["chart", fixture, "-o", "steps.svg", "--by", "hour"],
      exitCode: 2),
    // Data errors: exit 1 with file, line and column.
    GoldenCase(name: "error-no-such-file", arguments: ["steps", "missing.xml"], exitCode: 1),
    GoldenCase(
      name: "error-no-such-file-chinese", arguments: ["steps", "missing.xml"], exitCode: 1,
      environment: ["LANG": "zh_CN.UTF-8"]),
    GoldenCase(
      name: "error-truncated-chinese", arguments: ["steps", "truncated.xml"], exitCode: 1,
      environment: ["LC_ALL": "zh_CN.UTF-8"]),
    GoldenCase(
      name: "error-truncated-traditional-chinese", arguments: ["steps", "truncated.xml"], exitCode: 1,
      environment: ["LANG": "zh_TW.UTF-8"]),
    GoldenCase(name: "error-truncated", arguments: ["steps", "truncated.xml"], exitCode: 1),
    GoldenCase(name: "error-malformed", arguments: ["steps", "malformed.xml"], exitCode: 1),
    GoldenCase(name: "error-not-a-zip", arguments: ["steps", "not-a-zip.zip"], exitCode: 1),
    GoldenCase(name: "error-all-invalid", arguments: ["steps", "all-invalid.xml"], exitCode: 1),
    GoldenCase(
      name: "error-all-invalid-chinese", arguments: ["sources", "all-invalid.xml"], exitCode: 1,
      environment: ["LC_ALL": "zh_CN.UTF-8"]),
    // Several exports in one run.
    GoldenCase(
      name: "cohort-two-exports-csv",
      arguments: ["steps", fixture, tdda, "--format", "csv", "-q"]),
    GoldenCase(
      name: "cohort-two-exports-json",
      arguments: ["steps", tdda, "localized-name.zip", "--format", "json"]),
    GoldenCase(
      name: "cohort-two-exports-table",
      arguments: ["steps", fixture, tdda, "--format", "table", "-q"]),
    GoldenCase(
      name: "cohort-sources-csv",
      arguments: ["sources", fixture, tdda, "--format", "csv", "-q"]),
    GoldenCase(
      name: "cohort-folder-with-broken-export", arguments: ["steps", "cohort", "--format", "csv"],
      exitCode: 1,
      reportsOnStandardOutput: true),
    GoldenCase(
      name: "cohort-folder-with-broken-export-json",
      arguments: ["sources", "cohort", "--format", "json", "-q"],
      exitCode: 1, reportsOnStandardOutput: true),
    GoldenCase(
      name: "cohort-id-from-parent",
      arguments: ["steps", "participants", "--id-from", "parent", "--by", "month", "--format", "csv", "-q"]),
    GoldenCase(name: "error-cohort-same-ids", arguments: ["steps", "participants"], exitCode: 2),
    GoldenCase(name: "error-cohort-stdin", arguments: ["steps", "-", fixture], exitCode: 2),
    GoldenCase(name: "error-bad-jobs", arguments: ["steps", "cohort", "--jobs", "0"], exitCode: 2),
    // doctor: an app target that has everything, one missing keys, and a bad path.
    GoldenCase(name: "doctor-ready", arguments: ["doctor", "doctor/ready"]),
    // The example app in Examples/ must keep passing.
    GoldenCase(
      name: "doctor-example-app",
      arguments: ["doctor", "../../../Examples/StepCounterApp", "--background-delivery"]),
    GoldenCase(
      name: "doctor-incomplete-writes", arguments: ["doctor", "doctor/incomplete/Info.plist", "--writes"],
      exitCode: 1, reportsOnStandardOutput: true),
    GoldenCase(
      name: "doctor-no-motion", arguments: ["doctor", "doctor/incomplete/Info.plist", "--no-motion"]),
    GoldenCase(name: "error-doctor-no-such-path", arguments: ["doctor", "doctor/nothing"], exitCode: 1),
    GoldenCase(name: "help-doctor", arguments: ["doctor", "--help"]),
    // Totals of any cumulative type.
    GoldenCase(name: "help-totals", arguments: ["totals", "--help"]),
    // Raw records of one type.
    GoldenCase(name: "help-records", arguments: ["records", "--help"]),
    GoldenCase(
      name: "records-whole-export", arguments: ["records", "whole-export.xml", "--type", "heartRate"]),
    GoldenCase(
      name: "totals-energy-table",
      arguments: ["totals", "energy-and-flights.xml", "--type", "activeEnergyBurned", "--format", "table"]),
    GoldenCase(
      name: "totals-flights-json",
      arguments: [
        "totals", "energy-and-flights.xml", "--type", "HKQuantityTypeIdentifierFlightsClimbed", "--format",
        "json",
      ]),
    GoldenCase(
      name: "totals-energy-all-by-week",
      arguments: ["totals", "energy-and-flights.xml", "--type", "energy", "--policy", "all", "--by", "week"]),
    GoldenCase(
      name: "totals-list", arguments: ["totals", "energy-and-flights.xml", "--list", "--format", "table"]),
    GoldenCase(name: "totals-list-csv", arguments: ["totals", "watch-and-phone.xml", "--list"]),
    GoldenCase(
      name: "error-totals-discrete-type",
      arguments: ["totals", "energy-and-flights.xml", "--type", "heartRate"],
      exitCode: 2),
    GoldenCase(name: "error-totals-no-type", arguments: ["totals", "energy-and-flights.xml"], exitCode: 2),
  ]

  @Test("stdout, stderr and exit code match the golden file", arguments: cases)
  func golden(_ golden: GoldenCase) throws {
    let result = try StepkitRunner.expectGolden(
      golden.name, golden.arguments, stdin: golden.stdin, environment: golden.environment)
    #expect(result.exitCode == golden.exitCode)
    if golden.exitCode != 0 && !golden.reportsOnStandardOutput {
      #expect(result.standardOutput.isEmpty, "errors print nothing on standard output")
      #expect(result.standardError.hasPrefix("stepkit"))
    }
  }

  @Test("csv from a zip, standard input and the plain file agree")
  func inputsAgree() throws {
    let plain = try StepkitRunner.run(["steps", Self.fixture, "--format", "csv"]).standardOutput
    let zip = try StepkitRunner.run(["steps", "localized-name.zip", "--format", "csv"]).standardOutput
    let stdin = try StepkitRunner.run(["steps", "-", "--format", "csv"], stdin: Self.fixture).standardOutput
    let stdinZip = try StepkitRunner.run(["steps", "-", "--format", "csv"], stdin: "localized-name.zip")
      .standardOutput
    #expect(plain.hasPrefix("date,steps,distance_m,raw_steps,manual_steps,hours_with_data,valid\n"))
    #expect(zip == plain)
    #expect(stdin == plain)
    #expect(stdinZip == plain)
  }

  @Test("chart writes an SVG and an HTML page")
  func chart() throws {
    try withScratchDirectory { directory in
      let fixture = StepkitRunner.fixtures.appendingPathComponent(Self.fixture).path
      for name in ["steps.svg", "steps.html"] {
        let result = try StepkitRunner.run(["chart", fixture, "-o", name], in: directory)
        #expect(result.exitCode == 0)
        #expect(result.standardError.hasSuffix("stepkit: wrote \(name) (6 days)\n"))
        let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        #expect(text.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(text.contains("Steps per day, 2026-03-06 to 2026-03-11"))
        #expect(text.contains("<polyline"))
      }
    }
  }

  @Test("sqlite writes days matching the csv, sources and every sample")
  func sqlite() throws {
    try withScratchDirectory { directory in
      let fixture = StepkitRunner.fixtures.appendingPathComponent(Self.fixture).path
      let result = try StepkitRunner.run(["sqlite", fixture, "out.db", "--quiet"], in: directory)
      #expect(result.exitCode == 0)
      let path = directory.appendingPathComponent("out.db").path
      let csv = try StepkitRunner.run(["steps", Self.fixture, "--format", "csv"]).standardOutput
      let rows = try query(
        path,
        "SELECT date, steps, distance_m, raw_steps, manual_steps, hours_with_data,"
          + " CASE valid WHEN 1 THEN 'true' ELSE 'false' END FROM days ORDER BY date")
      #expect(
        ([["date", "steps", "distance_m", "raw_steps", "manual_steps", "hours_with_data", "valid"]] + rows)
          .map {
            // A day without data is NULL in SQLite and empty in the CSV.
            $0.map { $0 == "NULL" ? "" : $0 }.joined(separator: ",") + "\n"
          }.joined() == csv)
      // Each day is rounded on its own, so the sums may differ by half a step per day.
      let gap = try query(
        path,
        "SELECT ABS((SELECT SUM(counted) FROM samples WHERE kind = 'steps') - (SELECT SUM(steps) FROM days))"
          + " <= 0.5 * (SELECT COUNT(*) FROM days)")
      #expect(gap == [["1"]])
      #expect(try query(path, "SELECT COUNT(*) FROM sources") == [["4"]])
    }
  }
}
