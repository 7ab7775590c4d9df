#if canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Dispatch
  import Foundation
  import StepKit
  import Testing

  /// A counter over a simulated HealthKit (posing as HealthKit) and the real motion source on the
  /// simulated device, both on the device's clock.
  struct StrategyRig {
    let motion: MotionRig
    let health: SimulatedStepSource
    let midnight: Date

    init(
      healthSteps: Double? = 1200, motionSteps: Int = 800, authorization: CMAuthorizationStatus = .authorized
    )
      throws
    {
      motion = try MotionRig(now: "2026-11-29T12:00:00+08:00", authorization: authorization)
      midnight = try motionDate("2026-11-29T00:00:00+08:00")
      health = SimulatedStepSource(kind: .healthKit, clock: DeviceClock(device: motion.device))
      if let healthSteps {
        health.add(
          Sample(
            kind: .steps, start: try motionDate("2026-11-29T09:00:00+08:00"),
            end: try motionDate("2026-11-29T10:00:00+08:00"), value: healthSteps, source: "iPhone"))
      }
      if motionSteps > 0 { try motion.record(motionSteps, at: "2026-11-29T09:30:00+08:00") }
    }

    func counter(_ strategy: StepCounter.Strategy, withHealth: Bool = true) -> StepCounter {
      StepCounter(
        health: withHealth ? health : nil, motion: motion.source, strategy: strategy,
        calendar: motion.calendar, clock: DeviceClock(device: motion.device),
        bundle: DictionaryBundleInfo.complete)
    }

    var today: DateInterval { DateInterval(start: midnight, end: motion.device.now) }
  }

  @Suite("Strategies and fallback between HealthKit and CoreMotion")
  struct MotionStrategyTests {
    /// Why HealthKit could not answer, and the reason the fallback result must carry.
    enum Scenario: String, CaseIterable, Sendable {
      case notConfigured, unavailable, locked, notAuthorized, queryFailed, restricted, noData

      var error: StepKitError? {
        switch self {
        case .notConfigured, .noData: return nil
        case .unavailable: return .healthDataUnavailable
        case .locked: return .healthDatabaseLocked
        case .notAuthorized: return .authorizationNotDetermined(.steps)
        case .queryFailed: return .queryFailed(code: 3, message: "invalid argument")
        case .restricted: return .healthDataRestricted
        }
      }

      var reason: FallbackReason {
        switch self {
        case .notConfigured: return .healthKitNotConfigured
        case .unavailable: return .healthDataUnavailable
        case .locked: return .healthDatabaseLocked
        case .notAuthorized: return .healthKitNotAuthorized
        case .queryFailed: return .healthKitFailed(.queryFailed(code: 3, message: "invalid argument"))
        case .restricted: return .healthKitFailed(.healthDataRestricted)
        case .noData: return .healthKitReturnedNoData
        }
      }

      func makeRig() throws -> StrategyRig {
        let rig = try StrategyRig(healthSteps: self == .noData ? nil : 1200)
        if let error {
          rig.health.failAlways(.steps, with: error)
          rig.health.failAlways(.liveUpdates, with: error)
        }
        if self == .unavailable { rig.health.authorization = .unavailable }
        return rig
      }
    }

    @Test(
      "healthKitThenMotion: every fallback reason, on one-shot and daily answers",
      arguments: Scenario.allCases)
    func fallbackReasons(_ scenario: Scenario) async throws {
      let rig = try scenario.makeRig()
      let counter = rig.counter(.healthKitThenMotion, withHealth: scenario != .notConfigured)
      let (today, daily) = try await rig.motion.run {
        (try await counter.todaySteps(), try await counter.dailySteps(in: rig.today))
      }
      #expect(today.steps == 800)
      #expect(today.provenance.source == .motion)
      #expect(today.provenance.fallbackReason == scenario.reason)
      #expect(today.provenance.notes.contains(.noDataMayMeanDeniedAccess) == (scenario == .noData))
      #expect(daily.days.map(\.steps) == [800])
      #expect(daily.provenance.fallbackReason == scenario.reason)
    }

    @Test(
      "healthKitThenMotion: live updates hand over with every fallback reason", arguments: Scenario.allCases)
    func liveFallbackReasons(_ scenario: Scenario) async throws {
      let rig = try scenario.makeRig()
      let counter = rig.counter(.healthKitThenMotion, withHealth: scenario != .notConfigured)
      try await rig.motion.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.steps == 800)
        #expect(first.provenance.source == .motion)
        #expect(first.provenance.fallbackReason == scenario.reason)
        rig.motion.device.walk(steps: 5)
        let second = try await updates.next()
        #expect(second?.steps == 805)
        #expect(second?.provenance.fallbackReason == scenario.reason)
      }
    }

    @Test("healthKitThenMotion: HealthKit answers when it can, and CoreMotion is not asked")
    func healthKitAnswers() async throws {
      let rig = try StrategyRig()
      let counter = rig.counter(.healthKitThenMotion)
      let today = try await rig.motion.run { try await counter.todaySteps() }
      #expect(today.steps == 1200 && today.provenance.source == .healthKit)
      #expect(today.provenance.fallbackReason == nil)
      #expect(rig.motion.device.requestsReceived == 0)
      try await rig.motion.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        let first = try await updates.next()
        #expect(first?.steps == 1200 && first?.provenance.source == .healthKit)
        #expect(first?.provenance.fallbackReason == nil)
      }
    }

    @Test("healthKitThenMotion: no data on either side returns HealthKit's empty answer")
    func bothEmpty() async throws {
      let rig = try StrategyRig(healthSteps: nil, motionSteps: 0)
      let today = try await rig.motion.run { try await rig.counter(.healthKitThenMotion).todaySteps() }
      #expect(today.provenance.source == .healthKit)
      #expect(!today.hasData && today.provenance.fallbackReason == nil)
    }

    @Test("healthKitThenMotion: when both fail, the error a person can act on")
    func bothFail() async throws {
      let unavailable = try StrategyRig(authorization: .denied)
      unavailable.health.failAlways(.steps, with: .healthDataUnavailable)
      let locked = try StrategyRig(authorization: .denied)
      locked.health.failAlways(.steps, with: .healthDatabaseLocked)
      let notFallback = try StrategyRig()
      notFallback.health.failAlways(.steps, with: .writeAccessDenied(.steps))
      #expect(
        await motionError {
          _ = try await unavailable.motion.run {
            try await unavailable.counter(.healthKitThenMotion).todaySteps()
          }
        } == .motionNotAuthorized)
      #expect(
        await motionError {
          _ = try await locked.motion.run { try await locked.counter(.healthKitThenMotion).todaySteps() }
        } == .healthDatabaseLocked)
      #expect(
        await motionError {
          _ = try await notFallback.motion.run {
            try await notFallback.counter(.healthKitThenMotion).todaySteps()
          }
        } == .writeAccessDenied(.steps))
      #expect(notFallback.motion.device.requestsReceived == 0)
    }

    @Test("motion strategy: the coprocessor only, even when HealthKit has data")
    func motionOnly() async throws {
      let rig = try StrategyRig()
      let counter = rig.counter(.motion)
      let today = try await rig.motion.run { try await counter.todaySteps() }
      #expect(today.steps == 800 && today.provenance.source == .motion)
      #expect(today.provenance.fallbackReason == nil)
      #expect(today.provenance.manualEntries == .notApplicable)
      #expect(rig.health.callCount(.steps) == 0)
      try await rig.motion.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        let first = try await updates.next()
        #expect(first?.steps == 800 && first?.provenance.source == .motion)
      }
      let unconfigured = StepCounter(health: rig.health, motion: nil, strategy: .motion)
      #expect(await motionError { _ = try await unconfigured.todaySteps() } == .sourceNotConfigured(.motion))
    }

    @Test("healthKit strategy: HealthKit's error, CoreMotion never asked")
    func healthKitOnly() async throws {
      let rig = try StrategyRig()
      rig.health.failAlways(.steps, with: .healthDatabaseLocked)
      let error = await motionError {
        _ = try await rig.motion.run { try await rig.counter(.healthKit).todaySteps() }
      }
      #expect(error == .healthDatabaseLocked)
      #expect(rig.motion.device.requestsReceived == 0)
    }

    @Test("the completion handler is called exactly once when CoreMotion answers instead")
    func completionCalledOnce() async throws {
      let rig = try StrategyRig()
      rig.health.failAlways(.steps, with: .healthDatabaseLocked)
      let counter = rig.counter(.healthKitThenMotion)
      let queue = DispatchQueue(label: "MotionStrategyTests.completion")
      let calls = CallCounter()
      let result: Result<StepCount, StepKitError> = await rig.motion.run {
        await withCheckedContinuation { continuation in
          counter.todaySteps(queue: queue) { result in
            if calls.increment() == 1 { continuation.resume(returning: result) }
          }
        }
      }
      await rig.motion.device.waitForDeliveries()
      await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
      #expect(calls.value == 1)
      #expect((try? result.get())?.provenance.fallbackReason == .healthDatabaseLocked)
    }

    // MARK: The larger of both

    @Test(
      "larger of both: each choice",
      arguments: [
        (1200.0 as Double?, 800, CombinedStepCount.Choice.healthKitLarger, 1200.0),
        (500, 800, .motionLarger, 800),
        (nil, 800, .motionLarger, 800),
      ])
    func largerOfBoth(healthSteps: Double?, motionSteps: Int, choice: CombinedStepCount.Choice, shown: Double)
      async throws
    {
      let rig = try StrategyRig(healthSteps: healthSteps, motionSteps: motionSteps)
      let combined = try await rig.motion.run {
        try await rig.counter(.healthKitThenMotion).todayStepsLargerOfBoth()
      }
      #expect(combined.choice == choice)
      #expect(combined.count.steps == shown)
      #expect((try? combined.healthKit.get())?.steps == healthSteps ?? 0)
      #expect((try? combined.motion.get())?.steps == Double(motionSteps))
      #expect(
        combined.count.provenance.fallbackReason == (healthSteps == nil ? .healthKitReturnedNoData : nil))
    }

    @Test("larger of both: one source failing leaves the other; both failing throws")
    func largerOfBothFailures() async throws {
      let locked = try StrategyRig()
      locked.health.failAlways(.steps, with: .healthDatabaseLocked)
      let onlyMotion = try await locked.motion.run {
        try await locked.counter(.healthKitThenMotion).todayStepsLargerOfBoth()
      }
      #expect(onlyMotion.choice == .onlyMotion && onlyMotion.count.steps == 800)
      #expect(onlyMotion.count.provenance.fallbackReason == .healthDatabaseLocked)
      #expect(onlyMotion.healthKit == .failure(.healthDatabaseLocked))

      let denied = try StrategyRig(authorization: .denied)
      let onlyHealth = try await denied.motion.run {
        try await denied.counter(.healthKitThenMotion).todayStepsLargerOfBoth()
      }
      #expect(onlyHealth.choice == .onlyHealthKit && onlyHealth.count.steps == 1200)
      #expect(onlyHealth.motion == .failure(.motionNotAuthorized))

      denied.health.failAlways(.steps, with: .healthDataUnavailable)
      let error = await motionError {
        _ = try await denied.motion.run {
          try await denied.counter(.healthKitThenMotion).todayStepsLargerOfBoth()
        }
      }
      #expect(error == .motionNotAuthorized)
    }

    @Test("larger of both, live: a new choice whenever either source changes")
    func largerOfBothLive() async throws {
      let rig = try StrategyRig(healthSteps: 1000, motionSteps: 990)
      let counter = rig.counter(.healthKitThenMotion)
      try await rig.motion.run {
        var updates = counter.todayStepUpdatesLargerOfBoth().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.choice == .healthKitLarger && first.count.steps == 1000)
        rig.motion.device.walk(steps: 20)
        let second = try #require(try await updates.next())
        #expect(second.choice == .motionLarger && second.count.steps == 1010)
        #expect(second.count.provenance.source == .motion)
      }
      await rig.motion.device.waitForUpdateSessions(0)
    }
  }

  extension MotionStrategyTests {
    @Test("larger of both, live: after midnight yesterday's count is never compared with today's")
    func largerOfBothAcrossMidnight() async throws {
      let rig = try StrategyRig(healthSteps: 1000, motionSteps: 990)
      let counter = rig.counter(.healthKitThenMotion)
      let nextMidnight = try motionDate("2026-11-30T00:00:00+08:00")
      try await rig.motion.run {
        var updates = counter.todayStepUpdatesLargerOfBoth().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.count.steps == 1000)
        rig.motion.device.advance(to: nextMidnight.addingTimeInterval(60))
        var afterMidnight: [CombinedStepCount] = []
        while let next = try await updates.next() {
          afterMidnight.append(next)
          if next.choice == .healthKitLarger { break }
        }
        #expect(afterMidnight.allSatisfy { $0.count.interval.start == nextMidnight && $0.count.steps == 0 })
        #expect(afterMidnight.last?.choice == .healthKitLarger)
      }
    }
  }

  /// Counts calls from any thread.
  final class CallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() -> Int {
      lock.lock()
      defer { lock.unlock() }
      count += 1
      return count
    }

    var value: Int {
      lock.lock()
      defer { lock.unlock() }
      return count
    }
  }
#endif
