import Dispatch
import Foundation
import Testing

@testable import StepKit

/// Counts a block's calls and checks that each ran on the main queue (on Linux the main queue
/// is not always served by the process's first thread, so the queue itself is marked).
final class BlockLog: @unchecked Sendable {
  static let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
  }()

  private let lock = NSLock()
  private var calls = 0
  private var offMain = 0

  init() { _ = Self.mainQueueKey }

  func record() {
    let onMain = DispatchQueue.getSpecific(key: Self.mainQueueKey) == true
    lock.withLock {
      calls += 1
      if !onMain { offMain += 1 }
    }
  }

  var count: Int { lock.withLock { calls } }
  var callsOffMain: Int { lock.withLock { offMain } }
}

/// Waits until everything queued on the main queue so far has run.
func drainMainQueue() async {
  for _ in 0..<3 {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.main.async { continuation.resume() }
    }
  }
}

@Suite(
  "The Objective-C facade: what the Swift API offers, every block once on the main queue",
  .hangLimit())
struct ObjectiveCFacadeTests {
  let clock: ManualClock
  let health: SimulatedStepSource
  let manager: StepKitHealthManager
  let calendar: Calendar

  init() throws {
    clock = ManualClock(now: try HealthFixture.date("2026-11-29T18:00:00+08:00"))
    health = SimulatedStepSource(kind: .healthKit, clock: clock)
    calendar = try HealthFixture.calendar("Asia/Shanghai")
    manager = StepKitHealthManager(
      counter: StepCounter(
        health: health, motion: nil, strategy: .healthKit, calendar: calendar, clock: clock,
        bundle: DictionaryBundleInfo.complete))
    health.add(
      try HealthFixture.steps(1200, "2026-11-28T09:00:00+08:00", "2026-11-28T10:00:00+08:00"),
      try HealthFixture.steps(300, "2026-11-29T09:00:00+08:00", "2026-11-29T10:00:00+08:00"),
      Sample(
        kind: .distance, start: try HealthFixture.date("2026-11-29T09:00:00+08:00"),
        end: try HealthFixture.date("2026-11-29T10:00:00+08:00"), value: 250, source: "iPhone"))
  }

  /// Runs `call` with a completion that records its calls, and waits for the first.
  func once<T: Sendable>(_ call: (@escaping @Sendable (T) -> Void) -> Void) async -> (T, BlockLog) {
    let log = BlockLog()
    let value: T = await withCheckedContinuation { continuation in
      call { value in
        log.record()
        if log.count == 1 { continuation.resume(returning: value) }
      }
    }
    await drainMainQueue()
    return (value, log)
  }

  @Test("daily history, distance and the invalid-interval path")
  func historyAndDistance() async throws {
    let start = try HealthFixture.date("2026-11-28T00:00:00+08:00")
    let end = clock.now()
    let (days, daysLog) = await once { done in
      manager.dailyStepCounts(from: start, to: end) { days, error in done((days.map(\.steps), error)) }
    }
    #expect(days.0 == [1200, 300])
    #expect(days.1 == nil)
    let (meters, metersLog) = await once { done in manager.todayDistance { meters, _ in done(meters) } }
    #expect(meters == 250)
    let (between, _) = await once { done in
      manager.distance(from: start, to: end) { meters, _ in done(meters) }
    }
    #expect(between == 250)
    let (invalid, invalidLog) = await once { done in
      manager.dailyStepCounts(from: end, to: start) { days, error in done((days.count, error?.code)) }
    }
    #expect(invalid.0 == 0 && invalid.1 == 202)
    for log in [daysLog, metersLog, invalidLog] {
      #expect(log.count == 1)
      #expect(log.callsOffMain == 0)
    }
  }

  @Test("characteristics: biological sex and date of birth")
  func characteristics() async throws {
    health.scriptedBiologicalSex = .value(.female)
    health.scriptedDateOfBirth = .value(DateComponents(year: 1990, month: 5, day: 17))
    let (sex, sexLog) = await once { done in manager.biologicalSex { sex, _ in done(sex) } }
    #expect(sex == .female)
    let (birth, birthLog) = await once { done in manager.dateOfBirth { date, _ in done(date?.year) } }
    #expect(birth == 1990)
    health.scriptedBiologicalSex = .notRequested
    let (unasked, _) = await once { done in manager.biologicalSex { sex, _ in done(sex) } }
    #expect(unasked == .notRequested)
    health.failNext(.characteristics, with: .healthDatabaseLocked)
    let (locked, _) = await once { done in manager.biologicalSex { sex, error in done((sex, error?.code)) } }
    #expect(locked.0 == .notSetOrNotAllowed && locked.1 == 103)
    #expect(sexLog.callsOffMain == 0 && birthLog.callsOffMain == 0)
  }

  @Test("body measurements: save each type, refuse implausible ones, read the most recent")
  func measurements() async throws {
    let (mass, _) = await once { done in
      manager.saveBodyMass(kilograms: 70) { saved, _ in done(saved?.value) }
    }
    #expect(mass == 70)
    let (height, _) = await once { done in manager.saveHeight(meters: 1.8) { saved, _ in done(saved?.unit) } }
    #expect(height == "m")
    let (temperature, _) = await once { done in
      manager.saveBodyTemperature(degreesCelsius: 37.5) { saved, _ in done(saved?.type) }
    }
    #expect(temperature == .bodyTemperature)
    let (refused, refusedLog) = await once { done in
      manager.saveBodyTemperature(degreesCelsius: 98.6) { saved, error in done((saved == nil, error?.code)) }
    }
    #expect(refused.0 && refused.1 == 201)
    let hour = DateInterval(start: clock.now().addingTimeInterval(-3600), end: clock.now())
    let (energy, _) = await once { done in
      manager.saveActiveEnergy(kilocalories: 300, from: hour.start, to: hour.end) { saved, _ in
        done(saved?.endDate)
      }
    }
    #expect(energy == hour.end)
    let (basal, _) = await once { done in
      manager.saveBasalEnergy(kilocalories: 60, from: hour.start, to: hour.end) { saved, _ in
        done(saved?.value)
      }
    }
    #expect(basal == 60)
    let (latest, latestLog) = await once { done in
      manager.mostRecentMeasurement(of: .bodyTemperature) { saved, _ in done(saved?.value) }
    }
    #expect(latest == 37.5)
    let (burned, _) = await once { done in
      manager.total(ofType: "activeEnergyBurned", from: hour.start, to: hour.end) { kcal, _ in done(kcal) }
    }
    #expect(burned == 300)
    #expect(refusedLog.count == 1 && latestLog.callsOffMain == 0)
  }

  @Test("live updates: a block per count on the main queue, none after cancel")
  func liveUpdates() async throws {
    let log = BlockLog()
    let counts = LockedValue<[Int]>([])
    var token: StepKitCancellable?
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      token = manager.startTodayStepUpdates { steps, _ in
        log.record()
        let seen = counts.update { values in
          values.append(steps)
          return values.count
        }
        if seen == 2 { continuation.resume() }
        if seen == 1 {
          // The Watch syncs 50 more steps today.
          self.health.add(
            Sample(
              kind: .steps, start: self.clock.now().addingTimeInterval(-600),
              end: self.clock.now().addingTimeInterval(-300), value: 50, source: "Apple Watch"))
        }
      }
    }
    #expect(counts.value == [300, 350])
    token?.cancel()
    #expect(token?.isCancelled == true)
    health.add(
      Sample(
        kind: .steps, start: clock.now().addingTimeInterval(-200), end: clock.now().addingTimeInterval(-100),
        value: 5, source: "iPhone"))
    await drainMainQueue()
    #expect(log.count == 2)
    #expect(log.callsOffMain == 0)
    token?.cancel()  // twice: nothing happens
  }

  @Test("live updates end with one error block")
  func liveUpdatesError() async throws {
    health.failNext(.liveUpdates, with: .authorizationNotDetermined(.steps))
    let (code, log) = await once { done in
      _ = manager.startTodayStepUpdates { steps, error in done(error?.code ?? -steps) }
    }
    #expect(code == 104)
    #expect(log.count == 1)
  }

  @Test("background delivery: onUpdate on the main queue per change, the enabling result once")
  func backgroundDelivery() async throws {
    let updates = BlockLog()
    let registration = LockedValue<StepKitCancellable?>(nil)
    let (enabled, enabledLog) = await once { done in
      registration.value = manager.registerBackgroundDelivery(
        frequency: .hourly, onUpdate: { _ in updates.record() }
      ) { ok, _ in
        done(ok)
      }
    }
    // The source keeps a running observation (and what it holds) until it is cancelled.
    defer { registration.value?.cancel() }
    #expect(enabled)
    #expect(health.backgroundDeliveryFrequency == .hourly)
    health.add(
      Sample(
        kind: .steps, start: clock.now().addingTimeInterval(-120), end: clock.now().addingTimeInterval(-60),
        value: 7, source: "iPhone"))
    while health.observedChanges.acknowledged < 1 { await drainMainQueue() }
    #expect(updates.count == 1)
    #expect(updates.callsOffMain == 0)
    #expect(enabledLog.count == 1)

    health.failNext(
      .backgroundDelivery, with: .missingEntitlement(key: InfoPlistKey.healthKitBackgroundDeliveryEntitlement)
    )
    let (refused, _) = await once { done in
      let token = manager.registerBackgroundDelivery(frequency: .daily, onUpdate: { _ in }) { ok, error in
        done((ok, error?.code))
      }
      token.cancel()
    }
    #expect(!refused.0 && refused.1 == 111)
  }
}
