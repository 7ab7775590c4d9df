#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import Testing

  /// What the stand-in store does that apps trip over on a device.
  @Suite("HealthKit stand-in: behaves like the store")
  struct HealthKitStandInTests {
    struct Outcome: Sendable {
      var sum: Double?
      var errorCode: Int?
      var onMainThread: Bool
    }

    func sum(_ store: HKHealthStore, from start: Date, to end: Date) async -> Outcome {
      await withCheckedContinuation { continuation in
        let query = HKStatisticsQuery(
          quantityType: HKQuantityType(.stepCount),
          quantitySamplePredicate: HKQuery.predicateForSamples(withStart: start, end: end),
          options: .cumulativeSum
        ) { _, statistics, error in
          continuation.resume(
            returning: Outcome(
              sum: statistics?.sumQuantity()?.doubleValue(for: .count()),
              errorCode: (error as? HKError)?.code.rawValue,
              onMainThread: Thread.isMainThread))
        }
        store.execute(query)
      }
    }

    func request(_ store: HKHealthStore) async -> Bool {
      await withCheckedContinuation { continuation in
        store.requestAuthorization(toShare: [HKQuantityType(.stepCount)], read: [HKQuantityType(.stepCount)])
        {
          success, _ in continuation.resume(returning: success)
        }
      }
    }

    @Test("no matching samples is errorNoData, not a zero sum; handlers run off the main thread")
    func noData() async throws {
      let store = HKHealthStore()
      #expect(await request(store))
      let outcome = await sum(
        store, from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 3600))
      #expect(outcome.sum == nil)
      #expect(outcome.errorCode == HKError.Code.errorNoData.rawValue)
      #expect(!outcome.onMainThread)
    }

    @Test("with reading denied, an app sees only the samples it saved itself")
    func readDenialShowsOwnSamples() async throws {
      let simulation = HealthStoreSimulation()
      simulation.defaultAnswer = HealthStoreSimulation.Answer(read: false, share: true)
      let store = HKHealthStore(simulation: simulation)
      let start = Date(timeIntervalSince1970: 0)
      simulation.add(steps: 5000, from: start, to: start.addingTimeInterval(600), origin: .appleWatch)
      #expect(await request(store))
      let own = HKQuantitySample(
        type: HKQuantityType(.stepCount), quantity: HKQuantity(unit: .count(), doubleValue: 12), start: start,
        end: start.addingTimeInterval(60))
      let saved: Bool = await withCheckedContinuation { continuation in
        store.save(own) { success, _ in continuation.resume(returning: success) }
      }
      #expect(saved)
      #expect(await sum(store, from: start, to: start.addingTimeInterval(3600)).sum == 12)
      #expect(store.authorizationStatus(for: HKQuantityType(.stepCount)) == .sharingAuthorized)
    }

    @Test("statistics merge overlapping sources by priority (Watch over iPhone)")
    func mergesSources() async throws {
      let simulation = HealthStoreSimulation()
      let store = HKHealthStore(simulation: simulation)
      let start = Date(timeIntervalSince1970: 0)
      simulation.add(steps: 600, from: start, to: start.addingTimeInterval(600), origin: .iPhone)
      simulation.add(
        steps: 300, from: start.addingTimeInterval(300), to: start.addingTimeInterval(600),
        origin: .appleWatch)
      #expect(await request(store))
      // iPhone's first half (300) + the Watch's 300 for the second half.
      #expect(await sum(store, from: start, to: start.addingTimeInterval(3600)).sum == 600)
    }

    @Test("a locked device refuses queries with errorDatabaseInaccessible")
    func locked() async throws {
      let simulation = HealthStoreSimulation()
      let store = HKHealthStore(simulation: simulation)
      #expect(await request(store))
      simulation.isLocked = true
      let outcome = await sum(
        store, from: Date(timeIntervalSince1970: 0), to: Date(timeIntervalSince1970: 60))
      #expect(outcome.errorCode == HKError.Code.errorDatabaseInaccessible.rawValue)
    }

    @Test("the prompt's success says nothing about access; asking again shows no prompt")
    func promptSemantics() async throws {
      let simulation = HealthStoreSimulation()
      simulation.defaultAnswer = .deny
      let store = HKHealthStore(simulation: simulation)
      #expect(await request(store))
      #expect(await request(store))
      #expect(simulation.promptCount == 1)
      #expect(store.authorizationStatus(for: HKQuantityType(.stepCount)) == .sharingDenied)
    }
  }
#endif
