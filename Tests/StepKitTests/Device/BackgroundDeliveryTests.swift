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
    private var waiting: [CheckedContinuation<Void, Never>] = []
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
          waiting.append(continuation)
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
      let pending: [CheckedContinuation<Void, Never>] = lock.withLock {
        isOpen = true
        defer { waiting = [] }
        return waiting
      }
      for continuation in pending { continuation.resume() }
    }

    var seen: [StepCount] { lock.withLock { counts } }
    var completionsWhileInside: [Int] { lock.withLock { completionsSeenInside } }
  }

  @Suite("Background delivery that works on a device", .hangLimit())
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
      await store.simulation.waitForObserverCompletions(1)  // its call on starting
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
      // The first launch's observer had its one call when it started (devices call a new
      // observer once), and its completion; this launch's calls wait for onUpdate.
      #expect(gate.seen.allSatisfy { $0.roundedSteps == 1000 })
      #expect(store.simulation.observerCompletions == 1)  // HealthKit still waits: onUpdate runs
      gate.open()
      // This launch's observer: its call on starting, and the relaunch's delivery; onUpdate is
      // idempotent, both show today's 1,000.
      await store.simulation.waitForObserverCompletions(3)
      #expect(gate.seen.map(\.roundedSteps) == [1000, 1000])
      #expect(gate.completionsWhileInside.first == 1)
      #expect(store.simulation.observerDeliveries == 3)
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
      let late = counter(store, clock: clock).registerBackgroundDelivery { _ in }
      try await late.enabled()
      // Only the call every observer gets when it starts; the relaunch's delivery went nowhere.
      await store.simulation.waitForObserverCompletions(1)
      #expect(store.simulation.observerDeliveries == 1)
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
      let before = UpdateGate()
      before.open()
      let registration = counter(failing, clock: clock).registerBackgroundDelivery { count in
        await before.hold(count, completions: 0)
      }
      await failing.simulation.waitForObserverCompletions(1)  // its call on starting, read fine
      failing.simulation.queryFailure = .errorInvalidArgument
      failing.simulation.add(steps: 5, from: clock.now().addingTimeInterval(-60), to: clock.now())
      await failing.simulation.waitForObserverCompletions(2)
      #expect(before.seen.count == 1)
      #expect(registration.lastError == .queryFailed(code: 3, message: "HealthKit error 3"))

      // Ten changes: ten updates, ten completions.
      registration.cancel()
      failing.simulation.queryFailure = nil
      let updates = UpdateGate()
      updates.open()
      let many = counter(failing, clock: clock).registerBackgroundDelivery { count in
        await updates.hold(count, completions: 0)
      }
      await failing.simulation.waitForObserverCompletions(3)  // the new observer's first call
      for minute in 1...10 {
        failing.simulation.add(
          steps: 1, from: clock.now().addingTimeInterval(Double(-minute * 60)),
          to: clock.now().addingTimeInterval(Double(-minute * 60 + 30)))
      }
      // The first registration's start and change, then the new one's start and ten changes.
      await failing.simulation.waitForObserverCompletions(13)
      #expect(failing.simulation.observerDeliveries == 13)
      #expect(updates.seen.count == 11)
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
