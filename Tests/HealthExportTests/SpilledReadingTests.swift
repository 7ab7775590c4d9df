import Foundation
import StepKitCore
import Testing

@testable import ExportGenerator
@testable import HealthExport

/// Exports read into logs that spill everything past their first chunk give
/// the samples and tallies of logs kept in memory, on one thread and on several.
@Suite("Reading into spilled logs")
struct SpilledReadingTests {
  static let directory = FileManager.default.temporaryDirectory.path

  /// A log that keeps nothing past its first chunk in memory.
  static var spilling: SampleLog {
    SampleLog(storage: SampleStorage(memoryBudget: 0, temporaryDirectory: directory))
  }

  static func read(_ data: Data, into start: SampleLog, threads: Int) throws -> SampleLog {
    var log = start
    if threads == 1 {
      _ = try ExportReader.read(.data(data, name: "export.xml"), into: &log, threads: 1)
    } else {
      let settings = ParallelExportReader.Settings(
        threads: threads, chunkBytes: 20_000, headerBytes: 2000, minimumBytes: 0, bufferBytes: 1 << 16)
      _ = try ParallelExportReader.read(
        MemoryByteSource(data, displayName: "export.xml"), into: &log, settings: settings)
    }
    return log
  }

  static func entries(_ log: SampleLog) -> [SampleLog.Entry] {
    var all: [SampleLog.Entry] = []
    log.forEachEntry { _, entry in all.append(entry) }
    return all
  }

  static func expectSame(_ data: Data, name: String) throws {
    guard let memory = try? read(data, into: SampleLog(), threads: 1) else { return }
    for threads in [1, 2] {
      let spilled = try read(data, into: spilling, threads: threads)
      #expect(spilled.storageFailure == nil, "\(name)")
      #expect(entries(spilled) == entries(memory), "\(name), \(threads) threads")
      #expect(spilled.origins == memory.origins, "\(name)")
      #expect(spilled.invalid == memory.invalid, "\(name)")
      for unit in [BucketUnit.day, .hour] {
        let options = CountingOptions(unit: unit, recordsCountedValues: true, includesSourceBreakdown: true)
        let a = memory.tally(options)
        let b = spilled.tally(options)
        #expect(a.buckets == b.buckets, "\(name), \(unit)")
        #expect(a.sources == b.sources, "\(name), \(unit)")
        #expect(a.countedValues == b.countedValues, "\(name), \(unit)")
      }
    }
  }

  @Test("Every export fixture in the tests")
  func fixtures() throws {
    let files = ParallelTestSupport.exportFixtures
    #expect(files.count >= 12)
    for file in files { try Self.expectSame(Data(contentsOf: file), name: file.lastPathComponent) }
  }

  @Test(
    "The generator's output of both shapes, large enough to spill",
    // The watch shape holds few step samples a day: enough days that they fill more than a chunk.
    arguments: [("watch", 40), ("dense", 12)])
  func generated(shape: String, days: Int) throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-spilled-\(getpid())-\(shape).xml").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try generateExport(arguments: ["--days", "\(days)", "--shape", shape, "-o", path])
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let spilled = try Self.read(data, into: Self.spilling, threads: 2)
    #expect(spilled.spilledSampleBytes > 0)
    try Self.expectSame(data, name: shape)
  }
}
