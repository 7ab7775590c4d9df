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

    /// Apple's default order (typed-in entries, then the Watch, the iPhone, then other apps),
    /// and a person who put another app above the Watch: that app's steps.
    static let dataSourcesOrders = [
      // Added in another order than Apple's, so the default is not the order of arrival.
      // The typed-in 50 covers 9:00–9:06; the Watch gives the other 54 minutes: 900.
      DataSourcesCase(
        "Apple's default",
        samples: [
          .init(3000, .otherApp), .init(800, .iPhone), .init(1000, .appleWatch),
          .init(50, .healthApp, minutes: 6, userEntered: true),
        ],
        order: [.healthApp, .appleWatch, .iPhone, .otherApp], sum: 950),
      DataSourcesCase(
        "another app above the Watch", samples: [.init(3000, .otherApp), .init(1000, .appleWatch)],
        chosen: [.otherApp], order: [.otherApp, .appleWatch], sum: 3000),
    ]

    @Test("statistics merge by the person's Data Sources order", arguments: dataSourcesOrders)
    func dataSourcesOrder(_ order: DataSourcesCase) async throws {
      for sample in order.samples {
        simulation.add(
          steps: sample.steps, from: nine, to: nine.addingTimeInterval(sample.minutes * 60),
          origin: sample.origin, userEntered: sample.userEntered)
      }
      if !order.chosen.isEmpty { simulation.setDataSourcesOrder(order.chosen, for: .stepCount) }
      #expect(simulation.dataSourcesOrder(for: .stepCount) == order.order.map(\.bundleIdentifier))
      _ = await request()
      #expect(await sum() == order.sum)
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

    @Test(
      "a sample ending before it starts, or with a value that is not finite, raises an exception",
      arguments: BadSample.allCases)
    func invalidSamples(_ bad: BadSample) async throws {
      _ = await request(share: [HKQuantityType(.bodyMass)], read: [HKQuantityType(.bodyMass)])
      let (value, start, end) = bad.measurement(nine: nine, ten: ten)
      let sample = HKQuantitySample(
        type: HKQuantityType(.bodyMass),
        quantity: HKQuantity(unit: .gramUnit(with: .kilo), doubleValue: value),
        start: start, end: end)
      let code: HKError.Code? = await withCheckedContinuation { continuation in
        store.save(sample) { _, error in continuation.resume(returning: (error as? HKError)?.code) }
      }
      #expect(code == .errorInvalidArgument)
      #expect(simulation.raisedExceptions.count == 1)
      #expect(simulation.raisedExceptions.first?.hasPrefix("NSInvalidArgumentException") == true)
    }

    @Test(
      "StepKit never creates such a sample: an impossible measurement is refused first",
      arguments: [Double.nan, -Double.infinity])
    func stepKitRefusesFirst(_ kilograms: Double) async throws {
      let source = HealthKitStepSource(store: store)
      try await source.requestAuthorization(.everything)
      await #expect(throws: StepKitError.self) {
        try await StepCounter(health: source, motion: nil, bundle: DictionaryBundleInfo.complete)
          .save(bodyMass: Measurement(value: kilograms, unit: .kilograms))
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

  /// A Data Sources order worked out by hand: the step samples (each from 9:00), the order the
  /// person chose (none: Apple's default), and the order and merged sum HealthKit then gives.
  struct DataSourcesCase: Sendable, CustomTestStringConvertible {
    /// A step sample from 9:00, `minutes` long.
    struct Sample: Sendable {
      var steps: Double
      var origin: HealthStoreSimulation.Origin
      var minutes: Double
      var userEntered: Bool

      init(
        _ steps: Double, _ origin: HealthStoreSimulation.Origin, minutes: Double = 60,
        userEntered: Bool = false
      ) {
        self.steps = steps
        self.origin = origin
        self.minutes = minutes
        self.userEntered = userEntered
      }
    }

    let testDescription: String
    let samples: [Sample]
    let chosen: [HealthStoreSimulation.Origin]
    let order: [HealthStoreSimulation.Origin]
    let sum: Double

    init(
      _ label: String, samples: [Sample], chosen: [HealthStoreSimulation.Origin] = [],
      order: [HealthStoreSimulation.Origin], sum: Double
    ) {
      testDescription = label
      self.samples = samples
      self.chosen = chosen
      self.order = order
      self.sum = sum
    }
  }

  /// A body-mass sample HealthKit refuses with an exception.
  enum BadSample: CaseIterable, Sendable {
    case endsBeforeStart, notANumber, infinite

    /// Kilograms, start and end, from the hours 9:00 and 10:00.
    func measurement(nine: Date, ten: Date) -> (Double, Date, Date) {
      switch self {
      case .endsBeforeStart: (70, ten, nine)
      case .notANumber: (.nan, nine, ten)
      case .infinite: (.infinity, nine, nine)
      }
    }
  }

  /// Carries a HealthKit object out of a handler in a test.
  struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
  }
#endif
