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
