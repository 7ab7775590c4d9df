import Foundation

/// The handler of pedometer queries and updates; called on a serial background queue.
///
/// Like the real SDK's typealias, it is not `@Sendable`.
public typealias CMPedometerHandler = (CMPedometerData?, (any Error)?) -> Void

/// The step counter of the motion coprocessor (CoreMotion's `CMPedometer`), simulated.
///
/// Each pedometer belongs to the ``PedometerSimulator/current`` simulator at the moment it is
/// created; the class functions answer for the current simulator of the calling task. Answers and
/// updates arrive on the simulator's serial background queue, never on the caller's thread.
open class CMPedometer: NSObject {
  private let simulator: PedometerSimulator
  private let pedometerID: Int

  /// Creates a pedometer on the current simulated device.
  public override init() {
    simulator = PedometerSimulator.current
    pedometerID = simulator.registerPedometer()
    super.init()
  }

  deinit {
    simulator.stopUpdates(pedometerID: pedometerID)
  }

  // One class method per feature, alike on purpose: CMPedometer's API, each a line over the
  // simulator's `availability`.

  /// Whether the device counts steps.
  /// - Returns: `true` when step counting is available.
  open class func isStepCountingAvailable() -> Bool {
    PedometerSimulator.current.availability.stepCounting
  }

  /// Whether the device estimates distance.
  /// - Returns: `true` when distance is available.
  open class func isDistanceAvailable() -> Bool {
    PedometerSimulator.current.availability.distance
  }

  /// Whether the device counts flights of stairs.
  /// - Returns: `true` when floor counting is available.
  open class func isFloorCountingAvailable() -> Bool {
    PedometerSimulator.current.availability.floorCounting
  }

  /// Whether the device reports pace.
  /// - Returns: `true` when pace is available.
  open class func isPaceAvailable() -> Bool {
    PedometerSimulator.current.availability.pace
  }

  /// Whether the device reports cadence.
  /// - Returns: `true` when cadence is available.
  open class func isCadenceAvailable() -> Bool {
    PedometerSimulator.current.availability.cadence
  }

  /// Whether the device reports pause and resume events.
  /// - Returns: `true` when pedometer events are available.
  open class func isPedometerEventTrackingAvailable() -> Bool {
    PedometerSimulator.current.availability.eventTracking
  }

  /// The app's permission to read motion data. Asking does not show the prompt.
  /// - Returns: The current authorization status.
  open class func authorizationStatus() -> CMAuthorizationStatus {
    PedometerSimulator.current.authorization
  }

  /// Asks for the activity between two dates, from the history kept for the last seven days.
  ///
  /// The first request of an app whose status is ``CMAuthorizationStatus/notDetermined`` shows
  /// the permission prompt; the answer then follows the user's choice.
  /// - Parameters:
  ///   - start: The start of the interval.
  ///   - end: The end of the interval.
  ///   - handler: Called exactly once, on a serial background queue, with the data or an
  ///     `NSError` in ``CMErrorDomain``.
  open func queryPedometerData(
    from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler
  ) {
    simulator.query(from: start, to: end, handler: handler)
  }

  /// Starts updates of the cumulative activity since `start` (which may lie in the past).
  ///
  /// Updates arrive when new activity is recorded; starting again replaces the previous updates.
  /// - Parameters:
  ///   - start: The date the cumulative counts start from.
  ///   - handler: Called on a serial background queue for each update, or once with an error.
  open func startUpdates(from start: Date, withHandler handler: @escaping CMPedometerHandler) {
    simulator.startUpdates(pedometerID: pedometerID, from: start, handler: handler)
  }

  /// Stops the updates started by ``startUpdates(from:withHandler:)``; no handler call follows.
  open func stopUpdates() {
    simulator.stopUpdates(pedometerID: pedometerID)
  }
}
