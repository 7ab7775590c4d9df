import Foundation
import StepKitCore

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

extension HealthKitStepSource {
  // The midnight method forwards to the day-start one, as in every StepKit source, alike on
  // purpose: the midnight methods are StepSource's requirements (what a third-party source
  // implements) and each source documents its own behaviour under them.

  /// Today's steps, now and after every change HealthKit reports
  /// (`HKObserverQuery`), and afresh at each local midnight and whenever the
  /// system says the day or the time zone changed.
  ///
  /// Each total is computed with ``steps(in:policy:)`` over today, midnight
  /// to midnight. A total equal to the previous one is not repeated. The
  /// observer query stops when the sequence is cancelled.
  ///
  /// A locked phone is a pause, not a failure: while HealthKit answers
  /// `errorDatabaseInaccessible`, the sequence yields the last good count of
  /// today (or an empty one) with ``ResultNote/deviceLocked``, and counts
  /// again when protected data becomes available
  /// (``DeviceNotification/protectedDataDidBecomeAvailable``) or HealthKit
  /// reports a change.
  ///
  /// - Parameters:
  ///   - calendar: Whose midnight starts "today" (`Calendar.autoupdatingCurrent`
  ///     follows the phone across time zones).
  ///   - policy: Which samples take part.
  /// - Returns: An asynchronous sequence of today's totals; it ends with a
  ///   ``StepKitError`` when HealthKit cannot be read for another reason.
  public func todayStepUpdates(calendar: Calendar, policy: CountingPolicy) -> AsyncThrowingStream<
    StepCount, any Error
  > {
    todayStepUpdates(calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// ``todayStepUpdates(calendar:policy:)`` with "today" from `dayStart` to
  /// the same local time the next day: counted afresh at each day start of
  /// `calendar`'s time zone at that moment (23- or 25-hour days across a DST
  /// change; after a time-zone change, the new zone's day start).
  ///
  /// - Parameters:
  ///   - calendar: Whose time zone's local times cut the days
  ///     (`Calendar.autoupdatingCurrent` follows the phone across time zones).
  ///   - dayStart: The local time at which "today" begins.
  ///   - policy: Which samples take part.
  /// - Returns: An asynchronous sequence of today's totals.
  public func todayStepUpdates(calendar: Calendar, dayStart: DayStart, policy: CountingPolicy)
    -> AsyncThrowingStream<StepCount, any Error>
  {
    let (events, eventContinuation) = makeAsyncStream(of: LiveEvent.self)
    let clock = clock
    return AsyncThrowingStream<StepCount, any Error>.endingAtFirstError { continuation in
      guard HKHealthStore.isHealthDataAvailable() else {
        continuation.finish(throwing: StepKitError.healthDataUnavailable)
        return
      }
      let observer = HKObserverQuery(sampleType: HKQuantityType(.stepCount), predicate: nil) {
        _, completionHandler, error in
        if let error {
          let mapped = StepKitError(healthKitError: error, reading: .steps)
          // A locked phone: count again (and pause) rather than end.
          eventContinuation.yield(mapped == .healthDatabaseLocked ? .changed : .failed(mapped))
        } else {
          eventContinuation.yield(.changed)
        }
        // Tell HealthKit the update was received (see registerBackgroundDelivery for the
        // background form, which waits until the change is processed).
        completionHandler()
      }
      store.execute(observer)
      let running = RunningQuery(store: store, query: observer)

      let dayChanges = clock.dayChanges(calendar: calendar, dayStart: dayStart) {
        eventContinuation.yield(.midnight)
      }
      let unlocks = NotificationObservation(
        center: clock.notificationCenter, names: [DeviceNotification.protectedDataDidBecomeAvailable]
      ) { eventContinuation.yield(.changed) }
      let updates = Task {
        var lastGood: StepCount?
        eventContinuation.yield(.changed)
        await continuation.yieldChanges(for: events) { event in
          if case .failed(let error) = event { throw error }
          let today = LocalDays.day(containing: clock.now(), calendar: calendar, dayStart: dayStart)
          do {
            let count = try await steps(in: today, policy: policy)
            lastGood = count
            return count
          } catch StepKitError.healthDatabaseLocked {
            return Self.paused(lastGood, today: today, policy: policy)
          }
        }
      }
      continuation.onTermination = { _ in
        updates.cancel()
        dayChanges.cancel()
        unlocks.cancel()
        eventContinuation.finish()
        running.stop()
      }
    }
  }

  /// What to show while the phone is locked: today's last good count, or an
  /// empty count for a day not yet read, marked ``ResultNote/deviceLocked``.
  static func paused(_ lastGood: StepCount?, today: DateInterval, policy: CountingPolicy) -> StepCount {
    var count =
      lastGood.flatMap { $0.interval.start == today.start ? $0 : nil }
      ?? StepCount(
        interval: today, steps: 0,
        provenance: Provenance(
          source: .healthKit, policy: policy, manualEntries: policy == .all ? .included : .excluded),
        hasData: false)
    if !count.provenance.notes.contains(.deviceLocked) { count.provenance.notes.append(.deviceLocked) }
    return count
  }
}

extension HealthKitStepSource {
  /// Executes an `HKObserverQuery` for steps: `onChange` runs for each change
  /// HealthKit reports, and HealthKit's completion handler is called exactly
  /// once, when `onChange`'s `done` is called. An error from HealthKit (access
  /// not asked for, a missing entitlement) is acknowledged at once, without
  /// `onChange`.
  ///
  /// Execute it while the app launches (see ``StepCounter/registerBackgroundDelivery(frequency:onUpdate:)``):
  /// after a background relaunch HealthKit delivers only to observers
  /// registered then.
  ///
  /// - Parameter onChange: Called for each change.
  /// - Returns: The observation; cancelling it stops the query.
  public func observeStepChanges(
    _ onChange: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
  ) -> StepObservation {
    observeStepChanges(onError: { _ in }, onChange)
  }

  /// Like ``observeStepChanges(_:)``, and hands `onError` each error the
  /// observer reports, mapped, before acknowledging it.
  ///
  /// - Parameters:
  ///   - onError: Called with each mapped error.
  ///   - onChange: Called for each change.
  /// - Returns: The observation; cancelling it stops the query.
  public func observeStepChanges(
    onError: @escaping @Sendable (StepKitError) -> Void,
    _ onChange: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
  ) -> StepObservation {
    let observer = HKObserverQuery(sampleType: HKQuantityType(.stepCount), predicate: nil) {
      _, completionHandler, error in
      let acknowledge = HealthKitAcknowledgement(completionHandler)
      if let error {
        onError(StepKitError(healthKitError: error, reading: .steps))
        acknowledge.call()
        return
      }
      onChange { acknowledge.call() }
    }
    store.execute(observer)
    let running = RunningQuery(store: store, query: observer)
    return StepObservation { running.stop() }
  }
}

/// HealthKit's observer completion handler, called once from any thread.
/// The handler is not `Sendable` in the iOS 16.5 SDK; HealthKit documents
/// it as callable from any thread, and it is called exactly once here.
final class HealthKitAcknowledgement: @unchecked Sendable {
  // Safe to share: HealthKit documents the handler as callable from any thread, and `once` lets
  // only the first call through.
  private let handler: HKObserverQueryCompletionHandler
  private let once = OnceFlag()

  init(_ handler: @escaping HKObserverQueryCompletionHandler) { self.handler = handler }

  func call() { if once.claim() { handler() } }
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
  // Safe to share: both are `let`s, and the query is only handed back to the thread-safe store.
  private let store: HKHealthStore
  private let query: HKQuery
  init(store: HKHealthStore, query: HKQuery) {
    self.store = store
    self.query = query
  }
  func stop() { store.stop(query) }
}
