import Foundation
import Testing

@testable import ExportGenerator
@testable import HealthExport

/// A record as handed out, every field copied out of its spans.
private struct CopiedRecord: Equatable {
  var fields: [String?]
  var metadata: [String]
  var others: [String]
  var times: [Int64?]
  var offset: Int
  var number: Double?

  init(_ record: RawRecord) {
    fields = RawRecord.Field.allCases.map { record.string($0) }
    metadata = (0..<record.metadataCount).map {
      String(decoding: record.metadataKey($0), as: UTF8.self) + "="
        + String(decoding: record.metadataValue($0), as: UTF8.self)
    }
    others = (0..<record.otherAttributeCount).map {
      String(decoding: record.otherAttributeName($0), as: UTF8.self) + "="
        + String(decoding: record.otherAttributeValue($0), as: UTF8.self)
    }
    times = [record.startMilliseconds, record.endMilliseconds, record.creationMilliseconds]
    offset = record.utcOffsetSeconds
    number = record.numericValue
  }
}

/// `forEachRecord(in:ofTypes:threads:)`: the records of the chosen types, as the whole-export
/// path hands them out, whether the others are passed over on their bytes or lexed, read on the
/// calling thread or on a thread of its own in batches.
@Suite("Records of chosen types")
struct TypedRecordTests {
  private static func generated(days: Int = 5) throws -> Data {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("typed-\(UUID().uuidString).xml")
      .path
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try generateExport(arguments: ["--seed", "9", "--days", "\(days)", "-o", path])
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }

  private static func source(_ data: Data) -> any ByteChunkSource {
    MemoryChunkSource(data, displayName: "export.xml")
  }

  @Test(
    "Each way of reading hands out the whole-export path's records of the types, in order",
    arguments: [
      ["HKQuantityTypeIdentifierHeartRate"],
      ["HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierDistanceWalkingRunning"],
      ["HKQuantityTypeIdentifierHeartRateVariabilitySDNN"], ["HKQuantityTypeIdentifierNoSuchType"],
    ])
  func sameRecords(_ types: [String]) throws {
    let data = try Self.generated()
    var whole: [CopiedRecord] = []
    let wholeReport = try ExportReader.forEachElement(source: Self.source(data)) { element in
      if case .record(let record) = element, let type = record.string(.type), types.contains(type) {
        whole.append(CopiedRecord(record))
      }
    }
    #expect(types.contains("HKQuantityTypeIdentifierNoSuchType") == whole.isEmpty)
    let filter = RecordTypeFilter(types)
    for fast in [true, false] {
      var typed: [CopiedRecord] = []
      let report = try ExportReader.forEachRecord(
        source: Self.source(data), ofTypes: filter, fastRecords: fast
      ) {
        typed.append(CopiedRecord($0))
      }
      #expect(typed == whole, "fastRecords: \(fast)")
      #expect(report.records == whole.count)
      #expect(report.info.recordCount == wholeReport.info.recordCount)
    }
    // Batches small enough that nearly every record starts one.
    for batchBytes in [1, 700, 1 << 20] {
      var batched: [CopiedRecord] = []
      let report = try ExportReader.forEachRecordInBatches(
        source: Self.source(data), ofTypes: filter, batchBytes: batchBytes
      ) { batched.append(CopiedRecord($0)) }
      #expect(batched == whole, "batches of \(batchBytes) bytes")
      #expect(report.records == whole.count)
    }
  }

  /// Records written as Apple writes them, with devices that change address
  /// from record to record (sometimes its length), escaped names, references
  /// in other values, unknown attributes, categories and invalid records
  /// among them, all before a long tail so that each has the bytes after it
  /// that reading it straight from its bytes needs.
  private static func mixedExport() -> String {
    var generator = SystemRandomNumberGenerator()
    func hex(_ count: Int) -> String {
      String((0..<count).map { _ in "0123456789abcdef".randomElement(using: &generator)! })
    }
    let devices = [
      {
        "&lt;&lt;HKDevice: 0x\(hex(9))&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
          + "hardware:Watch6,1, software:9.1&gt;"
      },
      {
        "&lt;&lt;HKDevice: 0x\(hex(Int.random(in: 8...12)))&gt;, name:Tom &amp; Jerry&apos;s Watch, "
          + "manufacturer:Apple Inc., model:Watch&gt;"
      },
      { "&#60;&lt;HKDevice: 0x\(hex(9))&gt;, name:iPhone, model:iPhone&gt;" },
      { "&lt;&lt;HKDevice: 0x\(hex(9).uppercased())&gt;, name:iPhone, 0x\(hex(4)), model:iPhone&gt;" },
      { "name:Legacy scale" },
      { "&lt;&lt;HKDevice: 0x\(hex(9))&gt;, name:Zepp&#x20;iPhone&gt;" },
    ]
    var lines = [
      #"<?xml version="1.0" encoding="UTF-8"?>"#, #"<HealthData locale="en_US">"#,
      #" <ExportDate value="2026-04-06 10:00:00 +0000"/>"#,
    ]
    for i in 0..<3000 {
      let minute = i % 60
      let hour = (i / 60) % 24
      let day = 1 + i / 1440
      let start = "2026-04-0\(day) \(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute):00 +0200"
      let device = devices[(i / 7) % devices.count]()
      let source = i % 13 == 0 ? "Tom &amp; Jerry" : "Apple Watch"
      let end = i % 97 == 0 ? "2026-03-01 00:00:00 +0200" : start
      switch i % 5 {
      case 0, 1, 2:
        let children =
          i % 3 == 0
          ? ">\n  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"\(i % 3)\"/>\n </Record>"
          : "/>"
        let extra = i % 41 == 0 ? #" note="x""# : ""
        let value = i % 29 == 0 ? "7&#50;" : "\(60 + i % 40)"
        lines.append(
          #" <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="\#(source)" sourceVersion="9.1" "#
            + #"device="\#(device)" unit="count/min" creationDate="\#(start)" startDate="\#(start)" "#
            + #"endDate="\#(end)" value="\#(value)"\#(extra)\#(children)"#)
      case 3:
        lines.append(
          #" <Record type="HKCategoryTypeIdentifierSleepAnalysis" sourceName="\#(source)" "#
            + #"device="\#(device)" startDate="\#(start)" endDate="\#(end)" "#
            + #"value="HKCategoryValueSleepAnalysisAsleepCore"/>"#)
      default:
        lines.append(
          #" <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" sourceName="\#(source)" "#
            + #"device="\#(device)" unit="kcal" startDate="\#(start)" endDate="\#(start)" value="0.5"/>"#)
      }
    }
    lines.append(String(repeating: " <!-- the tail -->\n", count: 400) + "</HealthData>")
    return lines.joined(separator: "\n")
  }

  /// Reads an export's bytes, with the fast path or without, handing each record to the body.
  private typealias ReadRecords = (_ data: Data, _ fast: Bool, _ body: (RawRecord) -> Void) throws
    -> WholeExportReport

  /// Reads `mixedExport()` with and without the fast path through `read`
  /// (which hands each record to its body) and checks every record against
  /// what Foundation's XML parser reads of the records `wanted` keeps, and
  /// that the two ways agree.
  private static func expectParserRecords(
    wanted: (ReferenceXMLRecords.Record) -> Bool, _ read: ReadRecords
  ) throws {
    let text = mixedExport()
    let expected = try ReferenceXMLRecords.read(text).filter(wanted)
    let data = Data(text.utf8)
    var reports: [WholeExportReport] = []
    var handedOut: [[CopiedRecord]] = []
    for fast in [true, false] {
      var records: [CopiedRecord] = []
      let report = try read(data, fast) { records.append(CopiedRecord($0)) }
      reports.append(report)
      handedOut.append(records)
      // Every record the XML parser reads, but for the invalid ones (an end before the start).
      let valid = expected.filter { $0.attributes["endDate"]!.hasPrefix("2026-04") }
      #expect(records.count == valid.count)
      for (record, reference) in zip(records, valid) {
        for field in RawRecord.Field.allCases {
          #expect(record.fields[field.rawValue] == reference.attributes["\(field)"], "\(field)")
        }
        #expect(record.metadata == reference.metadata.map { "\($0.key)=\($0.value)" })
        #expect(record.others == reference.attributes.keys.filter { $0 == "note" }.map { "\($0)=x" })
      }
      #expect(report.invalid.count == expected.count - valid.count)
    }
    #expect(handedOut[0] == handedOut[1])
    // The fast path read over a third of them (the others have a reference outside the device, a
    // device it has not met, an unknown attribute); without it, none.
    #expect(reports[0].recordsDecodedStraight > expected.count / 3)
    #expect(reports[1].recordsDecodedStraight == 0)
    #expect(reports[0].invalid == reports[1].invalid)
  }

  @Test("Records read straight from their bytes hold what an XML parser reads, devices and all")
  func straightFromBytes() throws {
    let types = ["HKQuantityTypeIdentifierHeartRate", "HKCategoryTypeIdentifierSleepAnalysis"]
    let read: ReadRecords = { data, fast, body in
      try ExportReader.forEachRecord(
        source: Self.source(data), ofTypes: RecordTypeFilter(types), fastRecords: fast, body)
    }
    try Self.expectParserRecords(wanted: { types.contains($0.attributes["type"] ?? "") }, read)
  }

  @Test(
    "Every element of the whole export, records read straight from their bytes or lexed, as an XML parser reads them"
  )
  func wholeExportStraightFromBytes() throws {
    let read: ReadRecords = { data, fast, body in
      try ExportReader.forEachElement(source: Self.source(data), bufferBytes: 1 << 16, fastRecords: fast) {
        if case .record(let record) = $0 { body(record) }
      }
    }
    try Self.expectParserRecords(wanted: { _ in true }, read)
  }

  @Test("A type with a reference in it is decoded either way: wanted, or a malformed export")
  func referenceInType() throws {
    let tail = String(repeating: " <!-- the tail -->\n", count: 400) + "</HealthData>"
    func export(_ type: String) -> Data {
      Data(
        (#"<?xml version="1.0" encoding="UTF-8"?>\#n<HealthData locale="en_US">\#n"#
          + #" <Record type="\#(type)" sourceName="Watch" unit="count/min" "#
          + #"startDate="2026-04-04 10:00:00 +0200" endDate="2026-04-04 10:00:00 +0200" value="61"/>\#n"#
          + tail).utf8)
    }
    let wanted = ["HKQuantityTypeIdentifierHeartRate"]
    for fast in [true, false] {
      var types: [String?] = []
      _ = try ExportReader.forEachRecord(
        source: Self.source(export("HKQuantityTypeIdentifierHeart&#82;ate")),
        ofTypes: RecordTypeFilter(wanted),
        fastRecords: fast
      ) { types.append($0.string(.type)) }
      #expect(types == wanted, "fastRecords: \(fast)")
      #expect(throws: HealthExportError.self, "fastRecords: \(fast)") {
        try ExportReader.forEachRecord(
          source: Self.source(export("HKQuantityTypeIdentifierStep&ount")), ofTypes: RecordTypeFilter(wanted),
          fastRecords: fast
        ) { _ in }
      }
    }
  }

  @Test("A record of another type that cannot be passed over on its bytes is still not handed out")
  func unwantedRecordReadCarefully() throws {
    // A `>` in the type ends the tag too early for passing over on bytes, a `'` makes the lexer read it.
    let records = [
      "HKQuantityTypeIdentifierBody>MassIndex", "HKQuantityTypeIdentifierBody'MassIndex",
      "HKQuantityTypeIdentifierHeartRate",
    ]
    .map {
      #" <Record type="\#($0)" sourceName="Scale" unit="count" "#
        + #"startDate="2026-04-04 10:00:00 +0200" endDate="2026-04-04 10:00:00 +0200" value="22"/>"#
    }
    let text =
      #"<?xml version="1.0" encoding="UTF-8"?>\#n<HealthData locale="en_US">\#n"#
      + records.joined(separator: "\n")
      + "\n" + String(repeating: " <!-- the tail -->\n", count: 400) + "</HealthData>"
    for fast in [true, false] {
      var types: [String?] = []
      _ = try ExportReader.forEachRecord(
        source: Self.source(Data(text.utf8)),
        ofTypes: RecordTypeFilter(["HKQuantityTypeIdentifierHeartRate"]),
        fastRecords: fast
      ) { types.append($0.string(.type)) }
      #expect(types == ["HKQuantityTypeIdentifierHeartRate"], "fastRecords: \(fast)")
    }
  }

  private struct Enough: Error {}

  @Test("An error thrown by the body stops the reading thread and is rethrown")
  func bodyStops() throws {
    let data = try Self.generated()
    var calls = 0
    #expect(throws: Enough.self) {
      try ExportReader.forEachRecordInBatches(
        source: Self.source(data), ofTypes: RecordTypeFilter(["HKQuantityTypeIdentifierHeartRate"]),
        batchBytes: 512
      ) { _ in
        calls += 1
        if calls == 10 { throw Enough() }
      }
    }
    #expect(calls == 10)
  }

  @Test("A malformed export: the records before the error, then the error, as on one thread")
  func errorAfterRecords() throws {
    var data = try Self.generated()
    // A `<` inside the last third of the file, where an attribute value is.
    let text = String(decoding: data, as: UTF8.self)
    let cut = text.range(
      of: "value=\"", range: text.index(text.startIndex, offsetBy: text.count * 2 / 3)..<text.endIndex)!
    data = Data((text[..<cut.upperBound] + "<" + text[cut.upperBound...]).utf8)
    let filter = RecordTypeFilter(["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount"])
    func run(batched: Bool) -> (count: Int, error: String?) {
      var count = 0
      do {
        if batched {
          _ = try ExportReader.forEachRecordInBatches(
            source: Self.source(data), ofTypes: filter, batchBytes: 4096
          ) {
            _ in count += 1
          }
        } else {
          _ = try ExportReader.forEachRecord(source: Self.source(data), ofTypes: filter) { _ in count += 1 }
        }
        return (count, nil)
      } catch {
        return (count, "\(error)")
      }
    }
    let one = run(batched: false)
    #expect(one.error != nil)
    #expect(one.count > 0)
    let two = run(batched: true)
    #expect(two.count == one.count)
    #expect(two.error == one.error)
  }
}
