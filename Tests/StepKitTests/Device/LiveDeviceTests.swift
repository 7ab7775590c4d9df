#if canImport(HealthKitStandIn) && canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  /// The simulated device's clock with a notification center of its own, where the simulated
  /// UIKit posts the protected-data notifications and tests post day and time-zone changes.
  struct NotifyingDeviceClock: StepClock {
    let device: PedometerSimulator
    let notificationCenter = NotificationCenter()
    /// Whether timers fire late (a suspended app): sleeping never ends before cancellation.
    var lateTimers = false

    func now() -> Date { device.now }
    func sleep(until date: Date) async throws {
      if lateTimers {
        try await Task.sleep(nanoseconds: 3_600_000_000_000)
      } else {
        try await device.sleep(until: date)
      }
    }
  }

  /// Reads a sequence until `done` accepts an element (at most `limit` elements).
  func next(
    from iterator: inout AsyncThrowingStream<StepCount, any Error>.Iterator, limit: Int = 20,
    where done: (StepCount) -> Bool
  ) async throws -> StepCount? {
    for _ in 0..<limit {
      guard let element = try await iterator.next() else { return nil }
      if done(element) { return element }
    }
    return nil
  }

  @Suite("The calendar follows the phone", .hangLimit())
  struct CalendarFollowsPhoneTests {
    @Test("a counter's default calendar is Calendar.autoupdatingCurrent, not a stored Calendar.current")
    func defaultCalendar() {
      let counter = StepCounter(health: nil, motion: nil)
      #expect(counter.calendar == Calendar.autoupdatingCurrent)
      #expect(counter.calendar != Calendar.current)
    }

    @Test("HealthKit live updates start the new day on NSCalendarDayChanged, before any timer fires")
    func healthKitDayChanged() async throws {
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      let clock = ManualClock(now: try HealthFixture.date("2026-11-29T23:50:00+08:00"))
      let store = HealthFixture.Store(clock: clock)
      store.simulation.add(
        steps: 400, from: try HealthFixture.date("2026-11-29T20:00:00+08:00"),
        to: try HealthFixture.date("2026-11-29T20:10:00+08:00"))
      try await store.authorize()
      let updates = store.source.todayStepUpdates(calendar: shanghai, policy: .health)
      let counts = try await HealthFixture.first(3, of: updates) { received in
        if received == 1 {
          // The app wakes after midnight: the clock has moved, no sleeper woke.
          clock.jump(to: try HealthFixture.date("2026-11-30T00:05:00+08:00"))
          clock.post(DeviceNotification.calendarDayChanged)
        } else {
          clock.jump(to: try HealthFixture.date("2026-11-30T00:06:00+08:00"))
          store.simulation.add(
            steps: 30, from: try HealthFixture.date("2026-11-30T00:01:00+08:00"),
            to: try HealthFixture.date("2026-11-30T00:02:00+08:00"))
        }
      }
      #expect(counts.map(\.roundedSteps) == [400, 0, 30])
      #expect(counts[1].interval.start == (try HealthFixture.date("2026-11-30T00:00:00+08:00")))
      #expect(clock.waitingCount == 1)  // the wait for the next midnight was set afresh
    }

    @Test("a time-zone change re-counts today and waits for the new zone's midnight")
    func timeZoneChanged() async throws {
      let clock = ManualClock(now: try HealthFixture.date("2026-11-29T23:50:00+08:00"))
      let source = SimulatedStepSource(clock: clock)
      source.add(try HealthFixture.steps(400, "2026-11-29T20:00:00+08:00", "2026-11-29T20:10:00+08:00"))
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      var updates = source.todayStepUpdates(calendar: shanghai, policy: .health).makeAsyncIterator()
      #expect(try await updates.next()?.roundedSteps == 400)
      let waitsBefore = clock.waitingCount
      clock.post(DeviceNotification.systemTimeZoneDidChange)
      clock.jump(to: try HealthFixture.date("2026-11-30T00:01:00+08:00"))
      clock.post(DeviceNotification.calendarDayChanged)
      let fresh = try await updates.next()
      #expect(fresh?.roundedSteps == 0)
      #expect(fresh?.interval.start == (try HealthFixture.date("2026-11-30T00:00:00+08:00")))
      #expect(clock.waitingCount == waitsBefore)  // one wait for midnight, not one per notification
    }

    @Test("motion live updates start the new day on NSCalendarDayChanged, before any timer fires")
    func motionDayChanged() async throws {
      let rig = try MotionRig(now: "2026-11-29T23:50:00+08:00")
      try rig.record(70, at: "2026-11-29T22:00:00+08:00")
      let clock = NotifyingDeviceClock(device: rig.device, lateTimers: true)
      let source = PedometerSimulator.$current.withValue(rig.device) {
        MotionStepSource(bundle: DictionaryBundleInfo.complete, clock: clock)
      }
      try await rig.run {
        var updates = source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        let first = try await updates.next()
        #expect(first?.steps == 70)
        // Not a new day yet: nothing restarts, the next count is still today's.
        clock.notificationCenter.post(name: DeviceNotification.calendarDayChanged, object: nil)
        rig.device.walk(steps: 5)
        let second = try await updates.next()
        #expect(second?.steps == 75)
        // Past midnight, the midnight timer late: the notification starts the new day.
        rig.device.advance(to: try motionDate("2026-11-30T00:05:00+08:00"))
        clock.notificationCenter.post(name: DeviceNotification.calendarDayChanged, object: nil)
        let fresh = try await updates.next()
        #expect(fresh?.steps == 0)
        #expect(fresh?.interval.start == (try motionDate("2026-11-30T00:00:00+08:00")))
      }
    }
  }

  @Suite("A locked phone is a pause, not a failure", .hangLimit())
  struct LockedPhoneTests {
    @Test("HealthKit's live count stays, marked locked, and resumes when protected data is available")
    func pauses() async throws {
      let clock = ManualClock(now: try HealthFixture.date("2026-11-29T12:00:00+08:00"))
      let store = HealthFixture.Store(clock: clock)
      store.simulation.notificationCenter = clock.notificationCenter
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      store.simulation.add(steps: 500, from: nine, to: nine.addingTimeInterval(600), origin: .appleWatch)
      try await store.authorize()
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      let updates = store.source.todayStepUpdates(calendar: shanghai, policy: .health)
      let counts = try await HealthFixture.first(3, of: updates) { received in
        if received == 1 {
          store.simulation.isLocked = true
          // The Watch syncs while the phone is locked: HealthKit's observer fires, the read fails.
          store.simulation.add(
            steps: 100, from: nine.addingTimeInterval(3600), to: nine.addingTimeInterval(4200),
            origin: .appleWatch)
        } else {
          store.simulation.isLocked = false  // posts protectedDataDidBecomeAvailable
        }
      }
      #expect(counts.map(\.roundedSteps) == [500, 500, 600])
      #expect(counts[1].provenance.notes == [.deviceLocked])
      #expect(counts[1].hasData)
      #expect(counts[2].provenance.notes.isEmpty)
      #expect(ResultNote.deviceLocked.explanation.contains("locked"))
    }

    @Test("under healthKitThenMotion the Watch's steps stay: CoreMotion does not take the day")
    func keepsHealthKitUnderFallbackStrategy() async throws {
      let rig = try MotionRig(now: "2026-11-29T12:00:00+08:00")
      try rig.record(300, at: "2026-11-29T09:30:00+08:00")  // this iPhone only
      let clock = NotifyingDeviceClock(device: rig.device)
      let simulation = HealthStoreSimulation()
      simulation.notificationCenter = clock.notificationCenter
      simulation.calendar = rig.calendar
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      simulation.add(steps: 2000, from: nine, to: nine.addingTimeInterval(3600), origin: .appleWatch)
      let health = HealthKitStepSource(store: HKHealthStore(simulation: simulation), clock: clock)
      try await health.requestAuthorization(.stepsAndDistance)
      let counter = StepCounter(
        health: health, motion: rig.source, calendar: rig.calendar, clock: clock,
        bundle: DictionaryBundleInfo.complete)
      try await rig.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        #expect(try await updates.next()?.roundedSteps == 2000)
        simulation.isLocked = true
        simulation.add(steps: 10, from: nine.addingTimeInterval(7200), to: nine.addingTimeInterval(7260))
        let paused = try #require(try await updates.next())
        #expect(paused.roundedSteps == 2000)
        #expect(paused.provenance.source == .healthKit)
        #expect(paused.provenance.fallbackReason == nil)
        #expect(paused.provenance.notes == [.deviceLocked])
        simulation.isLocked = false
        let resumed = try await updates.next()
        #expect(resumed?.roundedSteps == 2010)
        #expect(resumed?.provenance.source == .healthKit)
      }
    }
  }

  @Suite("No Motion & Fitness prompt nobody asked for", .hangLimit())
  struct NoUnaskedPromptTests {
    @Test("HealthKit without data and CoreMotion not determined: the no-data answer, no prompt")
    func oneShot() async throws {
      let rig = try StrategyRig(healthSteps: nil, motionSteps: 800, authorization: .notDetermined)
      let counter = rig.counter(.healthKitThenMotion)
      let today = try await rig.motion.run { try await counter.todaySteps() }
      #expect(today.provenance.source == .healthKit)
      #expect(!today.hasData)
      #expect(today.provenance.notes == [.noDataMayMeanDeniedAccess])
      #expect(rig.motion.device.promptsShown == 0)
      #expect(rig.motion.device.requestsReceived == 0)
    }

    @Test(
      "first launch: HealthKit not yet asked, CoreMotion not determined: HealthKit's error, no prompt",
      arguments: [
        StepKitError.authorizationNotDetermined(.steps), .healthDatabaseLocked, .healthDataRestricted,
      ])
    func errorNoPrompt(failure: StepKitError) async throws {
      let rig = try StrategyRig(authorization: .notDetermined)
      rig.health.failAlways(.steps, with: failure)
      rig.health.failAlways(.liveUpdates, with: failure)
      let counter = rig.counter(.healthKitThenMotion)
      let oneShot = await motionError { _ = try await rig.motion.run { try await counter.todaySteps() } }
      #expect(oneShot == failure)
      let live = await motionError {
        try await rig.motion.run {
          for try await _ in counter.todayStepUpdates() {}
        }
      }
      #expect(live == failure)
      #expect(rig.motion.device.promptsShown == 0)
      #expect(rig.motion.device.requestsReceived == 0)
      // Asked on purpose (the .motion strategy), CoreMotion does show its prompt.
      _ = try await rig.motion.run { try await rig.counter(.motion).todaySteps() }
      #expect(rig.motion.device.promptsShown == 1)
    }

    @Test("live updates: the same, no prompt")
    func live() async throws {
      let rig = try StrategyRig(healthSteps: nil, motionSteps: 800, authorization: .notDetermined)
      let counter = rig.counter(.healthKitThenMotion)
      try await rig.motion.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.provenance.source == .healthKit)
        #expect(!first.hasData)
      }
      #expect(rig.motion.device.promptsShown == 0)
    }

    @Test("already authorized, CoreMotion is asked and answers with the reason")
    func authorized() async throws {
      let rig = try StrategyRig(healthSteps: nil, motionSteps: 800, authorization: .authorized)
      let today = try await rig.motion.run { try await rig.counter(.healthKitThenMotion).todaySteps() }
      #expect(today.provenance.source == .motion)
      #expect(today.provenance.fallbackReason == .healthKitReturnedNoData)
    }
  }

  @Suite("Live fallback decided on every HealthKit count and at midnight", .hangLimit())
  struct LiveFallbackTests {
    @Test("CoreMotion while HealthKit has no data, HealthKit again as soon as it has")
    func switchesBack() async throws {
      let rig = try StrategyRig(healthSteps: nil, motionSteps: 800)
      let counter = rig.counter(.healthKitThenMotion)
      try await rig.motion.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.provenance.source == .motion)
        #expect(first.steps == 800)
        #expect(first.provenance.fallbackReason == .healthKitReturnedNoData)
        // Health's data arrives (the Watch synced, or read access was granted).
        rig.health.add(
          try HealthFixture.steps(1500, "2026-11-29T09:00:00+08:00", "2026-11-29T10:00:00+08:00"))
        let back = try #require(try await updates.next())
        #expect(back.provenance.source == .healthKit)
        #expect(back.steps == 1500)
        #expect(back.provenance.fallbackReason == nil)
        await rig.motion.device.waitForUpdateSessions(0)  // the coprocessor's updates stopped
      }
    }

    @Test("at midnight the choice is made again for the new day")
    func midnight() async throws {
      let rig = try StrategyRig(healthSteps: 1200, motionSteps: 800)
      let counter = rig.counter(.healthKitThenMotion)
      rig.motion.device.advance(to: try motionDate("2026-11-29T23:59:00+08:00"))
      try rig.motion.record(40, at: "2026-11-30T00:00:10+08:00")
      try await rig.motion.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.provenance.source == .healthKit && first.steps == 1200)
        rig.motion.device.advance(to: try motionDate("2026-11-30T00:01:00+08:00"))
        // The new day: HealthKit has nothing yet, the coprocessor has 40 steps.
        let newDay = try await next(from: &updates) { $0.provenance.source == .motion }
        #expect(newDay?.steps == 40)
        #expect(newDay?.provenance.fallbackReason == .healthKitReturnedNoData)
        #expect(newDay?.interval.start == (try motionDate("2026-11-30T00:00:00+08:00")))
      }
    }

    @Test("after HealthKit fails, it is tried again on the next day")
    func retriesHealthKitAtMidnight() async throws {
      let rig = try StrategyRig(healthSteps: 1200, motionSteps: 800)
      rig.health.failNext(.liveUpdates, with: .healthDatabaseLocked)
      let counter = rig.counter(.healthKitThenMotion)
      rig.motion.device.advance(to: try motionDate("2026-11-29T23:59:00+08:00"))
      rig.health.add(try HealthFixture.steps(90, "2026-11-30T00:00:00+08:00", "2026-11-30T00:00:30+08:00"))
      try await rig.motion.run {
        var updates = counter.todayStepUpdates().makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.provenance.source == .motion)
        #expect(first.provenance.fallbackReason == .healthDatabaseLocked)
        rig.motion.device.advance(to: try motionDate("2026-11-30T00:01:00+08:00"))
        let healthAgain = try await next(from: &updates) { $0.provenance.source == .healthKit }
        #expect(healthAgain?.steps == 90)
        #expect(healthAgain?.provenance.fallbackReason == nil)
      }
    }
  }
#endif
