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
  /// today's count (``todaySteps()``, with the counter's strategy), awaits
  /// `onUpdate`, and only then calls HealthKit's completion handler: exactly
  /// once per change, on every path (also when the count cannot be read,
  /// in which case `onUpdate` is not called and ``BackgroundDeliveryRegistration/lastError``
  /// says why).
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
    let box = RegistrationBox()
    let observation = health.observeStepChanges { done in
      Task {
        do {
          let count = try await self.todaySteps()
          box.registration?.record(nil)
          await onUpdate(count)
        } catch {
          box.registration?.record(StepKitError.wrapping(error))
        }
        done()
      }
    }
    let registration = BackgroundDeliveryRegistration(observation: observation) {
      try await health.enableBackgroundDelivery(frequency: frequency)
    }
    box.registration = registration
    return registration
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
}

/// A registration for background delivery
/// (``StepCounter/registerBackgroundDelivery(frequency:onUpdate:)``).
public final class BackgroundDeliveryRegistration: Sendable {
  private let observation: StepObservation?
  private let enabling: Task<Void, any Error>
  private let state = LockedValue<StepKitError?>(nil)

  init(observation: StepObservation?, enable: @escaping @Sendable () async throws -> Void) {
    self.observation = observation
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

  /// Why today's count could not be read for the latest change, if it could not (`nil` after a
  /// change was delivered to `onUpdate`).
  public var lastError: StepKitError? { state.value }

  /// Stops observing (background delivery stays enabled until the app disables it).
  public func cancel() { observation?.cancel() }

  func record(_ error: StepKitError?) { state.value = error }
}

/// Lets the observer's handler reach the registration created after it. Held weakly: the
/// registration holds the observer query whose handler holds this box, and a strong
/// reference would keep both alive after the app lets the registration go (the store keeps
/// the running query, and so the delivery, until it is cancelled).
final class RegistrationBox: @unchecked Sendable {
  private let lock = NSLock()
  private weak var stored: BackgroundDeliveryRegistration?
  var registration: BackgroundDeliveryRegistration? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}

/// A value guarded by a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
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
