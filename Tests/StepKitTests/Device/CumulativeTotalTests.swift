#if canImport(HealthKitStandIn)
  import Dispatch
  import Foundation
  import HealthKitStandIn
  import Testing

  @testable import StepKit

  // Every expected value below is worked out by hand from the samples, by
  // Apple's documented merge (the higher-priority source wins where sources
  // overlap; a sample's share of a piece of time is in proportion to time),
  // never with StepKit's engine.
  @Suite("Any cumulative type through HealthKit's statistics: totals, days, units, errors")
  struct CumulativeTotalTests {
    static let stairsApp = HealthStoreSimulation.Origin(
      name: "Stairs Tracker", bundleIdentifier: "com.example.stairs-tracker")
    static let flights = CumulativeType(named: "flightsClimbed")!
    static let exercise = CumulativeType(named: "appleExerciseTime")!
    static let nov29 = "2026-11-29T00:00:00+08:00"
    static let nov30 = "2026-11-30T00:00:00+08:00"
    static let dec1 = "2026-12-01T00:00:00+08:00"

    func counter(_ store: HealthFixture.Store, policy: CountingPolicy = .health) throws -> StepCounter {
      StepCounter(
        health: store.source, motion: nil, strategy: .healthKit, policy: policy,
        calendar: try HealthFixture.calendar("Asia/Shanghai"), bundle: DictionaryBundleInfo.complete)
    }

    func add(
      _ store: HealthFixture.Store, _ identifier: HKQuantityTypeIdentifier, _ value: Double, _ unit: HKUnit,
      _ start: String, _ end: String, _ origin: HealthStoreSimulation.Origin, userEntered: Bool = false
    ) throws {
      store.simulation.add(
        identifier, value: value, unit: unit, from: try HealthFixture.date(start),
        to: try HealthFixture.date(end),
        origin: origin, userEntered: userEntered)
    }

    /// Watch 300 kcal 09:00–10:00; iPhone 502.08 kJ (120 kcal) 09:30–10:30; 50 kcal typed in 11:00–11:30;
    /// Watch 40 kcal on the next day.
    func energyStore() throws -> HealthFixture.Store {
      let store = HealthFixture.Store()
      try add(
        store, .activeEnergyBurned, 300, .kilocalorie(), "2026-11-29T09:00:00+08:00",
        "2026-11-29T10:00:00+08:00",
        .appleWatch)
      try add(
        store, .activeEnergyBurned, 502.08, .jouleUnit(with: .kilo), "2026-11-29T09:30:00+08:00",
        "2026-11-29T10:30:00+08:00", .iPhone)
      try add(
        store, .activeEnergyBurned, 50, .kilocalorie(), "2026-11-29T11:00:00+08:00",
        "2026-11-29T11:30:00+08:00",
        .healthApp, userEntered: true)
      try add(
        store, .activeEnergyBurned, 40, .kilocalorie(), "2026-11-30T08:00:00+08:00",
        "2026-11-30T08:30:00+08:00",
        .appleWatch)
      return store
    }

    @Test("overlapping Watch and iPhone energy: the Watch wins the overlap, the iPhone keeps the rest")
    func overlappingEnergy() async throws {
      let store = try energyStore()
      try await store.authorize(AuthorizationRequest(read: [], cumulative: [.activeEnergyBurned]))
      let day = try HealthFixture.interval(Self.nov29, Self.nov30)
      // Watch 300 (09:00–10:00) + the iPhone's 10:00–10:30 half of 120 = 360; typed-in left out.
      let total = try await counter(store).total(of: .activeEnergyBurned, in: day)
      #expect(abs(total.value - 360) < 1e-9)
      #expect(total.hasData && total.type.unit == .kilocalories)
      // `all` keeps the typed-in 50, which overlaps nothing: 410.
      let all = try await counter(store, policy: .all).total(of: .activeEnergyBurned, in: day)
      #expect(abs(all.value - 410) < 1e-9)
      // With the iPhone moved above the Watch: iPhone 120 + the Watch's 09:00–09:30 half of 300 = 270.
      store.simulation.setDataSourcesOrder([.iPhone], for: .activeEnergyBurned)
      let reordered = try await counter(store).total(of: .activeEnergyBurned, in: day)
      #expect(abs(reordered.value - 270) < 1e-9)
    }

    @Test("daily energy history: one value per local day, empty days included")
    func dailyEnergy() async throws {
      let store = try energyStore()
      try await store.authorize(AuthorizationRequest(read: [], cumulative: [.activeEnergyBurned]))
      let days = try await counter(store).dailyTotals(
        of: .activeEnergyBurned, in: try HealthFixture.interval("2026-11-28T00:00:00+08:00", Self.dec1))
      #expect(days.days.count == 3)
      #expect(
        days.days.map(\.interval.start) == [
          try HealthFixture.date("2026-11-28T00:00:00+08:00"), try HealthFixture.date(Self.nov29),
          try HealthFixture.date(Self.nov30),
        ])
      let values = days.days.map(\.value)
      #expect(
        values.count == 3 && values[0] == 0 && abs(values[1] - 360) < 1e-9 && abs(values[2] - 40) < 1e-9)
      #expect(days.hasData && abs(days.total - 400) < 1e-9)
    }

    /// iPhone 3 flights 08:00–08:10; Stairs Tracker 4 flights 08:05–08:15 and 6 flights 18:00–18:10.
    func flightsStore() throws -> HealthFixture.Store {
      let store = HealthFixture.Store()
      try add(
        store, .flightsClimbed, 3, .count(), "2026-11-29T08:00:00+08:00", "2026-11-29T08:10:00+08:00", .iPhone
      )
      try add(
        store, .flightsClimbed, 4, .count(), "2026-11-29T08:05:00+08:00", "2026-11-29T08:15:00+08:00",
        Self.stairsApp)
      try add(
        store, .flightsClimbed, 6, .count(), "2026-11-29T18:00:00+08:00", "2026-11-29T18:10:00+08:00",
        Self.stairsApp)
      return store
    }

    @Test("flights from a third-party app: ranked below the iPhone, left out by the device policy")
    func thirdPartyFlights() async throws {
      let store = try flightsStore()
      try await store.authorize(AuthorizationRequest(read: [], cumulative: [Self.flights]))
      let day = try HealthFixture.interval(Self.nov29, Self.nov30)
      // iPhone 3 + the app's 08:10–08:15 half of 4 = 2 + the app's 6 alone in the evening = 11.
      let total = try await counter(store).total(of: Self.flights, in: day)
      #expect(abs(total.value - 11) < 1e-9)
      // Apple's devices only: the iPhone's 3.
      let device = try await counter(store, policy: .device).total(of: Self.flights, in: day)
      #expect(abs(device.value - 3) < 1e-9)
      let days = try await counter(store).dailyTotals(of: Self.flights, in: day)
      #expect(days.days.count == 1 && abs(days.days[0].value - 11) < 1e-9)
    }

    @Test("exercise minutes come in minutes whatever unit the Watch wrote")
    func exerciseMinutes() async throws {
      let store = HealthFixture.Store()
      try add(
        store, .appleExerciseTime, 30, .minute(), "2026-11-29T07:00:00+08:00", "2026-11-29T07:30:00+08:00",
        .appleWatch)
      try add(
        store, .appleExerciseTime, 1200, .second(), "2026-11-29T18:00:00+08:00", "2026-11-29T18:20:00+08:00",
        .appleWatch)
      try add(
        store, .appleExerciseTime, 600, .second(), "2026-11-30T06:00:00+08:00", "2026-11-30T06:10:00+08:00",
        .appleWatch)
      try await store.authorize(AuthorizationRequest(read: [], cumulative: [Self.exercise]))
      let counter = try counter(store)
      // 30 min + 1200 s (20 min) = 50 min on the 29th; 600 s = 10 min on the 30th.
      let total = try await counter.total(
        of: Self.exercise, in: try HealthFixture.interval(Self.nov29, Self.nov30))
      #expect(abs(total.value - 50) < 1e-9)
      #expect(total.type.unit == .minutes)
      let days = try await counter.dailyTotals(
        of: Self.exercise, in: try HealthFixture.interval(Self.nov29, Self.dec1))
      #expect(
        days.days.count == 2 && abs(days.days[0].value - 50) < 1e-9 && abs(days.days[1].value - 10) < 1e-9)
    }

    @Test("insulin in international units: a pump app's basal and bolus, the typed-in dose left out")
    func insulin() async throws {
      let loop = HealthStoreSimulation.Origin(name: "Loop", bundleIdentifier: "com.example.loop")
      let store = HealthFixture.Store()
      try add(
        store, .insulinDelivery, 1.5, .internationalUnit(), "2026-11-29T08:00:00+08:00",
        "2026-11-29T08:30:00+08:00", loop)
      try add(
        store, .insulinDelivery, 4, .internationalUnit(), "2026-11-29T12:00:00+08:00",
        "2026-11-29T12:00:00+08:00", loop)
      try add(
        store, .insulinDelivery, 6, .internationalUnit(), "2026-11-29T19:00:00+08:00",
        "2026-11-29T19:00:00+08:00", .healthApp, userEntered: true)
      let insulin = try #require(CumulativeType(named: "insulinDelivery"))
      try await store.authorize(AuthorizationRequest(read: [], cumulative: [insulin]))
      // 1.5 + 4 = 5.5 IU; the typed-in 6 IU only under `.all`.
      let day = try HealthFixture.interval(Self.nov29, Self.nov30)
      let total = try await counter(store).total(of: insulin, in: day)
      #expect(abs(total.value - 5.5) < 1e-9 && total.type.unit == .internationalUnits)
      let all = try await counter(store, policy: .all).total(of: insulin, in: day)
      #expect(abs(all.value - 11.5) < 1e-9)
      #expect(!HKQuantityType(.insulinDelivery).is(compatibleWith: .gram()))
    }

    @Test("the stand-in checks units per type as HealthKit does: time for exercise, a count for flights")
    func unitDimensions() {
      let exercise = HKQuantityType(.appleExerciseTime)
      #expect(exercise.is(compatibleWith: .minute()) && exercise.is(compatibleWith: .second()))
      #expect(!exercise.is(compatibleWith: .meter()) && !exercise.is(compatibleWith: .count()))
      #expect(HKQuantityType(.flightsClimbed).is(compatibleWith: .count()))
      #expect(!HKQuantityType(.flightsClimbed).is(compatibleWith: .meter()))
      #expect(HKQuantityType(.activeEnergyBurned).is(compatibleWith: .jouleUnit(with: .kilo)))
      #expect(HKQuantityType(.uvExposure).aggregationStyle == .discreteArithmetic)
      #expect(HKQuantityType(.flightsClimbed).aggregationStyle == .cumulative)
      #expect(HKQuantity(unit: .minute(), doubleValue: 2).doubleValue(for: .second()) == 120)
      #expect(HKQuantity(unit: .liter(), doubleValue: 0.25).doubleValue(for: .literUnit(with: .milli)) == 250)
    }

    @Test("a type not asked for names itself and Settings › Health, in English and Chinese")
    func notAuthorized() async throws {
      let store = try flightsStore()
      try await store.authorize()
      let counter = try counter(store)
      let day = try HealthFixture.interval(Self.nov29, Self.nov30)
      let expected = StepKitError.quantityAuthorizationNotDetermined(Self.flights)
      await #expect(throws: expected) { try await counter.total(of: Self.flights, in: day) }
      await #expect(throws: expected) { try await counter.dailyTotals(of: Self.flights, in: day) }
      #expect(
        expected.description(in: .english) == "The app has not asked for access to Flights Climbed yet.")
      #expect(
        expected.recoverySuggestion(in: .english)?.contains("Settings > Health > Data Access & Devices")
          == true)
      #expect(expected.description(in: .simplifiedChinese).contains("已爬楼层"))
      #expect(expected.recoverySuggestion(in: .simplifiedChinese)?.contains("设置 > 健康 > 数据访问与设备") == true)
      #expect(expected.fallbackReason == .healthKitNotAuthorized)
      // Steps, distance and energy keep the error they always had.
      let fresh = try self.counter(HealthFixture.Store())
      await #expect(throws: StepKitError.authorizationNotDetermined(.activeEnergyBurned)) {
        try await fresh.total(of: .activeEnergyBurned, in: day)
      }
      // A type HealthKit does not sum is refused before HealthKit would raise.
      let uv = CumulativeType(identifier: "HKQuantityTypeIdentifierUVExposure", unit: .count)
      await #expect(throws: StepKitError.unsupportedQuantityType(uv)) {
        try await counter.total(of: uv, in: day)
      }
    }

    @Test("without HealthKit the completion handler is called once, on the given queue, with the error")
    func unavailable() async throws {
      let store = try flightsStore()
      let counter = try counter(store)
      let day = try HealthFixture.interval(Self.nov29, Self.nov30)
      let queue = DispatchQueue(label: "cumulative-totals")
      let key = DispatchSpecificKey<Bool>()
      queue.setSpecific(key: key, value: true)
      let calls = LockedValue(0)
      let result: Result<CumulativeTotal, StepKitError> =
        await HealthStoreSimulation.$deviceSupportsHealthData
        .withValue(false) {
          await withCheckedContinuation { continuation in
            counter.total(of: Self.flights, in: day, queue: queue) { result in
              #expect(DispatchQueue.getSpecific(key: key) == true)
              if calls.update({
                $0 += 1
                return $0
              }) == 1 {
                continuation.resume(returning: result)
              }
            }
          }
        }
      #expect(result.map(\.value) == .failure(.healthDataUnavailable))
      let daily: Result<DailyCumulativeTotals, StepKitError> =
        await HealthStoreSimulation
        .$deviceSupportsHealthData.withValue(false) {
          await withCheckedContinuation { continuation in
            counter.dailyTotals(of: Self.flights, in: day, queue: queue) { result in
              #expect(DispatchQueue.getSpecific(key: key) == true)
              if calls.update({
                $0 += 1
                return $0
              }) == 2 {
                continuation.resume(returning: result)
              }
            }
          }
        }
      #expect(daily.map(\.days.count) == .failure(.healthDataUnavailable))
      // Whatever else was queued has run: still one call each.
      queue.sync {}
      #expect(calls.value == 2)
    }

    @Test("the Objective-C twins take identifiers or short names and answer once on the main queue")
    func objectiveC() async throws {
      let store = try flightsStore()
      let manager = StepKitHealthManager(counter: try counter(store))
      let start = try HealthFixture.date(Self.nov29)
      let end = try HealthFixture.date(Self.nov30)
      let granted: Bool = await withCheckedContinuation { continuation in
        manager.requestAuthorization(toRead: ["HKQuantityTypeIdentifierFlightsClimbed"]) { success, _ in
          continuation.resume(returning: success)
        }
      }
      #expect(granted)
      let flights: Double = await withCheckedContinuation { continuation in
        manager.total(ofType: "flightsClimbed", from: start, to: end) { value, _ in
          continuation.resume(returning: value)
        }
      }
      #expect(abs(flights - 11) < 1e-9)
      let days: [Double] = await withCheckedContinuation { continuation in
        manager.dailyTotals(ofType: "HKQuantityTypeIdentifierFlightsClimbed", from: start, to: end) {
          days, _ in
          continuation.resume(returning: days.map(\.value))
        }
      }
      #expect(days.count == 1 && abs(days[0] - 11) < 1e-9)
      #expect(manager.unit(ofType: "appleExerciseTime") == "min")
      let unknown: Int? = await withCheckedContinuation { continuation in
        manager.total(ofType: "notAType", from: start, to: end) { _, error in
          continuation.resume(returning: error?.code)
        }
      }
      #expect(unknown == 205)
    }
  }
#endif
