#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  /// Holds `onUpdate` until the test lets it return, and records what it saw.
  final class UpdateGate: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [StepCount] = []
    private var completionsSeenInside: [Int] = []
    private var waiting: CheckedContinuation<Void, Never>?
    private var entered: [CheckedContinuation<Void, Never>] = []
    private var isOpen = false

    /// What `onUpdate` does: records the count and how many completions HealthKit had, then waits.
    func hold(_ count: StepCount, completions: Int) async {
      let arrived: [CheckedContinuation<Void, Never>] = lock.withLock {
        counts.append(count)
        completionsSeenInside.append(completions)
        defer { entered = [] }
        return entered
      }
      for continuation in arrived { continuation.resume() }
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let open: Bool = lock.withLock {
          if isOpen { return true }
          waiting = continuation
          return false
        }
        if open { continuation.resume() }
      }
    }

    /// Waits until `onUpdate` has been entered at least once.
    func waitUntilEntered() async {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let already: Bool = lock.withLock {
          if !counts.isEmpty { return true }
          entered.append(continuation)
          return false
        }
        if already { continuation.resume() }
      }
    }

    /// Lets `onUpdate` return.
    func open() {
      let pending: CheckedContinuation<Void, Never>? = lock.withLock {
        isOpen = true
        defer { waiting = nil }
        return waiting
      }
      pending?.resume()
    }

    var seen: [StepCount] { lock.withLock { counts } }
    var completionsWhileInside: [Int] { lock.withLock { completionsSeenInside } }
  }

  @Suite("Background delivery that works on a device", .timeLimit(.minutes(1)))
  struct BackgroundDeliveryTests {
    func counter(_ store: HealthFixture.Store, clock: any StepClock) -> StepCounter {
      StepCounter(
        health: store.source, motion: nil, strategy: .healthKit,
        calendar: (try? HealthFixture.calendar("Asia/Shanghai")) ?? .current, clock: clock,
        bundle: DictionaryBundleInfo.complete)
    }

    @Test("a background relaunch reaches the observer registered at launch; completion follows onUpdate")
    func relaunch() async throws {
      let clock = ManualClock(now: try HealthFixture.date("2026-11-29T12:00:00+08:00"))
      let store = HealthFixture.Store(clock: clock)
      try await store.authorize()
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      store.simulation.add(steps: 400, from: nine, to: nine.addingTimeInterval(600))

      // First launch: register and enable; then the system ends the app.
      let first = counter(store, clock: clock).registerBackgroundDelivery { _ in }
      try await first.enabled()
      #expect(store.simulation.backgroundDelivery[HKQuantityTypeIdentifier.stepCount.rawValue] == .hourly)
      store.simulation.terminateApp()

      // The Watch syncs while the app is not running: HealthKit relaunches it in the background.
      store.simulation.add(steps: 600, from: nine.addingTimeInterval(3600), to: nine.addingTimeInterval(4200))
      let gate = UpdateGate()
      let simulation = store.simulation
      var registration: BackgroundDeliveryRegistration?
      let woke = store.simulation.relaunchInBackground {
        registration = counter(store, clock: clock).registerBackgroundDelivery { count in
          await gate.hold(count, completions: simulation.observerCompletions)
        }
      }
      #expect(woke)
      await gate.waitUntilEntered()
      #expect(gate.seen.map(\.roundedSteps) == [1000])
      #expect(store.simulation.observerCompletions == 0)  // HealthKit still waits: onUpdate runs
      gate.open()
      await store.simulation.waitForObserverCompletions(1)
      #expect(gate.completionsWhileInside == [0])
      #expect(store.simulation.observerDeliveries == 1)
      try await registration?.enabled()
      #expect(registration?.lastError == nil)
      registration?.cancel()
      #expect(store.simulation.activeObserverCount == 0)
    }

    @Test("an observer registered after launch (when a screen appears) gets nothing for that launch")
    func lateObserverMissesRelaunch() async throws {
      let clock = ManualClock(now: try HealthFixture.date("2026-11-29T12:00:00+08:00"))
      let store = HealthFixture.Store(clock: clock)
      try await store.authorize()
      try await store.source.enableBackgroundDelivery(frequency: .hourly)
      store.simulation.terminateApp()
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      store.simulation.add(steps: 600, from: nine, to: nine.addingTimeInterval(600))
      #expect(store.simulation.relaunchInBackground {})
      let late = counter(store, clock: clock).registerBackgroundDelivery { _ in
        Issue.record("a late observer must not receive the relaunch's delivery")
      }
      try await late.enabled()
      #expect(store.simulation.observerDeliveries == 0)
      late.cancel()
    }

    @Test("every path calls HealthKit's completion once: failed reads, observer errors, many changes")
    func completionOnEveryPath() async throws {
      let clock = ManualClock(now: try HealthFixture.date("2026-11-29T12:00:00+08:00"))

      // Not authorized: the observer query reports an error; it is acknowledged at once.
      let unasked = HealthFixture.Store(clock: clock)
      let quiet = counter(unasked, clock: clock).registerBackgroundDelivery { _ in
        Issue.record("no count without access")
      }
      await unasked.simulation.waitForObserverCompletions(1)
      #expect(unasked.simulation.observerDeliveries == 1)
      quiet.cancel()

      // Reading fails after the change: onUpdate is skipped, the completion still comes.
      let failing = HealthFixture.Store(clock: clock)
      try await failing.authorize()
      let registration = counter(failing, clock: clock).registerBackgroundDelivery { _ in
        Issue.record("no count when reading fails")
      }
      failing.simulation.queryFailure = .errorInvalidArgument
      failing.simulation.add(steps: 5, from: clock.now().addingTimeInterval(-60), to: clock.now())
      await failing.simulation.waitForObserverCompletions(1)
      #expect(registration.lastError == .queryFailed(code: 3, message: "HealthKit error 3"))

      // Ten changes: ten updates, ten completions.
      registration.cancel()
      failing.simulation.queryFailure = nil
      let updates = UpdateGate()
      updates.open()
      let many = counter(failing, clock: clock).registerBackgroundDelivery { count in
        await updates.hold(count, completions: 0)
      }
      for minute in 1...10 {
        failing.simulation.add(
          steps: 1, from: clock.now().addingTimeInterval(Double(-minute * 60)),
          to: clock.now().addingTimeInterval(Double(-minute * 60 + 30)))
      }
      await failing.simulation.waitForObserverCompletions(11)
      #expect(failing.simulation.observerDeliveries == 11)
      #expect(updates.seen.count == 10)
      many.cancel()
    }

    @Test("a missing background-delivery entitlement is reported by enabled()")
    func missingEntitlement() async throws {
      let clock = ManualClock(now: Date())
      let store = HealthFixture.Store(clock: clock)
      store.simulation.hasBackgroundDeliveryEntitlement = false
      try await store.authorize()
      let registration = counter(store, clock: clock).registerBackgroundDelivery { _ in }
      await #expect(
        throws: StepKitError.missingEntitlement(key: InfoPlistKey.healthKitBackgroundDeliveryEntitlement)
      ) {
        try await registration.enabled()
      }
      registration.cancel()
    }
  }
#endif
