import Foundation
import Testing

@testable import StepKitCore

/// COUNTING.md, Outputs: the rows run from the first bucket in which the policy counts
/// something to the last; buckets holding only samples the policy drops do not open or close
/// the range, and buckets without any sample inside it are marked as such.
@Suite("The range of rows, hand-computed")
struct RangeTests {
  typealias F = Fixture

  static let samples = [
    // Only `all` counts this one: typed in.
    F.steps("2026-05-01 10:00", "2026-05-01 11:00", 100, source: "Health", userEntered: true),
    F.steps("2026-05-02 10:00", "2026-05-02 11:00", 200, source: "iPhone", device: F.phone),
    // `device` leaves this one out: another app.
    F.steps("2026-05-03 10:00", "2026-05-03 11:00", 300, source: "Mi Fitness"),
    // The last sample is a distance, after a day without any sample.
    F.distance("2026-05-05 10:00", "2026-05-05 11:00", 400, source: "iPhone", device: F.phone),
    // Typed in after everything: only `all` counts it, so only `all` ends with it.
    F.steps("2026-05-07 10:00", "2026-05-07 11:00", 50, source: "Health", userEntered: true),
  ]

  @Test(
    "Each policy's rows open and close with a day it counts something in",
    arguments: [
      (
        CountingPolicy.all,
        ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05", "2026-05-06", "2026-05-07"],
        [100.0, 200, 300, 0, 0, 0, 50]
      ),
      (.health, ["2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05"], [200, 300, 0, 0]),
      (.device, ["2026-05-02", "2026-05-03", "2026-05-04", "2026-05-05"], [200, 0, 0, 0]),
    ])
  func rowsPerPolicy(policy: CountingPolicy, days: [String], steps: [Double]) {
    let tally = SampleLog(Self.samples).tally(CountingOptions(policy: policy))
    #expect(tally.buckets.map(\.firstDay.description) == days)
    #expect(tally.buckets.map(\.steps) == steps)
    // 2026-05-04 and 2026-05-06 hold no sample at all: no data, not 0 steps.
    #expect(
      tally.buckets.filter { !$0.hasSamples }.map(\.firstDay.description)
        == days.filter { ["2026-05-04", "2026-05-06"].contains($0) })
    #expect(tally.buckets.last.map(\.distanceMeters) == (policy == .all ? 0 : 400))
  }

  @Test("A policy that counts nothing shows every day with a sample")
  func nothingCounted() {
    let typedIn = [
      F.steps("2026-05-01 10:00", "2026-05-01 11:00", 100, source: "Health", userEntered: true),
      F.steps("2026-05-03 10:00", "2026-05-03 11:00", 100, source: "Health", userEntered: true),
    ]
    let tally = SampleLog(typedIn).tally(CountingOptions(policy: .health))
    #expect(tally.buckets.map(\.firstDay.description) == ["2026-05-01", "2026-05-02", "2026-05-03"])
    #expect(tally.buckets.map(\.hasSamples) == [true, false, true])
    #expect(tally.buckets.map(\.manualSteps) == [100, 0, 100])
  }

  @Test("A fixed range is kept whole, whatever it holds")
  func fixedRange() {
    var options = CountingOptions(policy: .health)
    options.from = LocalDate("2026-04-30")
    options.to = LocalDate("2026-05-02")
    let tally = SampleLog(Self.samples).tally(options)
    #expect(tally.buckets.map(\.firstDay.description) == ["2026-04-30", "2026-05-01", "2026-05-02"])
    #expect(tally.buckets.map(\.hasSamples) == [false, true, true])
  }

  @Test("Hours too: the range opens at the first hour the policy counts")
  func hours() {
    let hours = CountingPolicy.allCases.map { policy in
      SampleLog(Self.samples).tally(CountingOptions(policy: policy, unit: .hour)).buckets.map {
        $0.label(unit: .hour)
      }
    }
    let all = hours[CountingPolicy.allCases.firstIndex(of: .all)!]
    let health = hours[CountingPolicy.allCases.firstIndex(of: .health)!]
    #expect(all.first == "2026-05-01T10:00+00:00")
    #expect(all.last == "2026-05-07T10:00+00:00")
    #expect(health.first == "2026-05-02T10:00+00:00")
    #expect(health.last == "2026-05-05T10:00+00:00")
    #expect(health.count == 3 * 24 + 1)
  }

  @Test("Invalid samples do not stretch the range")
  func invalidOutsideRange() {
    var log = SampleLog(Self.samples)
    log.append(F.steps("2030-01-01 10:00", "2030-01-01 09:00", 5, source: "iPhone", device: F.phone))
    let tally = log.tally(CountingOptions())
    #expect(tally.invalid.count == 1)
    #expect(tally.buckets.last?.firstDay.description == "2026-05-05")
  }
}
