import Foundation
import HealthExport
import StepKitCore

/// Reads one input as export XML (or a zip, recognised by content) through
/// the public API, then streams its records. Errors are expected; crashes,
/// hangs, leaks, runaway memory and inconsistent counts are findings.
func fuzzXML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  var log = SampleLog()
  if let info = try? ExportReader.read(.data(bytes, name: "fuzz.xml"), into: &log) {
    precondition(info.stepAndDistanceRecords <= info.recordCount)
    precondition(log.count + info.invalidRecords == info.stepAndDistanceRecords)
    precondition(log.invalid.count == info.invalidRecords)
  }
  var records = 0
  try? ExportReader.forEachRecord(in: .data(bytes, name: "fuzz.xml"), types: nil) { record in
    records += 1
    _ = record.start
    _ = record.device
  }
  return 0
}
