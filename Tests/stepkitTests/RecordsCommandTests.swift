import Foundation
import Testing

@testable import ExportGenerator

/// The top-level records of an export as Foundation's `XMLParser` (libxml2)
/// reads them (``ReferenceXMLRecords``), and the row `stepkit records` should
/// print for each, worked out here from the attributes by a naive reading of
/// the columns' meaning: no StepKit code reads, decodes or formats anything here.
enum ReferenceRecords {
  typealias Record = ReferenceXMLRecords.Record

  /// The records of `text`; attribute names with spaces (iOS 8's) are read too.
  static func read(_ text: String) throws -> [Record] {
    try ReferenceXMLRecords.read(text, spacedNames: true)
  }

  /// `2024-03-01 12:30:00 +0100` or iOS 8's `20150614084300-0700`: the instant and the offset in seconds.
  static func date(_ text: String?) -> (date: Date, offset: Int)? {
    guard let text else { return nil }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = text.contains(" ") ? "yyyy-MM-dd HH:mm:ss Z" : "yyyyMMddHHmmssZ"
    guard let date = formatter.date(from: text) else { return nil }
    let zone = text.suffix(5)
    let sign = zone.first == "-" ? -1 : 1
    let hours = Int(zone.dropFirst().prefix(2)) ?? 0
    let minutes = Int(zone.suffix(2)) ?? 0
    return (date, sign * (hours * 3600 + minutes * 60))
  }

  static func utc(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
    return formatter.string(from: date)
  }

  static func day(_ date: Date, offset: Int) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(secondsFromGMT: offset)
    formatter.dateFormat = "yyyy-MM-dd"
    return formatter.string(from: date)
  }

  /// `<<HKDevice: 0x…>, name:Apple Watch, manufacturer:Apple Inc., …>` as its fields.
  static func device(_ text: String?) -> [String: String] {
    guard var text, let close = text.firstIndex(of: ">") else { return [:] }
    text = String(text[text.index(after: close)...])
    if text.hasSuffix(">") { text.removeLast() }
    var fields: [String: String] = [:]
    for part in text.components(separatedBy: ", ") {
      guard let colon = part.firstIndex(of: ":") else { continue }
      let key = part[..<colon].trimmingCharacters(in: .whitespaces)
      if fields[key] == nil { fields[key] = String(part[part.index(after: colon)...]) }
    }
    return fields
  }

  /// The attribute names that are columns; any other is metadata (iOS 8).
  static let columnAttributes: Set<String> = [
    "type", "sourceName", "source", "sourceVersion", "device", "unit", "creationDate", "startDate", "endDate",
    "value",
  ]

  /// The row of `record`, by column, `nil` for an empty cell; `metadata` as a dictionary.
  static func row(_ record: Record) -> (cells: [String: String?], value: Double?, metadata: [String: String]?)
  {
    let a = record.attributes
    let start = date(a["startDate"])!
    let end = date(a["endDate"])!
    let device = device(a["device"])
    let number = a["value"].flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil }
    var metadata: [String: String] = [:]
    for entry in record.metadata where metadata[entry.key] == nil { metadata[entry.key] = entry.value }
    for (name, value) in a where !columnAttributes.contains(name) && metadata[name] == nil {
      metadata[name] = value
    }
    let cells: [String: String?] = [
      "type": a["type"], "unit": a["unit"], "value_text": number == nil ? a["value"] : nil,
      "start": utc(start.date), "end": utc(end.date), "utc_offset": String(start.offset),
      "local_date": day(start.date, offset: start.offset), "source": a["sourceName"] ?? a["source"],
      "source_version": a["sourceVersion"], "device_name": device["name"],
      "device_manufacturer": device["manufacturer"], "device_model": device["model"],
      "device_hardware": device["hardware"], "device_software": device["software"],
      "creation_date": date(a["creationDate"]).map { utc($0.date) },
    ]
    return (cells, number, metadata.isEmpty ? nil : metadata)
  }
}

/// `stepkit records`, checked against `XMLParser`'s reading of the same exports.
@Suite("stepkit records")
struct RecordsCommandTests {
  static let columns = [
    "type", "unit", "value", "value_text", "start", "end", "utc_offset", "local_date", "source",
    "source_version", "device_name", "device_manufacturer", "device_model", "device_hardware",
    "device_software", "creation_date", "metadata",
  ]

  /// Parses CSV as RFC 4180 writes it: fields in double quotes may hold
  /// commas, line breaks and doubled quotes. An empty unquoted field is `nil`.
  static func parseCSV(_ text: String) -> [[String?]] {
    var rows: [[String?]] = []
    var row: [String?] = []
    var field = ""
    var quoted = false
    var wasQuoted = false
    var characters = Array(text.unicodeScalars)[...]
    func endField() {
      row.append(field.isEmpty && !wasQuoted ? nil : field)
      field = ""
      wasQuoted = false
    }
    while let c = characters.popFirst() {
      if quoted {
        if c == "\"" {
          if characters.first == "\"" {
            field.unicodeScalars.append("\"")
            characters.removeFirst()
          } else {
            quoted = false
          }
        } else {
          field.unicodeScalars.append(c)
        }
      } else if c == "\"" {
        quoted = true
        wasQuoted = true
      } else if c == "," {
        endField()
      } else if c == "\n" {
        endField()
        rows.append(row)
        row = []
      } else {
        field.unicodeScalars.append(c)
      }
    }
    return rows
  }

  /// `stepkit records`' CSV rows checked one by one against `expected`, the reference's records in file order.
  static func expectRows(
    _ csv: String, _ expected: [ReferenceRecords.Record], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let rows = parseCSV(csv)
    #expect(rows.first == columns.map { Optional($0) }, sourceLocation: sourceLocation)
    let body = Array(rows.dropFirst())
    #expect(body.count == expected.count, sourceLocation: sourceLocation)
    for (row, record) in zip(body, expected) {
      #expect(row.count == columns.count, sourceLocation: sourceLocation)
      guard row.count == columns.count else { continue }
      let (cells, number, metadata) = ReferenceRecords.row(record)
      var found: [String: String?] = [:]
      for (column, cell) in zip(columns, row) { found[column] = cell }
      for (column, cell) in cells {
        #expect(found[column] == cell, "\(column)", sourceLocation: sourceLocation)
      }
      #expect(found["value"]!.flatMap(Double.init) == number, sourceLocation: sourceLocation)
      let json = try found["metadata"]!.flatMap {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
      }
      #expect(json == metadata, sourceLocation: sourceLocation)
    }
  }

  /// `stepkit records --format json`'s objects checked one by one against
  /// `expected`, the reference's records in file order, as ``expectRows(_:_:sourceLocation:)`` checks CSV.
  static func expectJSONRows(
    _ json: String, _ expected: [ReferenceRecords.Record], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let objects = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]],
      sourceLocation: sourceLocation)
    #expect(objects.count == expected.count, sourceLocation: sourceLocation)
    for (object, record) in zip(objects, expected) {
      #expect(Set(object.keys) == Set(columns), sourceLocation: sourceLocation)
      let (cells, number, metadata) = ReferenceRecords.row(record)
      for (column, cell) in cells where column != "utc_offset" {
        #expect(object[column] as? String == cell, "\(column)", sourceLocation: sourceLocation)
        #expect((object[column] is NSNull) == (cell == nil), "\(column)", sourceLocation: sourceLocation)
      }
      #expect(object["utc_offset"] as? Int == Int(cells["utc_offset"]!!), sourceLocation: sourceLocation)
      #expect((object["value"] as? NSNumber)?.doubleValue == number, sourceLocation: sourceLocation)
      #expect((object["value"] is NSNull) == (number == nil), sourceLocation: sourceLocation)
      #expect(object["metadata"] as? [String: String] == metadata, sourceLocation: sourceLocation)
      #expect((object["metadata"] is NSNull) == (metadata == nil), sourceLocation: sourceLocation)
    }
  }

  /// The reference's records of `type` in `file`.
  static func reference(_ file: URL, type: String) throws -> [ReferenceRecords.Record] {
    try ReferenceRecords.read(String(contentsOf: file, encoding: .utf8)).filter {
      $0.attributes["type"] == type
    }
  }

  @Test(
    "A generated export: each type's records and fields as XMLParser reads them, the short form or identifier",
    arguments: [
      ("heartRate", "HKQuantityTypeIdentifierHeartRate"),
      ("steps", "HKQuantityTypeIdentifierStepCount"),
      ("HKQuantityTypeIdentifierActiveEnergyBurned", "HKQuantityTypeIdentifierActiveEnergyBurned"),
      ("heartRateVariabilitySDNN", "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"),
      ("bloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureSystolic"),
    ])
  func generated(_ name: String, _ identifier: String) throws {
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      _ = try generateExport(arguments: ["--seed", "3", "--days", "6", "-o", export.path])
      let expected = try Self.reference(export, type: identifier)
      #expect(!expected.isEmpty)
      let result = try StepkitRunner.run(["records", "export.xml", "--type", name], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      #expect(result.standardError == "")
      try Self.expectRows(result.standardOutput, expected)
      // Read on the calling thread alone, the same bytes.
      let oneThread = try StepkitRunner.run(
        ["records", "export.xml", "--type", name, "--jobs", "1"], in: directory)
      #expect(oneThread.standardOutput == result.standardOutput)
    }
  }

  /// An export written by hand for what a generator never writes.
  static let handWritten = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="2024-03-05 09:00:00 +0100"/>
     <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="Lose It, &quot;Pro&quot;" sourceVersion="35" unit="kcal" creationDate="2024-03-01 13:00:05 +0100" startDate="2024-03-01 12:30:00 +0100" endDate="2024-03-01 12:30:00 +0100" value="640">
      <MetadataEntry key="Meal" value="Lunch"/>
      <MetadataEntry key="meal" value="lunch, &quot;coffee&quot;&#10;and cake"/>
     </Record>
     <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Ada’s Apple Watch" sourceVersion="10.3" device="&lt;&lt;HKDevice: 0x600003a1c0a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.3&gt;" creationDate="2024-03-02 07:01:00 +0100" startDate="2024-03-01 23:40:00 +0100" endDate="2024-03-02 01:10:00 +0100" value="HKCategoryValueSleepAnalysisAsleepCore"/>
     <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Sleep&#10;Cycle" startDate="2024-03-02 01:10:00 +0100" endDate="2024-03-02 06:30:00 +0100" value="HKCategoryValueSleepAnalysisAsleepDeep"/>
     <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="Sleep Cycle" startDate="2024-03-03 01:10:00 +0100" endDate="2024-03-03 00:30:00 +0100" value="HKCategoryValueSleepAnalysisInBed"/>
     <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Ada’s Apple Watch" unit="count/min" startDate="2024-03-01 06:00:00 +0100" endDate="2024-03-01 05:00:00 +0100" value="61"/>
     <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="Lose It" unit="kcal" startDate="2024-03-04 08:00:00 +0100" endDate="2024-03-04 08:00:00 +0100" value="x"/>
     <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="Lose It" unit="kJ" startDate="2024-03-04 23:30:00 -0500" endDate="2024-03-04 23:30:00 -0500" value="1.5e3"/>
    </HealthData>

    """

  @Test(
    "Keys that differ by case, quoting of commas, quotes and line feeds; the invalid record of the type reported"
  )
  func handWrittenEnergy() throws {
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      try Self.handWritten.write(to: export, atomically: true, encoding: .utf8)
      let result = try StepkitRunner.run(
        ["records", "export.xml", "--type", "dietaryEnergyConsumed"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      let expected = try Self.reference(export, type: "HKQuantityTypeIdentifierDietaryEnergyConsumed")
      // The record whose value is not a number is invalid, and named; the records of other types are not.
      try Self.expectRows(result.standardOutput, expected.filter { $0.attributes["value"] != "x" })
      #expect(
        result.standardError
          == "stepkit: 1 invalid record not written: export.xml:12:2 (unreadable value 'x')\n")
      // The first row as text: both keys, each cell quoted where RFC 4180 wants it.
      let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
      #expect(
        lines[1]
          == #"HKQuantityTypeIdentifierDietaryEnergyConsumed,kcal,640,,2024-03-01T11:30:00Z,2024-03-01T11:30:00Z,3600,2024-03-01,"Lose It, ""Pro""",35,,,,,,2024-03-01T12:00:05Z,"{""Meal"":""Lunch"",""meal"":""lunch, \""coffee\""\u000aand cake""}""#
      )
    }
  }

  @Test(
    "Rows that repeat the row before's metadata, type, unit, source or version, and rows that change one; CSV and JSON"
  )
  func repeatedFields() throws {
    func record(
      _ minute: Int, type: String = "HKQuantityTypeIdentifierHeartRate", source: String = "Watch",
      version: String? = "9.1", unit: String = "count/min", metadata: [(String, String)] = []
    )
      -> String
    {
      let date = "2024-03-01 06:\(minute < 10 ? "0" : "")\(minute):00 +0100"
      let versionAttribute = version.map { #" sourceVersion="\#($0)""# } ?? ""
      let head =
        #" <Record type="\#(type)" sourceName="\#(source)"\#(versionAttribute) "#
        + #"unit="\#(unit)" startDate="\#(date)" endDate="\#(date)" value="\#(60 + minute)""#
      guard !metadata.isEmpty else { return head + "/>" }
      return head + ">\n"
        + metadata.map { #"  <MetadataEntry key="\#($0.0)" value="\#($0.1)"/>"# }.joined(separator: "\n")
        + "\n </Record>"
    }
    let still = [("HKMetadataKeyHeartRateMotionContext", "0")]
    let active = [("HKMetadataKeyHeartRateMotionContext", "1")]
    // `heartRate` stands for every kind of type of that name: the type changes too.
    let category = "HKCategoryTypeIdentifierHeartRate"
    let records = [
      record(0, metadata: still), record(1, metadata: still), record(2, metadata: active),
      record(3, metadata: still), record(4), record(5, metadata: still + [("Note", "a \"b\", c")]),
      record(6, metadata: still + [("Note", "a \"b\", c")]),
      record(7, source: "Watch, \"2\"", metadata: still),
      record(8, source: "Watch, \"2\"", version: nil, metadata: still), record(9, version: nil),
      record(10, unit: "count/s"), record(11, metadata: [("HKMetadataKeyHeartRateMotionContext", "0\u{1}")]),
      record(12, metadata: active), record(13, metadata: active), record(14, type: category),
      record(15, type: category), record(16),
      // Changes of one byte, and of the length alone.
      record(17, version: "9.2"), record(18, version: "9.2"), record(19, version: "9.2.1"),
      record(20, source: "Watcg", version: "9.2.1"), record(21, unit: "count/mim"),
      record(22, unit: "count/min2"),
      record(23),
    ]
    let text =
      #"<?xml version="1.0" encoding="UTF-8"?>\#n<HealthData locale="en_US">\#n"#
      + records.joined(separator: "\n").replacingOccurrences(of: "\"b\"", with: "&quot;b&quot;")
      .replacingOccurrences(of: "\"2\"", with: "&quot;2&quot;").replacingOccurrences(of: "\u{1}", with: "")
      + "\n" + String(repeating: " <!-- the tail -->\n", count: 300) + "</HealthData>\n"
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      try text.write(to: export, atomically: true, encoding: .utf8)
      let result = try StepkitRunner.run(["records", "export.xml", "--type", "heartRate"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      let expected = try ReferenceRecords.read(String(contentsOf: export, encoding: .utf8))
      #expect(expected.count == 24)
      try Self.expectRows(result.standardOutput, expected)
      let json = try StepkitRunner.run(
        ["records", "export.xml", "--type", "heartRate", "--format", "json"], in: directory)
      #expect(json.exitCode == 0, "\(json.standardError)")
      try Self.expectJSONRows(json.standardOutput, expected)
    }
  }

  @Test(
    "A row left out by --from that changes the metadata, type, unit, source or version does not leave the next row the old text; CSV and JSON"
  )
  func metadataAcrossRowsLeftOut() throws {
    struct Fields {
      var type = "HKQuantityTypeIdentifierHeartRate"
      var unit = "count/min"
      var source = "Watch"
      var version: String? = "9.1"
      var context = 0
    }
    func record(day: Int, _ fields: Fields) -> String {
      let date = "2024-03-0\(day) 06:00:00 +0100"
      let version = fields.version.map { #"sourceVersion="\#($0)" "# } ?? ""
      return #" <Record type="\#(fields.type)" sourceName="\#(fields.source)" \#(version)"#
        + #"unit="\#(fields.unit)" startDate="\#(date)" endDate="\#(date)" value="60">\#n"#
        + #"  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="\#(fields.context)"/>\#n </Record>"#
    }
    // Each change made first in a row of the day before --from, then in a row that is kept.
    var fields = Fields()
    var records = [record(day: 2, fields)]
    let changes: [(inout Fields) -> Void] = [
      { $0.context = 1 }, { $0.type = "HKCategoryTypeIdentifierHeartRate" }, { $0.unit = "count/s" },
      { $0.source = "Phone" }, { $0.version = nil }, { $0.version = "9.2" },
    ]
    for change in changes {
      change(&fields)
      records += [record(day: 1, fields), record(day: 2, fields)]
    }
    let text =
      #"<?xml version="1.0" encoding="UTF-8"?>\#n<HealthData locale="en_US">\#n"#
      + records.joined(separator: "\n")
      + "\n" + String(repeating: " <!-- the tail -->\n", count: 300) + "</HealthData>\n"
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      try text.write(to: export, atomically: true, encoding: .utf8)
      let expected = try ReferenceRecords.read(String(contentsOf: export, encoding: .utf8)).filter {
        $0.attributes["startDate"]!.hasPrefix("2024-03-02")
      }
      #expect(expected.count == 7)
      let result = try StepkitRunner.run(
        ["records", "export.xml", "--type", "heartRate", "--from", "2024-03-02"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      try Self.expectRows(result.standardOutput, expected)
      let json = try StepkitRunner.run(
        ["records", "export.xml", "--type", "heartRate", "--from", "2024-03-02", "--format", "json"],
        in: directory)
      #expect(json.exitCode == 0, "\(json.standardError)")
      try Self.expectJSONRows(json.standardOutput, expected)
    }
  }

  @Test("Bytes that are not UTF-8 in fields rows repeat: U+FFFD in each row, each row counted; CSV and JSON")
  func invalidUTF8InRepeatedFields() throws {
    // `STRAY` becomes a lone continuation byte.
    func record(day: Int = 2, source: String = "Watch", version: String = "9.1", unit: String = "count/min")
      -> String
    {
      let date = "2024-03-0\(day) 06:00:00 +0100"
      return #" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="\#(source)" "#
        + #"sourceVersion="\#(version)" unit="\#(unit)" startDate="\#(date)" endDate="\#(date)" value="60"/>"#
    }
    let records = [
      record(source: "WaSTRAYge"), record(source: "WaSTRAYge"), record(day: 1, source: "WaSTRAYge"),
      record(source: "WaSTRAYge"), record(unit: "count/mSTRAYn"), record(unit: "count/mSTRAYn"),
      record(version: "9.STRAY"), record(version: "9.STRAY"), record(), record(),
    ]
    let text =
      #"<?xml version="1.0" encoding="UTF-8"?>\#n<HealthData locale="en_US">\#n"#
      + records.joined(separator: "\n")
      + "\n</HealthData>\n"
    let bytes = text.split(separator: "STRAY", omittingEmptySubsequences: false)
      .map { Array($0.utf8) }.joined(separator: [0xBF]).map { $0 }
    let sources = ["Wa\u{FFFD}ge", "Wa\u{FFFD}ge", "Wa\u{FFFD}ge"] + Array(repeating: "Watch", count: 6)
    let units =
      ["count/min", "count/min", "count/min", "count/m\u{FFFD}n", "count/m\u{FFFD}n"]
      + Array(repeating: "count/min", count: 4)
    let versions = Array(repeating: "9.1", count: 5) + ["9.\u{FFFD}", "9.\u{FFFD}", "9.1", "9.1"]
    try withScratchDirectory { directory in
      try Data(bytes).write(to: directory.appendingPathComponent("export.xml"))
      let note = "stepkit: 7 records hold bytes that are not UTF-8; each is written to the output as U+FFFD\n"
      let csv = try StepkitRunner.run(
        ["records", "export.xml", "--type", "heartRate", "--from", "2024-03-02"], in: directory)
      #expect(csv.exitCode == 0, "\(csv.standardError)")
      #expect(csv.standardError == note)
      let rows = Self.parseCSV(csv.standardOutput).dropFirst()
      #expect(rows.map { $0[8] } == sources)
      #expect(rows.map { $0[1] } == units)
      #expect(rows.map { $0[9] } == versions)
      let json = try StepkitRunner.run(
        ["records", "export.xml", "--type", "heartRate", "--from", "2024-03-02", "--format", "json"],
        in: directory)
      #expect(json.exitCode == 0, "\(json.standardError)")
      #expect(json.standardError == note)
      let objects = try #require(
        try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
      #expect(objects.map { $0["source"] as? String } == sources)
      #expect(objects.map { $0["unit"] as? String } == units)
      #expect(objects.map { $0["source_version"] as? String } == versions)
    }
  }

  @Test("A category's value as text; a source with a line feed quoted; JSON the same rows")
  func sleep() throws {
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      try Self.handWritten.write(to: export, atomically: true, encoding: .utf8)
      let result = try StepkitRunner.run(["records", "export.xml", "--type", "sleepAnalysis"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      let expected = try Self.reference(export, type: "HKCategoryTypeIdentifierSleepAnalysis")
      // The third ends before it starts.
      try Self.expectRows(result.standardOutput, Array(expected.prefix(2)))
      #expect(result.standardError.contains("export.xml:10:2 (end date before start date)"))
      #expect(result.standardOutput.contains("\"Sleep\nCycle\""))

      let json = try StepkitRunner.run(
        ["records", "export.xml", "--type", "HKCategoryTypeIdentifierSleepAnalysis", "--format", "json"],
        in: directory)
      #expect(json.exitCode == 0)
      let objects = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]]
      #expect(objects?.count == 2)
      for (object, record) in zip(objects ?? [], expected) {
        let (cells, number, metadata) = ReferenceRecords.row(record)
        for (column, cell) in cells where column != "utc_offset" {
          #expect(object[column] as? String == cell, "\(column)")
          #expect((object[column] is NSNull) == (cell == nil), "\(column)")
        }
        #expect(object["utc_offset"] as? Int == Int(cells["utc_offset"]!!))
        #expect(object["value"] is NSNull && number == nil)
        #expect(object["metadata"] is NSNull && metadata == nil)
        #expect(Set(object.keys) == Set(Self.columns))
      }
    }
  }

  @Test("Numbers in JSON: as written when JSON takes them, a number otherwise; metadata an object")
  func jsonNumbers() throws {
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      try Self.handWritten.write(to: export, atomically: true, encoding: .utf8)
      let result = try StepkitRunner.run(
        ["records", "export.xml", "--type", "dietaryEnergyConsumed", "--format", "json", "--quiet"],
        in: directory)
      #expect(result.exitCode == 0)
      #expect(result.standardError == "")
      let objects =
        try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]]
      #expect(objects?.map { ($0["value"] as? NSNumber)?.doubleValue } == [640, 1500])
      #expect(
        objects?.first?["metadata"] as? [String: String] == [
          "Meal": "Lunch", "meal": "lunch, \"coffee\"\nand cake",
        ])
      // The local date of the record at 23:30 -0500 is its own day, not UTC's.
      #expect(objects?.last?["local_date"] as? String == "2024-03-04")
      #expect(objects?.last?["utc_offset"] as? Int == -18_000)
    }
  }

  @Test("iOS 8: source= as the source, the attributes named with spaces in the metadata, compact dates")
  func iOS8() throws {
    let fixture = StepkitRunner.fixtures.appendingPathComponent("ios8-export.xml")
    for (type, identifier) in [
      ("stepCount", "HKQuantityTypeIdentifierStepCount"), ("heartRate", "HKQuantityTypeIdentifierHeartRate"),
    ] {
      let result = try StepkitRunner.run(["records", "ios8-export.xml", "--type", type])
      #expect(result.exitCode == 0, "\(result.standardError)")
      let expected = try Self.reference(fixture, type: identifier)
      #expect(!expected.isEmpty)
      try Self.expectRows(result.standardOutput, expected)
    }
  }

  @Test(
    "The real exports' records, type by type",
    arguments: ["tdda-export6s3sample.xml", "hk2sqlite-export.xml"])
  func real(_ name: String) throws {
    let file = StepkitRunner.testsDirectory.deletingLastPathComponent()
      .appendingPathComponent("HealthExportTests/Fixtures/\(name)")
    let all = try ReferenceRecords.read(String(contentsOf: file, encoding: .utf8))
    for type in Set(all.compactMap { $0.attributes["type"] }) {
      let result = try StepkitRunner.run(["records", file.path, "--type", type, "--quiet"])
      #expect(result.exitCode == 0, "\(result.standardError)")
      try Self.expectRows(result.standardOutput, all.filter { $0.attributes["type"] == type })
    }
  }

  @Test("--from and --to keep the records whose local date lies between them")
  func range() throws {
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      _ = try generateExport(arguments: ["--seed", "4", "--days", "6", "-o", export.path])
      let all = try Self.reference(export, type: "HKQuantityTypeIdentifierHeartRate")
      let days = Set(all.map { ReferenceRecords.row($0).cells["local_date"]!! }).sorted()
      #expect(days.count >= 5)
      let (from, to) = (days[1], days[3])
      let expected = all.filter {
        let day = ReferenceRecords.row($0).cells["local_date"]!!
        return day >= from && day <= to
      }
      #expect(expected.count < all.count && !expected.isEmpty)
      let result = try StepkitRunner.run(
        ["records", "export.xml", "--type", "heartRate", "--from", from, "--to", to], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      try Self.expectRows(result.standardOutput, expected)

      // A range with none of them: the header alone, and a note.
      let none = try StepkitRunner.run(
        ["records", "export.xml", "--type", "heartRate", "--from", "2001-01-01", "--to", "2001-01-02"],
        in: directory)
      #expect(none.exitCode == 0)
      #expect(none.standardOutput == Self.columns.joined(separator: ",") + "\n")
      #expect(none.standardError.contains("lies between --from and --to"))
    }
  }

  @Test("export.zip gives the XML's rows; -o writes them to a file")
  func zipAndFile() throws {
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml")
      let zip = directory.appendingPathComponent("export.zip")
      _ = try generateExport(arguments: ["--seed", "6", "--days", "5", "-o", export.path, "--zip", zip.path])
      let expected = try Self.reference(export, type: "HKQuantityTypeIdentifierActiveEnergyBurned")
      let fromZip = try StepkitRunner.run(["records", "export.zip", "--type", "energy"], in: directory)
      #expect(fromZip.exitCode == 0, "\(fromZip.standardError)")
      try Self.expectRows(fromZip.standardOutput, expected)
      let toFile = try StepkitRunner.run(
        ["records", "export.zip", "--type", "energy", "-o", "energy.csv"], in: directory)
      #expect(toFile.exitCode == 0)
      #expect(toFile.standardOutput == "")
      #expect(toFile.standardError.hasPrefix("stepkit: wrote energy.csv ("))
      let written = try String(contentsOf: directory.appendingPathComponent("energy.csv"), encoding: .utf8)
      #expect(written == fromZip.standardOutput)
    }
  }

  @Test("A type the export lacks is an error naming its nearest types; nothing is written")
  func unknownType() throws {
    let result = try StepkitRunner.run(["records", "ios8-export.xml", "--type", "hartRate"])
    #expect(result.exitCode == 2)
    #expect(result.standardOutput == "")
    #expect(
      result.standardError.hasPrefix(
        "stepkit: error: no records of type 'hartRate' in ios8-export.xml; did you mean 'heartRate'?"))
    let bad = try StepkitRunner.run(["records", "ios8-export.xml", "--type", "heart rate"])
    #expect(bad.exitCode == 2)
    #expect(bad.standardError.contains("invalid --type 'heart rate'"))
    let format = try StepkitRunner.run([
      "records", "ios8-export.xml", "--type", "heartRate", "--format", "table",
    ])
    #expect(format.exitCode == 2)
    #expect(format.standardError.contains("expected csv or json"))
  }
}
