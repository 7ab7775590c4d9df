import Foundation
import Testing

@testable import stepkit

/// The `records` table of `stepkit sqlite`, checked against rows worked out by
/// hand from the fixtures and against a naive count of their lines.
@Suite("SQLite records table")
struct RecordsTableTests {
  private static func scratch() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepkit-records-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Every row of `whole-export.xml`, worked out by hand from its text.
  static let wholeExportRows: [[String]] = [
    [
      "HKQuantityTypeIdentifierDietaryEnergyConsumed", "kcal", "640.0", "NULL", "2024-03-01T11:30:00Z",
      "2024-03-01T11:30:00Z", "3600", "2024-03-01", "MyFitnessPal", "35", "NULL", "NULL", "NULL", "NULL",
      "NULL",
      "2024-03-01T12:00:05Z", #"{"Meal":"Lunch","meal":"lunch & \"coffee\""}"#,
    ],
    [
      "HKCategoryTypeIdentifierSleepAnalysis", "NULL", "NULL", "HKCategoryValueSleepAnalysisAsleepCore",
      "2024-03-01T22:40:00Z", "2024-03-02T00:10:00Z", "3600", "2024-03-01", "Ada’s Apple Watch", "10.3",
      "Apple Watch", "Apple Inc.", "Watch", "Watch6,2", "10.3", "2024-03-02T06:01:00Z", "NULL",
    ],
    [
      "HKQuantityTypeIdentifierHeartRate", "count/min", "58.0", "NULL", "2024-03-02T05:55:30Z",
      "2024-03-02T05:55:30Z", "3600", "2024-03-02", "Ada’s Apple Watch", "10.3", "Apple Watch", "Apple Inc.",
      "Watch", "Watch6,2", "10.3", "2024-03-02T05:55:31Z", #"{"HKMetadataKeyHeartRateMotionContext":"1"}"#,
    ],
    [
      "HKQuantityTypeIdentifierStepCount", "count", "1234.0", "NULL", "2024-03-01T17:10:00Z",
      "2024-03-01T17:20:00Z",
      "3600", "2024-03-01", "Ada’s iPhone", "17.3", "iPhone", "Apple Inc.", "iPhone", "iPhone14,2", "17.3",
      "2024-03-01T17:20:04Z", "NULL",
    ],
    [
      "HKQuantityTypeIdentifierBloodPressureSystolic", "mmHg", "118.0", "NULL", "2024-03-01T06:30:00Z",
      "2024-03-01T06:30:00Z", "3600", "2024-03-01", "Omron", "7.1", "NULL", "NULL", "NULL", "NULL", "NULL",
      "2024-03-01T06:30:10Z", "NULL",
    ],
    [
      "HKQuantityTypeIdentifierBloodPressureDiastolic", "mmHg", "76.0", "NULL", "2024-03-01T06:30:00Z",
      "2024-03-01T06:30:00Z", "3600", "2024-03-01", "Omron", "7.1", "NULL", "NULL", "NULL", "NULL", "NULL",
      "2024-03-01T06:30:10Z", "NULL",
    ],
  ]

  static let columns =
    "type, unit, value, value_text, start, end, utc_offset, local_date, source, source_version, device_name, "
    + "device_manufacturer, device_model, device_hardware, device_software, creation_date, metadata"

  @Test("every record of every type, as worked out by hand; the invalid ones named with line and column")
  func wholeExport() throws {
    let folder = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let database = folder.appendingPathComponent("whole.db").path
    let result = try StepkitRunner.run(["sqlite", "whole-export.xml", database])
    #expect(result.exitCode == 0, "\(result.standardError)")
    #expect(try query(database, "SELECT \(Self.columns) FROM records ORDER BY id") == Self.wholeExportRows)
    #expect(
      result.standardError.contains(
        "stepkit: 5 invalid records not written to the database: whole-export.xml:17:2 "
          + "(unreadable date '2024-13-01 10:00:00 +0100'), whole-export.xml:18:2, whole-export.xml:19:2, …"))
    #expect(result.standardError.contains("6 records)"))
    // JSON the database itself reads: keys that differ only by case are both there.
    #expect(
      try query(
        database,
        "SELECT json_extract(metadata, '$.Meal'), json_extract(metadata, '$.meal') FROM records WHERE id = 1")
        == [["Lunch", "lunch & \"coffee\""]])
    #expect(
      try query(
        database,
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'records_%' ORDER BY name")
        == [["records_by_local_date"], ["records_by_type"]])

    // Standard input gives the same rows, its records named <stdin>.
    let piped = folder.appendingPathComponent("piped.db").path
    // Its copy is made in TMPDIR, and removed.
    let temporary = folder.appendingPathComponent("tmp")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    let fromStandardInput = try StepkitRunner.run(
      ["sqlite", "-", piped], stdin: "whole-export.xml", environment: ["TMPDIR": temporary.path])
    #expect(fromStandardInput.exitCode == 0, "\(fromStandardInput.standardError)")
    #expect(try query(piped, "SELECT \(Self.columns) FROM records ORDER BY id") == Self.wholeExportRows)
    #expect(fromStandardInput.standardError.contains("<stdin>:17:2 (unreadable date"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
  }

  @Test("iOS 8: source= as the source, its attributes in the metadata")
  func iOS8() throws {
    let folder = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let database = folder.appendingPathComponent("ios8.db").path
    let result = try StepkitRunner.run(["sqlite", "ios8-export.xml", database, "-q"])
    #expect(result.exitCode == 0, "\(result.standardError)")
    #expect(
      try query(
        database,
        "SELECT source, start, local_date, value, metadata FROM records WHERE id IN (4, 5) ORDER BY id")
        == [
          ["Health", "2015-06-14T19:00:00Z", "2015-06-14", "3000.0", #"{"HKWasUserEntered":"1"}"#],
          [
            "Health Mate", "2015-06-14T16:00:00Z", "2015-06-14", "1800.0",
            #"{"Health Mate App Version":"2.6.2","Withings User Identifier":"7985588"}"#,
          ],
        ])
    #expect(try query(database, "SELECT COUNT(*) FROM records") == [["7"]])
  }

  @Test("Bytes that are not UTF-8 become U+FFFD and are counted; a metadata key named twice is one member")
  func invalidUTF8AndRepeatedKeys() throws {
    try withScratchDirectory { directory in
      let head = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2024-03-02 10:00:00 +0100"/>
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Scale" unit="kg" startDate="2024-03-01 08:00:00 +0100" endDate="2024-03-01 08:00:00 +0100" value="70">
          <MetadataEntry key="note" value="caf
        """
      // `café` cut to a lone 0xC3 before `"`, then a key named twice.
      let tail = """
        "/>
          <MetadataEntry key="HKWasUserEntered" value="1"/>
          <MetadataEntry key="HKWasUserEntered" value="0"/>
         </Record>
         <Record type="HKQuantityTypeIdentifierBodyMass" sourceName="Wa\u{FF}ge" unit="kg" startDate="2024-03-01 09:00:00 +0100" endDate="2024-03-01 09:00:00 +0100" value="71"/>
        </HealthData>

        """
      var bytes = Array(head.utf8) + [0xC3] + Array(tail.utf8)
      // The second source name's `ÿ` (C3 BF) loses its first byte: a stray continuation byte.
      let stray = bytes.indices.first { bytes[$0] == 0xC3 && bytes[$0 + 1] == 0xBF }!
      bytes.remove(at: stray)
      try Data(bytes).write(to: directory.appendingPathComponent("export.xml"))
      let result = try StepkitRunner.run(["sqlite", "export.xml", "out.db"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      #expect(
        result.standardError.contains(
          "stepkit: 2 records hold bytes that are not UTF-8; each is written to the database as U+FFFD\n"))
      #expect(
        result.standardError.contains(
          "stepkit: 1 record names a metadata key twice; its metadata holds the first value\n"))
      let path = directory.appendingPathComponent("out.db").path
      #expect(
        try query(path, "SELECT source, metadata, json_valid(metadata) FROM records ORDER BY id") == [
          ["Scale", #"{"note":"caf\#u{FFFD}","HKWasUserEntered":"1"}"#, "1"],
          ["Wa\u{FFFD}ge", "NULL", "0"],
        ])
    }
  }

  @Test("A value the row before had is kept; a change, a NULL or bytes that are not UTF-8 are not lost")
  func repeatedValues() throws {
    try withScratchDirectory { directory in
      // Each record's device has a fresh object address, as in real exports.
      func device(_ address: String) -> String {
        "device=\"&lt;&lt;HKDevice: 0x\(address)&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
          + "hardware:Watch6,2, software:10.3&gt;\""
      }
      func record(
        _ type: String, source: String, version: String?, device: String?, unit: String?, value: String
      ) -> String {
        let parts = [
          "type=\"HK\(type)\"", "sourceName=\"\(source)\"", version.map { "sourceVersion=\"\($0)\"" },
          device, unit.map { "unit=\"\($0)\"" }, "startDate=\"2024-03-01 08:00:00 +0100\"",
          "endDate=\"2024-03-01 08:00:00 +0100\"", "value=\"\(value)\"",
        ]
        return " <Record \(parts.compactMap { $0 }.joined(separator: " "))/>\n"
      }
      let mass = "QuantityTypeIdentifierBodyMass"
      let sleep = "CategoryTypeIdentifierSleepAnalysis"
      let inBed = "HKCategoryValueSleepAnalysisInBed"
      // `STRAY` becomes a lone continuation byte: the same bytes that are not UTF-8 in two rows running.
      let text =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
        + record(mass, source: "WaSTRAYge", version: "1", device: device("a1"), unit: "kg", value: "70")
        + record(mass, source: "WaSTRAYge", version: "1", device: device("a2"), unit: "kg", value: "71")
        + record(sleep, source: "Scale", version: nil, device: nil, unit: nil, value: inBed)
        + record(mass, source: "Scale", version: "2", device: device("a3"), unit: "lb", value: "150")
        + record(mass, source: "Scale", version: "2", device: nil, unit: "lb", value: "151")
        + record(mass, source: "WaSTRAYge", version: "2", device: device("a4"), unit: "lb", value: "152")
        + "</HealthData>\n"
      let bytes = text.split(separator: "STRAY", omittingEmptySubsequences: false)
        .map { Array($0.utf8) }.joined(separator: [0xBF]).map { $0 }
      try Data(bytes).write(to: directory.appendingPathComponent("export.xml"))
      let result = try StepkitRunner.run(["sqlite", "export.xml", "out.db"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      #expect(
        result.standardError.contains(
          "stepkit: 3 records hold bytes that are not UTF-8; each is written to the database as U+FFFD\n"))
      let watch = ["Apple Watch", "Apple Inc.", "Watch", "Watch6,2", "10.3"]
      let none = ["NULL", "NULL", "NULL", "NULL", "NULL"]
      let rows = try query(
        directory.appendingPathComponent("out.db").path,
        "SELECT type, unit, value, value_text, source, source_version, device_name, device_manufacturer, "
          + "device_model, device_hardware, device_software FROM records ORDER BY id")
      #expect(
        rows == [
          ["HK" + mass, "kg", "70.0", "NULL", "Wa\u{FFFD}ge", "1"] + watch,
          ["HK" + mass, "kg", "71.0", "NULL", "Wa\u{FFFD}ge", "1"] + watch,
          ["HK" + sleep, "NULL", "NULL", inBed, "Scale", "NULL"] + none,
          ["HK" + mass, "lb", "150.0", "NULL", "Scale", "2"] + watch,
          ["HK" + mass, "lb", "151.0", "NULL", "Scale", "2"] + none,
          ["HK" + mass, "lb", "152.0", "NULL", "Wa\u{FFFD}ge", "2"] + watch,
        ])
    }
  }

  /// Top-level `<Record` lines of a fixture, counted as text (every fixture writes one element a line, indented by one space).
  private static func naiveRecordCount(_ name: String) throws -> Int {
    let text = try String(contentsOf: StepkitRunner.fixtures.appendingPathComponent(name), encoding: .utf8)
    return text.split(separator: "\n").filter { $0.hasPrefix(" <Record ") }.count
  }

  @Test("A cohort database: every export's records under its id, a localized entry name too")
  func cohort() throws {
    let folder = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: folder) }
    let database = folder.appendingPathComponent("cohort.db").path
    let result = try StepkitRunner.run(["sqlite", "cohort", database, "-q"])
    #expect(result.exitCode == 1)  // carol's export is cut short
    let counts = try query(database, "SELECT export, COUNT(*) FROM records GROUP BY export ORDER BY export")
    // watch-and-phone.xml holds two records that end before they start (lines 128 and 130).
    let alice = try Self.naiveRecordCount("watch-and-phone.xml") - 2
    let dave = try Self.naiveRecordCount("cohort/dave.xml")
    #expect(counts == [["alice", "\(alice)"], ["bob", "\(alice)"], ["dave", "\(dave)"]])
    #expect(try query(database, "SELECT COUNT(*) FROM records WHERE export IS NULL") == [["0"]])
    // A second run with the same files skips them all; their rows stay.
    let again = try StepkitRunner.run(["sqlite", "cohort", database])
    #expect(again.standardError.contains("0 added, 1 replaced, 3 skipped"))
    #expect(
      try query(database, "SELECT export, COUNT(*) FROM records GROUP BY export ORDER BY export") == counts)
  }
}
