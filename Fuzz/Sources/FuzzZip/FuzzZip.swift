import Foundation
import HealthExport
import StepKitCore

/// Reads one input as an export.zip through the public API: the central
/// directory, the Health XML located by content, every entry inflated and
/// checked, then the export read as a whole (its XML scanned in place in the
/// inflating ring), and read into a sample log on one thread and on two,
/// where the sizes the directory declares size the reservations and choose
/// the reading (a declared size is a claim: corpus/zip holds entries of a
/// few KiB declaring 2^48 and 2^63−1 bytes). Errors are expected; crashes,
/// hangs and leaks are findings.
func fuzzZip(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  guard let archive = try? ExportArchive(data: bytes, name: "fuzz.zip") else { return 0 }
  _ = try? archive.healthExportEntry()
  for entry in archive.entries.prefix(16) {
    var total = 0
    _ = try? archive.forEachChunk(of: entry) { chunk in
      total += chunk.count
      return total < 64 << 20
    }
  }
  _ = try? ExportReader.forEachRecord(in: .data(bytes, name: "fuzz.zip"), types: nil) { _ in }
  for threads in [1, 2] {
    var log = SampleLog()
    if let info = try? ExportReader.read(.data(bytes, name: "fuzz.zip"), into: &log, threads: threads) {
      precondition(log.count + info.invalidRecords == info.stepAndDistanceRecords)
    }
  }
  return 0
}
