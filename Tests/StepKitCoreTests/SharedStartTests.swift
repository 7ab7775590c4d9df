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
}
