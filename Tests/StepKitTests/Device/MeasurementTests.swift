#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  @Suite("Body temperature and energy: types, saving, the most recent sample")
  struct MeasurementTests {
    @Test("the new types are readable and writable, named in both languages, and part of everything")
    func newTypes() {
      let new: [HealthDataType] = [.bodyTemperature, .activeEnergyBurned, .basalEnergyBurned]
      for type in new {
        #expect(type.isWritable)
        #expect(AuthorizationRequest.everything.read.contains(type))
        #expect(AuthorizationRequest.everything.write.contains(type))
        #expect(type.name(in: .english) != type.name(in: .simplifiedChinese))
      }
      #expect(HealthDataType.bodyTemperature.name(in: .english) == "Body Temperature")
      #expect(HealthDataType.bodyTemperature.name(in: .simplifiedChinese) == "体温")
      #expect(HealthDataType.activeEnergyBurned.name(in: .english) == "Active Energy")
      #expect(HealthDataType.basalEnergyBurned.name(in: .simplifiedChinese) == "静息能量")
      #expect(AuthorizationRequest.everything.write == Set(new).union([.bodyMass, .height]))
      #expect(!HealthDataType.steps.isWritable)
    }

    @Test("asking for everything asks HealthKit to share the five writable types")
    func promptCoversNewTypes() async throws {
      let store = HealthFixture.Store()
      try await store.authorize(.everything)
      for type in [HealthDataType.bodyTemperature, .activeEnergyBurned, .basalEnergyBurned] {
        #expect(store.source.writeAccess(for: type) == .authorized, "\(type)")
      }
    }

    @Test("body temperature is stored in °C; implausible values are refused with the range")
    func bodyTemperature() async throws {
      let store = HealthFixture.Store()
      try await store.authorize(.everything)
      let counter = store.counter
      let date = try HealthFixture.date("2026-11-29T08:00:00+08:00")
      let saved = try await counter.save(
        bodyTemperature: Measurement(value: 98.6, unit: .fahrenheit), at: date)
      #expect(abs(saved.measurement.siValue - 37) < 1e-9)
      #expect(saved.date == date)
      let read = try #require(try await counter.mostRecentMeasurement(of: .bodyTemperature))
      #expect(abs(read.measurement.siValue - 37) < 1e-9)
      #expect(read.uuid == saved.uuid)

      await #expect(
        throws: StepKitError.implausibleMeasurement(
          .bodyTemperature, value: 98.6, unit: "°C", plausible: 30...45)
      ) {
        try await counter.save(bodyTemperature: Measurement(value: 98.6, unit: .celsius))  // °F typed as °C
      }
      #expect(store.simulation.storedSampleCount == 1)
    }

    @Test("energy is saved over its interval in kcal and checked against what a person can burn")
    func energy() async throws {
      let store = HealthFixture.Store()
      try await store.authorize(.everything)
      let counter = store.counter
      let start = try HealthFixture.date("2026-11-29T07:00:00+08:00")
      let end = try HealthFixture.date("2026-11-29T08:00:00+08:00")
      let saved = try await counter.save(
        activeEnergyBurned: Measurement(value: 2092, unit: .kilojoules), from: start, to: end)
      #expect(abs(saved.measurement.siValue - 500) < 1e-9)
      #expect(saved.interval == DateInterval(start: start, end: end))

      // 5,000 kcal of exercise in one hour, or 1,000 kcal of resting energy: a wrong unit.
      await #expect(
        throws: StepKitError.implausibleMeasurement(
          .activeEnergyBurned, value: 5000, unit: "kcal", plausible: 0...2000)
      ) {
        try await counter.save(
          activeEnergyBurned: Measurement(value: 5000, unit: .kilocalories), from: start, to: end)
      }
      await #expect(
        throws: StepKitError.implausibleMeasurement(
          .basalEnergyBurned, value: 1000, unit: "kcal", plausible: 0...250)
      ) {
        try await counter.save(
          basalEnergyBurned: Measurement(value: 1000, unit: .kilocalories), from: start, to: end)
      }
      await #expect(throws: StepKitError.invalidInterval(start: end, end: start)) {
        try await counter.save(
          activeEnergyBurned: Measurement(value: 10, unit: .kilocalories), from: end, to: start)
      }
      #expect(store.simulation.storedSampleCount == 1)
    }

    @Test("energy burned is HealthKit's merge of iPhone and Watch, typed-in entries left out")
    @available(*, deprecated, message: "checks that the deprecated energy twins keep working")
    func energyBurnedMerged() async throws {
      let store = HealthFixture.Store()
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      let ten = try HealthFixture.date("2026-11-29T10:00:00+08:00")
      store.simulation.add(
        .activeEnergyBurned, value: 300, unit: .kilocalorie(), from: nine, to: ten, origin: .appleWatch)
      store.simulation.add(
        .activeEnergyBurned, value: 200, unit: .kilocalorie(), from: nine, to: ten, origin: .iPhone)
      store.simulation.add(
        .activeEnergyBurned, value: 900, unit: .kilocalorie(), from: nine, to: ten, origin: .healthApp,
        userEntered: true)
      try await store.authorize(.everything)
      let counter = store.counter
      let day = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
      let energy = try await counter.energyBurned(.activeEnergyBurned, in: day)
      #expect(abs(energy.kilocalories - 300) < 1e-9)
      #expect(energy.hasData)
      #expect(energy.energy.converted(to: .kilojoules).value > 1255)
      let resting = try await counter.energyBurned(.basalEnergyBurned, in: day)
      #expect(!resting.hasData)
      #expect(resting.provenance.notes == [.noDataMayMeanDeniedAccess])
      await #expect(throws: StepKitError.unsupportedDataType(.bodyMass)) {
        try await counter.energyBurned(.bodyMass, in: day)
      }
    }

    @Test("the most recent sample is the one that ended last; none, or none readable, is nil")
    func mostRecent() async throws {
      let store = HealthFixture.Store()
      let counter = store.counter
      await #expect(throws: StepKitError.authorizationNotDetermined(.bodyMass)) {
        try await counter.mostRecentMeasurement(of: .bodyMass)
      }
      store.simulation.answers[HKQuantityTypeIdentifier.height.rawValue] = .init(read: false, share: true)
      try await store.authorize(.everything)
      #expect(try await counter.mostRecentMeasurement(of: .bodyMass) == nil)

      let older = try HealthFixture.date("2026-11-20T08:00:00+08:00")
      let newer = try HealthFixture.date("2026-11-28T08:00:00+08:00")
      store.simulation.add(
        .bodyMass, value: 71, unit: .gramUnit(with: .kilo), from: newer, to: newer, origin: .otherApp)
      store.simulation.add(.bodyMass, value: 150, unit: .gramUnit(with: .none), from: older, to: older)
      let latest = try #require(try await counter.mostRecentMeasurement(of: .bodyMass))
      #expect(latest.measurement == .bodyMass(kilograms: 71))
      #expect(latest.date == newer)
      #expect(store.simulation.executedQueries.last == "HKSampleQuery")

      // Reading height is denied: another app's sample is invisible, the app's own is seen.
      store.simulation.add(.height, value: 1.8, unit: .meter(), from: newer, to: newer, origin: .otherApp)
      #expect(try await counter.mostRecentMeasurement(of: .height) == nil)
      try await counter.save(height: Measurement(value: 170, unit: .centimeters), at: older)
      #expect(try await counter.mostRecentMeasurement(of: .height)?.measurement == .height(meters: 1.7))

      await #expect(throws: StepKitError.unsupportedDataType(.steps)) {
        try await counter.mostRecentMeasurement(of: .steps)
      }
    }

    @Test("completion twins call back once on the queue with the measurement")
    @available(*, deprecated, message: "checks that the deprecated energy twins keep working")
    func completionTwins() async throws {
      let store = HealthFixture.Store()
      try await store.authorize(.everything)
      let counter = store.counter
      let queue = DispatchQueue(label: "stepkit.tests.measurements")
      let key = DispatchSpecificKey<Bool>()
      queue.setSpecific(key: key, value: true)
      let saved: Result<SavedMeasurement, StepKitError> = await withCheckedContinuation { continuation in
        counter.save(bodyTemperature: Measurement(value: 37.2, unit: .celsius), queue: queue) {
          #expect(DispatchQueue.getSpecific(key: key) == true)
          continuation.resume(returning: $0)
        }
      }
      #expect((try? saved.get())?.measurement == .bodyTemperature(degreesCelsius: 37.2))
      let latest: Result<SavedMeasurement?, StepKitError> = await withCheckedContinuation { continuation in
        counter.mostRecentMeasurement(of: .bodyTemperature, queue: queue) {
          #expect(DispatchQueue.getSpecific(key: key) == true)
          continuation.resume(returning: $0)
        }
      }
      #expect((try? latest.get())??.measurement == .bodyTemperature(degreesCelsius: 37.2))
      let interval = DateInterval(start: Date(timeIntervalSince1970: 0), duration: 3600)
      let energy: Result<EnergyAmount, StepKitError> = await withCheckedContinuation { continuation in
        counter.energyBurned(.activeEnergyBurned, in: interval, queue: queue) {
          continuation.resume(returning: $0)
        }
      }
      #expect((try? energy.get())?.hasData == false)
      let refused: Result<SavedMeasurement, StepKitError> = await withCheckedContinuation { continuation in
        counter.save(
          basalEnergyBurned: Measurement(value: 1, unit: .kilocalories), from: interval.end,
          to: interval.start,
          queue: queue
        ) { continuation.resume(returning: $0) }
      }
      #expect(refused.map(\.uuid) == .failure(.invalidInterval(start: interval.end, end: interval.start)))
    }
  }

  @Suite("Missing HealthKit entitlement: its own error, everywhere")
  struct MissingEntitlementTests {
    @Test("requests, queries, characteristics and saves name the entitlement and Signing & Capabilities")
    func everywhere() async throws {
      let store = HealthFixture.Store()
      store.simulation.hasHealthKitEntitlement = false
      let missing = StepKitError.missingEntitlement(key: "com.apple.developer.healthkit")
      await #expect(throws: missing) { try await store.authorize() }
      await #expect(throws: missing) {
        try await store.source.steps(in: DateInterval(start: Date(), duration: 60), policy: .health)
      }
      await #expect(throws: missing) {
        try await store.source.dailySteps(
          in: DateInterval(start: Date(), duration: 60), calendar: .current, policy: .all)
      }
      await #expect(throws: missing) { try await store.source.biologicalSex() }
      await #expect(throws: missing) { try await store.source.dateOfBirth() }
      await #expect(throws: missing) { try await store.source.save(.bodyMass(kilograms: 70), at: Date()) }
      await #expect(throws: missing) { try await store.source.mostRecentMeasurement(of: .height) }
      await #expect(throws: missing) { try await store.source.enableBackgroundDelivery(frequency: .hourly) }
      var live = store.source.todayStepUpdates(calendar: .current, policy: .health).makeAsyncIterator()
      await #expect(throws: missing) { try await live.next() }
      #expect(missing.recoverySuggestion(in: .english)?.contains("Signing & Capabilities") == true)
      #expect(missing.description(in: .english).contains("com.apple.developer.healthkit"))
      #expect(missing.recoverySuggestion(in: .simplifiedChinese)?.contains("Signing & Capabilities") == true)
      #expect(missing.errorCode == 111)
    }

    @Test(
      "a missing background-delivery entitlement is named; HealthKit's other code-4 errors stay write-denied")
    func backgroundAndOtherCodeFour() async throws {
      let store = HealthFixture.Store()
      store.simulation.hasBackgroundDeliveryEntitlement = false
      try await store.authorize(.everything)
      let missing = StepKitError.missingEntitlement(key: "com.apple.developer.healthkit.background-delivery")
      await #expect(throws: missing) { try await store.source.enableBackgroundDelivery(frequency: .hourly) }
      #expect(missing.recoverySuggestion(in: .english)?.contains("Background Delivery") == true)
      // Reading still works: only background delivery needs that entitlement.
      _ = try await store.source.steps(in: DateInterval(start: Date(), duration: 60), policy: .health)

      store.simulation.answers[HKQuantityTypeIdentifier.bodyTemperature.rawValue] = .init(
        read: true, share: false)
      let denied = HealthFixture.Store()
      denied.simulation.answers[HKQuantityTypeIdentifier.bodyTemperature.rawValue] = .init(
        read: true, share: false)
      try await denied.authorize(.everything)
      await #expect(throws: StepKitError.writeAccessDenied(.bodyTemperature)) {
        try await denied.source.save(.bodyTemperature(degreesCelsius: 37), at: Date())
      }
    }
  }
#endif
