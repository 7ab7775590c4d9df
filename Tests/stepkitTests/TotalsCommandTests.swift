import Foundation
import Testing

/// `stepkit totals` on `energy-and-flights.xml`, against totals worked out by
/// hand from the records (COUNTING.md), not by StepKit.
@Suite("stepkit totals")
struct TotalsCommandTests {
  static let fixture = "energy-and-flights.xml"

  /// One case: the options after the export, and the CSV worked out by hand.
  struct Case: Sendable, CustomTestStringConvertible {
    var name: String
    var options: [String]
    var csv: String
    var testDescription: String { name }
  }

  static let header = "date,value,raw_value\n"

  static let cases = [
    // 29 Feb: Watch 50; iPhone 40 × 5/10 = 20; Keep 418.4 kJ = 100 kcal × 7/10 = 70;
    // the iPhone's 23:30–00:30 record gives 60 × 30/60 = 30 to each day. Typed-in 200 Cal: out.
    // Raw: 50 + 40 + 100 + 200 + 30 = 420. 1 Mar: 30 + Watch 100 = 130 (raw too).
    Case(
      name: "active energy: Watch, then iPhone and app where uncovered; kJ and Cal converted; typed-in out",
      options: ["--type", "activeEnergyBurned"],
      csv: header + "2024-02-29,170.00,420.00\n2024-03-01,130.00,130.00\n"),
    // Watch 2; iPhone 3 × 30/60 = 1.5 (09:00:00–09:00:30); Stairs 10: 13.5, rounded half away from zero.
    Case(
      name: "flights: the Watch outranks the iPhone, an app counts where no device did; whole floors",
      options: ["--type", "flightsClimbed"], csv: header + "2024-02-29,14,15\n"),
    // The typed-in 200 Cal ranks first and covers 12:00–12:30 alone: 170 + 200 = 370.
    Case(
      name: "--policy all ranks the typed-in entry first",
      options: ["--type", "energy", "--policy", "all"],
      csv: header + "2024-02-29,370.00,420.00\n2024-03-01,130.00,130.00\n"),
    // Watch 50 and the iPhone's 20 and 30 on 29 Feb; the app's 70 is out.
    Case(
      name: "--policy device keeps only Watch and iPhone",
      options: ["--type", "energy", "--policy", "device"],
      csv: header + "2024-02-29,100.00,420.00\n2024-03-01,130.00,130.00\n"),
  ]

  @Test("Per-day totals worked out by hand", arguments: cases)
  func perDay(_ testCase: Case) throws {
    let result = try StepkitRunner.run(["totals", Self.fixture] + testCase.options + ["--format", "csv"])
    #expect(result.exitCode == 0)
    #expect(result.standardOutput == testCase.csv)
  }

  @Test("JSON names the type and its unit, and parses")
  func json() throws {
    let result = try StepkitRunner.run([
      "totals", Self.fixture, "--type", "activeEnergyBurned", "--format", "json",
    ])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    #expect(object["unit"] as? String == "kcal")
    #expect(object["type"] as? String == "HKQuantityTypeIdentifierActiveEnergyBurned")
    let totals = try #require(object["totals"] as? [String: Any])
    #expect(totals["value"] as? Double == 300)
    #expect(totals["raw_value"] as? Double == 550)
  }

  @Test("--list counts every type's records, as a naive count of the file's lines does")
  func list() throws {
    let result = try StepkitRunner.run(["totals", Self.fixture, "--list", "--format", "csv"])
    let xml = try String(
      contentsOf: StepkitRunner.fixtures.appendingPathComponent(Self.fixture), encoding: .utf8)
    var naive: [String: Int] = [:]
    for line in xml.split(separator: "\n") where line.hasPrefix(" <Record type=\"") {
      let type = line.dropFirst(" <Record type=\"".count).prefix { $0 != "\"" }
      naive[String(type), default: 0] += 1
    }
    var listed: [String: Int] = [:]
    for line in result.standardOutput.split(separator: "\n").dropFirst() {
      let cells = line.split(separator: ",", omittingEmptySubsequences: false)
      listed[String(cells[0])] = Int(cells[3])
    }
    #expect(listed == naive)
    #expect(
      result.standardOutput.contains("HKQuantityTypeIdentifierActiveEnergyBurned,activeEnergyBurned,kcal,6\n")
    )
    #expect(result.standardOutput.contains("HKQuantityTypeIdentifierHeartRate,heartRate,,1\n"))
  }

  /// Insulin delivery is cumulative in international units (HKTypeIdentifiers.h:
  /// "Pharmacology (IU) Cumulative"); UV exposure is a count but discrete.
  @Test("Insulin is summed in IU, typed-in doses out; UV exposure is refused, not summed")
  func insulinAndUV() throws {
    // Loop: 1.5 IU (08:00-08:30) + a 4 IU bolus = 5.5; the typed-in 6 IU is out, in raw.
    let insulin = try StepkitRunner.run([
      "totals", "insulin-and-uv.xml", "--type", "insulinDelivery", "--format", "csv",
    ])
    #expect(insulin.exitCode == 0)
    #expect(insulin.standardOutput == Self.header + "2024-03-01,5.50,11.50\n")
    let list = try StepkitRunner.run(["totals", "insulin-and-uv.xml", "--list", "--format", "csv"])
    #expect(list.standardOutput.contains("HKQuantityTypeIdentifierInsulinDelivery,insulinDelivery,IU,3\n"))
    // Listed without a unit, as every type that is not summed: 7 + 8 would be no UV index.
    #expect(list.standardOutput.contains("HKQuantityTypeIdentifierUVExposure,UVExposure,,2\n"))
    let uv = try StepkitRunner.run([
      "totals", "insulin-and-uv.xml", "--type", "UVExposure", "--format", "csv",
    ])
    #expect(uv.exitCode != 0)
    #expect(uv.standardOutput.isEmpty)
  }
}
