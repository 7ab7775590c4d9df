import Foundation
import Testing

@testable import StepKitCore

/// The engine against ``ReferenceCount``, the naive count written from
/// COUNTING.md alone, on thousands of seeded random cases: every bucket's
/// steps, distance, raw and manual sums, and what each sample and source
/// counted for, within 1e-9 relative.
@Suite("The engine agrees with the reference count from COUNTING.md")
struct ReferenceDifferentialTests {
  /// 40 batches of 100 cases: 4 000 random cases in all.
  static let batches: [UInt64] = Array(1...40)
  static let casesPerBatch = 100

  @Test("Random cases: every policy, unit, zone and priority order", arguments: batches)
  func randomCases(batch: UInt64) {
    var rng = SeededGenerator(seed: batch &* 0x2545_F491_4F6C_DD1D)
    for number in 0..<Self.casesPerBatch {
      let drawn = ReferenceCase.draw(using: &rng)
      // Cut the log into merge bins of a few samples and tally in parts on
      // two threads, so that bin and part edges fall between the samples.
      let samplesPerBin = [MergeBin.targetSamples, 1, 3, 8][number % 4]
      let parts = [1, 2, 5][number % 3]
      let recordsCounted = number % 2 == 0
      let differences = drawn.differences(recordsCountedValues: recordsCounted) { log, options in
        log.tally(options, samplesPerBin: samplesPerBin, parts: parts, threads: 2)
      }
      #expect(
        differences.isEmpty,
        Comment(
          rawValue: "batch \(batch) case \(number) (bins of \(samplesPerBin), \(parts) parts):\n\(drawn)\n"
            + differences.prefix(8).joined(separator: "\n")))
      if !differences.isEmpty { return }
    }
  }

  @Test(
    "Larger random cases through the public tally, on every thread count", arguments: [1, 2, 3] as [UInt64])
  func largerCases(seed: UInt64) {
    var rng = SeededGenerator(seed: seed &* 0x9E37_79B9)
    for number in 0..<10 {
      let drawn = ReferenceCase.draw(using: &rng, maximumSamples: 300)
      for threads in [1, 4] {
        let differences = drawn.differences(recordsCountedValues: threads == 1) { log, options in
          log.tally(options, threads: threads)
        }
        #expect(
          differences.isEmpty,
          Comment(rawValue: "seed \(seed) case \(number):\n" + differences.prefix(8).joined(separator: "\n")))
      }
    }
  }

  @Test("The reference itself on hand-computed cases")
  func referenceByHand() {
    let hour: Int64 = 3_600_000
    let t0: Int64 = 1_774_828_800_000  // 2026-03-30T00:00Z
    func sample(
      _ start: Int64, _ end: Int64, _ value: Double, _ source: String,
      model: String? = nil, typedIn: Bool = false, offset: Int = 0
    ) -> ReferenceCount.Sample {
      ReferenceCount.Sample(
        kind: .steps, startMs: t0 + start, endMs: t0 + end, value: value, offsetSeconds: offset,
        source: source,
        model: model, userEntered: typedIn)
    }
    // A Watch hour over the phone's two hours: the phone keeps its uncovered half.
    let watchAndPhone = [
      sample(0, 2 * hour, 1000, "Phone", model: "iPhone"), sample(0, hour, 600, "Watch", model: "Watch"),
    ]
    #expect(ReferenceCount.count(watchAndPhone, .init()).rows.map(\.steps) == [1100])
    // Typed in and outranking under `all`, left out under `health`; raw and manual count it either way.
    let typed = watchAndPhone + [sample(0, 2 * hour, 50, "Health", typedIn: true)]
    #expect(ReferenceCount.count(typed, .init(policy: .all)).rows.map(\.steps) == [50])
    #expect(ReferenceCount.count(typed, .init(policy: .health)).rows.map(\.steps) == [1100])
    #expect(ReferenceCount.count(typed, .init()).rows.map(\.raw) == [1650])
    #expect(ReferenceCount.count(typed, .init()).rows.map(\.manual) == [50])
    // An explicit order puts the phone first.
    #expect(ReferenceCount.count(watchAndPhone, .init(explicitOrder: ["Phone"])).rows.map(\.steps) == [1000])
    // Across midnight at +08:00: 22:00 to 02:00 local splits 1:1 into two days.
    let night = [sample(14 * hour, 18 * hour, 400, "Phone", model: "iPhone", offset: 28_800)]
    #expect(ReferenceCount.count(night, .init()).rows.map(\.steps) == [200, 200])
    // An instant inside the Watch's hour is covered; one at its end is not.
    let instants =
      watchAndPhone + [
        sample(hour / 2, hour / 2, 7, "Phone", model: "iPhone"), sample(hour, hour, 9, "Phone"),
      ]
    #expect(ReferenceCount.count(instants, .init()).rows.map(\.steps) == [1109])
  }

  @Test(
    "The reference's day start on hand-computed days: 23 hours, a start in the gap, a repeated start, Chatham's"
  )
  func referenceDayStartByHand() {
    let newYork = ReferenceCount.Zone.named(TimeZone(identifier: "America/New_York")!)
    func at(_ text: String, _ value: Double) -> ReferenceCount.Sample {
      let ms = Int64(ISO8601DateFormatter().date(from: text)!.timeIntervalSince1970 * 1000)
      return ReferenceCount.Sample(
        kind: .steps, startMs: ms, endMs: ms, value: value, offsetSeconds: 0, source: "Phone",
        model: "iPhone",
        userEntered: false)
    }
    func days(_ samples: [ReferenceCount.Sample], _ start: (Int, Int), zone: ReferenceCount.Zone? = nil)
      -> [String]
    {
      ReferenceCount.count(samples, .init(zone: zone ?? newYork, dayStart: start)).rows.map {
        "\($0.label.day) \(Int($0.steps))"
      }
    }
    // 04:00: 03:30 EDT on March 8 still belongs to March 7 (a 23-hour day from 04:00 EST).
    let spring = [
      at("2026-03-07T04:00:00-05:00", 1), at("2026-03-08T03:30:00-04:00", 10),
      at("2026-03-08T04:30:00-04:00", 20),
    ]
    #expect(days(spring, (4, 0)) == ["2026-03-07 11", "2026-03-08 20"])
    // 02:30 does not exist on March 8: the day starts at 03:00 EDT, so 03:10 EDT is March 8's.
    let gap = [at("2026-03-07T12:00:00-05:00", 1), at("2026-03-08T03:10:00-04:00", 10)]
    #expect(days(gap, (2, 30)) == ["2026-03-07 1", "2026-03-08 10"])
    // 01:30 happens twice on November 1: the day starts at the first, so 01:15 EST (after it) is November 1's.
    let autumn = [at("2026-10-31T12:00:00-04:00", 1), at("2026-11-01T01:15:00-05:00", 10)]
    #expect(days(autumn, (1, 30)) == ["2026-10-31 1", "2026-11-01 10"])
    // Chatham goes back from 03:45 +13:45 to 02:45 +12:45 on April 5: 03:54 comes once, after the
    // change, and starts April 5; 03:00 comes twice, and April 5 starts at the first.
    let chatham = ReferenceCount.Zone.named(TimeZone(identifier: "Pacific/Chatham")!)
    let late = [at("2026-04-05T03:53:00+12:45", 1), at("2026-04-05T03:54:00+12:45", 10)]
    #expect(days(late, (3, 54), zone: chatham) == ["2026-04-04 1", "2026-04-05 10"])
    let twice = [
      at("2026-04-05T02:59:00+13:45", 1), at("2026-04-05T03:00:00+13:45", 10),
      at("2026-04-05T02:50:00+12:45", 100),
    ]
    #expect(days(twice, (3, 0), zone: chatham) == ["2026-04-04 1", "2026-04-05 110"])
  }
}
