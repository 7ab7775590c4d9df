import Foundation
import Testing

@testable import StepKitCore

@Suite("COUNTING.md merge rules, hand-computed")
struct MergeRuleTests {
  typealias F = Fixture

  @Test("Watch and iPhone partly overlapping: the Watch wins the overlap, the iPhone fills the rest")
  func watchAndPhoneOverlap() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", 1000, source: "Ann’s Apple Watch", device: F.watch),
      F.steps("2026-05-01 10:05", "2026-05-01 10:15", 600, source: "Ann’s iPhone", device: F.phone),
    ]
    let tally = SampleLog(samples).tally(CountingOptions())
    // Watch 1000 + iPhone's uncovered [10:10, 10:15) = 600 × 5/10.
    #expect(tally.total.steps == 1300)
    #expect(tally.total.rawSteps == 1600)
    #expect(tally.sources.map(\.name) == ["Ann’s Apple Watch", "Ann’s iPhone"])
    #expect(tally.sources.map(\.countedSteps) == [1000, 300])
  }

  @Test("A typed-in entry overlapping device data, under each policy")
  func manualEntryUnderEveryPolicy() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 11:00", 3000, source: "Health", userEntered: true),
      F.steps("2026-05-01 10:30", "2026-05-01 10:40", 500, source: "iPhone", device: F.phone),
      F.steps("2026-05-01 11:00", "2026-05-01 11:10", 200, source: "iPhone", device: F.phone),
    ]
    let log = SampleLog(samples)
    #expect(log.sourceClasses(for: .steps) == [.typedIn, .iPhone])
    let health = log.tally(CountingOptions(policy: .health)).total
    #expect(health.steps == 700)
    #expect(health.manualSteps == 3000)
    #expect(health.rawSteps == 3700)
    #expect(log.tally(CountingOptions(policy: .device)).total.steps == 700)
    // `all`: the typed-in source ranks first and hides the iPhone's 10:30–10:40.
    #expect(log.tally(CountingOptions(policy: .all)).total.steps == 3200)
    // The copied snippet (merge everything, then subtract typed-in steps) keeps only what the
    // iPhone adds after the typed-in hour has hidden its 10:30–10:40: 200, not 700.
    let all = log.tally(CountingOptions(policy: .all))
    #expect(all.sources.map(\.name) == ["Health", "iPhone"])
    #expect(all.sources.map(\.countedSteps) == [3000, 200])
  }

  @Test("The device policy leaves out other apps; health ranks them last")
  func devicePolicyDropsThirdPartyApps() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", 400, source: "Pedometer++"),
      F.steps("2026-05-01 10:05", "2026-05-01 10:10", 100, source: "iPhone", device: F.phone),
    ]
    #expect(F.daySteps(samples, CountingOptions(policy: .health)) == 300)
    #expect(F.daySteps(samples, CountingOptions(policy: .device)) == 100)
  }

  @Test("Instants count whole outside coverage, nothing inside, and cover nothing")
  func instants() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", 100, source: "iPhone", device: F.phone),
      F.steps("2026-05-01 10:05", "2026-05-01 10:05", 50, source: "App"),  // inside: 0
      F.steps("2026-05-01 10:10", "2026-05-01 10:10", 50, source: "App"),  // at the open end: 50
      F.steps("2026-05-01 09:59", "2026-05-01 09:59", 50, source: "App"),  // before: 50
      // An instant of a higher source does not hide a lower source's interval.
      F.steps("2026-05-01 12:00", "2026-05-01 12:00", 7, source: "iPhone", device: F.phone),
      F.steps("2026-05-01 11:59", "2026-05-01 12:01", 20, source: "App"),
    ]
    #expect(F.daySteps(samples) == 100 + 50 + 50 + 7 + 20)
  }

  @Test("A sample crossing local midnight is split in proportion to time")
  func sampleCrossingMidnight() {
    let sample = F.steps(
      "2026-05-01 23:30", "2026-05-02 00:30", 600, source: "iPhone", device: F.phone, offsetHours: 8)
    let tally = SampleLog([sample]).tally(CountingOptions())
    #expect(tally.buckets.map(\.firstDay.description) == ["2026-05-01", "2026-05-02"])
    #expect(tally.buckets.map(\.steps) == [300, 300])
    #expect(tally.buckets.map(\.rawSteps) == [300, 300])
  }

  @Test("Samples of one source never cover each other")
  func sameSourceOverlaps() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", 100, source: "iPhone", device: F.phone),
      F.steps("2026-05-01 10:05", "2026-05-01 10:15", 100, source: "iPhone", device: F.phone),
      // A lower source under the iPhone's union [10:00, 10:15) and beyond it.
      F.steps("2026-05-01 10:00", "2026-05-01 10:20", 400, source: "App"),
    ]
    #expect(F.daySteps(samples) == 200 + 100)
  }

  @Test("An explicit order puts the named sources first")
  func explicitPriority() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", 1000, source: "Watch", device: F.watch),
      F.steps("2026-05-01 10:05", "2026-05-01 10:15", 600, source: "Phone", device: F.phone),
    ]
    let options = CountingOptions(ranking: SourceRanking(explicitOrder: ["Phone"]))
    #expect(F.daySteps(samples, options) == 600 + 500)
    #expect(SampleLog(samples).tally(options).sources.map(\.rank) == [1, 2])
    #expect(SampleLog(samples).tally(options).sources.first?.name == "Phone")
  }

  @Test("Default ranking: class first, then Unicode scalar order of names")
  func defaultRankingOrder() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 10:01", 1, source: "b app"),
      F.steps("2026-05-01 10:00", "2026-05-01 10:01", 1, source: "B app"),
      F.steps("2026-05-01 10:00", "2026-05-01 10:01", 1, source: "Zoë’s iPhone", device: F.phone),
      F.steps("2026-05-01 10:00", "2026-05-01 10:01", 1, source: "My Apple Watch"),  // class by name
      F.steps("2026-05-01 10:00", "2026-05-01 10:01", 1, source: "Health", userEntered: true),
    ]
    let tally = SampleLog(samples).tally(CountingOptions(policy: .all))
    #expect(tally.sources.map(\.name) == ["Health", "My Apple Watch", "Zoë’s iPhone", "B app", "b app"])
    #expect(tally.sources.map(\.sourceClass) == [.typedIn, .appleWatch, .iPhone, .other, .other])
    #expect(tally.total.steps == 1)
  }

  @Test("Invalid samples are reported with their locations and never counted")
  func invalidSamples() {
    var log = SampleLog()
    let file = "export.xml"
    log.append(
      F.steps("2026-05-01 10:10", "2026-05-01 10:00", 10, source: "A"),
      location: SourceLocation(file: file, line: 3, column: 5))
    log.append(
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", -1, source: "A"),
      location: SourceLocation(file: file, line: 4, column: 5))
    log.append(
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", .nan, source: "A"),
      location: SourceLocation(file: file, line: 5, column: 5))
    log.reportInvalid(.unparsableDate("2026-13-01"), location: SourceLocation(file: file, line: 6, column: 9))
    log.append(F.steps("2026-05-01 10:00", "2026-05-01 10:10", 10, source: "A"))
    let tally = log.tally(CountingOptions())
    #expect(tally.invalid.count == 4)
    #expect(
      tally.invalid.examples.map(\.reason) == [
        .endBeforeStart, .negativeValue, .nonFiniteValue, .unparsableDate("2026-13-01"),
      ])
    #expect(tally.invalid.examples.first?.description == "export.xml:3:5: end date before start date")
    #expect(tally.total.steps == 10)
    #expect(tally.total.rawSteps == 10)
  }

  @Test("Distance merges by the same rules, in metres")
  func distance() {
    let samples = [
      F.distance("2026-05-01 10:00", "2026-05-01 10:10", 800, source: "Watch", device: F.watch),
      F.distance("2026-05-01 10:05", "2026-05-01 10:15", 1000, source: "Phone", device: F.phone),
    ]
    let total = SampleLog(samples).tally(CountingOptions()).total
    #expect(total.distanceMeters == 800 + 500)
    #expect(total.steps == 0)
  }

  @Test("A piece that a higher source covers in the middle leaves two pieces")
  func coverageInTheMiddle() {
    let samples = [
      F.steps("2026-05-01 10:04", "2026-05-01 10:06", 50, source: "Watch", device: F.watch),
      F.steps("2026-05-01 10:00", "2026-05-01 10:10", 100, source: "Phone", device: F.phone),
    ]
    var pieces: [MergedPiece] = []
    SampleLog(samples).forEachMergedPiece(policy: .health, ranking: .default) { pieces.append($0) }
    #expect(pieces.map(\.value) == [50, 40, 40])
    #expect(pieces.map(\.sampleIndex) == [0, 1, 1])
  }
}
