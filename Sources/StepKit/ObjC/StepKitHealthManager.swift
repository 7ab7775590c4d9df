import Dispatch
import Foundation

// The Objective-C facade. It compiles everywhere (so that its behaviour is tested on Linux
// against the stand-ins); the `@objc` names exist where the Objective-C runtime does.
// Its methods look alike on purpose: each is one Objective-C selector over one Swift
// call, answered through `bridge`; what they share lives in the helpers at the end.

/// An Objective-C drop-in for the usual `HealthKitManager`: what the Swift API
/// offers, as blocks.
///
/// ```objc
/// @import StepKit;
/// SKHealthKitManager *health = [SKHealthKitManager sharedManager];
/// [health requestAuthorizationWithCompletion:^(BOOL success, NSError *error) {
///   [health todayStepCountWithCompletion:^(NSInteger steps, NSError *error) {
///     self.stepsLabel.text = error ? error.localizedDescription : @(steps).stringValue;
///   }];
/// }];
/// self.updates = [health startTodayStepUpdatesWithHandler:^(NSInteger steps, NSError *error) {
///   self.stepsLabel.text = @(steps).stringValue;
/// }];
/// // later: [self.updates cancel];
/// ```
///
/// Every completion block is called exactly once, on the main queue; a
/// live-update block is called on the main queue for each new count, and
/// never after an error or after its token is cancelled. Errors are
/// `NSError`s in `StepKitErrorDomain` with localized descriptions and
/// recovery suggestions (English or Simplified Chinese).
#if canImport(ObjectiveC)
  @objc(SKHealthKitManager)
#endif
public final class StepKitHealthManager: NSObject, Sendable {
  /// The manager over ``StepCounter/shared``.
  #if canImport(ObjectiveC)
    @objc(sharedManager)
  #endif
  public static let shared = StepKitHealthManager(counter: .shared)

  /// The counter behind the manager.
  public let counter: StepCounter

  /// Creates a manager over `counter`.
  ///
  /// - Parameter counter: The counter to use.
  public init(counter: StepCounter) {
    self.counter = counter
  }

  // MARK: Authorization

  /// Asks for read access to steps and walking + running distance.
  ///
  /// - Parameter completion: Called once on the main queue: `YES` when the
  ///   prompt finished (HealthKit does not say whether reading was allowed),
  ///   or `NO` and the error.
  #if canImport(ObjectiveC)
    @objc(requestAuthorizationWithCompletion:)
  #endif
  public func requestAuthorization(completion: @escaping @Sendable (Bool, NSError?) -> Void) {
    requestAuthorization(.stepsAndDistance, completion: completion)
  }

  /// Asks to read every type StepKit knows and to write body mass, height,
  /// body temperature and energy.
  ///
  /// - Parameter completion: Called once on the main queue, as
  ///   ``requestAuthorization(completion:)``'s.
  #if canImport(ObjectiveC)
    @objc(requestFullAuthorizationWithCompletion:)
  #endif
  public func requestFullAuthorization(completion: @escaping @Sendable (Bool, NSError?) -> Void) {
    requestAuthorization(.everything, completion: completion)
  }

  private func requestAuthorization(
    _ request: AuthorizationRequest, completion: @escaping @Sendable (Bool, NSError?) -> Void
  ) {
    counter.requestAuthorization(request, completion: Self.bridge(completion, failure: false) { true })
  }

  /// Whether HealthKit data is available on this device.
  ///
  /// - Parameter completion: Called once on the main queue.
  #if canImport(ObjectiveC)
    @objc(checkHealthDataAvailableWithCompletion:)
  #endif
  public func checkHealthDataAvailable(completion: @escaping @Sendable (Bool) -> Void) {
    let counter = counter
    Task {
      let state = await counter.authorizationStatus().healthKit
      DispatchQueue.main.async { completion(state != nil && state != .unavailable) }
    }
  }

  // MARK: Steps and distance

  /// Today's steps (midnight until now), following the counter's strategy.
  ///
  /// - Parameter completion: Called once on the main queue with the steps,
  ///   or 0 and the error.
  #if canImport(ObjectiveC)
    @objc(todayStepCountWithCompletion:)
  #endif
  public func todayStepCount(completion: @escaping @Sendable (Int, NSError?) -> Void) {
    counter.todaySteps(completion: Self.bridge(completion, failure: 0, \.roundedSteps))
  }

  /// Steps between two dates, following the counter's strategy.
  ///
  /// - Parameters:
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the steps, or 0 and the error.
  #if canImport(ObjectiveC)
    @objc(stepCountFromDate:toDate:completion:)
  #endif
  public func stepCount(
    from start: Date, to end: Date, completion: @escaping @Sendable (Int, NSError?) -> Void
  ) {
    guard let interval = Self.interval(start, end, failing: { completion(0, $0) }) else { return }
    counter.steps(in: interval, completion: Self.bridge(completion, failure: 0, \.roundedSteps))
  }

  /// Steps between two dates from CoreMotion only (this iPhone, last seven days).
  ///
  /// - Parameters:
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the steps, or 0 and the error.
  #if canImport(ObjectiveC)
    @objc(motionStepCountFromDate:toDate:completion:)
  #endif
  public func motionStepCount(
    from start: Date, to end: Date, completion: @escaping @Sendable (Int, NSError?) -> Void
  ) {
    let motionOnly = StepCounter(
      health: nil, motion: counter.motion, strategy: .motion, policy: counter.policy,
      calendar: counter.calendar, dayStart: counter.dayStart, clock: counter.clock, bundle: counter.bundle)
    StepKitHealthManager(counter: motionOnly).stepCount(from: start, to: end, completion: completion)
  }

  /// Steps per local day between two dates (days start at the counter's
  /// day start, local midnight by default;
  /// the first and last day count only what falls between the dates).
  ///
  /// - Parameters:
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the days in order, or
  ///     an empty array and the error.
  #if canImport(ObjectiveC)
    @objc(dailyStepCountsFromDate:toDate:completion:)
  #endif
  public func dailyStepCounts(
    from start: Date, to end: Date,
    completion: @escaping @Sendable ([StepKitDailyStepCount], NSError?) -> Void
  ) {
    guard let interval = Self.interval(start, end, failing: { completion([], $0) }) else { return }
    counter.dailySteps(
      in: interval,
      completion: Self.bridge(completion, failure: []) { daily in
        daily.days.map {
          StepKitDailyStepCount(
            start: $0.interval.start, end: $0.interval.end, steps: $0.roundedSteps, hasData: daily.hasData)
        }
      })
  }

  /// What each source contributed to the steps between two dates: counted
  /// after the merge, and its own steps before it
  /// (see ``StepCounter/sourceBreakdown(in:)``).
  ///
  /// - Parameters:
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the sources, most
  ///     counted steps first, or an empty array and the error.
  #if canImport(ObjectiveC)
    @objc(sourceBreakdownFromDate:toDate:completion:)
  #endif
  public func sourceBreakdown(
    from start: Date, to end: Date, completion: @escaping @Sendable ([StepKitSourceSteps], NSError?) -> Void
  ) {
    guard let interval = Self.interval(start, end, failing: { completion([], $0) }) else { return }
    counter.sourceBreakdown(
      in: interval,
      completion: Self.bridge(completion, failure: []) { breakdown in
        breakdown.sources.map {
          StepKitSourceSteps(
            name: $0.name, countedSteps: $0.roundedCountedSteps, rawSteps: $0.roundedRawSteps)
        }
      })
  }

  /// Today's walking + running distance in metres.
  ///
  /// - Parameter completion: Called once on the main queue with the metres, or 0 and the error.
  #if canImport(ObjectiveC)
    @objc(todayDistanceWithCompletion:)
  #endif
  public func todayDistance(completion: @escaping @Sendable (Double, NSError?) -> Void) {
    counter.todayDistance(completion: Self.bridge(completion, failure: 0, \.meters))
  }

  /// Walking + running distance between two dates, in metres.
  ///
  /// - Parameters:
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the metres, or 0 and the error.
  #if canImport(ObjectiveC)
    @objc(distanceFromDate:toDate:completion:)
  #endif
  public func distance(
    from start: Date, to end: Date, completion: @escaping @Sendable (Double, NSError?) -> Void
  ) {
    guard let interval = Self.interval(start, end, failing: { completion(0, $0) }) else { return }
    counter.distance(in: interval, completion: Self.bridge(completion, failure: 0, \.meters))
  }

  // MARK: Characteristics

  /// The person's biological sex.
  ///
  /// - Parameter completion: Called once on the main queue with the value
  ///   (``StepKitBiologicalSex/notSetOrNotAllowed`` or
  ///   ``StepKitBiologicalSex/notRequested`` when there is none), or
  ///   ``StepKitBiologicalSex/notSetOrNotAllowed`` and the error.
  #if canImport(ObjectiveC)
    @objc(biologicalSexWithCompletion:)
  #endif
  public func biologicalSex(completion: @escaping @Sendable (StepKitBiologicalSex, NSError?) -> Void) {
    counter.biologicalSex(
      completion: Self.bridge(completion, failure: .notSetOrNotAllowed) { characteristic in
        switch characteristic {
        case .value(.female): return .female
        case .value(.male): return .male
        case .value(.other): return .other
        case .notRequested: return .notRequested
        case .notSetOrNotAllowed: return .notSetOrNotAllowed
        }
      })
  }

  /// The person's date of birth (Gregorian year, month and day).
  ///
  /// - Parameter completion: Called once on the main queue with the date, or
  ///   `nil` (not set, not allowed, or not requested) and possibly the error.
  #if canImport(ObjectiveC)
    @objc(dateOfBirthWithCompletion:)
  #endif
  public func dateOfBirth(completion: @escaping @Sendable (DateComponents?, NSError?) -> Void) {
    counter.dateOfBirth(completion: Self.bridge(completion, failure: nil, \.value))
  }

  // MARK: Body measurements

  /// Saves body mass in kilograms, now.
  ///
  /// - Parameters:
  ///   - kilograms: The mass.
  ///   - completion: Called once on the main queue with what was saved, or `nil` and the error.
  #if canImport(ObjectiveC)
    @objc(saveBodyMassKilograms:completion:)
  #endif
  public func saveBodyMass(
    kilograms: Double, completion: @escaping @Sendable (StepKitMeasurement?, NSError?) -> Void
  ) {
    counter.save(
      bodyMass: Measurement(value: kilograms, unit: .kilograms), completion: Self.saved(completion))
  }

  /// Saves height in metres, now.
  ///
  /// - Parameters:
  ///   - meters: The height.
  ///   - completion: Called once on the main queue with what was saved, or `nil` and the error.
  #if canImport(ObjectiveC)
    @objc(saveHeightMeters:completion:)
  #endif
  public func saveHeight(
    meters: Double, completion: @escaping @Sendable (StepKitMeasurement?, NSError?) -> Void
  ) {
    counter.save(height: Measurement(value: meters, unit: .meters), completion: Self.saved(completion))
  }

  /// Saves body temperature in degrees Celsius, now.
  ///
  /// - Parameters:
  ///   - degreesCelsius: The temperature.
  ///   - completion: Called once on the main queue with what was saved, or `nil` and the error.
  #if canImport(ObjectiveC)
    @objc(saveBodyTemperatureCelsius:completion:)
  #endif
  public func saveBodyTemperature(
    degreesCelsius: Double, completion: @escaping @Sendable (StepKitMeasurement?, NSError?) -> Void
  ) {
    counter.save(
      bodyTemperature: Measurement(value: degreesCelsius, unit: .celsius), completion: Self.saved(completion))
  }

  /// Saves active energy burned between two dates, in kilocalories.
  ///
  /// - Parameters:
  ///   - kilocalories: The energy.
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with what was saved, or `nil` and the error.
  #if canImport(ObjectiveC)
    @objc(saveActiveEnergyKilocalories:fromDate:toDate:completion:)
  #endif
  public func saveActiveEnergy(
    kilocalories: Double, from start: Date, to end: Date,
    completion: @escaping @Sendable (StepKitMeasurement?, NSError?) -> Void
  ) {
    counter.save(
      activeEnergyBurned: Measurement(value: kilocalories, unit: .kilocalories), from: start, to: end,
      completion: Self.saved(completion))
  }

  /// Saves resting energy burned between two dates, in kilocalories.
  ///
  /// - Parameters:
  ///   - kilocalories: The energy.
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with what was saved, or `nil` and the error.
  #if canImport(ObjectiveC)
    @objc(saveBasalEnergyKilocalories:fromDate:toDate:completion:)
  #endif
  public func saveBasalEnergy(
    kilocalories: Double, from start: Date, to end: Date,
    completion: @escaping @Sendable (StepKitMeasurement?, NSError?) -> Void
  ) {
    counter.save(
      basalEnergyBurned: Measurement(value: kilocalories, unit: .kilocalories), from: start, to: end,
      completion: Self.saved(completion))
  }

  /// The newest sample of a measurement type.
  ///
  /// - Parameters:
  ///   - type: Body mass, height, body temperature, active or resting energy.
  ///   - completion: Called once on the main queue with the sample, or `nil`
  ///     (none, or not allowed to read) and possibly the error.
  #if canImport(ObjectiveC)
    @objc(mostRecentMeasurementOfType:completion:)
  #endif
  public func mostRecentMeasurement(
    of type: StepKitMeasurementType, completion: @escaping @Sendable (StepKitMeasurement?, NSError?) -> Void
  ) {
    counter.mostRecentMeasurement(
      of: type.healthDataType,
      completion: Self.bridge(completion, failure: nil) { $0.map(StepKitMeasurement.init) })
  }

  /// Active or resting energy burned between two dates, in kilocalories (HealthKit's merge).
  ///
  /// - Parameters:
  ///   - type: ``StepKitMeasurementType/activeEnergyBurned`` or ``StepKitMeasurementType/basalEnergyBurned``.
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the kilocalories, or 0 and the error.
  #if canImport(ObjectiveC)
    @objc(energyBurnedOfType:fromDate:toDate:completion:)
  #endif
  @available(
    *, deprecated, renamed: "total(ofType:from:to:completion:)", message: "reads any cumulative type"
  )
  public func energyBurned(
    of type: StepKitMeasurementType, from start: Date, to end: Date,
    completion: @escaping @Sendable (Double, NSError?) -> Void
  ) {
    guard let interval = Self.interval(start, end, failing: { completion(0, $0) }) else { return }
    guard type == .activeEnergyBurned || type == .basalEnergyBurned else {
      let error = StepKitError.unsupportedDataType(type.healthDataType) as NSError
      DispatchQueue.main.async { completion(0, error) }
      return
    }
    let energy: CumulativeType = type == .activeEnergyBurned ? .activeEnergyBurned : .basalEnergyBurned
    counter.total(of: energy, in: interval, completion: Self.bridge(completion, failure: 0, \.value))
  }

  /// Asks to read the cumulative types named, besides steps and walking + running distance.
  ///
  /// ```objc
  /// [health requestAuthorizationToReadTypes:@[@"flightsClimbed", @"HKQuantityTypeIdentifierAppleExerciseTime"]
  ///                              completion:^(BOOL success, NSError *error) { … }];
  /// ```
  ///
  /// - Parameters:
  ///   - identifiers: HealthKit identifiers or their short forms (`flightsClimbed`).
  ///   - completion: Called once on the main queue, as ``requestAuthorization(completion:)``'s; `NO`
  ///     and ``StepKitError/unsupportedQuantityType(_:)`` for a name of no cumulative type.
  #if canImport(ObjectiveC)
    @objc(requestAuthorizationToReadTypes:completion:)
  #endif
  public func requestAuthorization(
    toRead identifiers: [String], completion: @escaping @Sendable (Bool, NSError?) -> Void
  ) {
    var types: Set<CumulativeType> = []
    for name in identifiers {
      guard let type = Self.cumulativeType(name, failing: { completion(false, $0) }) else { return }
      types.insert(type)
    }
    requestAuthorization(AuthorizationRequest(cumulative: types), completion: completion)
  }

  /// The total of any cumulative type between two dates, merged by HealthKit, in the type's
  /// canonical unit (kcal, m, count, min, g or mL; see ``unit(ofType:)``).
  ///
  /// ```objc
  /// [health totalOfType:@"flightsClimbed" fromDate:start toDate:end completion:^(double flights, NSError *error) { … }];
  /// ```
  ///
  /// - Parameters:
  ///   - identifier: A HealthKit identifier or its short form (`appleExerciseTime`).
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the total, or 0 and the error.
  #if canImport(ObjectiveC)
    @objc(totalOfType:fromDate:toDate:completion:)
  #endif
  public func total(
    ofType identifier: String, from start: Date, to end: Date,
    completion: @escaping @Sendable (Double, NSError?) -> Void
  ) {
    guard let type = Self.cumulativeType(identifier, failing: { completion(0, $0) }),
      let interval = Self.interval(start, end, failing: { completion(0, $0) })
    else { return }
    counter.total(of: type, in: interval, completion: Self.bridge(completion, failure: 0, \.value))
  }

  /// The totals of any cumulative type per local day between two dates (the
  /// first and last day count only what falls between them).
  ///
  /// - Parameters:
  ///   - identifier: A HealthKit identifier or its short form.
  ///   - start: The start.
  ///   - end: The end.
  ///   - completion: Called once on the main queue with the days in order, or
  ///     an empty array and the error.
  #if canImport(ObjectiveC)
    @objc(dailyTotalsOfType:fromDate:toDate:completion:)
  #endif
  public func dailyTotals(
    ofType identifier: String, from start: Date, to end: Date,
    completion: @escaping @Sendable ([StepKitDailyTotal], NSError?) -> Void
  ) {
    guard let type = Self.cumulativeType(identifier, failing: { completion([], $0) }),
      let interval = Self.interval(start, end, failing: { completion([], $0) })
    else { return }
    counter.dailyTotals(
      of: type, in: interval,
      completion: Self.bridge(completion, failure: []) { daily in
        daily.days.map {
          StepKitDailyTotal(
            start: $0.interval.start, end: $0.interval.end, value: $0.value, hasData: daily.hasData)
        }
      })
  }

  /// The canonical unit totals of a cumulative type come in (`kcal`, `m`,
  /// `count`, `min`, `g`, `mL`), or `nil` for a name of no cumulative type.
  ///
  /// - Parameter identifier: A HealthKit identifier or its short form.
  /// - Returns: The unit's symbol.
  #if canImport(ObjectiveC)
    @objc(unitOfType:)
  #endif
  public func unit(ofType identifier: String) -> String? {
    CumulativeType(named: identifier)?.unit.rawValue
  }

  // MARK: Live updates and background delivery

  /// Today's steps now and whenever they change, rolling over at midnight.
  ///
  /// - Parameter handler: Called on the main queue with each new count; after
  ///   an error (steps 0 and the error) it is not called again.
  /// - Returns: The token; ``StepKitCancellable/cancel()`` stops the updates,
  ///   and no call of `handler` follows.
  #if canImport(ObjectiveC)
    @objc(startTodayStepUpdatesWithHandler:)
  #endif
  public func startTodayStepUpdates(handler: @escaping @Sendable (Int, NSError?) -> Void)
    -> StepKitCancellable
  {
    let counter = counter
    let token = StepKitCancellable()
    let task = Task {
      do {
        for try await count in counter.todayStepUpdates() {
          token.deliver { handler(count.roundedSteps, nil) }
        }
      } catch {
        let nsError = StepKitError.wrapping(error) as NSError
        token.deliver(last: true) { handler(0, nsError) }
      }
    }
    token.onCancel { task.cancel() }
    return token
  }

  /// Registers for HealthKit's background delivery of new steps; call it
  /// from `application:didFinishLaunchingWithOptions:`
  /// (see ``StepCounter/registerBackgroundDelivery(frequency:onUpdate:)``).
  ///
  /// - Parameters:
  ///   - frequency: How often at most (HealthKit delivers steps hourly at most).
  ///   - onUpdate: Called on the main queue with today's steps after each
  ///     change; HealthKit is told the change was processed when it returns.
  ///   - completion: Called once on the main queue: `YES` when background
  ///     delivery was enabled, or `NO` and the error (for example the
  ///     missing background-delivery entitlement).
  /// - Returns: The token; ``StepKitCancellable/cancel()`` stops observing.
  #if canImport(ObjectiveC)
    @objc(registerBackgroundDeliveryWithFrequency:onUpdate:completion:)
  #endif
  @discardableResult
  public func registerBackgroundDelivery(
    frequency: StepKitUpdateFrequency, onUpdate: @escaping @Sendable (Int) -> Void,
    completion: @escaping @Sendable (Bool, NSError?) -> Void
  ) -> StepKitCancellable {
    let registration = counter.registerBackgroundDelivery(frequency: frequency.frequency) { count in
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.main.async {
          onUpdate(count.roundedSteps)
          continuation.resume()
        }
      }
    }
    Task {
      do {
        try await registration.enabled()
        DispatchQueue.main.async { completion(true, nil) }
      } catch {
        let nsError = StepKitError.wrapping(error) as NSError
        DispatchQueue.main.async { completion(false, nsError) }
      }
    }
    let token = StepKitCancellable()
    token.onCancel { registration.cancel() }
    return token
  }

  // MARK: Helpers

  /// The interval between two dates, or `nil` after calling `failing` on the main queue.
  private static func interval(_ start: Date, _ end: Date, failing: @escaping @Sendable (NSError) -> Void)
    -> DateInterval?
  {
    guard end >= start else {
      let error = StepKitError.invalidInterval(start: start, end: end) as NSError
      DispatchQueue.main.async { failing(error) }
      return nil
    }
    return DateInterval(start: start, end: end)
  }

  /// The cumulative type named `name`, or `nil` after handing `failing` the
  /// error on the main queue.
  private static func cumulativeType(_ name: String, failing: @escaping @Sendable (NSError) -> Void)
    -> CumulativeType?
  {
    if let type = CumulativeType(named: name) { return type }
    let error =
      StepKitError.unsupportedQuantityType(CumulativeType(identifier: name, unit: .count)) as NSError
    DispatchQueue.main.async { failing(error) }
    return nil
  }

  private static func saved(_ completion: @escaping @Sendable (StepKitMeasurement?, NSError?) -> Void)
    -> @Sendable (Result<SavedMeasurement, StepKitError>) -> Void
  {
    bridge(completion, failure: nil) { StepKitMeasurement($0) }
  }

  /// The Swift completion that answers an Objective-C block: `value` of a
  /// success and no error, or `failure` and the error as an `NSError`.
  private static func bridge<Success, Value: Sendable>(
    _ completion: @escaping @Sendable (Value, NSError?) -> Void, failure: Value,
    _ value: @escaping @Sendable (Success) -> Value
  ) -> @Sendable (Result<Success, StepKitError>) -> Void {
    { result in
      switch result {
      case .success(let success): completion(value(success), nil)
      case .failure(let error): completion(failure, error as NSError)
      }
    }
  }
}

/// One local day's steps, for Objective-C (`SKDailyStepCount`).
#if canImport(ObjectiveC)
  @objc(SKDailyStepCount)
#endif
public final class StepKitDailyStepCount: NSObject, Sendable {
  /// Local midnight starting the day.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let start: Date
  /// Local midnight ending it (23 or 25 hours later on DST changes).
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let end: Date
  /// Steps, rounded as the Health app shows them.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let steps: Int
  /// Whether the answer had any samples at all (`NO` may mean read access was denied).
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let hasData: Bool

  init(start: Date, end: Date, steps: Int, hasData: Bool) {
    self.start = start
    self.end = end
    self.steps = steps
    self.hasData = hasData
  }
}

/// One local day's total of a cumulative type, for Objective-C (`SKDailyTotal`).
#if canImport(ObjectiveC)
  @objc(SKDailyTotal)
#endif
public final class StepKitDailyTotal: NSObject, Sendable {
  /// The day's start (local midnight, or the counter's day start).
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let start: Date
  /// The day's end (23 or 25 hours later on DST changes).
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let end: Date
  /// The day's total in the type's canonical unit.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let value: Double
  /// Whether the answer had any samples at all (`NO` may mean read access was denied).
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let hasData: Bool

  init(start: Date, end: Date, value: Double, hasData: Bool) {
    self.start = start
    self.end = end
    self.value = value
    self.hasData = hasData
  }
}

/// One source's part in a total, for Objective-C (`SKSourceSteps`).
#if canImport(ObjectiveC)
  @objc(SKSourceSteps)
#endif
public final class StepKitSourceSteps: NSObject, Sendable {
  /// The source's name as Health shows it.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let name: String
  /// The steps it contributed after the merge, rounded.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let countedSteps: Int
  /// Every step it recorded in the interval, before the merge, rounded.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let rawSteps: Int

  init(name: String, countedSteps: Int, rawSteps: Int) {
    self.name = name
    self.countedSteps = countedSteps
    self.rawSteps = rawSteps
  }
}

/// A measurement sample, for Objective-C (`SKMeasurement`).
#if canImport(ObjectiveC)
  @objc(SKMeasurement)
#endif
public final class StepKitMeasurement: NSObject, Sendable {
  /// What was measured.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let type: StepKitMeasurementType
  /// The value in ``unit``.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let value: Double
  /// `kg`, `m`, `°C` or `kcal`.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let unit: String
  /// The sample's start (its date, for body mass, height and temperature).
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let startDate: Date
  /// The sample's end.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let endDate: Date
  /// The sample's identifier in Health.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public let uuid: UUID

  init(_ saved: SavedMeasurement) {
    type = StepKitMeasurementType(saved.measurement.type)
    value = saved.measurement.siValue
    unit = saved.measurement.unitSymbol
    startDate = saved.interval.start
    endDate = saved.interval.end
    uuid = saved.uuid
  }
}

/// The measurement types, for Objective-C (`SKMeasurementType`).
#if canImport(ObjectiveC)
  @objc(SKMeasurementType)
#endif
public enum StepKitMeasurementType: Int, Sendable, CaseIterable {
  /// Body mass, kilograms.
  case bodyMass = 0
  /// Height, metres.
  case height = 1
  /// Body temperature, degrees Celsius.
  case bodyTemperature = 2
  /// Active energy burned, kilocalories.
  case activeEnergyBurned = 3
  /// Resting energy burned, kilocalories.
  case basalEnergyBurned = 4

  // Maps case for case as `BodyMeasurement.type` does, apart on purpose: an Objective-C enum
  // carries no value, and `BodyMeasurement` has no case without one to map from.

  var healthDataType: HealthDataType {
    switch self {
    case .bodyMass: return .bodyMass
    case .height: return .height
    case .bodyTemperature: return .bodyTemperature
    case .activeEnergyBurned: return .activeEnergyBurned
    case .basalEnergyBurned: return .basalEnergyBurned
    }
  }

  /// The case for `type`, read back through ``healthDataType``; ``bodyMass`` for a type that is not a measurement.
  init(_ type: HealthDataType) {
    self = Self.allCases.first { $0.healthDataType == type } ?? .bodyMass
  }
}

/// Biological sex, for Objective-C (`SKBiologicalSex`).
#if canImport(ObjectiveC)
  @objc(SKBiologicalSex)
#endif
public enum StepKitBiologicalSex: Int, Sendable {
  /// Not set in Health, or reading not allowed (HealthKit does not tell them apart).
  case notSetOrNotAllowed = 0
  /// Female.
  case female = 1
  /// Male.
  case male = 2
  /// Other.
  case other = 3
  /// The app has not asked for access yet.
  case notRequested = 4
}

/// How often background delivery may wake the app, for Objective-C (`SKUpdateFrequency`).
#if canImport(ObjectiveC)
  @objc(SKUpdateFrequency)
#endif
public enum StepKitUpdateFrequency: Int, Sendable {
  /// As soon as possible (hourly at most for steps).
  case immediate = 1
  /// Hourly.
  case hourly = 2
  /// Daily.
  case daily = 3
  /// Weekly.
  case weekly = 4

  var frequency: BackgroundDeliveryFrequency {
    switch self {
    case .immediate: return .immediate
    case .hourly: return .hourly
    case .daily: return .daily
    case .weekly: return .weekly
    }
  }
}

/// A token that stops live updates or a background-delivery registration (`SKCancellable`).
#if canImport(ObjectiveC)
  @objc(SKCancellable)
#endif
public final class StepKitCancellable: NSObject, Sendable {
  private let state = LockedValue<(cancelled: Bool, finished: Bool, stop: (@Sendable () -> Void)?)>(
    (false, false, nil))

  override init() {}

  /// Stops what the token started; no block of it is called afterwards. Calling it again does nothing.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public func cancel() {
    let stop: (@Sendable () -> Void)? = state.update { value in
      guard !value.cancelled else { return nil }
      value.cancelled = true
      defer { value.stop = nil }
      return value.stop
    }
    stop?()
  }

  /// Whether ``cancel()`` was called.
  #if canImport(ObjectiveC)
    @objc
  #endif
  public var isCancelled: Bool { state.value.cancelled }

  func onCancel(_ stop: @escaping @Sendable () -> Void) {
    let runNow: Bool = state.update { value in
      if value.cancelled { return true }
      value.stop = stop
      return false
    }
    if runNow { stop() }
  }

  /// Calls `block` on the main queue unless the token is cancelled by then,
  /// or the last block (an error) was delivered before.
  func deliver(last: Bool = false, _ block: @escaping @Sendable () -> Void) {
    DispatchQueue.main.async { [self] in
      let live: Bool = state.update { value in
        guard !value.cancelled, !value.finished else { return false }
        if last { value.finished = true }
        return true
      }
      if live { block() }
    }
  }
}
