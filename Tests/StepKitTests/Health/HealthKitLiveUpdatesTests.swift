#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  @Suite("HealthKit provider: live updates")
  struct HealthKitLiveUpdatesTests {
    @Test("today's steps update on new samples and start again from zero at midnight")
    func rollsOverAtMidnight() async throws {
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      let clock = ManualClock(now: try HealthFixture.date("2026-11-29T23:50:00+08:00"))
      let store = HealthFixture.Store(clock: clock)
      store.simulation.calendar = shanghai
      try store.addSteps(400, "2026-11-29T20:00:00+08:00", "2026-11-29T20:10:00+08:00", origin: .iPhone)
      try await store.authorize()

      let updates = store.source.todayStepUpdates(calendar: shanghai, policy: .health)
      let counts = try await HealthFixture.first(4, of: updates) { received in
        switch received {
        case 1:
          try store.addSteps(
            100, "2026-11-29T23:45:00+08:00", "2026-11-29T23:50:00+08:00", origin: .appleWatch)
        case 2:
          clock.advance(to: try HealthFixture.date("2026-11-30T00:00:30+08:00"))
        default:
          try store.addSteps(30, "2026-11-30T00:00:00+08:00", "2026-11-30T00:00:30+08:00", origin: .iPhone)
        }
      }
      #expect(counts.map(\.roundedSteps) == [400, 500, 0, 30])
      let nextMidnight = try HealthFixture.date("2026-11-30T00:00:00+08:00")
      #expect(counts[1].interval.end == nextMidnight)
      #expect(counts[2].interval.start == nextMidnight)
      #expect(!counts[2].hasData)
      #expect(counts.allSatisfy { $0.provenance.source == .healthKit })
    }

    @Test("the observer query stops when the consumer is cancelled")
    func stopsObserver() async throws {
      let store = HealthFixture.Store(clock: ManualClock(now: Date()))
      try await store.authorize()
      let updates = store.source.todayStepUpdates(calendar: .current, policy: .health)
      let consumer = Task {
        var received = 0
        for try await _ in updates { received += 1 }
        return received
      }
      // The stream starts its observer query as soon as it is created.
      #expect(store.simulation.executedQueries.contains("HKObserverQuery"))
      consumer.cancel()
      _ = try? await consumer.value
      #expect(store.simulation.activeObserverCount == 0)
    }

    @Test("live updates end with the error when steps cannot be read")
    func endsWithError() async throws {
      let store = HealthFixture.Store(clock: ManualClock(now: Date()))
      var iterator = store.source.todayStepUpdates(calendar: .current, policy: .health).makeAsyncIterator()
      await #expect(throws: StepKitError.authorizationNotDetermined(.steps)) { try await iterator.next() }
    }
  }
#endif
