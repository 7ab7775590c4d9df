import Foundation
import Testing

@testable import StepKitCore

/// Appending a log moves its encoded blocks, renumbering only blocks that
/// name an origin whose number changes, and gives the log appending the
/// samples one by one gives.
@Suite("Joining sample logs block by block")
struct BlockJoinTests {
  /// A sample and where it was read.
  typealias Located = (sample: Sample, location: StepKitCore.SourceLocation)

  /// `count` samples from `sources` (cycled in runs of a few, as records of
  /// one device come), one in `invalidEvery` invalid (a negative value),
  /// with locations counting lines from `firstLine`.
  static func stream(
    seed: UInt64, count: Int, sources: [String], invalidEvery: Int = 0, firstLine: Int = 1
  ) -> [Located] {
    var rng = SeededGenerator(seed: seed)
    var t = 1_700_000_000.0 + Double(seed) * 86_400
    var source = sources[0]
    return (0..<count).map { index in
      if Int.random(in: 0..<6, using: &rng) == 0 {
        source = sources[Int.random(in: 0..<sources.count, using: &rng)]
      }
      t += Double(Int.random(in: 0...900, using: &rng))
      let kind: QuantityKind = Int.random(in: 0..<3, using: &rng) == 0 ? .distance : .steps
      let invalid = invalidEvery > 0 && index % invalidEvery == invalidEvery - 1
      let value = invalid ? -1 : kind == .steps ? Double(Int.random(in: 0...900, using: &rng)) : 0.734 * 1000
      let sample = Sample(
        kind: kind, start: Date(timeIntervalSince1970: t),
        end: Date(timeIntervalSince1970: t + Double(Int.random(in: 0...600, using: &rng))), value: value,
        utcOffsetSeconds: 3600, source: source,
        device: source == "Watch" ? Device(name: "Apple Watch", model: "Watch") : nil,
        isUserEntered: source == "Health")
      return (sample, StepKitCore.SourceLocation(file: "export.xml", line: firstLine + index, column: 2))
    }
  }

  static func appending(_ samples: [Located], to log: inout SampleLog) {
    for (sample, location) in samples { log.append(sample, location: location) }
  }

  static func entries(_ log: SampleLog) -> [SampleLog.Entry] {
    var all: [SampleLog.Entry] = []
    log.forEachEntry { index, entry in
      #expect(index == all.count)
      all.append(entry)
    }
    return all
  }

  /// `log` holds what `expected` holds, read every way: in order, by index,
  /// block by block, and counted.
  static func expectSame(
    _ log: SampleLog, _ expected: SampleLog, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    #expect(log.count == expected.count, sourceLocation: sourceLocation)
    #expect(entries(log) == entries(expected), sourceLocation: sourceLocation)
    #expect(log.origins == expected.origins, sourceLocation: sourceLocation)
    #expect(log.sourceNames == expected.sourceNames, sourceLocation: sourceLocation)
    #expect(log.originSampleCounts == expected.originSampleCounts, sourceLocation: sourceLocation)
    #expect(log.invalid == expected.invalid, sourceLocation: sourceLocation)
    #expect(
      (0..<log.count).map { log.sample(at: $0) } == expected.samples, sourceLocation: sourceLocation)
    // Blocks hand out consecutive indices, and their counts add up.
    let store = log.store
    var next = 0
    let reader = SampleStore.BlockReader(store)
    for block in 0..<store.blockCount {
      #expect(store.count(ofBlock: block) > 0, sourceLocation: sourceLocation)
      #expect(store.count(ofBlock: block) <= SampleStore.blockCapacity, sourceLocation: sourceLocation)
      reader.decode(block: block) { index, _ in
        #expect(index == next, sourceLocation: sourceLocation)
        next += 1
      }
    }
    #expect(next == log.count, sourceLocation: sourceLocation)
    // Bit for bit, in one bin and in many: bins and sums do not depend on the blocks.
    #expect(store.startCounts == expected.store.startCounts, sourceLocation: sourceLocation)
    for unit in [BucketUnit.hour, .day] {
      let options = CountingOptions(unit: unit, recordsCountedValues: true, includesSourceBreakdown: true)
      for perBin in [1 << 14, 100] {
        let got = log.tally(options, samplesPerBin: perBin, parts: 2, threads: 1)
        let want = expected.tally(options, samplesPerBin: perBin, parts: 2, threads: 1)
        #expect(got.buckets == want.buckets, sourceLocation: sourceLocation)
        #expect(got.sources == want.sources, sourceLocation: sourceLocation)
        #expect(got.countedValues == want.countedValues, sourceLocation: sourceLocation)
      }
    }
  }

  /// The bytes of block `block`, which must be in memory.
  static func bytes(_ store: SampleStore, block: Int) -> [UInt8] {
    let base = store.memoryBase(ofBlock: block)!
    return Array(UnsafeBufferPointer(start: base, count: store.byteCount(ofBlock: block)))
  }

  @Test("A log numbering origins as the log it joins moves every block byte for byte")
  func verbatim() {
    let first = Self.stream(seed: 1, count: 300, sources: ["iPhone", "Watch"])
    let second = Self.stream(seed: 2, count: 1000, sources: ["Watch", "iPhone"], firstLine: 301)
    var joined = SampleLog()
    Self.appending(first, to: &joined)
    var stretch = SampleLog(numberingOriginsAs: joined)
    #expect(stretch.origins == joined.origins)
    #expect(stretch.count == 0)
    Self.appending(second, to: &stretch)
    let blocksBefore = joined.store.blockCount
    joined.append(contentsOf: stretch)

    var expected = SampleLog()
    Self.appending(first + second, to: &expected)
    Self.expectSame(joined, expected)
    #expect(joined.store.blockCount == blocksBefore + stretch.store.blockCount)
    for block in 0..<stretch.store.blockCount {
      #expect(
        Self.bytes(joined.store, block: blocksBefore + block) == Self.bytes(stretch.store, block: block))
    }
  }

  @Test(
    "Origins first seen in stretches get the numbers one-by-one appending gives, however the stretches saw them"
  )
  func originsNewInStretches() {
    let head = Self.stream(seed: 3, count: 200, sources: ["iPhone"])
    // Both stretches start from the head; each meets new origins, in different orders.
    let one = Self.stream(seed: 4, count: 700, sources: ["iPhone", "Watch", "Scale"], firstLine: 201)
    let two =
      Self.stream(seed: 5, count: 300, sources: ["iPhone"], firstLine: 901)
      + Self.stream(seed: 13, count: 600, sources: ["Ring", "iPhone", "Scale", "Health"], firstLine: 1201)
    var joined = SampleLog()
    Self.appending(head, to: &joined)
    var stretchOne = SampleLog(numberingOriginsAs: joined)
    var stretchTwo = SampleLog(numberingOriginsAs: joined)
    Self.appending(one, to: &stretchOne)
    Self.appending(two, to: &stretchTwo)
    // An origin only registered, never used, in the second stretch.
    _ = stretchTwo.origin(source: "Unused", device: nil)
    let blocksBefore = joined.store.blockCount
    joined.append(contentsOf: stretchOne)
    let blocksAfterOne = joined.store.blockCount
    joined.append(contentsOf: stretchTwo)

    var expected = SampleLog()
    Self.appending(head + one + two, to: &expected)
    _ = expected.origin(source: "Unused", device: nil)
    Self.expectSame(joined, expected)
    #expect(Set(joined.origins.map(\.source)) == ["iPhone", "Watch", "Scale", "Ring", "Health", "Unused"])
    #expect(joined.origins.last?.source == "Unused")
    // The first stretch's new origins kept their numbers: all its blocks moved as encoded.
    for block in 0..<stretchOne.store.blockCount {
      #expect(
        Self.bytes(joined.store, block: blocksBefore + block) == Self.bytes(stretchOne.store, block: block))
    }
    // The second's blocks naming only the head's origin moved as encoded; the others were renumbered.
    var moved = 0
    var renumbered = 0
    for block in 0..<stretchTwo.store.blockCount {
      let same =
        Self.bytes(joined.store, block: blocksAfterOne + block) == Self.bytes(stretchTwo.store, block: block)
      if stretchTwo.store.info(ofBlock: block).maxOrigin == 0 {
        #expect(same)
        moved += 1
      } else {
        renumbered += same ? 0 : 1
        // Renumbered in place: every new number is written in as many bytes as the old.
        #expect(
          joined.store.byteCount(ofBlock: blocksAfterOne + block)
            == stretchTwo.store.byteCount(ofBlock: block))
      }
    }
    #expect(moved > 0)
    #expect(renumbered > 0)
  }

  @Test("A block whose origins take more or fewer bytes once renumbered is encoded again")
  func renumberedAcrossVarintLengths() {
    var joined = SampleLog()
    Self.appending(Self.stream(seed: 14, count: 150, sources: ["iPhone"]), to: &joined)
    // Origins 1 to 126, so that the next two are numbered 127 (one byte) and 128 (two).
    for index in 1..<127 { _ = joined.origin(source: "Source \(index)", device: nil) }
    let one = Self.stream(seed: 15, count: 400, sources: ["Watch", "Scale"], firstLine: 151)
    let two = Self.stream(seed: 16, count: 400, sources: ["Scale", "iPhone", "Watch"], firstLine: 551)
    var stretchOne = SampleLog(numberingOriginsAs: joined)
    var stretchTwo = SampleLog(numberingOriginsAs: joined)
    Self.appending(one, to: &stretchOne)
    Self.appending(two, to: &stretchTwo)
    let watch = Origin(source: "Watch", device: Device(name: "Apple Watch", model: "Watch"))
    #expect(stretchOne.origins[127] == watch)
    #expect(stretchTwo.origins[128] == watch)
    joined.append(contentsOf: stretchOne)
    let blocksAfterOne = joined.store.blockCount
    joined.append(contentsOf: stretchTwo)

    var expected = SampleLog()
    Self.appending(Self.stream(seed: 14, count: 150, sources: ["iPhone"]), to: &expected)
    for index in 1..<127 { _ = expected.origin(source: "Source \(index)", device: nil) }
    Self.appending(one + two, to: &expected)
    Self.expectSame(joined, expected)
    // Scale goes from 127 to 128 and Watch the other way: their blocks were encoded again.
    var resized = 0
    for block in 0..<stretchTwo.store.blockCount {
      let before = stretchTwo.store.byteCount(ofBlock: block)
      resized += joined.store.byteCount(ofBlock: blocksAfterOne + block) == before ? 0 : 1
    }
    #expect(resized > 0)
  }

  @Test("A stretch with no samples adds its origins and invalid samples, and appending goes on")
  func stretchWithoutSamples() {
    let head = Self.stream(seed: 6, count: 150, sources: ["iPhone"])
    let empty = Self.stream(seed: 7, count: 20, sources: ["Watch"], invalidEvery: 1, firstLine: 11)
    let tail = Self.stream(seed: 8, count: 150, sources: ["iPhone", "Watch"], firstLine: 171)
    var joined = SampleLog()
    Self.appending(head, to: &joined)
    var stretch = SampleLog(numberingOriginsAs: joined)
    Self.appending(empty, to: &stretch)
    #expect(stretch.count == 0)
    #expect(stretch.invalid.count == 20)
    joined.append(contentsOf: stretch) { location in
      var moved = location
      moved.line = location.line.map { $0 + 150 }
      return moved
    }
    joined.append(contentsOf: SampleLog())
    Self.appending(tail, to: &joined)

    var expected = SampleLog()
    let relocated = empty.map { item in
      (
        item.sample,
        StepKitCore.SourceLocation(file: "export.xml", line: item.location.line! + 150, column: 2)
      )
    }
    Self.appending(head + relocated + tail, to: &expected)
    Self.expectSame(joined, expected)
    #expect(joined.invalid.examples.first?.location?.line == 161)
  }

  @Test(
    "Partly full blocks, joined between samples appended one by one, read by index and block",
    arguments: [[1, 127, 128, 129, 0, 300, 5], [128, 128, 1, 1, 1], [0, 0, 2, 255, 256, 257]])
  func partlyFullBlocks(sizes: [Int]) {
    var joined = SampleLog()
    var expected = SampleLog()
    var line = 1
    for (index, size) in sizes.enumerated() {
      let native = Self.stream(seed: 100 + UInt64(index), count: size / 2 + 1, sources: ["iPhone", "Watch"])
      Self.appending(native, to: &joined)
      Self.appending(native, to: &expected)
      let moved = Self.stream(
        seed: 200 + UInt64(index), count: size, sources: ["Watch", "iPhone"], firstLine: line)
      line += size
      var stretch = SampleLog(numberingOriginsAs: joined)
      Self.appending(moved, to: &stretch)
      joined.append(contentsOf: stretch)
      Self.appending(moved, to: &expected)
    }
    Self.expectSame(joined, expected)
    #expect(
      joined.store.blockCount > (joined.count + SampleStore.blockCapacity - 1) / SampleStore.blockCapacity)
    // A copy shares the moved chunks and stays as it was when the original appends on.
    let copy = joined
    let copied = Self.entries(copy)
    var stretch = SampleLog(numberingOriginsAs: joined)
    Self.appending(Self.stream(seed: 9, count: 40, sources: ["iPhone"]), to: &stretch)
    joined.append(contentsOf: stretch)
    #expect(Self.entries(copy) == copied)
    #expect(joined.count == copy.count + 40)
  }

  @Test("Invalid samples of stretches keep their order and places, moved by the lines before them")
  func invalidRelocated() {
    var joined = SampleLog()
    var expected = SampleLog()
    var linesBefore = 0
    for index in 0..<4 {
      let samples = Self.stream(
        seed: 300 + UInt64(index), count: 90, sources: ["iPhone", "Health"], invalidEvery: 7)
      var stretch = SampleLog(numberingOriginsAs: joined)
      Self.appending(samples, to: &stretch)
      let shift = linesBefore
      joined.append(contentsOf: stretch) { location in
        var moved = location
        moved.line = location.line.map { $0 + shift }
        return moved
      }
      for (sample, location) in samples {
        expected.append(
          sample,
          location: StepKitCore.SourceLocation(file: "export.xml", line: location.line! + shift, column: 2))
      }
      linesBefore += 90
    }
    Self.expectSame(joined, expected)
    #expect(joined.invalid.count == 4 * 12)
    #expect(joined.invalid.count > InvalidSampleReport.keptExamples)
  }

  @Test("Samples whose origin finds no number are reported invalid; the rest of their block is kept")
  func originsExhausted() {
    var joined = SampleLog()
    for index in 0...Int(UInt16.max) { _ = joined.origin(source: "Source \(index)", device: nil) }
    // Numbered apart from the log: every block is renumbered, and "New" finds no number there.
    var stretch = SampleLog()
    let samples = Self.stream(seed: 10, count: 400, sources: ["Source 7", "New"])
    Self.appending(samples, to: &stretch)
    joined.append(contentsOf: stretch)
    let kept = samples.filter { $0.sample.source == "Source 7" }
    #expect(joined.count == kept.count)
    #expect(joined.invalid.count == samples.count - kept.count)
    #expect(joined.invalid.examples.allSatisfy { $0.reason == .outOfRange && $0.location == nil })
    #expect(joined.samples.map(\.start) == kept.map(\.sample.start))
  }

  @Test("A spilled stretch joins a log that spills in turn; a failed read back is reported")
  func spilledStretch() throws {
    let directory = try SampleSpillTests.scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let head = Self.stream(seed: 11, count: 500, sources: ["iPhone", "Watch"])
    let body = Self.stream(seed: 12, count: 30_000, sources: ["Watch", "iPhone", "Scale"], firstLine: 501)
    var joined = SampleLog(storage: SampleStorage(memoryBudget: 32 * 1024, temporaryDirectory: directory))
    Self.appending(head, to: &joined)
    var stretch = SampleLog(numberingOriginsAs: joined)
    #expect(stretch.storage == joined.storage)
    Self.appending(body, to: &stretch)
    #expect(stretch.spilledSampleBytes > 0)
    joined.append(contentsOf: stretch)
    #expect(joined.spilledSampleBytes > 0)
    #expect(joined.storageFailure == nil)

    var expected = SampleLog()
    Self.appending(head + body, to: &expected)
    Self.expectSame(joined, expected)

    var failing = SampleLog()
    try #require(stretch.store.spillFile).failReadsForTesting()
    failing.append(contentsOf: stretch)
    #expect(failing.storageFailure?.losesSamples == true)
    #expect(failing.count == stretch.count)
  }
}
