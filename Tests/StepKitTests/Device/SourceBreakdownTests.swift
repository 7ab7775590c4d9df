#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import Testing

  @testable import StepKit

  /// The explanation of a total through the HealthKit stand-in. Expected values are worked by
  /// hand from Apple's documented Data Sources order (typed-in entries, then Apple's devices with
  /// the Watch above the iPhone, then other apps) and COUNTING.md's pro-rating, not by StepKitCore.
  @Suite("Each source's counted and raw steps", .hangLimit())
  struct SourceBreakdownTests {
    let fixture: DeviceFixture

    init() throws { fixture = try DeviceFixture() }

    /// Watch 1,000 (09:00–10:00), iPhone 800 (09:30–10:30), an app 300 (09:15–09:45) and 250
    /// typed into Health (11:00–11:10).
    func store(counting: HealthKitStepSource.Counting = .healthKitStatistics) throws -> HealthFixture.Store {
      let store = HealthFixture.Store(counting: counting)
      try store.addSteps(1000, "2026-11-29T09:00:00+08:00", "2026-11-29T10:00:00+08:00", origin: .appleWatch)
      try store.addSteps(800, "2026-11-29T09:30:00+08:00", "2026-11-29T10:30:00+08:00", origin: .iPhone)
      try store.addSteps(300, "2026-11-29T09:15:00+08:00", "2026-11-29T09:45:00+08:00", origin: .otherApp)
      store.simulation.add(
        steps: 250, from: try HealthFixture.date("2026-11-29T11:00:00+08:00"),
        to: try HealthFixture.date("2026-11-29T11:10:00+08:00"), origin: .healthApp, userEntered: true)
      return store
    }

    /// Name, counted and raw steps of each row.
    func rows(_ breakdown: SourceBreakdown) -> [String] {
      breakdown.sources.map { "\($0.name) \($0.roundedCountedSteps)/\($0.roundedRawSteps)" }
    }

    @Test(
      "the health policy: the Watch counts, the iPhone only outside it, the app and typed-in steps not",
      arguments: HealthFixture.countings)
    func healthPolicy(counting: HealthKitStepSource.Counting) async throws {
      let store = try store(counting: counting)
      try await store.authorize()
      let breakdown = try await store.source.sourceBreakdown(in: fixture.day, policy: .health)
      // Watch: all 1,000. iPhone: 10:00–10:30 is outside the Watch's hour, 800 × 30/60 = 400.
      // The app's half hour lies inside the Watch's hour: 0. Typed-in: left out by the policy.
      #expect(
        rows(breakdown) == [
          "Apple Watch 1000/1000", "iPhone 400/800", "Pedometer Plus 0/300", "Health 0/250",
        ])
      #expect(breakdown.roundedCountedSteps == 1400)
      #expect(breakdown.rawSteps == 2350)
      #expect(breakdown.hasData)
      // The total it explains: HealthKit's own merge in the stand-in, Apple's default order.
      #expect(try await store.source.steps(in: fixture.day, policy: .health).roundedSteps == 1400)
    }

    @Test("the all policy: typed-in entries come first and count")
    func allPolicy() async throws {
      let store = try store()
      try await store.authorize()
      let breakdown = try await store.source.sourceBreakdown(in: fixture.day, policy: .all)
      #expect(
        rows(breakdown) == [
          "Apple Watch 1000/1000", "iPhone 400/800", "Health 250/250", "Pedometer Plus 0/300",
        ])
      #expect(breakdown.roundedCountedSteps == 1650)
      #expect(try await store.source.steps(in: fixture.day, policy: .all).roundedSteps == 1650)
    }

    @Test("part of a day: samples are cut at the interval's edges")
    func partOfDay() async throws {
      let store = try store()
      try await store.authorize()
      let morning = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-29T10:15:00+08:00")
      let breakdown = try await store.source.sourceBreakdown(in: morning, policy: .health)
      // iPhone: raw 800 × 45/60 = 600 inside; counted 10:00–10:15, 800 × 15/60 = 200.
      #expect(rows(breakdown) == ["Apple Watch 1000/1000", "iPhone 200/600", "Pedometer Plus 0/300"])
    }

    @Test("the counter, its completion-handler twin and the Objective-C twin agree; errors reach each")
    func twins() async throws {
      let store = try store()
      try await store.authorize()
      let counter = StepCounter(
        health: store.source, motion: nil, strategy: .healthKit, calendar: fixture.calendar,
        bundle: DictionaryBundleInfo.complete)
      let swift = try await counter.sourceBreakdown(in: fixture.day)
      #expect(swift.roundedCountedSteps == 1400)
      let handed: Result<SourceBreakdown, StepKitError> = await withCheckedContinuation { continuation in
        counter.sourceBreakdown(in: fixture.day, queue: .global()) { continuation.resume(returning: $0) }
      }
      #expect(try handed.get() == swift)
      let manager = StepKitHealthManager(counter: counter)
      let objc: [String] = await withCheckedContinuation { continuation in
        manager.sourceBreakdown(from: fixture.day.start, to: fixture.day.end) { sources, _ in
          continuation.resume(returning: sources.map { "\($0.name) \($0.countedSteps)/\($0.rawSteps)" })
        }
      }
      #expect(objc == rows(swift))
      store.simulation.isLocked = true
      await #expect(throws: StepKitError.healthDatabaseLocked) {
        try await counter.sourceBreakdown(in: fixture.day)
      }
      let locked: Int? = await withCheckedContinuation { continuation in
        manager.sourceBreakdown(from: fixture.day.start, to: fixture.day.end) { _, error in
          continuation.resume(returning: error?.code)
        }
      }
      #expect(locked == 103)
      let motionOnly = StepCounter(health: nil, motion: nil, bundle: DictionaryBundleInfo.complete)
      await #expect(throws: StepKitError.sourceNotConfigured(.healthKit)) {
        try await motionOnly.sourceBreakdown(in: fixture.day)
      }
    }
  }
#endif
