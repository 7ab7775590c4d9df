import Foundation
import Testing

@testable import stepkit

/// `records` and `samples` of a single export are written page by page
/// (``RecordPages``, ``SamplePages``); a cohort's go through SQLite's own
/// inserts (``RecordRows``, ``SQLiteWriter/write(_:log:export:rule:)``). The same
/// export written both ways must read back the same through SQLite, value
/// for value and storage class for storage class, and pass
/// `PRAGMA integrity_check`, which also checks that each index holds exactly
/// the table's rows in SQLite's order.
@Suite("records and samples written page by page, as SQLite writes them")
struct RecordPagesTests {
  /// Every column of `records` but `id` and `export`: its bytes in hex (text
  /// as stored, not as Swift would repair it), its value and its storage class.
  static let columns = RecordFields.columns.map { "hex(\($0)), quote(\($0)), typeof(\($0))" }.joined(
    separator: ", ")

  /// An export with what a page writer could get wrong: bytes that are not
  /// UTF-8 in a type, a unit, a source and a category's value; metadata too
  /// long for one page (overflow pages); numbers of every width and type;
  /// types whose names are prefixes of others.
  static func craftedExport() -> [UInt8] {
    var text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <ExportDate value="2024-03-02 10:00:00 +0100"/>

      """
    let values = [
      "0", "1", "-1", "127", "-129", "32768", "8388608", "2147483648", "1e300", "-0", "0.1", "72.5",
      "9007199254740993", "140737488355328", "2.5e-300",
    ]
    for (index, value) in values.enumerated() {
      let type = index % 3 == 0 ? "HKQuantityTypeIdentifierHeart" : "HKQuantityTypeIdentifierHeartRate"
      text += """
         <Record type="\(type)" sourceName="Watch" unit="count/min" startDate="2024-03-01 08:\(String(format: "%02d", index)):00 +0100" endDate="2024-03-01 08:\(String(format: "%02d", index)):00 +0100" value="\(value)"/>

        """
    }
    let long = String(repeating: "long &amp; “quoted” ", count: 3000)
    text += """
       <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Ring" startDate="2024-03-01 23:00:00 +0100" endDate="2024-03-02 06:00:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore">
        <MetadataEntry key="note" value="\(long)"/>
       </Record>

      """
    var bytes = Array(text.utf8)
    // A type, a unit, a source and a value with a lone 0xFF each.
    let broken = """
       <Record type="HKQuantityTypeIdentifierBodyMass\u{1}" sourceName="Scale\u{1}" unit="kg\u{1}" startDate="2024-03-01 07:00:00 +0100" endDate="2024-03-01 07:00:00 +0100" value="70"/>
       <Record type="HKCategoryTypeIdentifierMindfulSession" sourceName="App" startDate="2024-03-01 07:00:00 +0100" endDate="2024-03-01 07:10:00 +0100" value="HKCategoryValue\u{1}"/>
      </HealthData>

      """
    bytes += Array(broken.utf8).map { $0 == 1 ? 0xFF : $0 }
    return bytes
  }

  @Test(arguments: [
    "whole-export.xml", "ios8-export.xml", "watch-and-phone.xml", "energy-and-flights.xml",
    "fresh-addresses.xml", "crafted",
  ])
  func sameAsSQLiteInserts(_ name: String) throws {
    try withScratchDirectory { directory in
      let bytes =
        name == "crafted"
        ? Self.craftedExport()
        : Array(try Data(contentsOf: StepkitRunner.fixtures.appendingPathComponent(name)))
      let cohort = directory.appendingPathComponent("cohort")
      try FileManager.default.createDirectory(at: cohort, withIntermediateDirectories: true)
      for file in ["single.xml", "cohort/a.xml", "cohort/b.xml"] {
        try Data(bytes).write(to: directory.appendingPathComponent(file))
      }
      let single = try StepkitRunner.run(["sqlite", "single.xml", "single.db", "-q"], in: directory)
      #expect(single.exitCode == 0, "\(single.standardError)")
      let both = try StepkitRunner.run(["sqlite", "cohort", "cohort.db", "-q"], in: directory)
      #expect(both.exitCode == 0, "\(both.standardError)")
      let pages = directory.appendingPathComponent("single.db").path
      let inserts = directory.appendingPathComponent("cohort.db").path
      #expect(try query(pages, "PRAGMA integrity_check") == [["ok"]])
      let written = try query(pages, "SELECT id, \(Self.columns) FROM records ORDER BY id")
      let expected = try query(
        inserts, "SELECT id, \(Self.columns) FROM records WHERE export = 'a' ORDER BY id")
      #expect(!written.isEmpty)
      #expect(written.count == expected.count)
      let wrong = zip(written, expected).enumerated().first { $0.element.0 != $0.element.1 }
      #expect(
        wrong == nil, "row \(wrong?.offset ?? 0): \(wrong?.element.0 ?? []) against \(wrong?.element.1 ?? [])"
      )
      // The indexes answer in the same order.
      for (index, order) in [("records_by_type", "type, start"), ("records_by_local_date", "local_date")] {
        let byPages = try query(pages, "SELECT id FROM records INDEXED BY \(index) ORDER BY \(order), id")
        let byInserts = try query(
          inserts, "SELECT id FROM records WHERE export = 'a' ORDER BY \(order), id")
        #expect(byPages == byInserts, "\(index)")
      }
      // `samples` is written page by page too (``SamplePages``).
      let sampleColumns = Self.sampleColumns.map { "hex(\($0)), quote(\($0)), typeof(\($0))" }.joined(
        separator: ", ")
      let samples = try query(pages, "SELECT id, \(sampleColumns) FROM samples ORDER BY id")
      let insertedSamples = try query(
        inserts, "SELECT id, \(sampleColumns) FROM samples WHERE export = 'a' ORDER BY id")
      #expect(samples.count == insertedSamples.count)
      let wrongSample = zip(samples, insertedSamples).enumerated().first { $0.element.0 != $0.element.1 }
      #expect(
        wrongSample == nil,
        "sample \(wrongSample?.offset ?? 0): \(wrongSample?.element.0 ?? []) against \(wrongSample?.element.1 ?? [])"
      )
      for (index, order) in [
        ("samples_by_start", "kind, start"), ("samples_by_local_date", "local_date"),
        ("samples_by_source", "source, kind"),
      ] {
        let byPages = try query(pages, "SELECT id FROM samples INDEXED BY \(index) ORDER BY \(order), id")
        let byInserts = try query(
          inserts, "SELECT id FROM samples WHERE export = 'a' ORDER BY \(order), id")
        #expect(byPages == byInserts, "\(index)")
      }
    }
  }

  /// Every column of `samples` but `id` and `export`.
  static let sampleColumns = [
    "kind", "start", "end", "utc_offset", "local_date", "value", "source", "device_model", "user_entered",
    "counted",
  ]
}
