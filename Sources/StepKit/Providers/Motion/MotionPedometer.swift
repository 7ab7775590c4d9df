import Foundation

#if canImport(CoreMotion) && (os(iOS) || os(watchOS))
  import CoreMotion
#elseif os(Linux)
  import CoreMotionStandIn
#endif

// The only file of StepKit that touches CoreMotion (or, on Linux, its stand-in).
// Everything leaving it is a Sendable value: `CMPedometer` and `CMPedometerData`
// are not Sendable and the 16.5 SDK's `CMPedometerHandler` is not @Sendable, so
// the pedometer lives inside an actor and each answer is copied out in the
// handler, before it crosses to another isolation domain.

/// One pedometer answer, copied out of `CMPedometerData`.
struct PedometerReading: Sendable, Equatable {
  /// The start of the query or update session.
  var start: Date
  /// Queries: the requested end. Updates: the time of the latest determination.
  var end: Date
  /// Steps.
  var steps: Int
  /// Metres, `nil` where the device does not estimate distance.
  var distanceMeters: Double?
  /// Flights climbed, `nil` where the device does not count floors.
  var floorsAscended: Int?
  /// Flights descended, `nil` where the device does not count floors.
  var floorsDescended: Int?

  /// No activity in an empty interval at `date` (not worth asking CoreMotion about).
  static func empty(at date: Date) -> PedometerReading {
    PedometerReading(
      start: date, end: date, steps: 0, distanceMeters: nil, floorsAscended: nil, floorsDescended: nil)
  }
}

#if (canImport(CoreMotion) && (os(iOS) || os(watchOS))) || os(Linux)

  /// The pedometer's class-level facts: what the device measures and the app's permission.
  enum PedometerAccess {
    /// What this device's pedometer measures.
    static func capabilities() -> MotionCapabilities {
      MotionCapabilities(
        stepCounting: CMPedometer.isStepCountingAvailable(),
        distance: CMPedometer.isDistanceAvailable(),
        floorCounting: CMPedometer.isFloorCountingAvailable())
    }

    /// The app's Motion & Fitness permission (asking does not show the prompt).
    static func authorizationState() -> AuthorizationState {
      guard CMPedometer.isStepCountingAvailable() else { return .unavailable }
      // Compared rather than switched over: the SDK's enum is open to new cases, the
      // stand-in's is not, and both must compile without warnings.
      let status = CMPedometer.authorizationStatus()
      if status == .authorized { return .authorized }
      if status == .denied { return .denied }
      if status == .restricted { return .restricted }
      // `.notDetermined`: the first query shows the prompt.
      return .notRequested
    }

    /// The StepKit error for an error a pedometer handler received.
    static func stepKitError(from error: any Error) -> StepKitError {
      if let error = error as? StepKitError { return error }
      let nsError = error as NSError
      guard nsError.domain == CMErrorDomain else {
        return .motionQueryFailed(code: nsError.code, message: nsError.localizedDescription)
      }
      return stepKitError(code: nsError.code, message: nsError.localizedDescription)
    }

    /// The StepKit error for a `CMError` code.
    static func stepKitError(code: Int, message: String) -> StepKitError {
      switch code {
      case Int(CMErrorMotionActivityNotAvailable.rawValue), Int(CMErrorNotAvailable.rawValue):
        return .motionNotAvailable
      case Int(CMErrorMotionActivityNotAuthorized.rawValue), Int(CMErrorNotAuthorized.rawValue):
        return .motionNotAuthorized
      case Int(CMErrorMotionActivityNotEntitled.rawValue), Int(CMErrorNotEntitled.rawValue):
        return .motionNotEntitled
      default:
        return .motionQueryFailed(code: code, message: message)
      }
    }

    /// The code CoreMotion uses for a feature the device lacks (`CMErrorNotAvailable`).
    static var notAvailableCode: Int { Int(CMErrorNotAvailable.rawValue) }

    /// Copies a handler's arguments into a Sendable result.
    static func reading(_ data: CMPedometerData?, error: (any Error)?) -> Result<
      PedometerReading, StepKitError
    > {
      if let error { return .failure(stepKitError(from: error)) }
      guard let data else {
        return .failure(
          .motionQueryFailed(
            code: Int(CMErrorNilData.rawValue), message: "The pedometer answered without data."))
      }
      return .success(
        PedometerReading(
          start: data.startDate,
          end: data.endDate,
          steps: data.numberOfSteps.intValue,
          distanceMeters: data.distance?.doubleValue,
          floorsAscended: data.floorsAscended?.intValue,
          floorsDescended: data.floorsDescended?.intValue))
    }
  }

  /// The device a motion source belongs to: its permission, its capabilities and its pedometers
  /// all come from that one device, whatever thread or task asks.
  ///
  /// On an iPhone there is one motion coprocessor, and `CMPedometer`'s class functions answer
  /// for it from any thread. The Linux stand-in runs one simulated device per test, bound to a
  /// task; work started outside that task (a HealthKit handler, a Dispatch queue) would see
  /// another device, so the source keeps the simulator current when it was created and makes it
  /// current for each question and each new pedometer.
  struct PedometerDevice: Sendable {
    #if os(Linux)
      private let simulator = PedometerSimulator.current

      /// Runs `body` with this device's simulator as the current one.
      func run<R>(_ body: () throws -> R) rethrows -> R {
        try PedometerSimulator.$current.withValue(simulator, operation: body)
      }
    #else
      /// Runs `body`: the class functions answer for the one device there is.
      func run<R>(_ body: () throws -> R) rethrows -> R { try body() }
    #endif

    /// What this device's pedometer measures.
    var capabilities: MotionCapabilities { run(PedometerAccess.capabilities) }

    /// The app's Motion & Fitness permission on this device.
    var authorizationState: AuthorizationState { run(PedometerAccess.authorizationState) }
  }

  /// Owns one `CMPedometer` for as long as its answers are awaited.
  ///
  /// CoreMotion does not promise to call the handler of a pedometer released before it
  /// answers, so queries go through a pedometer the source keeps, and every live-update
  /// session gets its own (starting updates on a pedometer replaces its previous updates).
  actor MotionPedometer {
    private let pedometer: CMPedometer

    /// Creates a pedometer on `device`.
    init(on device: PedometerDevice) {
      pedometer = device.run { CMPedometer() }
    }

    /// The activity between two dates.
    ///
    /// - Throws: ``StepKitError`` mapped from the CoreMotion error.
    func reading(from start: Date, to end: Date) async throws -> PedometerReading {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<PedometerReading, any Error>) in
        let once = ResumeOnce(continuation)
        pedometer.queryPedometerData(from: start, to: end) { @Sendable data, error in
          once.resume(with: PedometerAccess.reading(data, error: error))
        }
      }
    }

    /// Starts cumulative updates since `start`; `handler` gets each update or the error that
    /// ends them, on CoreMotion's serial queue.
    func startUpdates(
      from start: Date, handler: @escaping @Sendable (Result<PedometerReading, StepKitError>) -> Void
    ) {
      pedometer.startUpdates(from: start) { @Sendable data, error in
        handler(PedometerAccess.reading(data, error: error))
      }
    }

    /// Stops the updates.
    func stopUpdates() {
      pedometer.stopUpdates()
    }
  }

#else

  // Platforms without a pedometer API (macOS, tvOS, visionOS): the motion source
  // reports the device as unable to count steps.

  /// The pedometer's class-level facts on a platform without one.
  enum PedometerAccess {
    /// Nothing is measured.
    static func capabilities() -> MotionCapabilities {
      MotionCapabilities(stepCounting: false, distance: false, floorCounting: false)
    }

    /// The device cannot count steps.
    static func authorizationState() -> AuthorizationState { .unavailable }

    /// The code CoreMotion uses for a feature the device lacks (`CMErrorNotAvailable`).
    static var notAvailableCode: Int { 109 }
  }

  /// The device a motion source belongs to, on a platform without a pedometer.
  struct PedometerDevice: Sendable {
    /// Nothing is measured.
    var capabilities: MotionCapabilities { PedometerAccess.capabilities() }

    /// The device cannot count steps.
    var authorizationState: AuthorizationState { PedometerAccess.authorizationState() }
  }

  /// A pedometer on a platform without one: every request fails with
  /// ``StepKitError/motionNotAvailable``.
  actor MotionPedometer {
    /// Creates the pedometer that cannot count.
    init(on device: PedometerDevice) {}

    /// Always throws ``StepKitError/motionNotAvailable``.
    func reading(from start: Date, to end: Date) async throws -> PedometerReading {
      throw StepKitError.motionNotAvailable
    }

    /// Reports ``StepKitError/motionNotAvailable`` at once.
    func startUpdates(
      from start: Date, handler: @escaping @Sendable (Result<PedometerReading, StepKitError>) -> Void
    ) {
      handler(.failure(.motionNotAvailable))
    }

    /// Nothing to stop.
    func stopUpdates() {}
  }

#endif

/// Resumes a continuation on the first call only: a handler that is called twice cannot
/// crash the app.
final class ResumeOnce<Value: Sendable>: @unchecked Sendable {
  // Safe to share: `continuation` is read and cleared only under `lock`, so it is resumed once.
  private let lock = NSLock()
  private var continuation: CheckedContinuation<Value, any Error>?

  init(_ continuation: CheckedContinuation<Value, any Error>) {
    self.continuation = continuation
  }

  func resume(with result: Result<Value, StepKitError>) {
    lock.lock()
    let pending = continuation
    continuation = nil
    lock.unlock()
    pending?.resume(with: result)
  }
}
