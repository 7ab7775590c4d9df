// Reads an Apple Health export, tallies daily steps, and prints throughput and memory.
//
//   swift build -c release --package-path Benchmarks --product reader-benchmark
//   reader-benchmark export.xml|export.zip [--daily FILE] [--threads N]
//
// Prints one `key=value` line that Benchmarks/run-benchmarks.sh parses:
// seconds (end to end: open + read + tally), MB/s of XML, records/s and peak RSS.
// `--check` adds a checksum (raw steps summed per local start date, what the peer
// scripts print too); `--daily FILE` also writes those sums as `date,steps` lines.
// `--threads N` sets how many threads scan an export.xml (default: one per core).
import BenchmarkSupport
import Foundation
import HealthExport
import StepKitCore

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

var arguments = Array(CommandLine.arguments.dropFirst())
var dailyPath: String?
var inputPath: String?
var check = false
var threads = ExportReader.defaultThreadCount
while let argument = arguments.first {
  arguments.removeFirst()
  if argument == "--threads", let text = arguments.first, let value = Int(text), value > 0 {
    threads = value
    arguments.removeFirst()
  } else if argument == "--daily", let path = arguments.first {
    dailyPath = path
    check = true
    arguments.removeFirst()
  } else if argument == "--check" {
    check = true
  } else {
    inputPath = argument
  }
}
guard let inputPath else {
  FileHandle.standardError.write(
    Data("usage: reader-benchmark export.xml|export.zip [--check] [--daily FILE] [--threads N]\n".utf8))
  exit(2)
}

let started = now()
var log = SampleLog()
let info: ExportInfo
do {
  info = try ExportReader.read(.path(inputPath), into: &log, threads: threads)
} catch {
  FileHandle.standardError.write(Data("reader-benchmark: \(error.localizedDescription)\n".utf8))
  exit(1)
}
let read = now()
let tally = log.tally(CountingOptions())
let finished = now()

// Raw steps per local start date: what the peer scripts compute.
var daily: [Int: Double] = [:]
for index in 0..<(check ? log.count : 0) {
  let sample = log.sample(at: index)
  guard sample.kind == .steps else { continue }
  let localSeconds = Int(sample.start.timeIntervalSince1970.rounded(.down)) + sample.utcOffsetSeconds
  let day = Int((Double(localSeconds) / 86_400).rounded(.down))
  daily[day, default: 0] += sample.value
}
let rawTotal = daily.values.reduce(0, +)
if let dailyPath {
  let lines = daily.keys.sorted().map {
    "\(LocalDate(daysSinceEpoch: $0)),\(roundedForOutput(daily[$0] ?? 0))"
  }
  try? (lines.joined(separator: "\n") + "\n").write(toFile: dailyPath, atomically: true, encoding: .utf8)
}

let seconds = Double(finished - started) / 1e9
let readSeconds = Double(read - started) / 1e9
let megabytes = Double(info.xmlByteCount) / 1e6
let countedSteps = tally.buckets.reduce(0) { $0 + $1.steps }
print(
  "reader seconds=\(String(format: "%.3f", seconds)) read_seconds=\(String(format: "%.3f", readSeconds))"
    + " tally_seconds=\(String(format: "%.3f", Double(finished - read) / 1e9))"
    + " xml_bytes=\(info.xmlByteCount) mb_per_s=\(String(format: "%.0f", megabytes / seconds))"
    + " records=\(info.recordCount) records_per_s=\(String(format: "%.0f", Double(info.recordCount) / seconds))"
    + " samples=\(log.count) invalid=\(log.invalid.count) tally_days=\(tally.buckets.count)"
    + " counted_steps=\(roundedForOutput(countedSteps))"
    + (check ? " days=\(daily.count) raw_steps=\(roundedForOutput(rawTotal))" : "")
    + " threads=\(threads)"
    + " peak_rss_bytes=\(peakResidentBytes()) bytes_per_sample_budget=\(32 << 20 + 48 * log.count)"
    + " entry=\(info.xmlEntryName ?? "-")")
