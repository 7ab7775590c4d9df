import Foundation
import Testing

@testable import StepKitCore

/// The merge runs one span of time at a time; these check that the spans
/// never change what counts: the same pieces, source rows and per-sample
/// values as one merge over the whole log, whatever the spans.
@Suite("Merging span by span")
struct MergeBinTests {
  static let sources: [(String, Device?)] = [
    ("Watch", Fixture.watch), ("iPhone", Fixture.phone), ("Steps App", nil), ("Health", nil),
  ]

  /// Samples over 40 days from four sources: long ones that cross many
  /// spans, instants, out-of-order starts, typed-in entries, several offsets.
  static func randomLog(seed: UInt64, count: Int = 1500) -> SampleLog {
    var rng = SeededGenerator(seed: seed)
    let base = Fixture.date("2026-03-01 00:00")
    var log = SampleLog()
    for _ in 0..<count {
      let (name, device) = sources[Int.random(in: 0..<4, using: &rng)]
      let start = base.addingTimeInterval(Double(Int.random(in: 0..<(40 * 86_400), using: &rng)))
      let length: Double
      switch Int.random(in: 0..<20, using: &rng) {
      case 0: length = 0
      case 1: length = Double(Int.random(in: 1...(10 * 86_400), using: &rng))
      default: length = Double(Int.random(in: 1...3600, using: &rng))
      }
      log.append(
        Sample(
          kind: Int.random(in: 0..<3, using: &rng) == 0 ? .distance : .steps, start: start,
          end: start.addingTimeInterval(length), value: Double(Int.random(in: 0...2000, using: &rng)) / 7,
          utcOffsetSeconds: [0, 3600, 7200, -18_000, 28_800][Int.random(in: 0..<5, using: &rng)],
          source: name, device: device,
          isUserEntered: name == "Health" || Int.random(in: 0..<20, using: &rng) == 0))
    }
    return log
  }

  static func pieces(_ log: SampleLog, policy: CountingPolicy, bins: [MergeBin]) -> [MergedPiece] {
    var pieces: [MergedPiece] = []
    log.forEachMergedPiece(policy: policy, ranking: .default, bins: bins) { pieces.append($0) }
    return pieces.sorted { ($0.sampleIndex, $0.startMs) < ($1.sampleIndex, $1.startMs) }
  }

  @Test("Start counts come in order of span, counted densely or sorted when the spans lie far apart")
  func orderedStartCounts() {
    var near = Self.randomLog(seed: 7).store
    var far = near
    // A sample a million years out makes the range far too wide to count densely.
    far.append(
      StoredSample(
        startMs: 1 << 55, endMs: 1 << 55, value: 1, origin: 0, offsetMinutes: 0, kind: .steps,
        isUserEntered: false))
    near.append(
      StoredSample(
        startMs: near.maxEndMs, endMs: near.maxEndMs, value: 1, origin: 0, offsetMinutes: 0, kind: .steps,
        isUserEntered: false))
    for store in [near, far] {
      let expected = store.startCounts.sorted { $0.key < $1.key }
      let ordered = store.orderedStartCounts
      #expect(ordered.map(\.span) == expected.map(\.key))
      #expect(ordered.map(\.count) == expected.map(\.value))
      #expect(ordered.reduce(0) { $0 + $1.count } == store.count)
    }
    #expect(SampleStore().orderedStartCounts.isEmpty)
  }

  @Test(
    "Any split into spans yields exactly the pieces of one merge",
    arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
  func piecesIndependentOfSpans(seed: UInt64) {
    let log = Self.randomLog(seed: seed)
    let whole = [MergeBin(lower: .min, upper: .max)]
    for policy in CountingPolicy.allCases {
      let reference = Self.pieces(log, policy: policy, bins: whole)
      #expect(!reference.isEmpty)
      for target in [20, 300] {
        let bins = log.store.mergeBins(targetSamples: target)
        #expect(bins.count > 1)
        #expect(Self.pieces(log, policy: policy, bins: bins) == reference)
      }
    }
  }

  @Test("Span edges on sample starts, ends and instants change nothing")
  func edgesOnSampleTimes() {
    // Edges placed exactly on the times samples start and end, where an
    // off-by-one in ownership or coverage would show.
    let log = Self.randomLog(seed: 77, count: 400)
    var times: [Int64] = []
    log.forEachEntry { index, entry in
      if index % 13 == 0 { times.append(entry.startMs) }
      if index % 17 == 0 { times.append(entry.endMs) }
    }
    let edges = Array(Set(times)).sorted()
    var bins: [MergeBin] = []
    var lower = Int64.min
    for edge in edges {
      bins.append(MergeBin(lower: lower, upper: edge))
      lower = edge
    }
    bins.append(MergeBin(lower: lower, upper: .max))
    for policy in CountingPolicy.allCases {
      #expect(
        Self.pieces(log, policy: policy, bins: bins)
          == Self.pieces(log, policy: policy, bins: [MergeBin(lower: .min, upper: .max)]))
    }
  }

  /// Two source rows equal but for the order their raw sums were added in.
  static func rowsAgree(_ a: [Tally.SourceRow], _ b: [Tally.SourceRow]) -> Bool {
    func normalized(_ rows: [Tally.SourceRow]) -> [Tally.SourceRow] {
      rows.map { row in
        var row = row
        row.rawSteps = 0
        row.manualSteps = 0
        row.rawDistanceMeters = 0
        return row
      }
    }
    return normalized(a) == normalized(b)
      && zip(a, b).allSatisfy { x, y in
        x.rawSteps.isClose(to: y.rawSteps, tolerance: 1e-12)
          && x.manualSteps.isClose(to: y.manualSteps, tolerance: 1e-12)
          && x.rawDistanceMeters.isClose(to: y.rawDistanceMeters, tolerance: 1e-12)
      }
  }

  // Counted values follow each source's samples in order of start, whatever
  // the spans; raw sums follow the spans' order of decoding, so they agree
  // to rounding.
  @Test("Tallies agree with one span: counted values exactly, raw sums and buckets to rounding")
  func tallyIndependentOfSpans() {
    let log = Self.randomLog(seed: 3)
    for rule in [TimeZoneRule.recorded, .zone(TimeZone(identifier: "America/New_York")!)] {
      for unit in BucketUnit.allCases {
        let options = CountingOptions(
          unit: unit, timeZone: rule, recordsCountedValues: true, includesSourceBreakdown: true)
        let one = log.tally(options, samplesPerBin: .max, parts: 1, threads: 1)
        let many = log.tally(options, samplesPerBin: 100, parts: 1, threads: 1)
        #expect(Self.rowsAgree(one.sources, many.sources))
        #expect(one.countedValues == many.countedValues)
        #expect(one.buckets.count == many.buckets.count)
        for (a, b) in zip(one.buckets, many.buckets) {
          #expect(a.firstDay == b.firstDay && a.hour == b.hour && a.utcOffsetSeconds == b.utcOffsetSeconds)
          #expect(a.rawSteps.isClose(to: b.rawSteps, tolerance: 1e-12))
          #expect(a.manualSteps.isClose(to: b.manualSteps, tolerance: 1e-12))
          #expect(a.roundedRawSteps == b.roundedRawSteps)
          #expect(a.steps.isClose(to: b.steps, tolerance: 1e-12))
          #expect(a.distanceMeters.isClose(to: b.distanceMeters, tolerance: 1e-12))
          #expect(a.roundedSteps == b.roundedSteps)
        }
      }
    }
  }

  @Test("Parts tallied on several threads give the very same tally as on one")
  func parallelTally() {
    let log = Self.randomLog(seed: 12, count: 20_000)
    for policy in CountingPolicy.allCases {
      let options = CountingOptions(
        policy: policy, unit: .hour, recordsCountedValues: true, includesSourceBreakdown: true)
      let one = log.tally(options, samplesPerBin: 2000, parts: 3, threads: 1)
      let two = log.tally(options, samplesPerBin: 2000, parts: 3, threads: 2)
      #expect(one.buckets == two.buckets)
      #expect(one.sources == two.sources)
      #expect(one.countedValues == two.countedValues)
    }
  }

  @Test("Many more parts than threads, handed out as threads come free: the very same tally on any number")
  func partsHandedOut() {
    let log = Self.randomLog(seed: 21, count: 6000)
    let bins = log.store.mergeBins(targetSamples: 250)
    #expect(bins.count >= 20)
    for unit in [BucketUnit.day, .hour] {
      let options = CountingOptions(unit: unit, includesSourceBreakdown: true)
      let one = log.tally(options, bins: bins, parts: 16, threads: 1)
      // Several runs: which thread takes which part changes from run to run.
      for threads in [2, 3, 16] {
        for _ in 0..<2 {
          let many = log.tally(options, bins: bins, parts: 16, threads: threads)
          #expect(many.buckets == one.buckets)
          #expect(many.sources == one.sources)
        }
      }
    }
  }

  @Test("Blocks by start: the order of one sort by start and index, and each leading run's latest end")
  func blocksByStart() {
    var rng = SeededGenerator(seed: 5)
    // In order (no order kept), nearly in order (now and then a sample a little early), and shuffled.
    for jitter in [0, 600_000, 400 * 86_400_000] as [Int64] {
      var log = SampleLog()
      let origin = log.origin(source: "A", device: nil)!
      for i in 0..<20_000 {
        let start = Int64(i) * 60_000 - Int64.random(in: 0...jitter, using: &rng)
        log.append(
          kind: .steps, startMs: start, endMs: start + Int64.random(in: 0...7_200_000, using: &rng), value: 1,
          utcOffsetSeconds: 0, origin: origin, userEntered: false)
      }
      let blocks = log.store.blocks
      let byStart = BlocksByStart(blocks)
      let expected = blocks.indices.sorted { (blocks[$0].minStartMs, $0) < (blocks[$1].minStartMs, $1) }
      #expect((0..<byStart.count).map(byStart.block(at:)) == expected)
      // Limits at, just past and between blocks' starts, and beyond every one.
      var limits: [Int64] = [.min, -1, 0, 60_000 * 5_000, 60_000 * 12_345 + 7, .max]
      for block in stride(from: 0, to: blocks.count, by: 7) {
        limits.append(blocks[block].minStartMs)
        limits.append(blocks[block].minStartMs + 1)
      }
      for limit in limits {
        let brute = blocks.filter { $0.minStartMs < limit }.map(\.maxEndMs).max() ?? .min
        #expect(byStart.latestEnd(ofBlocksStartingBefore: limit) == brute)
      }
    }
  }

  @Test("The dispenser hands out every part exactly once, however many threads ask")
  func dispenserHandsOutEachPartOnce() {
    let parts = 5000
    let dispenser = PartDispenser(count: parts)
    let taken = UnsafeMutableBufferPointer<Int>.allocate(capacity: parts)
    taken.initialize(repeating: 0)
    defer { taken.deallocate() }
    let counts = SendableCounts(buffer: taken)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      // Each index is written by the one thread that took it.
      while let part = dispenser.take() { counts.buffer[part] += 1 }
    }
    #expect(taken.allSatisfy { $0 == 1 })
    #expect(dispenser.take() == nil)
  }

  @Test("Spans cover all time, in order, and hold about the target each, whatever the input order")
  func spanPlan() {
    var log = SampleLog()
    let origin = log.origin(source: "A", device: nil)!
    var rng = SeededGenerator(seed: 8)
    // Shuffled starts: every block spans nearly the whole range.
    for _ in 0..<200_000 {
      let start = Int64.random(in: 0..<(365 * 86_400), using: &rng) * 1000
      log.append(
        kind: .steps, startMs: start, endMs: start + 60_000, value: 1, utcOffsetSeconds: 0, origin: origin,
        userEntered: false)
    }
    let bins = log.store.mergeBins(targetSamples: 10_000)
    #expect(bins.first?.lower == .min)
    #expect(bins.last?.upper == .max)
    #expect(zip(bins, bins.dropFirst()).allSatisfy { $0.upper == $1.lower && $0.lower < $0.upper })
    var owned = [Int](repeating: 0, count: bins.count)
    log.forEachEntry { _, entry in
      owned[bins.firstIndex { entry.startMs >= $0.lower && entry.startMs < $0.upper }!] += 1
    }
    #expect(bins.count >= 15)
    #expect(owned.max()! <= 15_000, "\(owned)")
  }
}

/// A buffer that the threads of a test write to at disjoint places.
private struct SendableCounts: @unchecked Sendable {
  let buffer: UnsafeMutableBufferPointer<Int>
}
