import Foundation
import Testing

/// `stepkit totals` on `energy-and-flights.xml`, against totals worked out by
/// hand from the records (COUNTING.md), not by StepKit.
@Suite("stepkit totals")
struct TotalsCommandTests {
  static let fixture = "energy-and-flights.xml"

  @Test(
    "Active energy per day: Watch, then iPhone and app where uncovered; kJ and Cal converted; typed-in out")
  func energy() throws {
    let result = try StepkitRunner.run([
      "totals", Self.fixture, "--type", "activeEnergyBurned", "--format", "csv",
    ])
    #expect(result.exitCode == 0)
    // 29 Feb: Watch 50; iPhone 40 × 5/10 = 20; Keep 418.4 kJ = 100 kcal × 7/10 = 70;
    // the iPhone's 23:30–00:30 record gives 60 × 30/60 = 30 to each day. Typed-in 200 Cal: out.
    // Raw: 50 + 40 + 100 + 200 + 30 = 420. 1 Mar: 30 + Watch 100 = 130 (raw too).
    #expect(
      result.standardOutput == "date,value,raw_value\n2024-02-29,170.00,420.00\n2024-03-01,130.00,130.00\n")
  }

  @Test("Flights: the Watch outranks the iPhone, an app counts where no device did; whole floors")
  func flights() throws {
    let result = try StepkitRunner.run([
      "totals", Self.fixture, "--type", "flightsClimbed", "--format", "csv",
    ])
    // Watch 2; iPhone 3 × 30/60 = 1.5 (09:00:00–09:00:30); Stairs 10: 13.5, rounded half away from zero.
    #expect(result.standardOutput == "date,value,raw_value\n2024-02-29,14,15\n")
  }

  @Test("--policy all ranks the typed-in entry first; --policy device keeps only Watch and iPhone")
  func policies() throws {
    let all = try StepkitRunner.run(
      ["totals", Self.fixture, "--type", "energy", "--policy", "all", "--format", "csv"])
    #expect(
      all.standardOutput == "date,value,raw_value\n2024-02-29,370.00,420.00\n2024-03-01,130.00,130.00\n")
    let device = try StepkitRunner.run(
      ["totals", Self.fixture, "--type", "energy", "--policy", "device", "--format", "csv"])
    #expect(
      device.standardOutput == "date,value,raw_value\n2024-02-29,100.00,420.00\n2024-03-01,130.00,130.00\n")
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
}
