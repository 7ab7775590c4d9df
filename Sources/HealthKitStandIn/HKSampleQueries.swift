import Foundation

/// The handler an observer query's update handler must call (`HKObserverQueryCompletionHandler`).
public typealias HKObserverQueryCompletionHandler = () -> Void

// Each query class is HealthKit's, with its own initializer and handler, and starts as every
// query does (`simulation.answer`), alike on purpose: the stand-in mirrors HealthKit's classes
// one for one; what they share is `HealthStoreSimulation.answer`.

/// Calls its handler whenever samples of its type change (`HKObserverQuery`).
public class HKObserverQuery: HKQuery {
  let updateHandler:
    @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void

  /// Creates the query.
  public init(
    sampleType: HKSampleType, predicate: NSPredicate?,
    updateHandler:
      @escaping @Sendable (HKObserverQuery, @escaping HKObserverQueryCompletionHandler, (any Error)?) -> Void
  ) {
    self.updateHandler = updateHandler
    super.init(objectType: sampleType, predicate: predicate)
  }

  override func start(in simulation: HealthStoreSimulation, deviceSupported: Bool) {
    if let type = objectType, let error = simulation.readError(for: type, deviceSupported: deviceSupported),
      error.code != .errorDatabaseInaccessible
    {
      let box = Unchecked(self)
      let completion = simulation.beginObserverDelivery()
      simulation.runHandler(observer: true) { box.value.updateHandler(box.value, completion, error) }
      return
    }
    simulation.register(self)
    // Devices call a new observer's handler once when it starts, before any change.
    notify(in: simulation)
  }

  /// Calls the update handler on `simulation`'s queue with a completion
  /// handler the simulation counts (HealthKit backs off when it is not called).
  func notify(in simulation: HealthStoreSimulation) {
    let box = Unchecked(self)
    let completion = simulation.beginObserverDelivery()
    simulation.runHandler(observer: true) { box.value.updateHandler(box.value, completion, nil) }
  }
}

/// Fetches samples and remembers where it left off (`HKAnchoredObjectQuery`).
public class HKAnchoredObjectQuery: HKQuery {
  let handler:
    @Sendable (HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?) -> Void
  let anchor: HKQueryAnchor?
  let limit: Int

  /// Creates the query.
  public init(
    type: HKSampleType, predicate: NSPredicate?, anchor: HKQueryAnchor?, limit: Int,
    resultsHandler handler:
      @escaping @Sendable (
        HKAnchoredObjectQuery, [HKSample]?, [HKDeletedObject]?, HKQueryAnchor?, (any Error)?
      ) -> Void
  ) {
    self.handler = handler
    self.anchor = anchor
    self.limit = limit
    super.init(objectType: type, predicate: predicate)
  }

  override func start(in simulation: HealthStoreSimulation, deviceSupported: Bool) {
    guard let type = objectType else { return }
    simulation.answer(self, reading: type, deviceSupported: deviceSupported) {
      let all = simulation.visibleSamples(of: type, matching: predicate)
      let skip = min(anchor?.value ?? 0, all.count)
      var fresh = Array(all[skip...])
      if limit > 0 { fresh = Array(fresh.prefix(limit)) }
      return .success((samples: fresh as [HKSample], anchor: HKQueryAnchor(value: skip + fresh.count)))
    } deliver: { query, answer, error in
      // No deleted objects on success; HealthKit passes nil for each result with an error.
      query.handler(query, answer?.samples, answer.map { _ in [] }, answer?.anchor, error)
    }
  }
}

/// Lists the sources that wrote samples (`HKSourceQuery`).
public class HKSourceQuery: HKQuery {
  let handler: @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void

  /// Creates the query.
  public init(
    sampleType: HKSampleType, samplePredicate objectPredicate: NSPredicate?,
    completionHandler: @escaping @Sendable (HKSourceQuery, Set<HKSource>?, (any Error)?) -> Void
  ) {
    handler = completionHandler
    super.init(objectType: sampleType, predicate: objectPredicate)
  }

  override func start(in simulation: HealthStoreSimulation, deviceSupported: Bool) {
    guard let type = objectType else { return }
    simulation.answer(self, reading: type, deviceSupported: deviceSupported) {
      .success(Set(simulation.visibleSamples(of: type, matching: predicate).map(\.sourceRevision.source)))
    } deliver: { query, sources, error in
      query.handler(query, sources, error)
    }
  }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Sorts samples by start date (`HKSampleSortIdentifierStartDate`).
public let HKSampleSortIdentifierStartDate: String = "startDate"
// swift-format-ignore: AlwaysUseLowerCamelCase
/// Sorts samples by end date (`HKSampleSortIdentifierEndDate`).
public let HKSampleSortIdentifierEndDate: String = "endDate"

/// Fetches samples, sorted and limited (`HKSampleQuery`).
public class HKSampleQuery: HKQuery {
  let handler: @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void
  /// The largest number of results; ``HKObjectQueryNoLimit`` for all.
  public let limit: Int
  /// How the results are ordered.
  public let sortDescriptors: [NSSortDescriptor]?

  /// Creates the query.
  public init(
    sampleType: HKSampleType, predicate: NSPredicate?, limit: Int, sortDescriptors: [NSSortDescriptor]?,
    resultsHandler: @escaping @Sendable (HKSampleQuery, [HKSample]?, (any Error)?) -> Void
  ) {
    handler = resultsHandler
    self.limit = limit
    self.sortDescriptors = sortDescriptors
    super.init(objectType: sampleType, predicate: predicate)
  }

  override func start(in simulation: HealthStoreSimulation, deviceSupported: Bool) {
    guard let type = objectType else { return }
    simulation.answer(self, reading: type, deviceSupported: deviceSupported) {
      var samples: [HKSample] = simulation.visibleSamples(of: type, matching: predicate)
      if let descriptors = sortDescriptors, !descriptors.isEmpty {
        samples.sort { lhs, rhs in
          for descriptor in descriptors {
            let order = descriptor.compare(lhs, to: rhs)
            if order != .orderedSame { return order == .orderedAscending }
          }
          return false
        }
      }
      if limit > 0 { samples = Array(samples.prefix(limit)) }
      return .success(samples)
    } deliver: { query, samples, error in
      query.handler(query, samples, error)
    }
  }
}
