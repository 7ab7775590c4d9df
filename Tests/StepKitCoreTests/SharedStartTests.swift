import Foundation
import Testing

@testable import StepKitCore

/// Samples that share a start instant (copies of one record, as a crafted
/// export holds millions of): the merge keeps one item per distinct sample
/// of a source, not one per copy, and still counts every copy.
@Suite("Samples sharing a start instant")
struct SharedStartTests {
  /// `copies` copies each of a Watch sample `[t, t+60 s)` and an iPhone one
  /// `[t+30 s, t+90 s)` of 100 steps, interleaved as a merged export would.
  static func log(copies: Int) -> SampleLog {
    var log = SampleLog()
    let watch = log.origin(source: "Watch", device: Device(model: "Watch"))!
    let phone = log.origin(source: "Phone", device: Device(model: "iPhone"))!
    let t: Int64 = 1_700_000_400_000
    for _ in 0..<copies {
      log.append(
        kind: .steps, startMs: t, endMs: t + 60_000, value: 100, utcOffsetSeconds: 0, origin: watch,
        userEntered: false)
      log.append(
        kind: .steps, startMs: t + 30_000, endMs: t + 90_000, value: 100, utcOffsetSeconds: 0, origin: phone,
        userEntered: false)
    }
    return log
  }

  @Test("the tally counts every copy, as a naive merge from COUNTING.md does")
  func countsEveryCopy() {
    let copies = 100_000
    let tally = Self.log(copies: copies).tally(CountingOptions(), threads: 2)
    // Naive reference: the Watch outranks the iPhone; each iPhone sample's
    // first half lies under the Watch's interval, its second half counts.
    #expect(tally.buckets.count == 1)
    #expect(tally.buckets[0].roundedSteps == Int64(copies * 100 + copies * 50))
    #expect(tally.buckets[0].roundedRawSteps == Int64(2 * copies * 100))
    #expect(tally.sources.map(\.countedSteps) == [Double(copies * 100), Double(copies * 50)])
  }

  @Test("copies take one merge item each per source: the pieces handed out do not grow with them")
  func itemsDoNotGrow() {
    for copies in [1, 1000, 100_000] {
      let log = Self.log(copies: copies)
      let resolved = ResolvedRanking(log: log, ranking: .default)
      let bins = log.store.mergeBins(targetSamples: MergeBin.targetSamples)
      var combined = 0
      log.mergePieces(
        policy: .health, resolved: resolved, bins: bins[...], blocks: BlocksByStart(log.store.blocks),
        combinesAlike: true
      ) { _ in combined += 1 }
      var apart = 0
      log.mergePieces(
        policy: .health, resolved: resolved, bins: bins[...], blocks: BlocksByStart(log.store.blocks)
      ) { _ in apart += 1 }
      #expect(combined == 2)
      #expect(apart == 2 * copies)
    }
  }

  @Test("with what each sample counted for recorded, every copy gets its own share")
  func countedValuesPerCopy() {
    let tally = Self.log(copies: 1000).tally(CountingOptions(recordsCountedValues: true), threads: 1)
    var shares: [Double] = []
    for share in tally.countedValues { shares.append(share) }
    #expect(shares.count == 2000)
    #expect(shares.allSatisfy { $0 == 100 || $0 == 50 })
  }

  /// Whether some merge bin of `log` gathers more items than the default
  /// limit, and so is merged in passes.
  static func overflows(_ log: SampleLog, combinesAlike: Bool) -> Bool {
    let resolved = ResolvedRanking(log: log, ranking: .default)
    let groups = MergeGroups(log: log, policy: .health, resolved: resolved)
    var gatherer = BinGatherer(store: log.store, byStart: BlocksByStart(log.store.blocks))
    var work = MergeWork(
      items: MergeItems(capacity: 16, groupCount: groups.groupCount, combinesAlike: combinesAlike))
    defer { work.items.deallocate() }
    var overflowed = false
    for bin in log.store.mergeBins(targetSamples: MergeBin.targetSamples) {
      gatherer.gather(bin, groups: groups, into: &work)
      overflowed = overflowed || work.items.overflowed
    }
    return overflowed
  }

  @Test("copies past the item limit with each one's share recorded (stepkit sqlite) are merged in passes")
  func copiesPastTheLimit() {
    let copies = 40_000
    let log = Self.log(copies: copies)
    #expect(Self.overflows(log, combinesAlike: false))
    #expect(!Self.overflows(log, combinesAlike: true))
    let tally = log.tally(CountingOptions(recordsCountedValues: true), threads: 1)
    var shares: [Double] = []
    for share in tally.countedValues { shares.append(share) }
    // Naive reference: every Watch copy counts whole, every iPhone copy its uncovered half.
    #expect(shares == (0..<copies).flatMap { _ in [100.0, 50.0] })
    #expect(tally.buckets.map(\.roundedSteps) == [Int64(copies * 150)])
  }

  @Test("samples of one source sharing a start, each with its own end, are merged in passes and all counted")
  func sameStartOtherEnds() {
    var log = SampleLog()
    let watch = log.origin(source: "Watch", device: Device(model: "Watch"))!
    let phone = log.origin(source: "Phone", device: Device(model: "iPhone"))!
    let t: Int64 = 1_700_006_400_000  // 2023-11-15 00:00 UTC
    let count = 70_000
    for k in 0..<count {
      // Ends from 1 s to 600 s after the start, in turn: no two neighbours alike.
      log.append(
        kind: .steps, startMs: t, endMs: t + Int64(1 + k % 600) * 1000, value: 10, utcOffsetSeconds: 0,
        origin: watch, userEntered: false)
    }
    log.append(
      kind: .steps, startMs: t, endMs: t + 1_200_000, value: 1200, utcOffsetSeconds: 0, origin: phone,
      userEntered: false)
    #expect(Self.overflows(log, combinesAlike: true))
    for threads in [1, 2] {
      let tally = log.tally(CountingOptions(), threads: threads)
      // Naive reference: the Watch counts whole (10 a sample); it covers [t, t+600 s), so the
      // iPhone's 1,200 steps over 1,200 s count for their second half, 600.
      #expect(tally.buckets.map(\.roundedSteps) == [Int64(count * 10 + 600)])
      #expect(tally.sources.map(\.countedSteps) == [Double(count * 10), 600])
    }
  }

  @Test(
    "random cases with shared starts, merged in passes at every item limit, agree with the reference count",
    arguments: [1, 2, 3, 4] as [UInt64])
  func passesAgainstReference(seed: UInt64) {
    var rng = SeededGenerator(seed: seed &* 0x51_7CC1_B727_220A)
    for number in 0..<40 {
      var drawn = ReferenceCase.draw(using: &rng, maximumSamples: 120)
      // Most samples start at one of three instants, keeping their lengths.
      let instants = (0..<3).compactMap { _ in drawn.samples.randomElement(using: &rng)?.startMs }
      for index in drawn.samples.indices where Int.random(in: 0..<10, using: &rng) < 6 {
        guard let instant = instants.randomElement(using: &rng) else { break }
        let length = drawn.samples[index].endMs - drawn.samples[index].startMs
        drawn.samples[index].startMs = instant
        drawn.samples[index].endMs = instant + length
      }
      let itemLimit = [1, 3, 8, 64][number % 4]
      let samplesPerBin = [MergeBin.targetSamples, 1, 5][number % 3]
      let recordsCounted = number % 2 == 0
      let differences = drawn.differences(recordsCountedValues: recordsCounted) { log, options in
        log.tally(
          options, samplesPerBin: samplesPerBin, parts: 1 + number % 3, threads: 2, itemLimit: itemLimit)
      }
      #expect(
        differences.isEmpty,
        Comment(
          rawValue: "seed \(seed) case \(number) (limit \(itemLimit), bins of \(samplesPerBin)):\n\(drawn)\n"
            + differences.prefix(8).joined(separator: "\n")))
      if !differences.isEmpty { return }
    }
  }

  @Test("an interval union takes intervals in any order, joining those that overlap or touch")
  func intervalUnion() {
    var union = IntervalUnion()
    for (start, end) in [(10, 20), (30, 40), (5, 8), (20, 25), (45, 50), (7, 31)] as [(Int64, Int64)] {
      union.insert(start, end)
    }
    // By hand: [5, 8) and [7, 31) join, then [10, 20), [20, 25) and [30, 40) into [5, 40).
    #expect(union.intervals == [Interval(start: 5, end: 40), Interval(start: 45, end: 50)])
  }
}
