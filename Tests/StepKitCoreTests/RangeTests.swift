import Foundation
import Testing

@testable import StepKitCore

/// COUNTING.md, Outputs: the rows run from the bucket of the first valid step
/// or distance sample to the bucket of the last, whatever the policy.
@Suite("The range of rows, hand-computed")
struct RangeTests {
  typealias F = Fixture

  static let samples = [
    // Only `all` counts this one: typed in.
    F.steps("2026-05-01 10:00", "2026-05-01 11:00", 100, source: "Health", userEntered: true),
    F.steps("2026-05-02 10:00", "2026-05-02 11:00", 200, source: "iPhone", device: F.phone),
    // `device` leaves this one out: another app.
    F.steps("2026-05-03 10:00", "2026-05-03 11:00", 300, source: "Mi Fitness"),
    // The last sample is a distance.
    F.distance("2026-05-04 10:00", "2026-05-04 11:00", 400, source: "iPhone", device: F.phone),
  ]

  @Test(
    "Every policy prints the same days; only the sums differ",
    arguments: [
      (CountingPolicy.all, [100.0, 200, 300, 0]), (.health, [0, 200, 300, 0]), (.device, [0, 200, 0, 0]),
    ])
  func sameRows(policy: CountingPolicy, steps: [Double]) {
    let tally = SampleLog(Self.samples).tally(CountingOptions(policy: policy))
    #expect(
      tally.buckets.map(\.firstDay.description) == ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04"])
    #expect(tally.buckets.map(\.steps) == steps)
    #expect(tally.buckets.map(\.distanceMeters) == [0, 0, 0, 400])
    #expect(tally.buckets.map(\.rawSteps) == [100, 200, 300, 0])
  }

  @Test("Hours too: the range is the same under every policy")
  func sameHours() {
    let hours = CountingPolicy.allCases.map { policy in
      SampleLog(Self.samples).tally(CountingOptions(policy: policy, unit: .hour)).buckets.map {
        $0.label(unit: .hour)
      }
    }
    #expect(hours[0].count == 3 * 24 + 1)
    #expect(hours[0].first == "2026-05-01T10:00+00:00")
    #expect(hours[0].last == "2026-05-04T10:00+00:00")
    #expect(hours.allSatisfy { $0 == hours[0] })
  }

  @Test("Invalid samples do not stretch the range")
  func invalidOutsideRange() {
    var log = SampleLog(Self.samples)
    log.append(F.steps("2030-01-01 10:00", "2030-01-01 09:00", 5, source: "iPhone", device: F.phone))
    let tally = log.tally(CountingOptions())
    #expect(tally.invalid.count == 1)
    #expect(tally.buckets.last?.firstDay.description == "2026-05-04")
  }
}
