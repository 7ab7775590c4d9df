import Foundation
import Testing

@testable import StepKitCore

/// COUNTING.md step 2: sources are classed and ranked separately for steps
/// and for distance; the device policy uses the same per-kind class.
@Suite("Ranking per quantity kind, hand-computed")
struct PerKindRankingTests {
  typealias F = Fixture

  /// The real case: a Health source whose steps are all typed in, but not all
  /// of whose distance samples are.
  static let healthAndGarmin = [
    F.steps("2026-05-01 10:00", "2026-05-01 11:00", 1666, source: "Health", userEntered: true),
    F.distance("2026-05-01 10:00", "2026-05-01 11:00", 1000, source: "Health", userEntered: true),
    F.distance("2026-05-01 12:00", "2026-05-01 12:30", 500, source: "Health"),
    F.steps("2026-05-01 10:00", "2026-05-01 11:00", 1500, source: "Garmin Connect"),
    F.distance("2026-05-01 10:00", "2026-05-01 11:00", 1200, source: "Garmin Connect"),
  ]

  @Test("A source typed-in for steps but not for distance has a class for each")
  func classesPerKind() {
    let log = SampleLog(Self.healthAndGarmin)
    #expect(log.sourceNames == ["Health", "Garmin Connect"])
    #expect(log.sourceClasses(for: .steps) == [.typedIn, .other])
    #expect(log.sourceClasses(for: .distance) == [.other, .other])
    let rows = log.tally(CountingOptions(policy: .all)).sources
    #expect(rows.map(\.name) == ["Health", "Garmin Connect"])
    #expect(rows.map(\.rank) == [1, 2])
    // For distance both are "other": Garmin Connect sorts first by name.
    #expect(rows.map(\.distanceRank) == [2, 1])
    #expect(rows.map(\.classLabel) == ["typed-in (steps), other (distance)", "other"])
  }

  @Test("Under all, the typed-in steps outrank Garmin Connect; distance ranks on its own")
  func allPolicy() {
    let total = SampleLog(Self.healthAndGarmin).tally(CountingOptions(policy: .all)).total
    // Steps: Health (typed-in, rank 1) hides Garmin's 10:00–11:00 entirely.
    #expect(total.steps == 1666)
    // Distance: Garmin (rank 1) hides Health's 10:00–11:00; Health's 12:00 walk adds 500.
    #expect(total.distanceMeters == 1700)
  }

  @Test("Under health, typed-in samples leave; the rest merge as before")
  func healthPolicy() {
    let total = SampleLog(Self.healthAndGarmin).tally(CountingOptions(policy: .health)).total
    #expect(total.steps == 1500)
    #expect(total.distanceMeters == 1700)
    #expect(total.manualSteps == 1666)
  }

  @Test("The device policy uses the per-kind class")
  func devicePolicy() {
    let garmin = Device(
      name: "Forerunner", manufacturer: "Garmin", model: "Forerunner 255", hardware: "006-B3992")
    let samples = [
      // Steps from an Apple Watch, distance from a Garmin watch, one app.
      F.steps("2026-05-01 10:00", "2026-05-01 11:00", 2000, source: "Strava", device: F.watch),
      F.distance("2026-05-01 10:00", "2026-05-01 11:00", 1500, source: "Strava", device: garmin),
      F.steps("2026-05-01 12:00", "2026-05-01 12:10", 300, source: "Ada’s iPhone", device: F.phone),
      F.distance("2026-05-01 12:00", "2026-05-01 12:10", 200, source: "Ada’s iPhone", device: F.phone),
    ]
    let log = SampleLog(samples)
    #expect(log.sourceClasses(for: .steps) == [.appleWatch, .iPhone])
    #expect(log.sourceClasses(for: .distance) == [.other, .iPhone])
    let device = log.tally(CountingOptions(policy: .device)).total
    #expect(device.steps == 2300)
    // Strava's distance came from a Garmin: not an Apple device for distance.
    #expect(device.distanceMeters == 200)
    let health = log.tally(CountingOptions(policy: .health)).total
    #expect(health.distanceMeters == 1700)
  }

  @Test("A source with samples of one kind only takes that kind's class for both")
  func oneKindOnly() {
    let samples = [
      F.steps("2026-05-01 10:00", "2026-05-01 11:00", 100, source: "Health", userEntered: true),
      F.distance("2026-05-01 10:00", "2026-05-01 11:00", 80, source: "Ada’s iPhone", device: F.phone),
    ]
    let log = SampleLog(samples)
    #expect(log.sourceClasses(for: .steps) == [.typedIn, .iPhone])
    #expect(log.sourceClasses(for: .distance) == [.typedIn, .iPhone])
    #expect(log.tally(CountingOptions()).sources.map(\.classLabel) == ["typed-in", "iPhone"])
  }
}
