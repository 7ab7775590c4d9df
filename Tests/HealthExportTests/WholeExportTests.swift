import Foundation
import StepKitCore
import Testing

@testable import ExportGenerator
@testable import HealthExport

/// One top-level `<Record>` as both readers see it: every attribute by name, and the metadata in order.
private struct ReadRecord: Hashable {
  var attributes: [String: String]
  var metadata: [String]
}

/// The independent reference: Foundation's `XMLParser` (libxml2, ``ReferenceXMLRecords``), with
/// the validity rules written out from the documentation of ``ExportReader/forEachElement(in:threads:progress:_:)``.
private struct ReferenceReader {
  var valid: [ReadRecord] = []
  var invalid = 0

  static func read(_ data: Data) throws -> ReferenceReader {
    var reader = ReferenceReader()
    for record in try ReferenceXMLRecords.read(String(decoding: data, as: UTF8.self)) {
      let read = ReadRecord(
        attributes: record.attributes, metadata: record.metadata.map { "\($0.key)=\($0.value)" })
      if isValid(read.attributes) { reader.valid.append(read) } else { reader.invalid += 1 }
    }
    return reader
  }

  private static let formatter: DateFormatter = {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
    return formatter
  }()

  private static func isValid(_ attributes: [String: String]) -> Bool {
    guard let type = attributes["type"], attributes["sourceName"] != nil,
      let start = attributes["startDate"].flatMap(Self.formatter.date(from:)),
      let end = attributes["endDate"].flatMap(Self.formatter.date(from:)), end >= start
    else { return false }
    if let creation = attributes["creationDate"], Self.formatter.date(from: creation) == nil { return false }
    if type.hasPrefix("HKQuantityTypeIdentifier") {
      guard let value = attributes["value"].flatMap(Double.init), value.isFinite else { return false }
    }
    return true
  }
}

/// Every record the whole-export reader hands out, as a ``ReadRecord``, and
/// every element's kind in the order handed out; with `batchBytes`, read on a
/// thread of its own and handed over in batches of about that many bytes.
private func wholeExport(
  _ data: Data, bufferBytes: Int = XMLScanner.defaultBufferBytes, chunkSize: Int = Int.max,
  batchBytes: Int? = nil
) throws -> (records: [ReadRecord], report: WholeExportReport, kinds: [String]) {
  var records: [ReadRecord] = []
  var kinds: [String] = []
  let names: [RawRecord.Field: String] = [
    .type: "type", .sourceName: "sourceName", .sourceVersion: "sourceVersion", .device: "device",
    .unit: "unit",
    .creationDate: "creationDate", .startDate: "startDate", .endDate: "endDate", .value: "value",
  ]
  let source = ChunkedSource(Array(data), chunkSize: chunkSize)
  func handle(_ element: ExportElement) {
    switch element {
    case .workout(let workout): kinds.append("workout \(workout.activityType)")
    case .activitySummary(let summary): kinds.append("summary \(summary.date)")
    case .correlation(let correlation): kinds.append("correlation \(correlation.type)")
    case .record(let record): kinds.append("record \(record.string(.type) ?? "")")
    }
    guard case .record(let record) = element else { return }
    var read = ReadRecord(attributes: [:], metadata: [])
    for field in RawRecord.Field.allCases {
      if let text = record.string(field) { read.attributes[names[field]!] = text }
    }
    for index in 0..<record.otherAttributeCount {
      read.attributes[String(decoding: record.otherAttributeName(index), as: UTF8.self)] = String(
        decoding: record.otherAttributeValue(index), as: UTF8.self)
    }
    for index in 0..<record.metadataCount {
      read.metadata.append(
        String(decoding: record.metadataKey(index), as: UTF8.self) + "="
          + String(decoding: record.metadataValue(index), as: UTF8.self))
    }
    records.append(read)
  }
  let report =
    if let batchBytes {
      try ExportReader.forEachElementInBatches(
        source: source, bufferBytes: bufferBytes, batchBytes: batchBytes, handle)
    } else {
      try ExportReader.forEachElement(source: source, bufferBytes: bufferBytes, handle)
    }
  return (records, report, kinds)
}

/// Records per type.
private func counts(_ records: [ReadRecord]) -> [String: Int] {
  records.reduce(into: [:]) { $0[$1.attributes["type"] ?? "", default: 0] += 1 }
}

private let cliFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent()
  .appendingPathComponent("stepkitTests/Fixtures")

private typealias T = ExportTestSupport

@Suite("Whole export: every record")
struct WholeExportTests {
  @Test(
    "Every record of the real and hand-written exports, as XMLParser reads them",
    arguments: [
      "tdda-export6s3sample.xml", "hk2sqlite-export.xml", "hk2sqlite-zip-export.xml",
      "stepkit:watch-and-phone.xml", "stepkit:fresh-addresses.xml", "stepkit:energy-and-flights.xml",
      "stepkit:per-kind-classes.xml",
    ])
  func againstXMLParser(_ name: String) throws {
    let data =
      name.hasPrefix("stepkit:")
      ? try Data(contentsOf: cliFixtures.appendingPathComponent(String(name.dropFirst(8))))
      : try ExportTestSupport.fixture(name)
    let reference = try ReferenceReader.read(data)
    let (records, report, kinds) = try wholeExport(data)
    #expect(!reference.valid.isEmpty)
    #expect(counts(records) == counts(reference.valid))
    #expect(records == reference.valid)
    #expect(report.invalid.count == reference.invalid)
    #expect(report.records == records.count)
    #expect(report.info.recordCount == reference.valid.count + reference.invalid)
    // Tiny buffers and pieces: every record crosses a refill.
    let (pieces, piecesReport, _) = try wholeExport(data, bufferBytes: 64, chunkSize: 7)
    #expect(pieces == records)
    #expect(piecesReport.invalid == report.invalid)
    // Read on a second thread, in batches from one record each to the default 1 MiB.
    for batchBytes in [1, 512, 1 << 20] {
      let batched = try wholeExport(data, batchBytes: batchBytes)
      #expect(batched.records == reference.valid)
      #expect(batched.kinds == kinds)
      #expect(batched.report.invalid == report.invalid)
      #expect(batched.report.records == report.records)
    }
  }

  @Test("A generated Watch wearer's export: every record, as XMLParser reads them")
  func generated() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stepkit-whole-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("export.xml").path
    _ = try generateExport(arguments: ["--preset", "demo", "-o", path])
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let reference = try ReferenceReader.read(data)
    let (records, report, kinds) = try wholeExport(data)
    #expect(reference.valid.count > 1000)
    #expect(counts(records) == counts(reference.valid))
    #expect(records == reference.valid)
    #expect(report.invalid.count == reference.invalid)
    // Read on a second thread: workouts, summaries and correlations among the records, in file order.
    #expect(kinds.contains { $0.hasPrefix("workout") } && kinds.contains { $0.hasPrefix("correlation") })
    for batchBytes in [4096, 1 << 20] {
      let batched = try wholeExport(data, batchBytes: batchBytes)
      #expect(batched.records == reference.valid)
      #expect(batched.kinds == kinds)
      #expect(batched.report.invalid == report.invalid)
    }
  }

  @Test("An export's hundreds of workouts and summaries in a row go over in batches, in file order")
  func manyElements() throws {
    // 600 summaries and 150 workouts, a step record after every 50 elements: batches are handed
    // over at Batch.elementLimit elements as well as at their bytes.
    var body = ""
    var expected: [String] = []
    for day in 0..<600 {
      let date = "2023-\(String(format: "%02d", day / 28 % 12 + 1))-\(String(format: "%02d", day % 28 + 1))"
      body += " <ActivitySummary dateComponents=\"\(date)\" activeEnergyBurned=\"\(day)\"/>\n"
      expected.append("summary \(date)")
      if day % 4 == 0 {
        body += """
           <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="30" durationUnit="min" \
          sourceName="Watch" startDate="\(date) 08:00:00 +0800" endDate="\(date) 08:30:00 +0800">
            <MetadataEntry key="HKTimeZone" value="Asia/Shanghai"/>
           </Workout>

          """
        expected.append("workout HKWorkoutActivityTypeWalking")
      }
      if expected.count % 50 == 0 {
        body += T.steps("\(day)", start: "\(date) 09:00:00 +0800", end: "\(date) 09:10:00 +0800") + "\n"
        expected.append("record HKQuantityTypeIdentifierStepCount")
      }
    }
    let data = Data(T.export(body).utf8)
    let (_, report, kinds) = try wholeExport(data)
    #expect(report.invalid.count == 0)
    #expect(kinds == expected)
    for batchBytes in [4096, 1 << 20] {
      let batched = try wholeExport(data, batchBytes: batchBytes)
      #expect(batched.kinds == expected)
      #expect(batched.report.invalid == report.invalid)
    }
  }

  @Test("Records with more metadata entries and unknown attributes than the reader first makes room for")
  func manySpans() throws {
    // 40 entries and 12 attributes outside the known ones: past the 16 and 4 the spans start with.
    let entries = (0..<40).map { "  <MetadataEntry key=\"key\($0)\" value=\"value \($0)\"/>\n" }.joined()
    let extra = (0..<12).map { "extra\($0)=\"\($0 * 7)\"" }.joined(separator: " ")
    func record(_ value: Int, attributes: String, children: String) -> String {
      let head =
        " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Watch\" unit=\"count/min\" "
        + "startDate=\"2024-03-01 08:00:00 +0100\" endDate=\"2024-03-01 08:00:00 +0100\" value=\"\(value)\""
      let end = children.isEmpty ? "/>\n" : ">\n\(children) </Record>\n"
      return head + " \(attributes)" + end
    }
    let records =
      record(60, attributes: extra, children: entries)
      + record(61, attributes: "", children: "  <MetadataEntry key=\"only\" value=\"1\"/>\n")
      + record(62, attributes: extra, children: entries)
    let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    let data = Data((head + records + "</HealthData>\n").utf8)
    let reference = try ReferenceReader.read(data)
    let read = try wholeExport(data)
    #expect(reference.valid.count == 3)
    #expect(read.records == reference.valid)
    #expect(read.records.first?.metadata.count == 40 && read.records.first?.attributes.count == 18)
    #expect(try wholeExport(data, batchBytes: 1).records == reference.valid)
    // A name outside the known ones given twice, past the first room: that record is invalid
    // (XMLParser refuses the whole file), the others are read as before.
    let repeated = record(63, attributes: extra + " extra11=\"again\"", children: "")
    let withRepeat = try wholeExport(Data((head + records + repeated + "</HealthData>\n").utf8))
    #expect(withRepeat.records == reference.valid)
    #expect(withRepeat.report.invalid.count == 1)
  }

  @Test("iOS 8: source=, compact dates, HKWasUserEntered and metadata named with spaces as attributes")
  func iOS8() throws {
    let data = try Data(contentsOf: cliFixtures.appendingPathComponent("ios8-export.xml"))
    var sources: [String] = []
    var others: [[String]] = []
    var starts: [Int64] = []
    let report = try ExportReader.forEachElement(in: .data(data, name: "export.xml")) { element in
      guard case .record(let record) = element else { return }
      sources.append(record.string(.sourceName) ?? "")
      starts.append(record.startMilliseconds)
      others.append(
        (0..<record.otherAttributeCount).map {
          String(decoding: record.otherAttributeName($0), as: UTF8.self)
        })
    }
    // Counted by hand: 7 records, none invalid.
    #expect(report.records == 7)
    #expect(report.invalid.count == 0)
    #expect(
      sources == [
        "Ada’s iPhone", "Ada’s iPhone", "Ada’s iPhone", "Health", "Health Mate", "Health Mate", "Health Mate",
      ])
    // 2015-06-14 08:43:00 -0700.
    #expect(starts[0] == 1_434_296_580_000)
    #expect(others[3] == ["source", "HKWasUserEntered"])
    #expect(others[4] == ["source", "Health Mate App Version", "Withings User Identifier"])
  }

  @Test("Invalid records of any type are reported with file, line and column, and reading goes on")
  func invalidRecords() throws {
    let data = try Data(contentsOf: cliFixtures.appendingPathComponent("whole-export.xml"))
    var types: [String] = []
    var metadata: [String] = []
    var values: [String] = []
    let report = try ExportReader.forEachElement(in: .data(data, name: "whole-export.xml")) { element in
      guard case .record(let record) = element else { return }
      types.append(record.string(.type) ?? "")
      values.append(record.numericValue.map { "\($0)" } ?? record.string(.value) ?? "")
      for index in 0..<record.metadataCount {
        metadata.append(
          String(decoding: record.metadataKey(index), as: UTF8.self) + "="
            + String(decoding: record.metadataValue(index), as: UTF8.self))
      }
    }
    #expect(
      types == [
        "HKQuantityTypeIdentifierDietaryEnergyConsumed", "HKCategoryTypeIdentifierSleepAnalysis",
        "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount",
        "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
      ])
    #expect(values == ["640.0", "HKCategoryValueSleepAnalysisAsleepCore", "58.0", "1234.0", "118.0", "76.0"])
    // Keys that differ only by case both land; entities decoded.
    #expect(
      metadata == ["Meal=Lunch", "meal=lunch & \"coffee\"", "HKMetadataKeyHeartRateMotionContext=1"])
    #expect(report.info.recordCount == 11)
    #expect(report.invalid.count == 5)
    #expect(
      report.invalid.examples.map { "\($0.location?.description ?? "") \($0.reason)" } == [
        "whole-export.xml:17:2 unreadable date '2024-13-01 10:00:00 +0100'",
        "whole-export.xml:18:2 unreadable value '7O.2'",
        "whole-export.xml:19:2 attribute 'unit' appears twice",
        "whole-export.xml:20:2 end date before start date",
        "whole-export.xml:22:3 attribute 'value' appears twice",
      ])
  }
}
