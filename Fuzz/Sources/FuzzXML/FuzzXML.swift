import Foundation
import HealthExport
import StepKitCore

/// Reads one input as export XML (or a zip, recognised by content) through
/// the public API, then streams its records, then counts what it read as the
/// command does: the range of rows judged first (a tally of more rows than the
/// command prints is not made), then every bucket's sums rounded for output,
/// by day and by hour. Errors are expected; crashes, hangs, leaks, runaway
/// memory and inconsistent counts are findings.
func fuzzXML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  let bytes = Data(bytes: data, count: size)
  var log = SampleLog()
  if let info = try? ExportReader.read(.data(bytes, name: "fuzz.xml"), into: &log) {
    precondition(info.stepAndDistanceRecords <= info.recordCount)
    precondition(log.count + info.invalidRecords == info.stepAndDistanceRecords)
    precondition(log.invalid.count == info.invalidRecords)
    count(log)
  }
  var records = 0
  try? ExportReader.forEachRecord(in: .data(bytes, name: "fuzz.xml"), types: nil) { record in
    records += 1
    _ = record.start
    _ = record.device
  }
  return 0
}

/// The most rows `stepkit` counts at once (its `ExportLoading.mostRows`).
private let mostRows: Int64 = 300_000

/// Tallies `log` by day and by hour when the range allows, and rounds every sum.
private func count(_ log: SampleLog) {
  for unit in [BucketUnit.day, .hour] {
    let options = CountingOptions(unit: unit, includesSourceBreakdown: true)
    let bound = log.bucketCountBound(options)
    guard bound <= mostRows else { continue }
    let tally = log.tally(options, threads: 1)
    precondition(Int64(tally.buckets.count) <= bound, "more buckets than bucketCountBound said")
    var total: Int64 = 0
    for bucket in tally.buckets {
      for value in [bucket.roundedSteps, bucket.roundedRawSteps, bucket.roundedManualSteps] {
        precondition(value >= 0)
        total = total &+ value
      }
      _ = bucket.roundedDistanceMeters
    }
    // Sums that reach 2^53 are refused by the command (`exceedsExactOutput`); rounding them never traps.
    for source in tally.sources {
      _ = roundedForOutput(source.rawSteps) &+ roundedForOutput(source.rawDistanceMeters)
      _ = exceedsExactOutput(source.rawSteps)
    }
  }
}
