#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  /// Defects the stand-ins hid while they agreed with StepKit by construction. The stand-in now
  /// merges and filters with its own code, so StepKit's answers here are checked against
  /// values worked out by hand from what the stand-in's device does.
  @Suite("Defects a device shows", .hangLimit())
  struct DeviceDefectTests {
    let fixture: DeviceFixture
    var day: DateInterval { fixture.day }
    var nine: Date { fixture.nine }
    var ten: Date { fixture.ten }

    init() throws { fixture = try DeviceFixture() }

    @Test(
      "the typed-in filter keeps samples without the key, even where NOT of a metadata match drops them",
      arguments: HealthFixture.countings)
    func typedInFilterKeepsDeviceSamples(counting: HealthKitStepSource.Counting) async throws {
      let store = HealthFixture.Store(counting: counting)
      // A device that treats a missing key as SQL does a NULL.
      store.simulation.missingMetadataKeyIsNull = true
      store.simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      store.simulation.add(
        steps: 250, from: ten, to: ten.addingTimeInterval(600), origin: .healthApp, userEntered: true)
      try await store.authorize()
      let count = try await store.source.steps(in: day, policy: .health)
      #expect(count.roundedSteps == 1000)
      #expect(count.hasData)
      let daily = try await store.source.dailySteps(
        in: day, calendar: try HealthFixture.calendar("Asia/Shanghai"), policy: .health)
      #expect(daily.days.map(\.roundedSteps) == [1000])
    }
  }
#endif

#if canImport(HealthKitStandIn)
  extension DeviceDefectTests {
    @Test("an error from HealthKit is surfaced, not turned into 'not requested'")
    func authorizationErrorSurfaces() async throws {
      let missing = HealthFixture.Store()
      missing.simulation.hasHealthKitEntitlement = false
      let status = await missing.counter.authorizationStatus()
      #expect(status.healthKitError == .missingEntitlement(key: InfoPlistKey.healthKitEntitlement))

      let restricted = HealthFixture.Store()
      restricted.simulation.isRestricted = true
      let restrictedStatus = await restricted.counter.authorizationStatus()
      #expect(restrictedStatus.healthKit == .restricted)
      #expect(restrictedStatus.healthKitError == nil)

      let fine = HealthFixture.Store()
      #expect(
        await fine.counter.authorizationStatus() == AuthorizationStatus(healthKit: .notRequested, motion: nil)
      )
    }
  }
#endif

#if canImport(HealthKitStandIn) && canImport(CoreMotionStandIn)
  import CoreMotionStandIn

  /// Collects what `onUpdate` receives.
  final class Deliveries: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [StepCount] = []
    func add(_ count: StepCount) { lock.withLock { counts.append(count) } }
    var all: [StepCount] { lock.withLock { counts } }
  }

  extension DeviceDefectTests {
    @Test("a background delivery on a locked phone reads HealthKit only, and counts again on unlock")
    func lockedBackgroundDelivery() async throws {
      let rig = try MotionRig(now: "2026-11-29T12:00:00+08:00")
      try rig.record(300, at: "2026-11-29T09:30:00+08:00")  // the iPhone's coprocessor only
      let clock = ManualClock(now: rig.device.now)
      let store = HealthFixture.Store(clock: clock)
      store.simulation.notificationCenter = clock.notificationCenter
      store.simulation.add(steps: 2000, from: nine, to: ten, origin: .appleWatch)
      try await store.authorize()
      let deliveries = Deliveries()
      // The default strategy, with CoreMotion authorized: the fallback would take the day. The
      // delivery runs from HealthKit's handler thread, outside this task; the motion source
      // still asks the device it was created on, as an iPhone's one coprocessor answers any thread.
      #expect(await rig.source.authorizationState() == .authorized)
      let counter = StepCounter(
        health: store.source, motion: rig.source, calendar: rig.calendar, clock: clock,
        bundle: DictionaryBundleInfo.complete)
      store.simulation.isLocked = true
      let registration = counter.registerBackgroundDelivery { deliveries.add($0) }
      await store.simulation.waitForObserverCompletions(1)
      #expect(deliveries.all.isEmpty)  // not the iPhone-only 300
      #expect(registration.lastError == .healthDatabaseLocked)
      store.simulation.isLocked = false  // posts protected data available
      for _ in 0..<200 where deliveries.all.isEmpty { try await Task.sleep(nanoseconds: 5_000_000) }
      #expect(deliveries.all.map(\.roundedSteps) == [2000])
      #expect(deliveries.all.first?.provenance.source == .healthKit)
      #expect(registration.lastError == nil)
      registration.cancel()
    }

    @Test("an observer error is recorded, and a stopped observer is known to be stopped")
    func observerErrorsRecorded() async throws {
      let store = HealthFixture.Store(clock: ManualClock(now: nine))
      // First launch: registered before access was asked for.
      let early = store.counter.registerBackgroundDelivery { _ in }
      await store.simulation.waitForObserverCompletions(1)
      #expect(early.lastError == .authorizationNotDetermined(.steps))
      #expect(!early.isObserving)
      try await store.authorize()
      let again = store.counter.registerBackgroundDelivery { _ in }
      await store.simulation.waitForObserverCompletions(2)
      #expect(again.isObserving)
      #expect(again.lastError == nil)
      again.cancel()
      #expect(!again.isObserving)
    }
  }
#endif

#if canImport(HealthKitStandIn)
  extension DeviceDefectTests {
    @Test("a person's Data Sources order (an app above the Watch) is honoured, not 'corrected'")
    func reorderedSourcesStand() async throws {
      // The stand-in merges by the person's order with its own code (not StepKitCore's), so
      // HealthKit's 3,000 here is the app's steps; StepKit's default ranking would give the
      // Watch's 100. The raw sum, 3,100, is within 5% of HealthKit's number: a check that
      // compares with the raw sum instead of HealthKit's own per-source sums replaces it.
      let store = HealthFixture.Store()
      store.simulation.add(steps: 3000, from: nine, to: ten, origin: .otherApp)
      store.simulation.add(steps: 100, from: nine, to: ten, origin: .appleWatch)
      store.simulation.setDataSourcesOrder([.otherApp], for: .stepCount)
      try await store.authorize()
      let count = try await store.source.steps(in: day, policy: .health)
      #expect(count.roundedSteps == 3000)
      #expect(count.provenance.notes.isEmpty)
      let daily = try await store.source.dailySteps(
        in: day, calendar: try HealthFixture.calendar("Asia/Shanghai"), policy: .health)
      #expect(daily.days.map(\.roundedSteps) == [3000])
      // No evidence of sources added up: the samples are not even read.
      #expect(!store.simulation.executedQueries.contains("HKAnchoredObjectQuery"))
    }

    @Test("the check reads samples only on evidence, and not beyond a month")
    func checkCostCapped() async throws {
      let store = HealthFixture.Store()
      store.simulation.inflatesFilteredStatistics = true
      store.simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      store.simulation.add(steps: 800, from: nine, to: ten, origin: .iPhone)
      try await store.authorize()
      let long = DateInterval(start: day.start.addingTimeInterval(-40 * 86_400), end: day.end)
      let count = try await store.source.steps(in: long, policy: .health)
      #expect(count.roundedSteps == 1800)  // too long to check: HealthKit's number stands
      #expect(store.simulation.executedQueries == ["HKStatisticsQuery"])
      #expect(try await store.source.steps(in: day, policy: .health).roundedSteps == 1000)
    }
  }
#endif
