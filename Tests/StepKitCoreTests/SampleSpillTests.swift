import Foundation
import Testing

@testable import StepKitCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A log beyond its memory budget keeps its samples in an anonymous
/// temporary file, and reads, copies and counts exactly as in memory.
@Suite("Spilled samples")
struct SampleSpillTests {
  /// A fresh empty directory, removed by the caller.
  static func scratchDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "stepkit-spill-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  /// `log` copied into a log that spills everything past its first chunk to `directory`.
  static func spilled(_ log: SampleLog, directory: String, budget: Int = 0) -> SampleLog {
    var copy = SampleLog(storage: SampleStorage(memoryBudget: budget, temporaryDirectory: directory))
    copy.append(contentsOf: log)
    return copy
  }

  static func entries(_ log: SampleLog) -> [SampleLog.Entry] {
    var all: [SampleLog.Entry] = []
    log.forEachEntry { _, entry in all.append(entry) }
    return all
  }

  @Test("A spilled log tallied in parts on several threads gives the bits of one thread in memory")
  func spilledPartsOnThreads() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let memory = MergeBinTests.randomLog(seed: 23, count: 20_000)
    let spilled = Self.spilled(memory, directory: directory)
    #expect(spilled.spilledSampleBytes > 0)
    for unit in [BucketUnit.hour, .day] {
      let options = CountingOptions(unit: unit, includesSourceBreakdown: true)
      let one = memory.tally(options, samplesPerBin: 1000, parts: 3, threads: 1)
      // Each thread reads the temporary file through blocks of its own.
      let three = spilled.tally(options, samplesPerBin: 1000, parts: 3, threads: 3)
      #expect(three.buckets == one.buckets)
      #expect(three.sources == one.sources)
    }
    #expect(spilled.storageFailure == nil)
  }

  /// Two logs give the same tallies, bit for bit, under each policy, with hours, days and a zone rule.
  static func expectSameTallies(_ a: SampleLog, _ b: SampleLog, samplesPerBin: Int) {
    let zone = TimeZoneRule.zone(TimeZone(identifier: "America/New_York")!)
    let cases: [(CountingPolicy, BucketUnit, TimeZoneRule)] = [
      (.health, .hour, .recorded), (.all, .day, zone), (.device, .week, .recorded),
    ]
    for (policy, unit, rule) in cases {
      let options = CountingOptions(
        policy: policy, unit: unit, timeZone: rule, recordsCountedValues: true, includesSourceBreakdown: true)
      let one = a.tally(options, samplesPerBin: samplesPerBin, parts: 1, threads: 1)
      let two = b.tally(options, samplesPerBin: samplesPerBin, parts: 1, threads: 1)
      #expect(one.buckets == two.buckets)
      #expect(one.sources == two.sources)
      #expect(one.countedValues == two.countedValues)
    }
  }

  @Test("A log forced to spill reads, counts and merges exactly as the same log in memory")
  func spilledMatchesMemory() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let memory = MergeBinTests.randomLog(seed: 21, count: 12_000)
    let spilled = Self.spilled(memory, directory: directory)
    #expect(memory.spilledSampleBytes == 0)
    #expect(spilled.spilledSampleBytes > 0)
    #expect(spilled.storageFailure == nil)
    #expect(spilled.storedSampleBytes == memory.storedSampleBytes)
    #expect(Self.entries(spilled) == Self.entries(memory))
    #expect(spilled.samples == memory.samples)
    for index in [0, 127, 128, 255, 256, 5000, 11_999] {
      #expect(spilled.sample(at: index) == memory.sample(at: index))
      #expect(spilled.originOfSample(at: index) == memory.originOfSample(at: index))
    }
    Self.expectSameTallies(memory, spilled, samplesPerBin: 1000)
    let interval = DateInterval(
      start: Fixture.date("2026-03-05 07:00"), end: Fixture.date("2026-03-20 13:00"))
    #expect(spilled.totals(in: interval) == memory.totals(in: interval))
    #expect(spilled.storageFailure == nil)
  }

  @Test("Every field of every shape comes back exactly from the file, by index and in order")
  func spilledRoundTrip() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (memory, expected) = SampleStoreTests.randomAppends(seed: 7, count: 20_000)
    let spilled = Self.spilled(memory, directory: directory, budget: 40_000)
    #expect(spilled.spilledSampleBytes > 0)
    #expect(Self.entries(spilled).map(SampleStoreTests.appended) == expected)
  }

  @Test("Blocks read in any order through few windows decode as in memory")
  func blockReaderWindows() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let (memory, _) = SampleStoreTests.randomAppends(seed: 8, count: 20_000)
    let spilled = Self.spilled(memory, directory: directory)
    let store = spilled.store
    var rng = SeededGenerator(seed: 5)
    let order = (0..<store.blockCount).shuffled(using: &rng) + (0..<store.blockCount).reversed()
    for windows in [1, 3] {
      let reader = SampleStore.BlockReader(store, windowCount: windows)
      let direct = SampleStore.BlockReader(memory.store)
      for block in order {
        var a: [StoredSample] = []
        var b: [StoredSample] = []
        reader.decode(block: block) { _, sample in a.append(sample) }
        direct.decode(block: block) { _, sample in b.append(sample) }
        #expect(a == b)
      }
      #expect(reader.heldWindows <= windows)
    }
  }

  @Test("A spilled log appended to a spilled log is the log the samples make one by one")
  func concatenationOfSpilled() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = MergeBinTests.randomLog(seed: 31, count: 8000)
    let second = MergeBinTests.randomLog(seed: 32, count: 8000)
    var joined = Self.spilled(first, directory: directory)
    joined.append(contentsOf: Self.spilled(second, directory: directory))
    var expected = first
    expected.append(contentsOf: second)
    #expect(joined.spilledSampleBytes > 0)
    #expect(Self.entries(joined) == Self.entries(expected))
    #expect(joined.origins == expected.origins)
    Self.expectSameTallies(expected, joined, samplesPerBin: 4000)
  }

  @Test("A log within its budget makes no file; a spilled one leaves no name behind and closes its file")
  func noFileLeftBehind() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let memory = MergeBinTests.randomLog(seed: 41, count: 8000)
    let small = Self.spilled(memory, directory: directory, budget: SampleStorage.standardMemoryBudget)
    #expect(small.spilledSampleBytes == 0)
    #expect(small.store.spillFile == nil)
    var descriptor: Int32 = -1
    do {
      let spilled = Self.spilled(memory, directory: directory)
      let file = try #require(spilled.store.spillFile)
      descriptor = file.fileDescriptor
      #expect(fcntl(descriptor, F_GETFD) >= 0)
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
      #expect(Self.entries(spilled) == Self.entries(memory))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    #if os(Linux)
      // The descriptor no longer names the file (it may name another, opened since).
      let link =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? ""
      #expect(!link.hasPrefix(directory))
    #endif
  }

  @Test("A directory where no file can be made keeps the samples in memory and says why")
  func createFailure() {
    let missing = NSTemporaryDirectory() + "stepkit-missing-\(UUID().uuidString)/below"
    let memory = MergeBinTests.randomLog(seed: 51, count: 8000)
    let kept = Self.spilled(memory, directory: missing)
    let failure = kept.storageFailure
    #expect(failure?.operation == .create)
    #expect(failure?.directory == missing)
    #expect(failure?.code == ENOENT)
    #expect(failure?.losesSamples == false)
    #expect(failure?.description.contains("cannot create a temporary file in \(missing)") == true)
    #expect(kept.spilledSampleBytes == 0)
    #expect(Self.entries(kept) == Self.entries(memory))
    Self.expectSameTallies(memory, kept, samplesPerBin: 3000)
  }

  @Test("A write that fails keeps the later samples in memory; the ones written earlier still read back")
  func writeFailure() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let first = MergeBinTests.randomLog(seed: 61, count: 4000)
    let second = MergeBinTests.randomLog(seed: 62, count: 20_000)
    var log = Self.spilled(first, directory: directory)
    let written = log.spilledSampleBytes
    #expect(written > 0)
    try #require(log.store.spillFile).failWritesForTesting()
    log.append(contentsOf: second)
    #expect(log.storageFailure?.operation == .write)
    #expect(log.storageFailure?.code == ENOSPC)
    #expect(log.spilledSampleBytes == written)
    var expected = first
    expected.append(contentsOf: second)
    #expect(Self.entries(log) == Self.entries(expected))
    Self.expectSameTallies(expected, log, samplesPerBin: 3000)
  }

  @Test("A read that fails is reported as losing samples, and decoding stays inside its buffers")
  func readFailure() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let log = Self.spilled(MergeBinTests.randomLog(seed: 71, count: 8000), directory: directory)
    #expect(log.storageFailure == nil)
    try #require(log.store.spillFile).failReadsForTesting()
    var count = 0
    log.forEachEntry { _, _ in count += 1 }
    _ = log.tally(CountingOptions(unit: .hour), samplesPerBin: 1000, parts: 1, threads: 1)
    _ = log.sample(at: log.count - 1)
    #expect(count == log.count)
    let failure = try #require(log.storageFailure)
    #expect(failure.operation == .read)
    #expect(failure.code == EIO)
    #expect(failure.losesSamples)
    #expect(failure.message(in: .simplifiedChinese).contains(directory))
  }

  @Test("Counted values paged through a file read back as an array would, in order and by index")
  func countedValuesPaging() throws {
    let directory = try Self.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let count = 10 * CountedPages.pageValues + 17
    var expected = [Double](repeating: 0, count: count)
    let storage = SampleStorage(memoryBudget: 0, temporaryDirectory: directory)
    let pages = CountedPages(count: count, residentLimit: 2, storage: storage)
    var rng = SeededGenerator(seed: 3)
    for _ in 0..<20_000 {
      // Mostly in order, as bins come, with jumps back.
      let index = Int.random(in: 0..<count, using: &rng)
      let value = Double(Int.random(in: 1...1000, using: &rng)) / 8
      pages.add(value, at: index)
      expected[index] += value
    }
    let values = CountedValues(pages: pages)
    #expect(values.storageFailure == nil)
    #expect(Array(values) == expected)
    #expect(values == CountedValues(expected))
    for index in [0, 1, CountedPages.pageValues, count / 2, count - 1] {
      #expect(values[index] == expected[index])
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)

    let missing = CountedPages(
      count: count, residentLimit: 1,
      storage: SampleStorage(memoryBudget: 0, temporaryDirectory: directory + "/missing"))
    for index in stride(from: 0, to: count, by: 1000) { missing.add(1, at: index) }
    let kept = CountedValues(pages: missing)
    #expect(kept.storageFailure?.operation == .create)
    #expect(kept.reduce(0, +) == Double((count + 999) / 1000))
  }
}
