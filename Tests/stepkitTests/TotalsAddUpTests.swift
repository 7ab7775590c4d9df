import Foundation
import Testing

/// COUNTING.md, "Rounding": whatever is printed as a total equals the sum of the printed rows, in
/// every format and in SQLite. The sums are taken here from the printed text itself (CSV fields,
/// JSON numbers, table cells, `SUM()` in SQLite), never from StepKit's own numbers.
@Suite("Totals add up to the printed rows")
struct TotalsAddUpTests {
  /// Exports with fractional samples whose days round apart: the two-device fixture (its total
  /// used to be 52,265 against a row sum of 52,264), the demo, a real export and a fixture of
  /// several source classes. ``fractionalRows()`` has rows that round apart by construction.
  static let exports = [
    EndToEndTests.fixture, EndToEndTests.demo, EndToEndTests.tdda, "per-kind-classes.xml",
  ]
  static let fields = ["steps", "distance_m", "raw_steps", "manual_steps"]

  /// The sum of each integer column of a CSV, by header name.
  static func csvSums(_ text: String) -> [String: Int64] {
    let lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
    guard let header = lines.first else { return [:] }
    var sums: [String: Int64] = [:]
    for line in lines.dropFirst() {
      for (index, name) in header.enumerated() where fields.contains(String(name)) {
        sums[String(name), default: 0] += Int64(line[index]) ?? 0
      }
    }
    return sums
  }

  @Test("CSV rows, JSON days, JSON totals and SQLite SUM() agree to the step", arguments: exports)
  func everyFormat(_ export: String) throws {
    for by in ["day", "week", "hour"] {
      let csv = try StepkitRunner.run(["steps", export, "--by", by, "--format", "csv", "-q"])
      #expect(csv.exitCode == 0)
      let csvSums = Self.csvSums(csv.standardOutput)
      let json = try StepkitRunner.run(["steps", export, "--by", by, "--format", "json", "-q"])
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
      let days = try #require(object["days"] as? [[String: Any]])
      let totals = try #require(object["totals"] as? [String: Any])
      for field in Self.fields {
        let daySum = days.reduce(Int64(0)) { $0 + ((($1[field] as? NSNumber)?.int64Value) ?? 0) }
        let total = (totals[field] as? NSNumber)?.int64Value
        #expect(total == daySum, "\(export) --by \(by): JSON totals.\(field)")
        #expect(csvSums[field] == daySum, "\(export) --by \(by): CSV \(field)")
      }
      if by == "day" {
        try withScratchDirectory { directory in
          let path = directory.appendingPathComponent("out.db").path
          let export =
            export.hasPrefix("/") ? export : StepkitRunner.fixtures.appendingPathComponent(export).path
          #expect(try StepkitRunner.run(["sqlite", export, path, "-q"], in: directory).exitCode == 0)
          let sums = try query(
            path, "SELECT SUM(steps), SUM(distance_m), SUM(raw_steps), SUM(manual_steps) FROM days")
          for (index, field) in Self.fields.enumerated() {
            let total = (totals[field] as? NSNumber)?.int64Value
            #expect(Int64(sums[0][index]) == total, "\(export): SQLite SUM(\(field))")
          }
        }
      }
    }
  }

  /// A table cell as a number: `52,264` → 52264, `24.39` (km) → 2439 hundredths.
  static func cellValue(_ cell: Substring) -> Int64? {
    Int64(cell.replacingOccurrences(of: ",", with: "").replacingOccurrences(of: ".", with: ""))
  }

  @Test("The table's totals row is the sum of its printed rows, km included", arguments: exports)
  func table(_ export: String) throws {
    for by in ["day", "week"] {
      let table = try StepkitRunner.run(["steps", export, "--by", by, "--format", "table", "-q"])
      #expect(table.exitCode == 0)
      let lines = table.standardOutput.split(separator: "\n").filter { !$0.hasPrefix("─") }
      let rows = lines.dropFirst().map { $0.split(separator: " ", omittingEmptySubsequences: true) }
      let totalRows = rows.filter { $0.first == "total" }
      let total = try #require(totalRows.first)
      #expect(totalRows.count == 1)
      // Rows of days without data (`–`, or a collapsed run: `… no data`) add nothing.
      let dataRows = rows.filter { $0.first != "total" && $0.count == total.count && $0[1] != "–" }
      let noDataRows = rows.filter { $0.joined(separator: " ").contains("no data") || $0.contains("–") }
      #expect(
        dataRows.count + noDataRows.count + 1 == rows.count,
        "every other row has the columns of the totals row")
      for column in 1..<total.count {
        let sum = dataRows.reduce(Int64(0)) { $0 + (Self.cellValue($1[column]) ?? 0) }
        #expect(Self.cellValue(total[column]) == sum, "\(export) --by \(by): column \(column)")
      }
    }
  }

  @Test("The sources table's totals are the sums of its printed source rows", arguments: exports)
  func sources(_ export: String) throws {
    let table = try StepkitRunner.run(["sources", export, "--format", "table", "-q"])
    #expect(table.exitCode == 0)
    let lines = table.standardOutput.replacingOccurrences(of: "left out", with: "-").split(separator: "\n")
    let separators = lines.indices.filter { lines[$0].hasPrefix("─") }
    try #require(separators.count == 2)
    // Cells from the right (source names may be wide): a source row ends in raw steps, counted,
    // hand-typed, first, last; the totals row in raw steps, counted, hand-typed.
    func cells(_ line: Substring, droppingLast: Int) -> [Int64] {
      line.split(separator: " ").dropLast(droppingLast).suffix(3).map { Self.cellValue($0) ?? 0 }
    }
    let rows = lines[(separators[0] + 1)..<separators[1]].map { cells($0, droppingLast: 2) }
    let total = cells(lines[separators[1] + 1], droppingLast: 0)
    for (column, name) in ["raw steps", "counted", "hand-typed"].enumerated() {
      #expect(total[column] == rows.reduce(0) { $0 + $1[column] }, "\(export): \(name)")
    }
  }

  /// Three days of 100.4 steps, 10.004 kcal and 2.4 typed-in steps, one record each: every row
  /// prints 100, 10.00 and 2, so the totals must print 300, 30.00 and 6, where rounding the exact
  /// sums (301.2, 30.012, 7.2) gives 301, 30.01 and 7. Worked by hand.
  static let fractionalDays: String = {
    var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    xml += " <ExportDate value=\"2024-03-09 09:00:00 +0000\"/>\n"
    let watch =
      "device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
      + "hardware:Watch6,1, software:10.1&gt;\""
    for day in 1...3 {
      let start = "2024-03-0\(day) 10:00:00 +0000"
      let end = "2024-03-0\(day) 10:10:00 +0000"
      let dates = "creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\""
      xml += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Ada’s Apple Watch\" \(watch) "
      xml += "unit=\"count\" \(dates) value=\"100.4\"/>\n"
      xml += " <Record type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" sourceName=\"Ada’s Apple Watch\" "
      xml += "\(watch) unit=\"kcal\" \(dates) value=\"10.004\"/>\n"
      xml += " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"Health\" unit=\"count\" "
      xml += "creationDate=\"2024-03-0\(day) 12:10:00 +0000\" startDate=\"2024-03-0\(day) 12:00:00 +0000\" "
      xml += "endDate=\"2024-03-0\(day) 12:10:00 +0000\" value=\"2.4\">\n"
      xml += "  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n </Record>\n"
    }
    return xml + "</HealthData>\n"
  }()

  @Test("Rows that round apart: every total is the sum of its printed rows, not the rounded sum")
  func fractionalRows() throws {
    try withScratchDirectory { directory in
      let path = directory.appendingPathComponent("export.xml").path
      try Self.fractionalDays.write(toFile: path, atomically: true, encoding: .utf8)
      let csv = try StepkitRunner.run(["steps", path, "--format", "csv", "-q"], in: directory)
      #expect(
        csv.standardOutput.split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] }
          == ["100", "100", "100"])
      let json = try StepkitRunner.run(["steps", path, "--format", "json", "-q"], in: directory)
      #expect(json.standardOutput.contains("\"steps\": 300, "))
      #expect(json.standardOutput.contains("\"manual_steps\": 6, "))
      let table = try StepkitRunner.run(["steps", path, "--format", "table", "-q"], in: directory)
      #expect(table.standardOutput.contains("total  "))
      #expect(
        table.standardOutput.split(separator: "\n").last?.split(separator: " ").prefix(2) == ["total", "300"])
      let summary = try StepkitRunner.run(["summary", path, "--format", "csv", "-q"], in: directory)
      let summaryRows = summary.standardOutput.split(separator: "\n").map {
        $0.split(separator: ",", omittingEmptySubsequences: false)
      }
      let header = try #require(summaryRows.first)
      for (name, expected) in [("steps", "300"), ("typed_in_steps_left_out", "6")] {
        let column = try #require(header.firstIndex { $0 == name }, "summary has \(name)")
        #expect(summaryRows[1][column] == expected, "summary \(name)")
      }
      let energy = try StepkitRunner.run(
        ["totals", path, "--type", "activeEnergyBurned", "--format", "csv", "-q"], in: directory)
      #expect(
        energy.standardOutput
          == "date,value,raw_value\n2024-03-01,10.00,10.00\n2024-03-02,10.00,10.00\n2024-03-03,10.00,10.00\n")
      let energyJSON = try StepkitRunner.run(
        ["totals", path, "--type", "activeEnergyBurned", "--format", "json", "-q"], in: directory)
      #expect(energyJSON.standardOutput.contains("\"value\": 30.00, \"raw_value\": 30.00"))
      let energyTable = try StepkitRunner.run(
        ["totals", path, "--type", "activeEnergyBurned", "--format", "table", "-q"], in: directory)
      #expect(
        energyTable.standardOutput.split(separator: "\n").last?.split(separator: " ") == [
          "total", "30.00", "30.00",
        ])
      let database = directory.appendingPathComponent("out.db").path
      #expect(try StepkitRunner.run(["sqlite", path, database, "-q"], in: directory).exitCode == 0)
      #expect(try query(database, "SELECT SUM(steps), SUM(manual_steps) FROM days") == [["300", "6"]])
      #expect(try query(database, "SELECT steps, typed_in_steps_left_out FROM summary") == [["300", "6"]])
    }
  }
}
