import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

extension HealthKitStepSource {
  /// Today's steps, now and after every change HealthKit reports
  /// (`HKObserverQuery`), and afresh at each local midnight.
  ///
  /// Each total is computed with ``steps(in:policy:)`` over today, midnight
  /// to midnight. A total equal to the previous one on the same day is not
  /// repeated. The observer query stops when the sequence is cancelled.
  ///
  /// - Parameters:
  ///   - calendar: Whose midnight starts "today".
  ///   - policy: Which samples take part.
  /// - Returns: An asynchronous sequence of today's totals; it ends with a
  ///   ``StepKitError`` when HealthKit cannot be read.
  public func todayStepUpdates(calendar: Calendar, policy: CountingPolicy) -> AsyncThrowingStream<
    StepCount, any Error
  > {
    let (events, eventContinuation) = makeAsyncStream(of: LiveEvent.self)
    let clock = clock
    return AsyncThrowingStream { continuation in
      guard HKHealthStore.isHealthDataAvailable() else {
        continuation.finish(throwing: StepKitError.healthDataUnavailable)
        return
      }
      let observer = HKObserverQuery(sampleType: HKQuantityType(.stepCount), predicate: nil) {
        _, completionHandler, error in
        if let error {
          eventContinuation.yield(.failed(StepKitError(healthKitError: error, reading: .steps)))
        } else {
          eventContinuation.yield(.changed)
        }
        // Tell HealthKit the update was received (required with background delivery).
        completionHandler()
      }
      store.execute(observer)
      let running = RunningQuery(store: store, query: observer)

      let midnights = clock.midnightTicks(calendar: calendar) { eventContinuation.yield(.midnight) }
      let updates = Task {
        var last: StepCount?
        do {
          eventContinuation.yield(.changed)
          for await event in events {
            if case .failed(let error) = event { throw error }
            let now = clock.now()
            let today = LocalDays.day(containing: now, calendar: calendar)
            let count = try await steps(in: today, policy: policy)
            if count != last {
              last = count
              continuation.yield(count)
            }
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in
        updates.cancel()
        midnights.cancel()
        eventContinuation.finish()
        running.stop()
      }
    }
  }
}

/// What wakes the live-update loop.
enum LiveEvent: Sendable {
  case changed
  case midnight
  case failed(StepKitError)
}

/// A running HealthKit query, kept only to stop it. HKHealthStore is
/// documented as thread-safe, and the query is only handed back to it.
final class RunningQuery: @unchecked Sendable {
  private let store: HKHealthStore
  private let query: HKQuery
  init(store: HKHealthStore, query: HKQuery) {
    self.store = store
    self.query = query
  }
  func stop() { store.stop(query) }
}
