#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  /// What the stand-in does because a device does it (HEALTHKIT-API.md §12), checked on the
  /// stand-in alone. Its statistics merge with its own code, following the person's Data
  /// Sources order, never with StepKitCore's: the expected values here are worked out by hand.
  @Suite("HealthKit stand-in: what a device does")
  struct HealthKitStandInDeviceTests {
    let nine: Date
    let ten: Date
    let store: HKHealthStore
    var simulation: HealthStoreSimulation { store.simulation }

    init() throws {
      nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      ten = try HealthFixture.date("2026-11-29T10:00:00+08:00")
      store = HKHealthStore()
    }

    func request(share: Set<HKSampleType> = [], read: Set<HKObjectType> = [HKQuantityType(.stepCount)]) async
      -> (Bool, HKError?)
    {
      await withCheckedContinuation { continuation in
        store.requestAuthorization(toShare: share, read: read) { success, error in
          continuation.resume(returning: (success, error as? HKError))
        }
      }
    }

    func statistics(_ options: HKStatisticsOptions, predicate: NSPredicate? = nil) async -> HKStatistics? {
      let dates = HKQuery.predicateForSamples(withStart: nine, end: ten.addingTimeInterval(3600))
      let full = predicate.map { NSCompoundPredicate(andPredicateWithSubpredicates: [dates, $0]) } ?? dates
      let box: UncheckedBox<HKStatistics?> = await withCheckedContinuation { continuation in
        store.execute(
          HKStatisticsQuery(
            quantityType: HKQuantityType(.stepCount), quantitySamplePredicate: full, options: options
          ) { _, statistics, _ in continuation.resume(returning: UncheckedBox(statistics)) })
      }
      return box.value
    }

    func sum(predicate: NSPredicate? = nil) async -> Double? {
      await statistics(.cumulativeSum, predicate: predicate)?.sumQuantity()?.doubleValue(for: .count())
    }

    @Test("Apple's default order: typed-in entries, then the Watch, the iPhone, then other apps")
    func defaultOrder() async throws {
      simulation.add(steps: 3000, from: nine, to: ten, origin: .otherApp)
      simulation.add(steps: 800, from: nine, to: ten, origin: .iPhone)
      simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      simulation.add(
        steps: 50, from: nine, to: nine.addingTimeInterval(360), origin: .healthApp, userEntered: true)
      #expect(
        simulation.dataSourcesOrder(for: .stepCount) == [
          HealthStoreSimulation.Origin.healthApp.bundleIdentifier,
          HealthStoreSimulation.Origin.appleWatch.bundleIdentifier,
          HealthStoreSimulation.Origin.iPhone.bundleIdentifier,
          HealthStoreSimulation.Origin.otherApp.bundleIdentifier,
        ])
      _ = await request()
      // The typed-in 50 covers 9:00–9:06; the Watch gives the other 54 minutes: 900.
      #expect(await sum() == 950)
    }

    @Test("a person who put another app above the Watch gets that app's steps")
    func reorderedSources() async throws {
      simulation.add(steps: 3000, from: nine, to: ten, origin: .otherApp)
      simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      simulation.setDataSourcesOrder([.otherApp], for: .stepCount)
      #expect(
        simulation.dataSourcesOrder(for: .stepCount).first
          == HealthStoreSimulation.Origin.otherApp.bundleIdentifier)
      _ = await request()
      #expect(await sum() == 3000)
    }

    @Test("separateBySource gives each source's own, unmerged sum next to the merged total")
    func separateBySource() async throws {
      simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      simulation.add(steps: 800, from: nine, to: ten, origin: .iPhone)
      _ = await request()
      let statistics = try #require(await statistics([.cumulativeSum, .separateBySource]))
      #expect(statistics.sumQuantity()?.doubleValue(for: .count()) == 1000)
      let sources = try #require(statistics.sources)
      #expect(sources.count == 2)
      #expect(
        sources.compactMap { statistics.sumQuantity(for: $0)?.doubleValue(for: .count()) }.sorted() == [
          800, 1000,
        ])
      #expect(await self.statistics(.cumulativeSum)?.sources == nil)
    }

    @Test("the typed-in filter as devices evaluate it: a sample without the key is not YES")
    func formatPredicate() async throws {
      simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      simulation.add(
        steps: 200, from: ten, to: ten.addingTimeInterval(600), origin: .healthApp, userEntered: true)
      _ = await request()
      let notTypedIn = NSPredicate(format: "metadata.%K != YES", HKMetadataKeyWasUserEntered)
      #expect(await sum(predicate: notTypedIn) == 1000)
      let typedIn = NSPredicate(format: "metadata.%K == YES", HKMetadataKeyWasUserEntered)
      #expect(await sum(predicate: typedIn) == 200)
      #expect(await sum() == 1200)
    }

    @Test("an observer's handler is called once when it starts, then once per change")
    func observerFiresOnExecute() async throws {
      _ = await request()
      let query = HKObserverQuery(sampleType: HKQuantityType(.stepCount), predicate: nil) { _, done, _ in
        done()
      }
      store.execute(query)
      await simulation.waitForObserverCompletions(1)
      #expect(simulation.observerDeliveries == 1)
      simulation.add(steps: 10, from: nine, to: ten)
      await simulation.waitForObserverCompletions(2)
      #expect(simulation.observerDeliveries == 2)
      store.stop(query)
    }

    @Test("a sample ending before it starts, or with a value that is not finite, raises an exception")
    func invalidSamples() async throws {
      _ = await request(share: [HKQuantityType(.bodyMass)], read: [HKQuantityType(.bodyMass)])
      for (value, start, end) in [(70.0, ten, nine), (Double.nan, nine, ten), (Double.infinity, nine, nine)] {
        let sample = HKQuantitySample(
          type: HKQuantityType(.bodyMass),
          quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: value),
          start: start, end: end)
        let code: HKError.Code? = await withCheckedContinuation { continuation in
          store.save(sample) { _, error in continuation.resume(returning: (error as? HKError)?.code) }
        }
        #expect(code == .errorInvalidArgument)
      }
      #expect(simulation.raisedExceptions.count == 3)
      #expect(simulation.raisedExceptions.allSatisfy { $0.hasPrefix("NSInvalidArgumentException") })
    }

    @Test("StepKit never creates such a sample: an impossible measurement is refused first")
    func stepKitRefusesFirst() async throws {
      let source = HealthKitStepSource(store: store)
      try await source.requestAuthorization(.everything)
      for value in [Double.nan, -Double.infinity] {
        await #expect(throws: StepKitError.self) {
          try await StepCounter(health: source, motion: nil, bundle: DictionaryBundleInfo.complete)
            .save(bodyMass: Measurement(value: value, unit: .kilograms))
        }
      }
      #expect(simulation.raisedExceptions.isEmpty)
    }

    @Test("asking without a usage description, or to share a type apps may not write, raises an exception")
    func authorizationExceptions() async throws {
      simulation.usageDescriptions = []
      let (success, error) = await request()
      #expect(!success)
      #expect(error?.code == .errorInvalidArgument)
      #expect(simulation.raisedExceptions.last?.contains("NSHealthShareUsageDescription") == true)
      #expect(simulation.promptCount == 0)

      simulation.usageDescriptions = ["NSHealthShareUsageDescription", "NSHealthUpdateUsageDescription"]
      let (shared, refusal) = await request(share: [HKQuantityType(.appleExerciseTime)])
      #expect(!shared)
      #expect(refusal?.code == .errorInvalidArgument)
      #expect(simulation.raisedExceptions.last?.contains("HKQuantityTypeIdentifierAppleExerciseTime") == true)

      // StepKit checks the Info.plist itself and never lets HealthKit raise.
      let fresh = HealthFixture.Store()
      fresh.simulation.usageDescriptions = []
      let counter = StepCounter(health: fresh.source, motion: nil, bundle: DictionaryBundleInfo([:]))
      await #expect(throws: StepKitError.missingUsageDescription(key: "NSHealthShareUsageDescription")) {
        try await counter.requestAuthorization()
      }
      #expect(fresh.simulation.raisedExceptions.isEmpty)
    }

    @Test("a statistics collection uses the calendar the phone has when the query runs")
    func calendarAtQueryTime() async throws {
      _ = await request()
      // Berlin's clocks go back on 25 October 2026: that day has 25 hours there, 24 in Shanghai.
      let anchor = try HealthFixture.date("2026-10-24T00:00:00+02:00")
      simulation.add(steps: 10, from: anchor, to: anchor.addingTimeInterval(60))
      func starts() async -> [Date] { await HealthFixture.collectionStarts(store, anchor: anchor) }
      simulation.calendar = try HealthFixture.calendar("Europe/Berlin")
      #expect(await starts().last == (try HealthFixture.date("2026-10-26T00:00:00+01:00")))
      // The person flies to Shanghai: the next query steps in Shanghai's days.
      simulation.calendar = try HealthFixture.calendar("Asia/Shanghai")
      #expect(await starts().last == (try HealthFixture.date("2026-10-25T23:00:00+01:00")))
    }
  }

  /// Carries a HealthKit object out of a handler in a test.
  struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
  }
#endif
