import Foundation
import StepKit
import StepKitUI
import Testing

@Suite("Loaders: today follows live updates and midnight; access requests move the guidance on")
struct LoaderTests {
  @Test("today: loading, the count with its distance, a new sample, then zero after midnight")
  func todayFollowsUpdates() async throws {
    let calendar = try Fixture.calendar("Asia/Shanghai")
    let clock = ManualClock(now: try Fixture.date("2026-11-29T23:00:00+08:00"))
    let counter = PreviewCounters.walker(days: [4_000, 8_000], clock: clock, calendar: calendar)
    let health = try #require(counter.health as? SimulatedStepSource)
    let feed = TodayFeed(
      counter: counter, goal: 8_000, formatting: try Fixture.formatting(.english, locale: "en_GB"))
    let phases = try await Fixture.first(4, of: feed.phases()) { received in
      switch received {
      case 2:
        health.add(
          Sample(
            kind: .steps, start: try Fixture.date("2026-11-29T22:00:00+08:00"),
            end: try Fixture.date("2026-11-29T22:30:00+08:00"), value: 500, source: "Apple Watch",
            device: Device(model: "Watch")))
      case 3: clock.advance(by: 3600)
      default: break
      }
    }
    #expect(phases[0] == .loading)
    guard case .showing(let first) = phases[1], case .showing(let second) = phases[2],
      case .showing(let midnight) = phases[3]
    else {
      Issue.record("unexpected phases \(phases)")
      return
    }
    #expect(first.steps == 8_000)
    #expect(first.isGoalReached)
    #expect(first.distanceText == "5.9 km")
    #expect(second.steps == 8_500)
    #expect(midnight.steps == 0)
    #expect(midnight.goalText == "0% of 8,000 steps")
  }

  @Test("today: a failing source ends in guidance")
  func todayFailure() async throws {
    let counter = PreviewCounters.failing(
      with: .motionNotAuthorized, clock: ManualClock(now: try Fixture.date("2026-11-29T12:00:00+08:00")))
    let phases = try await Fixture.first(
      2, of: TodayFeed(counter: counter, formatting: try Fixture.formatting(.english)).phases())
    #expect(
      phases.last
        == .failed(AccessGuidance(error: .motionNotAuthorized, formatting: try Fixture.formatting(.english))))
  }

  @Test("access: the Health prompt is offered, and after it nothing more is said")
  func requestHealth() async throws {
    let clock = ManualClock(now: try Fixture.date("2026-11-29T12:00:00+08:00"))
    let check = AccessCheck(
      counter: PreviewCounters.notAskedYet(clock: clock), formatting: try Fixture.formatting(.english))
    let before = try #require(await check.guidance())
    #expect(before.action == .requestHealthAccess)
    #expect(await check.perform(.requestHealthAccess) == nil)
    #expect(await check.guidance() == nil)
  }

  @Test("access: Motion & Fitness asked, then refused, leads to its Settings page")
  func requestMotion() async throws {
    let clock = ManualClock(now: try Fixture.date("2026-11-29T12:00:00+08:00"))
    let motion = SimulatedStepSource(authorization: .notRequested, kind: .motion, clock: clock)
    motion.answerToPrompt = .denied
    let counter = StepCounter(
      health: nil, motion: motion, strategy: .motion, clock: clock, bundle: DictionaryBundleInfo.complete)
    let check = AccessCheck(counter: counter, formatting: try Fixture.formatting(.english))
    #expect(await check.guidance()?.action == .requestMotionAccess)
    let after = try #require(await check.perform(.requestMotionAccess))
    #expect(after.action == .open(.appSettings))
    #expect(motion.authorization == .denied)
  }

  @Test("access: a missing usage description is reported, not a crash")
  func missingUsageDescription() async throws {
    let clock = ManualClock(now: try Fixture.date("2026-11-29T12:00:00+08:00"))
    let counter = StepCounter(
      health: SimulatedStepSource(authorization: .notRequested, kind: .healthKit, clock: clock), motion: nil,
      clock: clock, bundle: DictionaryBundleInfo([:]))
    let check = AccessCheck(counter: counter, formatting: try Fixture.formatting(.english))
    let guidance = try #require(await check.perform(.requestHealthAccess))
    #expect(guidance.situation == .error(.missingUsageDescription(key: "NSHealthShareUsageDescription")))
    #expect(guidance.action == nil)
  }
}
