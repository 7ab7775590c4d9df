import Foundation
import Testing

@testable import ExportGenerator
@testable import HealthExport
@testable import StepKitCore

/// A large log is tallied in parts, one run of spans each, on several
/// threads: these check that the threads never change a bit of the result,
/// and that the parts agree with one walk over the whole log.
@Suite("Tallying in parts on several threads")
struct SplitTallyTests {
  /// The options a tally is checked under: both rules, days and hours, every
  /// policy, with the per-source breakdown and the per-sample values.
  static let optionSets: [CountingOptions] = {
    let berlin = TimeZoneRule.zone(TimeZone(identifier: "Europe/Berlin")!)
    var sets: [CountingOptions] = []
    for rule in [TimeZoneRule.recorded, berlin] {
      for unit in [BucketUnit.day, .hour, .month] {
        sets.append(
          CountingOptions(
            unit: unit, timeZone: rule, recordsCountedValues: true, includesSourceBreakdown: true))
      }
    }
    for policy in CountingPolicy.allCases {
      sets.append(CountingOptions(policy: policy, unit: .day, recordsCountedValues: true))
    }
    return sets
  }()

  /// The log of a generated export, read front to back.
  static func generatedLog(shape: String, seed: Int, days: Int, startDate: String) throws -> SampleLog {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-split-tally-\(getpid())-\(shape)-\(seed).xml")
    defer { try? FileManager.default.removeItem(at: url) }
    _ = try generateExport(arguments: [
      "--shape", shape, "--seed", "\(seed)", "--days", "\(days)", "--start-date", startDate, "-o", url.path,
    ])
    var log = SampleLog()
    _ = try ExportReader.read(.data(try Data(contentsOf: url), name: "export.xml"), into: &log, threads: 1)
    return log
  }

  /// Checks that `log` tallied in `parts` parts gives the same bits on one
  /// thread and on several, and agrees with one part: every rounded figure,
  /// every label and offset, and every per-sample value exactly; the sums to
  /// rounding (parts add their sums in another order).
  static func check(_ log: SampleLog, bins: [MergeBin], parts: Int, options: CountingOptions) {
    let one = log.tally(options, bins: bins, parts: parts, threads: 1)
    for threads in [2, 3] {
      let many = log.tally(options, bins: bins, parts: parts, threads: threads)
      #expect(many.buckets == one.buckets)
      #expect(many.sources == one.sources)
      #expect(many.countedValues == one.countedValues)
    }
    let whole = log.tally(options, bins: bins, parts: 1, threads: 1)
    #expect(one.countedValues == whole.countedValues)
    #expect(one.buckets.count == whole.buckets.count)
    for (a, b) in zip(one.buckets, whole.buckets) {
      #expect(a.firstDay == b.firstDay && a.hour == b.hour && a.utcOffsetSeconds == b.utcOffsetSeconds)
      #expect(a.roundedSteps == b.roundedSteps)
      #expect(a.roundedDistanceMeters == b.roundedDistanceMeters)
      #expect(a.roundedRawSteps == b.roundedRawSteps)
      #expect(a.roundedManualSteps == b.roundedManualSteps)
      #expect(a.steps.isClose(to: b.steps) && a.distanceMeters.isClose(to: b.distanceMeters))
      #expect(a.rawSteps.isClose(to: b.rawSteps) && a.manualSteps.isClose(to: b.manualSteps))
      #expect(zip(a.stepsBySource, b.stepsBySource).allSatisfy { $0.isClose(to: $1) })
    }
    #expect(one.sources.count == whole.sources.count)
    for (a, b) in zip(one.sources, whole.sources) {
      #expect(a.name == b.name && a.rank == b.rank && a.distanceRank == b.distanceRank)
      #expect(a.stepSamples == b.stepSamples && a.distanceSamples == b.distanceSamples)
      #expect(a.firstStart == b.firstStart && a.lastEnd == b.lastEnd)
      #expect(a.countedSteps.isClose(to: b.countedSteps) && a.rawSteps.isClose(to: b.rawSteps))
      #expect(a.manualSteps.isClose(to: b.manualSteps))
      #expect(a.countedDistanceMeters.isClose(to: b.countedDistanceMeters))
      #expect(a.rawDistanceMeters.isClose(to: b.rawDistanceMeters))
    }
  }

  @Test(
    "Generated exports across a DST change and trips: the same tally on any number of threads",
    // Under a sanitizer one seed a shape: each case takes a minute or more under ThreadSanitizer,
    // and the three seeds 20 s of the AddressSanitizer stage.
    arguments: ["dense", "watch"], SanitizerRun.isActive ? [1] : [1, 2, 3])
  func generated(shape: String, seed: Int) throws {
    // 2021-03-28 is the spring change in Berlin; trips move the recorded offsets.
    let log = try Self.generatedLog(shape: shape, seed: seed, days: 24, startDate: "2021-03-16")
    let bins = log.store.mergeBins(targetSamples: max(64, log.count / 24))
    #expect(bins.count >= 8)
    for options in Self.optionSets {
      Self.check(log, bins: bins, parts: 4, options: options)
      // More parts than threads, as a large export is cut.
      Self.check(log, bins: bins, parts: SampleLog.maximumParts, options: options)
    }
  }

  /// The export fixtures that hold steps or distance: this target's real
  /// export and the command's.
  static let fixtureURLs: [URL] = {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    return [
      "HealthExportTests/Fixtures/tdda-export6s3sample.xml", "stepkitTests/Fixtures/watch-and-phone.xml",
      "stepkitTests/Fixtures/fresh-addresses.xml", "stepkitTests/Fixtures/per-kind-classes.xml",
      "stepkitTests/Fixtures/ios8-export.xml", "stepkitTests/Fixtures/clock-glitch.xml",
    ].map { tests.appendingPathComponent($0) }
  }()

  @Test("Export fixtures: the same tally on any number of threads", arguments: fixtureURLs)
  func fixtures(url: URL) throws {
    var log = SampleLog()
    _ = try ExportReader.read(
      .data(try Data(contentsOf: url), name: url.lastPathComponent), into: &log, threads: 1)
    #expect(log.count > 0)
    // Spans of a few samples each, so that even a small export has several parts.
    let bins = log.store.mergeBins(targetSamples: max(1, log.count / 12))
    for options in Self.optionSets {
      Self.check(log, bins: bins, parts: 3, options: options)
    }
  }

  /// Three sources over two days, with a sample that spans every part's
  /// edge, an instant on an edge, and samples that end on one.
  static func edgeLog() -> (log: SampleLog, edges: [Int64]) {
    var log = SampleLog()
    let watch = log.origin(source: "Watch", device: Device(model: "Watch"))!
    let phone = log.origin(source: "iPhone", device: Device(model: "iPhone"))!
    let typed = log.origin(source: "Health", device: nil)!
    let day: Int64 = 86_400_000
    let start: Int64 = 1_616_889_600_000  // 2021-03-28 00:00 UTC
    let edges = [start + day / 2, start + day, start + 3 * day / 2]
    func add(_ origin: OriginID, _ from: Int64, _ to: Int64, _ value: Double, offset: Int = 3600) {
      log.append(
        kind: .steps, startMs: from, endMs: to, value: value, utcOffsetSeconds: offset, origin: origin,
        userEntered: origin == typed)
      log.append(
        kind: .distance, startMs: from, endMs: to, value: value * 0.7, utcOffsetSeconds: offset,
        origin: origin, userEntered: origin == typed)
    }
    // Spans all three edges, partly covered by the watch.
    add(phone, start + 3_600_000, start + 2 * day - 3_600_000, 20_001, offset: 7200)
    for hour in stride(from: Int64(0), to: 48, by: 1) where hour % 3 != 0 {
      add(watch, start + hour * 3_600_000, start + hour * 3_600_000 + 2_700_000, Double(100 + hour) / 3)
    }
    add(watch, edges[0], edges[0], 7)  // an instant on an edge
    add(phone, edges[1] - 600_000, edges[1], 11)  // ends on an edge
    add(typed, edges[2] - 1_000, edges[2] + 1_000, 500)  // straddles an edge
    return (log, edges)
  }

  /// Bins with edges at `edges`, covering all time.
  static func bins(_ edges: [Int64]) -> [MergeBin] {
    var bins: [MergeBin] = []
    var lower = Int64.min
    for edge in edges {
      bins.append(MergeBin(lower: lower, upper: edge))
      lower = edge
    }
    bins.append(MergeBin(lower: lower, upper: .max))
    return bins
  }

  @Test("A sample across the part edges, instants and ends on them")
  func samplesAcrossEdges() {
    let (log, edges) = Self.edgeLog()
    for options in Self.optionSets {
      Self.check(log, bins: Self.bins(edges), parts: 4, options: options)
      Self.check(log, bins: Self.bins(edges), parts: 2, options: options)
    }
  }

  @Test("Parts that own no samples: before, between and after the samples")
  func emptyParts() {
    let (log, edges) = Self.edgeLog()
    let day: Int64 = 86_400_000
    // Edges far before, inside and far after the samples: several parts own nothing.
    let spread = [edges[0] - 400 * day, edges[0] - 300 * day, edges[1], edges[2] + 300 * day]
    for options in Self.optionSets {
      Self.check(log, bins: Self.bins(spread), parts: 5, options: options)
    }
    var fixed = CountingOptions(unit: .day, recordsCountedValues: true, includesSourceBreakdown: true)
    fixed.from = LocalDate(year: 2021, month: 3, day: 29)!
    fixed.to = LocalDate(year: 2021, month: 4, day: 2)!
    Self.check(log, bins: Self.bins(spread), parts: 5, options: fixed)
    let tally = log.tally(fixed, bins: Self.bins(spread), parts: 5, threads: 2)
    #expect(
      tally.buckets.map(\.firstDay.description) == (29...31).map { "2021-03-\($0)" } + [
        "2021-04-01", "2021-04-02",
      ])
    // An empty log in many parts.
    let empty = SampleLog()
    #expect(
      empty.tally(fixed, bins: Self.bins(spread), parts: 5, threads: 2).buckets.allSatisfy { $0.steps == 0 })
    #expect(empty.tally(CountingOptions(), bins: Self.bins(spread), parts: 5, threads: 2).buckets.isEmpty)
  }

  @Test("How many parts: one per part size, at most sixteen, whatever the threads")
  func partCount() {
    #expect(SampleLog.tallyParts(forSamples: 0) == 1)
    #expect(SampleLog.tallyParts(forSamples: SampleLog.partSamples * 2 - 1) == 1)
    #expect(SampleLog.tallyParts(forSamples: SampleLog.partSamples * 2) == 2)
    #expect(SampleLog.tallyParts(forSamples: SampleLog.partSamples * 7) == 7)
    #expect(SampleLog.tallyParts(forSamples: 100_000_000) == SampleLog.maximumParts)
    #expect(SampleLog.maximumParts == 16)
    // A part is about a merge bin or more: never less work than a bin.
    #expect(SampleLog.partSamples >= MergeBin.targetSamples)
  }
}

extension Double {
  /// Whether the two agree to a relative `tolerance` (or both are tiny).
  fileprivate func isClose(to other: Double, tolerance: Double = 1e-9) -> Bool {
    abs(self - other) <= tolerance * max(1, abs(self), abs(other))
  }
}
