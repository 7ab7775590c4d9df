import Foundation
import StepKit
import Testing

@Suite("SimulatedStepSource: scripted samples, states and failures")
struct SimulatedStepSourceTests {
  @Test("it merges like HealthKit: Watch over iPhone, typed-in entries left out")
  func merges() async throws {
    let watch = Device(model: "Watch", hardware: "Watch6,1")
    let phone = Device(model: "iPhone", hardware: "iPhone15,2")
    let source = SimulatedStepSource(samples: [
      try HealthFixture.steps(
        1000, "2026-11-29T09:00:00+08:00", "2026-11-29T10:00:00+08:00", source: "Watch", device: watch),
      try HealthFixture.steps(
        800, "2026-11-29T09:00:00+08:00", "2026-11-29T10:00:00+08:00", source: "Phone", device: phone),
      try HealthFixture.steps(
        5000, "2026-11-29T11:00:00+08:00", "2026-11-29T12:00:00+08:00", source: "Health", userEntered: true),
    ])
    let day = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
    #expect(try await source.steps(in: day, policy: .health).roundedSteps == 1000)
    #expect(try await source.steps(in: day, policy: .all).roundedSteps == 6000)
    #expect(try await source.steps(in: day, policy: .health).provenance.source == .simulated)
  }

  @Test("scripted failures: once, then always, then cleared")
  func failures() async throws {
    let source = SimulatedStepSource()
    let day = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
    source.failNext(.steps, with: .healthDatabaseLocked)
    await #expect(throws: StepKitError.healthDatabaseLocked) {
      try await source.steps(in: day, policy: .health)
    }
    #expect(try await source.steps(in: day, policy: .health).steps == 0)
    source.failAlways(.distance, with: .queryFailed(code: 3, message: "scripted"))
    await #expect(throws: StepKitError.queryFailed(code: 3, message: "scripted")) {
      try await source.distance(in: day, policy: .health)
    }
    await #expect(throws: StepKitError.queryFailed(code: 3, message: "scripted")) {
      try await source.dailyDistance(in: day, calendar: .current, policy: .health)
    }
    source.failAlways(.distance, with: nil)
    #expect(try await source.distance(in: day, policy: .health).meters == 0)
    #expect(source.callCount(.distance) == 3)
  }

  @Test("authorization plays the scripted answer")
  func authorization() async throws {
    let source = SimulatedStepSource(authorization: .notRequested)
    source.answerToPrompt = .requestedReadAccessUnknown
    try await source.requestAuthorization(.stepsAndDistance)
    #expect(await source.authorizationState() == .requestedReadAccessUnknown)
    let unavailable = SimulatedStepSource(authorization: .unavailable)
    await #expect(throws: StepKitError.healthDataUnavailable) {
      try await unavailable.requestAuthorization(.stepsAndDistance)
    }
  }

  @Test("live updates follow added samples and the clock's midnight")
  func liveUpdates() async throws {
    let shanghai = try HealthFixture.calendar("Asia/Shanghai")
    let clock = ManualClock(now: try HealthFixture.date("2026-11-29T23:00:00+08:00"))
    let source = SimulatedStepSource(clock: clock)
    let counts = try await HealthFixture.first(
      3, of: source.todayStepUpdates(calendar: shanghai, policy: .health)
    ) {
      received in
      if received == 1 {
        source.add(try HealthFixture.steps(77, "2026-11-29T22:00:00+08:00", "2026-11-29T22:10:00+08:00"))
      } else {
        clock.advance(by: 3600)
      }
    }
    #expect(counts.map(\.roundedSteps) == [0, 77, 0])
    #expect(counts[2].interval.start == (try HealthFixture.date("2026-11-30T00:00:00+08:00")))
  }

  @Test("posing as CoreMotion, hand-typed entries do not apply")
  func posesAsMotion() async throws {
    let source = SimulatedStepSource(kind: .motion)
    let count = try await source.steps(in: DateInterval(start: Date(), duration: 60), policy: .health)
    #expect(count.provenance.source == .motion)
    #expect(count.provenance.manualEntries == .notApplicable)
  }
}
