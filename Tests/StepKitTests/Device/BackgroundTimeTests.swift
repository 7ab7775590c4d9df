#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  // The simulated device grants background time as ProcessInfo does, with the same method.
  extension HealthStoreSimulation: BackgroundTime {}

  /// Background work bounded by the time iOS gives: when it runs out, HealthKit's completion is
  /// called before the app is suspended, never left uncalled.
  @Suite("Background time runs out", .hangLimit())
  struct BackgroundTimeTests {
    /// What outlasts the background time.
    enum Slow: String, CaseIterable, CustomTestStringConvertible {
      /// The app's own onUpdate (an upload, a widget refresh).
      case onUpdate
      /// HealthKit's statistics query on a busy device.
      case statistics
      var testDescription: String { rawValue }
    }

    let fixture: DeviceFixture

    init() throws { fixture = try DeviceFixture() }

    func counter(_ store: HealthFixture.Store, clock: ManualClock) -> StepCounter {
      StepCounter(
        health: store.source, motion: nil, strategy: .healthKit, calendar: fixture.calendar, clock: clock,
        bundle: DictionaryBundleInfo.complete, backgroundTime: store.simulation)
    }

    /// A manual clock at noon, and a store with the Watch's 2,000 steps that the app may read.
    func authorizedStore() async throws -> (ManualClock, HealthFixture.Store) {
      let clock = ManualClock(now: fixture.noon)
      let store = fixture.store(clock: clock)
      try await store.authorize()
      return (clock, store)
    }

    /// Waits (briefly, polling) until `condition` holds; whether it did.
    func eventually(_ condition: () -> Bool) async throws -> Bool {
      for _ in 0..<400 where !condition() { try await Task.sleep(nanoseconds: 5_000_000) }
      return condition()
    }

    @Test(
      "the system's notice that time runs out calls HealthKit's completion before suspension",
      arguments: Slow.allCases)
    func expiryCallsCompletion(slow: Slow) async throws {
      let (clock, store) = try await authorizedStore()
      let gate = UpdateGate()
      if slow == .statistics { store.simulation.holdsAnswers = true }
      let registration = counter(store, clock: clock).registerBackgroundDelivery { count in
        await gate.hold(count, completions: 0)
      }
      // The observer's call on starting: today's count is being worked out, and takes long.
      switch slow {
      case .onUpdate: await gate.waitUntilEntered()
      case .statistics:
        #expect(try await eventually { store.simulation.executedQueries.contains("HKStatisticsQuery") })
      }
      #expect(store.simulation.observerCompletions == 0)
      store.simulation.expireBackgroundTime()
      // Called while the system held the suspension back, not after the app comes back.
      #expect(store.simulation.observerCompletions == 1)
      #expect(registration.lastError == .backgroundTimeExpired)
      await store.simulation.waitForHeldBackgroundActivities(0)
      store.simulation.holdsAnswers = false
      store.simulation.resumeApp()
      gate.open()
      registration.cancel()
      #expect(store.simulation.observerCompletions == 1)
    }

    @Test("the counter's own deadline calls the completion when the system gives no notice")
    func deadlineCallsCompletion() async throws {
      let (clock, store) = try await authorizedStore()
      let gate = UpdateGate()
      let registration = counter(store, clock: clock).registerBackgroundDelivery { count in
        await gate.hold(count, completions: 0)
      }
      await gate.waitUntilEntered()
      clock.advance(by: StepCounter.backgroundTimeLimit - 1)
      #expect(store.simulation.observerCompletions == 0)
      clock.advance(by: 1)
      #expect(try await eventually { store.simulation.observerCompletions == 1 })
      #expect(registration.lastError == .backgroundTimeExpired)
      gate.open()
      registration.cancel()
    }

    @Test("no background time at all: the completion is called at once, the count is not handed on")
    func noTimeGranted() async throws {
      let (clock, store) = try await authorizedStore()
      store.simulation.grantsBackgroundTime = false
      store.simulation.holdsAnswers = true
      let deliveries = Deliveries()
      let registration = counter(store, clock: clock).registerBackgroundDelivery { deliveries.add($0) }
      await store.simulation.waitForObserverCompletions(1)
      #expect(registration.lastError == .backgroundTimeExpired)
      store.simulation.holdsAnswers = false
      try await Task.sleep(nanoseconds: 50_000_000)  // time for a count to arrive, were one handed on
      #expect(deliveries.all.isEmpty)
      registration.cancel()
    }

    @Test("work done in time hands the count on, then ends the assertion")
    func inTime() async throws {
      let (clock, store) = try await authorizedStore()
      let deliveries = Deliveries()
      let registration = counter(store, clock: clock).registerBackgroundDelivery { deliveries.add($0) }
      await store.simulation.waitForObserverCompletions(1)
      await store.simulation.waitForHeldBackgroundActivities(0)
      #expect(deliveries.all.map(\.roundedSteps) == [2000])
      #expect(registration.lastError == nil)
      #expect(try await eventually { clock.waitingCount == 0 })  // the deadline's wait ended with the work
      registration.cancel()
    }

    @Test("the stand-in's process: time held until the work returns, expiry, a suspended app's handlers wait")
    func standInProcess() async throws {
      let simulation = HealthStoreSimulation()
      let calls = LockedCalls()
      let release = DispatchSemaphore(value: 0)
      simulation.performExpiringActivity(withReason: "test") { expired in
        calls.add(expired)
        if !expired { release.wait() }
      }
      await simulation.waitForHeldBackgroundActivities(1)
      #expect(try await eventually { calls.all == [false] })
      simulation.expireBackgroundTime()
      #expect(calls.all == [false, true])
      #expect(simulation.isSuspended)
      release.signal()
      await simulation.waitForHeldBackgroundActivities(0)
      // No time for a suspended app; an empty reason is an exception.
      simulation.performExpiringActivity(withReason: "later") { calls.add($0) }
      simulation.performExpiringActivity(withReason: "") { calls.add($0) }
      #expect(try await eventually { calls.all.count == 3 })
      #expect(calls.all.last == true)
      #expect(simulation.raisedExceptions.count == 1)
      simulation.resumeApp()
      #expect(!simulation.isSuspended)
    }
  }

  /// Records the arguments a block was called with, from any thread.
  final class LockedCalls: @unchecked Sendable {
    private let lock = NSLock()
    private var calls: [Bool] = []
    func add(_ expired: Bool) { lock.withLock { calls.append(expired) } }
    var all: [Bool] { lock.withLock { calls } }
  }
#endif
