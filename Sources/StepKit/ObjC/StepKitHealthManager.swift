#if canImport(ObjectiveC)
  import Foundation

  /// An Objective-C drop-in for the usual `HealthKitManager`: a shared
  /// instance, authorization, today's step count, and CoreMotion's step count.
  ///
  /// ```objc
  /// @import StepKit;
  /// [[SKHealthKitManager sharedManager] requestAuthorizationWithCompletion:^(BOOL success, NSError *error) {
  ///   [[SKHealthKitManager sharedManager] todayStepCountWithCompletion:^(NSInteger steps, NSError *error) {
  ///     self.stepsLabel.text = error ? error.localizedDescription : @(steps).stringValue;
  ///   }];
  /// }];
  /// ```
  ///
  /// Every completion block is called exactly once, on the main queue. Errors
  /// are `NSError`s in `StepKitErrorDomain` with localized descriptions and
  /// recovery suggestions (English or Simplified Chinese).
  @objc(SKHealthKitManager)
  public final class StepKitHealthManager: NSObject, Sendable {
    /// The manager over ``StepCounter/shared``.
    @objc(sharedManager)
    public static let shared = StepKitHealthManager(counter: .shared)

    /// The counter behind the manager.
    public let counter: StepCounter

    /// Creates a manager over `counter`.
    ///
    /// - Parameter counter: The counter to use.
    public init(counter: StepCounter) {
      self.counter = counter
    }

    /// Asks for read access to steps and walking + running distance.
    ///
    /// - Parameter completion: Called once on the main queue: `YES` when the
    ///   prompt finished (HealthKit does not say whether reading was allowed),
    ///   or `NO` and the error.
    @objc(requestAuthorizationWithCompletion:)
    public func requestAuthorization(completion: @escaping @Sendable (Bool, NSError?) -> Void) {
      counter.requestAuthorization { result in
        switch result {
        case .success: completion(true, nil)
        case .failure(let error): completion(false, error as NSError)
        }
      }
    }

    /// Today's steps (midnight until now), following the counter's strategy.
    ///
    /// - Parameter completion: Called once on the main queue with the steps,
    ///   or 0 and the error.
    @objc(todayStepCountWithCompletion:)
    public func todayStepCount(completion: @escaping @Sendable (Int, NSError?) -> Void) {
      counter.todaySteps { result in
        switch result {
        case .success(let count): completion(count.roundedSteps, nil)
        case .failure(let error): completion(0, error as NSError)
        }
      }
    }

    /// Steps between two dates, following the counter's strategy.
    ///
    /// - Parameters:
    ///   - start: The start.
    ///   - end: The end.
    ///   - completion: Called once on the main queue with the steps, or 0 and the error.
    @objc(stepCountFromDate:toDate:completion:)
    public func stepCount(
      from start: Date, to end: Date, completion: @escaping @Sendable (Int, NSError?) -> Void
    ) {
      guard end >= start else {
        let error = StepKitError.invalidInterval(start: start, end: end)
        DispatchQueue.main.async { completion(0, error as NSError) }
        return
      }
      counter.steps(in: DateInterval(start: start, end: end)) { result in
        switch result {
        case .success(let count): completion(count.roundedSteps, nil)
        case .failure(let error): completion(0, error as NSError)
        }
      }
    }

    /// Steps between two dates from CoreMotion only (this iPhone, last seven days).
    ///
    /// - Parameters:
    ///   - start: The start.
    ///   - end: The end.
    ///   - completion: Called once on the main queue with the steps, or 0 and the error.
    @objc(motionStepCountFromDate:toDate:completion:)
    public func motionStepCount(
      from start: Date, to end: Date, completion: @escaping @Sendable (Int, NSError?) -> Void
    ) {
      let motionOnly = StepCounter(
        health: nil, motion: counter.motion, strategy: .motion, policy: counter.policy,
        calendar: counter.calendar,
        clock: counter.clock, bundle: counter.bundle)
      StepKitHealthManager(counter: motionOnly).stepCount(from: start, to: end, completion: completion)
    }

    /// Whether HealthKit data is available on this device.
    ///
    /// - Parameter completion: Called once on the main queue.
    @objc(checkHealthDataAvailableWithCompletion:)
    public func checkHealthDataAvailable(completion: @escaping @Sendable (Bool) -> Void) {
      let counter = counter
      Task {
        let state = await counter.authorizationStatus().healthKit
        DispatchQueue.main.async { completion(state != nil && state != .unavailable) }
      }
    }
  }
#endif
