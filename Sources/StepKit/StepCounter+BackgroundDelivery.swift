import Foundation

// Background delivery that works on a device: HealthKit relaunches a terminated app in the
// background and delivers only to the observer queries registered during that launch, and it
// expects each observer's completion handler once the change has been processed.
extension StepCounter {
  /// Registers for HealthKit's background delivery of new steps: call it
  /// while the app launches, from `application(_:didFinishLaunchingWithOptions:)`
  /// or the SwiftUI `App` initialiser.
  ///
  /// It executes the observer query at once (HealthKit delivers a background
  /// relaunch only to observers registered during launch), enables
  /// background delivery, and for every change HealthKit reports fetches
  /// today's count from HealthKit alone (in the background CoreMotion's
  /// iPhone-only count would replace the Watch's steps), awaits `onUpdate`,
  /// and only then calls HealthKit's completion handler: exactly once per
  /// change, on every path (also when the count cannot be read, in which
  /// case `onUpdate` is not called and ``BackgroundDeliveryRegistration/lastError``
  /// says why). On a locked phone it acknowledges at once and counts again
  /// when protected data becomes available.
  ///
  /// The work is bounded in time: it holds a background-task assertion
  /// (``BackgroundTime``, `ProcessInfo.performExpiringActivity`, usable in
  /// app extensions too), and when the system says time is running out, or
  /// after ``StepCounter/backgroundTimeLimit`` seconds, it calls HealthKit's
  /// completion at once, cancels the task running `onUpdate`, and records
  /// ``StepKitError/backgroundTimeExpired``. Without that, an app suspended
  /// mid-work never calls the completion and HealthKit backs off. Keep
  /// `onUpdate` short and make it honour task cancellation.
  ///
  /// ```swift
  /// @main
  /// struct StepsApp: App {
  ///   init() {
  ///     StepCounter.shared.registerBackgroundDelivery { count in
  ///       await StepStore.shared.record(count)   // update a widget, post a notification…
  ///     }
  ///   }
  ///   var body: some Scene { WindowGroup { ContentView() } }
  /// }
  /// ```
  ///
  /// The app needs the `com.apple.developer.healthkit.background-delivery`
  /// entitlement (Signing & Capabilities › HealthKit › Background Delivery);
  /// `stepkit doctor --background-delivery` checks it. HealthKit delivers
  /// steps at most hourly, whatever `frequency` asks.
  ///
  /// - Parameters:
  ///   - frequency: How often at most; hourly by default.
  ///   - onUpdate: What the app does with today's count; HealthKit waits until it returns.
  /// - Returns: The registration: ``BackgroundDeliveryRegistration/enabled()`` reports whether
  ///   HealthKit enabled delivery; ``BackgroundDeliveryRegistration/cancel()`` stops observing.
  @discardableResult
  public func registerBackgroundDelivery(
    frequency: BackgroundDeliveryFrequency = .hourly, onUpdate: @escaping @Sendable (StepCount) async -> Void
  ) -> BackgroundDeliveryRegistration {
    guard let health else {
      return BackgroundDeliveryRegistration(observation: nil) {
        throw StepKitError.sourceNotConfigured(.healthKit)
      }
    }
    let lastError = LockedValue<StepKitError?>(nil)
    let ended = LockedValue(false)
    let policy = policy
    let clock = clock
    let calendar = calendar
    let dayStart = dayStart
    let onError: @Sendable (StepKitError) -> Void = { error in
      lastError.value = error
      // HealthKit stops an observer that fails (access not asked for yet): it must be registered
      // again once that is fixed. A locked phone only pauses it.
      if error != .healthDatabaseLocked { ended.value = true }
    }
    let backgroundTime = backgroundTime
    let observation = health.observeStepChanges(onError: onError) { done in
      // Bounded: statistics, the merge check's sample query and onUpdate may outlast the time iOS
      // gives; a suspended app never calls HealthKit's completion, so time running out calls it.
      Self.boundedInBackground(
        backgroundTime, clock: clock, reason: "StepKit: counting today's steps for HealthKit",
        work: { inTime in
          // HealthKit only: in the background CoreMotion's iPhone-only count would replace the
          // Watch's steps. A locked phone is a pause: acknowledge now, count again on unlock.
          let today = LocalDays.todaySoFar(at: clock.now(), calendar: calendar, dayStart: dayStart)
          do {
            let count = try await health.steps(in: today, policy: policy)
            guard inTime() else { return }
            lastError.value = nil
            await onUpdate(count)
          } catch StepKitError.healthDatabaseLocked {
            guard inTime() else { return }
            lastError.value = .healthDatabaseLocked
            Self.onceUnlocked(clock) {
              Self.boundedInBackground(
                backgroundTime, clock: clock, reason: "StepKit: counting today's steps after unlock",
                work: { inTime in
                  guard
                    let count = try? await health.steps(
                      in: LocalDays.todaySoFar(at: clock.now(), calendar: calendar, dayStart: dayStart),
                      policy: policy),
                    inTime()
                  else { return }
                  lastError.value = nil
                  await onUpdate(count)
                },
                finished: { expired in if expired { lastError.value = .backgroundTimeExpired } })
            }
          } catch {
            guard inTime() else { return }
            lastError.value = StepKitError.wrapping(error)
          }
        },
        finished: { expired in
          if expired { lastError.value = .backgroundTimeExpired }
          done()
        })
    }
    return BackgroundDeliveryRegistration(observation: observation, state: lastError, ended: ended) {
      try await health.enableBackgroundDelivery(frequency: frequency)
    }
  }

  /// Lets HealthKit wake the app when new steps arrive, without registering
  /// an observer. Prefer ``registerBackgroundDelivery(frequency:onUpdate:)``:
  /// HealthKit delivers a background launch only to an observer registered
  /// during that launch.
  ///
  /// The app needs the `com.apple.developer.healthkit.background-delivery`
  /// entitlement (iOS 15 and later); HealthKit delivers steps at most hourly.
  ///
  /// - Parameter frequency: How often at most; hourly by default.
  /// - Throws: ``StepKitError/missingEntitlement(key:)``,
  ///   ``StepKitError/backgroundDeliveryFailed(code:message:)``.
  public func enableBackgroundDelivery(frequency: BackgroundDeliveryFrequency = .hourly) async throws {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    try await health.enableBackgroundDelivery(frequency: frequency)
  }

  /// Runs `work` once, when protected data next becomes available.
  static func onceUnlocked(_ clock: any StepClock, _ work: @escaping @Sendable () -> Void) {
    let fired = OnceFlag()
    let holder = LockedValue<NotificationObservation?>(nil)
    let observation = NotificationObservation(
      center: clock.notificationCenter, names: [DeviceNotification.protectedDataDidBecomeAvailable]
    ) {
      guard fired.claim() else { return }
      holder.value?.cancel()
      holder.value = nil
      work()
    }
    holder.value = observation
  }
}

/// A registration for background delivery
/// (``StepCounter/registerBackgroundDelivery(frequency:onUpdate:)``).
public final class BackgroundDeliveryRegistration: Sendable {
  private let observation: StepObservation?
  private let enabling: Task<Void, any Error>
  private let state: LockedValue<StepKitError?>
  private let ended: LockedValue<Bool>

  init(
    observation: StepObservation?, state: LockedValue<StepKitError?> = LockedValue(nil),
    ended: LockedValue<Bool> = LockedValue(false), enable: @escaping @Sendable () async throws -> Void
  ) {
    self.observation = observation
    self.state = state
    self.ended = ended
    enabling = Task { try await enable() }
  }

  /// Waits until HealthKit answered the request to enable background delivery.
  ///
  /// - Throws: ``StepKitError/missingEntitlement(key:)`` without the
  ///   background-delivery entitlement, ``StepKitError/backgroundDeliveryFailed(code:message:)``,
  ///   ``StepKitError/healthDataUnavailable``.
  public func enabled() async throws {
    do {
      try await enabling.value
    } catch {
      throw StepKitError.wrapping(error)
    }
  }

  /// Why today's count could not be read for the latest change, or the error
  /// HealthKit's observer reported (access not asked for, a missing
  /// entitlement), if any: `nil` after a change was delivered to `onUpdate`;
  /// ``StepKitError/healthDatabaseLocked`` while a locked phone defers the
  /// count until protected data is available again.
  public var lastError: StepKitError? { state.value }

  /// Whether the observer query still runs: `false` after ``cancel()``, or
  /// after HealthKit reported an error that stopped it (access not yet asked
  /// for at first launch, a missing entitlement). Register again when it is
  /// `false` and access may have changed; a live one needs nothing.
  public var isObserving: Bool { observation.map { !$0.isCancelled } == true && !ended.value }

  /// Stops observing (background delivery stays enabled until the app disables it).
  public func cancel() { observation?.cancel() }
}

/// A value guarded by a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
  // Safe to share: `stored` is read and written only under `lock`.
  private let lock = NSLock()
  private var stored: Value
  init(_ value: Value) { stored = value }
  var value: Value {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }

  /// Changes the value under the lock and returns what `body` returns.
  func update<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}
