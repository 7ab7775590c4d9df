import Foundation
@_spi(Testing) import HealthExport
import StepKitCore

/// Reads one input as export XML front to back and again cut into small
/// stretches on several threads (the stretch size taken from the input, so
/// that seams land everywhere), then from a file, copied with `pread` and in
/// place from mapped windows of a size taken from the input, on one thread
/// and on two, and checks that every read agrees: the same samples, origins,
/// counts, invalid-record report, or the same error at the same line and
/// column. Followed by enough line feeds for every record to be read
/// straight from its bytes, it is also read with every tag lexed, which must
/// agree as well, and so must the records of a few types and every element
/// of the whole export handed out either way. Any difference is a finding.
func fuzzParallel(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in bytes.prefix(256) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
  let expected = outcome(of: bytes, threads: 1, chunkBytes: 0)
  for (threads, chunkBytes) in [(2, Int(hash % 97) + 1), (3, Int((hash >> 8) % 1024) + 1)] {
    let got = outcome(of: bytes, threads: threads, chunkBytes: chunkBytes)
    if got != expected {
      fatalError("\(threads) threads, stretches of \(chunkBytes) bytes: \(got)\none thread: \(expected)")
    }
  }
  let padded = bytes + Data(repeating: UInt8(ascii: "\n"), count: 4200)
  let fast = outcome(of: padded, fastRecords: true)
  let careful = outcome(of: padded, fastRecords: false)
  if fast != careful { fatalError("records read straight from their bytes: \(fast)\nevery tag lexed: \(careful)") }
  let fastRecords = records(of: padded, fastRecords: true)
  let carefulRecords = records(of: padded, fastRecords: false)
  if fastRecords != carefulRecords {
    fatalError("typed records read straight from their bytes: \(fastRecords)\nevery tag lexed: \(carefulRecords)")
  }
  let fastElements = elements(of: padded, fastRecords: true)
  let carefulElements = elements(of: padded, fastRecords: false)
  if fastElements != carefulElements {
    fatalError("every element, records read straight from their bytes: \(fastElements)\nevery tag lexed: \(carefulElements)")
  }
  guard FileManager.default.createFile(atPath: filePath, contents: bytes) else {
    fatalError("cannot write \(filePath)")
  }
  let window = Int((hash >> 16) % 200) + 1
  for (threads, chunkBytes, windowBytes) in [
    (1, 0, nil), (1, 0, window), (1, 0, 4096), (2, Int((hash >> 24) % 300) + 1, window),
  ] as [(Int, Int, Int?)] {
    let got = outcome(ofFile: filePath, threads: threads, chunkBytes: chunkBytes, windowBytes: windowBytes)
    if got != expected {
      fatalError(
        "file, \(threads) threads, stretches of \(chunkBytes) bytes, windows of \(String(describing: windowBytes)): "
          + "\(got)\none thread: \(expected)")
    }
  }
  return 0
}

/// Where each input is written to be read as a file: memory when `/dev/shm` is there.
private let filePath =
  (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
  + "/stepkit-fuzz-parallel-\(getpid()).xml"

/// The records of a few types that `forEachRecord` hands out, every field
/// copied, and what it reports; the records read before an error are not compared.
private struct TypedRecords: Equatable {
  var records: [[String?]] = []
  var info: ExportInfo?
  var invalid = InvalidSampleReport()
  var error: String?
}

private let wantedTypes = [
  "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount",
  "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKCategoryTypeIdentifierSleepAnalysis",
  "HKQuantityTypeIdentifierActiveEnergyBurned",
]

/// Every field of `record`, copied.
private func copied(_ record: RawRecord) -> [String?] {
  var row = RawRecord.Field.allCases.map { record.string($0) }
  for index in 0..<record.metadataCount {
    row.append(String(decoding: record.metadataKey(index), as: UTF8.self))
    row.append(String(decoding: record.metadataValue(index), as: UTF8.self))
  }
  for index in 0..<record.otherAttributeCount {
    row.append(String(decoding: record.otherAttributeName(index), as: UTF8.self))
    row.append(String(decoding: record.otherAttributeValue(index), as: UTF8.self))
  }
  row += [record.startMilliseconds, record.endMilliseconds, record.creationMilliseconds ?? -1].map { "\($0)" }
  row += ["\(record.utcOffsetSeconds)", record.numericValue.map { "\($0.bitPattern)" }]
  return row
}

/// An element as handed out: a record copied field by field, the others as
/// they are (compared by value: their descriptions list dictionaries in no fixed order).
private enum CopiedElement: Equatable {
  case record([String?])
  case workout(ExportWorkout)
  case activitySummary(ExportActivitySummary)
  case correlation(ExportCorrelation)
}

/// Every element `forEachElement` hands out and what it reports; the
/// elements read before an error are not compared.
private struct Elements: Equatable {
  var elements: [CopiedElement] = []
  var info: ExportInfo?
  var invalid = InvalidSampleReport()
  var error: String?
}

private func elements(of bytes: Data, fastRecords: Bool) -> Elements {
  var result = Elements()
  do {
    let report = try ExportReader.forEachElementXML(bytes, name: "fuzz.xml", fastRecords: fastRecords) { element in
      switch element {
      case .record(let record): result.elements.append(.record(copied(record)))
      case .workout(let workout): result.elements.append(.workout(workout))
      case .activitySummary(let summary): result.elements.append(.activitySummary(summary))
      case .correlation(let correlation): result.elements.append(.correlation(correlation))
      }
    }
    result.info = report.info
    result.invalid = report.invalid
  } catch {
    result = Elements(error: String(describing: error))
  }
  return result
}

private func records(of bytes: Data, fastRecords: Bool) -> TypedRecords {
  var result = TypedRecords()
  do {
    let report = try ExportReader.forEachRecordXML(
      bytes, name: "fuzz.xml", ofTypes: wantedTypes, fastRecords: fastRecords
    ) { record in
      result.records.append(copied(record))
    }
    result.info = report.info
    result.invalid = report.invalid
  } catch {
    result = TypedRecords(error: String(describing: error))
  }
  return result
}

/// What one read gave; the samples read before an error are not compared.
private struct Outcome: Equatable {
  var info: ExportInfo?
  var error: String?
  var samples: [Sample] = []
  var origins: [Origin] = []
  var sampleOrigins: [OriginID] = []
  var invalid = InvalidSampleReport()
}

private func outcome(of bytes: Data, threads: Int, chunkBytes: Int) -> Outcome {
  outcome {
    try ExportReader.readXML(
      bytes, name: "fuzz.xml", into: &$0, threads: threads, chunkBytes: chunkBytes, bufferBytes: 256)
  }
}

private func outcome(of bytes: Data, fastRecords: Bool) -> Outcome {
  outcome {
    try ExportReader.readXML(bytes, name: "fuzz.xml", into: &$0, threads: 1, chunkBytes: 0, fastRecords: fastRecords)
  }
}

private func outcome(ofFile path: String, threads: Int, chunkBytes: Int, windowBytes: Int?) -> Outcome {
  outcome {
    try ExportReader.readXMLFile(
      path, name: "fuzz.xml", into: &$0, threads: threads, chunkBytes: chunkBytes, windowBytes: windowBytes,
      bufferBytes: 256)
  }
}

private func outcome(_ read: (inout SampleLog) throws -> ExportInfo) -> Outcome {
  var log = SampleLog()
  do {
    let info = try read(&log)
    return Outcome(
      info: info, error: nil, samples: log.samples, origins: log.origins,
      sampleOrigins: (0..<log.count).map(log.originOfSample(at:)), invalid: log.invalid)
  } catch {
    return Outcome(info: nil, error: String(describing: error))
  }
}
