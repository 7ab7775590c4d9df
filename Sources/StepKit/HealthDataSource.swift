import Foundation

/// A step source that is also a health store: authorization, characteristics,
/// body measurements, background delivery.
///
/// ``HealthKitStepSource`` is the real one; ``SimulatedStepSource`` plays
/// it in tests and previews.
public protocol HealthDataSource: StepSource {
  /// Shows the system prompt for the types in `request` (unless the person
  /// already answered for all of them).
  ///
  /// The caller checks the Info.plist first (``StepCounter`` does).
  ///
  /// - Parameter request: Types to read and write.
  /// - Throws: ``StepKitError``.
  func requestAuthorization(_ request: AuthorizationRequest) async throws

  /// What is known about access to the types in `request`.
  ///
  /// - Parameter request: Types to read and write.
  /// - Returns: ``AuthorizationState/notRequested`` while a prompt would still
  ///   be shown, ``AuthorizationState/requestedReadAccessUnknown`` after.
  func authorizationState(for request: AuthorizationRequest) async -> AuthorizationState

  /// What is known about access to the types in `request`, or why it cannot
  /// be known (a missing entitlement, a failing store): the error a person
  /// must act on, rather than a prompt that would fail.
  ///
  /// - Parameter request: Types to read and write.
  /// - Returns: The state, or the mapped error.
  func authorizationOutcome(for request: AuthorizationRequest) async -> Result<
    AuthorizationState, StepKitError
  >

  /// The person's biological sex.
  ///
  /// - Returns: The value, or why there is none.
  /// - Throws: ``StepKitError`` when Health is unavailable or locked.
  func biologicalSex() async throws -> Characteristic<BiologicalSex>

  /// The person's date of birth (Gregorian year, month and day).
  ///
  /// - Returns: The value, or why there is none.
  /// - Throws: ``StepKitError`` when Health is unavailable or locked.
  func dateOfBirth() async throws -> Characteristic<DateComponents>

  /// Saves a measurement as a sample over `interval` (an empty interval, one
  /// moment, for body mass, height and temperature).
  ///
  /// - Parameters:
  ///   - measurement: The validated measurement.
  ///   - interval: The sample's interval.
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError``; a failed save is always reported.
  func save(_ measurement: BodyMeasurement, over interval: DateInterval) async throws -> SavedMeasurement

  /// The newest sample of a measurement type, by end date.
  ///
  /// - Parameter type: Body mass, height, body temperature, or active or resting energy.
  /// - Returns: The newest sample, or `nil` when there is none the app may
  ///   read (HealthKit shows a denied app only its own samples).
  /// - Throws: ``StepKitError/unsupportedDataType(_:)`` for other types, or another ``StepKitError``.
  func mostRecentMeasurement(of type: HealthDataType) async throws -> SavedMeasurement?

  /// Energy burned over `interval`, merged across sources.
  ///
  /// - Parameters:
  ///   - type: ``HealthDataType/activeEnergyBurned`` or ``HealthDataType/basalEnergyBurned``.
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The amount.
  /// - Throws: ``StepKitError/unsupportedDataType(_:)`` for other types, or another ``StepKitError``.
  func energyBurned(_ type: HealthDataType, in interval: DateInterval, policy: CountingPolicy) async throws
    -> EnergyAmount

  /// The total of any cumulative quantity type over `interval`, merged
  /// across sources, in the type's canonical unit.
  ///
  /// - Parameters:
  ///   - type: The type (flights climbed, exercise minutes, …).
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The total.
  /// - Throws: ``StepKitError/unsupportedQuantityType(_:)`` for a type the source cannot sum, or another ``StepKitError``.
  func total(of type: CumulativeType, in interval: DateInterval, policy: CountingPolicy) async throws
    -> CumulativeTotal

  /// The totals of any cumulative quantity type per day from `dayStart`
  /// over `interval`; the first and last day count only what falls within it.
  ///
  /// - Parameters:
  ///   - type: The type.
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One value per day, empty days included.
  /// - Throws: See ``total(of:in:policy:)``.
  func dailyTotals(
    of type: CumulativeType, in interval: DateInterval, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy
  ) async throws -> DailyCumulativeTotals

  /// What each source contributed to the steps in `interval` after the
  /// merge, and its own steps before it (see ``SourceBreakdown``).
  ///
  /// - Parameters:
  ///   - interval: The interval to explain.
  ///   - policy: Which samples count.
  /// - Returns: Each source's counted and raw steps.
  /// - Throws: ``StepKitError``.
  func sourceBreakdown(in interval: DateInterval, policy: CountingPolicy) async throws -> SourceBreakdown

  /// Starts observing new step samples (HealthKit: an `HKObserverQuery`),
  /// for background delivery.
  ///
  /// `onChange` runs for each change reported, with `done`: call it once the
  /// change is processed; HealthKit's completion handler is called then,
  /// exactly once (HealthKit backs off an app that does not call it).
  ///
  /// - Parameter onChange: Called for each change, off the main thread.
  /// - Returns: The observation; cancel it to stop.
  func observeStepChanges(_ onChange: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void)
    -> StepObservation

  /// Like ``observeStepChanges(_:)``, and hands `onError` each error the
  /// observer reports (access not asked for, a missing entitlement) before
  /// acknowledging it.
  ///
  /// - Parameters:
  ///   - onError: Called with each mapped error.
  ///   - onChange: Called for each change.
  /// - Returns: The observation; cancelling it stops the query.
  func observeStepChanges(
    onError: @escaping @Sendable (StepKitError) -> Void,
    _ onChange: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
  ) -> StepObservation

  /// Lets HealthKit wake the app when new step samples arrive.
  ///
  /// - Parameter frequency: How often at most.
  /// - Throws: ``StepKitError/backgroundDeliveryFailed(code:message:)``.
  func enableBackgroundDelivery(frequency: BackgroundDeliveryFrequency) async throws
}

extension HealthDataSource {
  /// The total of steps, walking + running distance or energy, from the
  /// source's own answers for them (``SimulatedStepSource`` answers these
  /// four); ``StepKitError/unsupportedQuantityType(_:)`` for the others.
  ///
  /// - Parameters:
  ///   - type: Steps, walking + running distance, active or resting energy.
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The total in the type's canonical unit.
  /// - Throws: ``StepKitError/unsupportedQuantityType(_:)``, or what the source's own answer throws.
  public func total(of type: CumulativeType, in interval: DateInterval, policy: CountingPolicy) async throws
    -> CumulativeTotal
  {
    let (value, provenance, hasData): (Double, Provenance, Bool)
    switch type.healthDataType {
    case .steps?:
      let count = try await steps(in: interval, policy: policy)
      (value, provenance, hasData) = (count.steps, count.provenance, count.hasData)
    case .walkingRunningDistance?:
      let distance = try await distance(in: interval, policy: policy)
      (value, provenance, hasData) = (distance.meters, distance.provenance, distance.hasData)
    case .activeEnergyBurned?, .basalEnergyBurned?:
      let energy = try await energyBurned(
        type.healthDataType ?? .activeEnergyBurned, in: interval, policy: policy)
      (value, provenance, hasData) = (energy.kilocalories, energy.provenance, energy.hasData)
    default: throw StepKitError.unsupportedQuantityType(type)
    }
    return CumulativeTotal(
      type: type, interval: interval, value: value, provenance: provenance, hasData: hasData)
  }

  /// The daily totals of steps, walking + running distance or energy, from
  /// the source's own answers for them, one ``total(of:in:policy:)`` per day.
  ///
  /// - Parameters:
  ///   - type: Steps, walking + running distance, active or resting energy.
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One value per day.
  /// - Throws: See ``total(of:in:policy:)``.
  public func dailyTotals(
    of type: CumulativeType, in interval: DateInterval, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy
  ) async throws -> DailyCumulativeTotals {
    guard interval.end >= interval.start else {
      throw StepKitError.invalidInterval(start: interval.start, end: interval.end)
    }
    var days: [DailyCumulativeTotals.Day] = []
    var provenances: [Provenance] = []
    var hasData = false
    for day in LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart) {
      let total = try await total(of: type, in: LocalDays.part(of: day, within: interval), policy: policy)
      days.append(DailyCumulativeTotals.Day(interval: day, value: total.value))
      provenances.append(total.provenance)
      hasData = hasData || total.hasData
    }
    return DailyCumulativeTotals(
      type: type, interval: interval, days: days, provenance: .joined(provenances), hasData: hasData)
  }

  /// ``observeStepChanges(_:)``, for sources whose observers report no errors.
  ///
  /// - Parameters:
  ///   - onError: Never called.
  ///   - onChange: Called for each change.
  /// - Returns: The observation.
  public func observeStepChanges(
    onError: @escaping @Sendable (StepKitError) -> Void,
    _ onChange: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
  ) -> StepObservation {
    observeStepChanges(onChange)
  }

  /// The state from ``authorizationState(for:)``, never an error (for sources that cannot fail).
  ///
  /// - Parameter request: Types to read and write.
  /// - Returns: The state.
  public func authorizationOutcome(for request: AuthorizationRequest) async -> Result<
    AuthorizationState, StepKitError
  > {
    .success(await authorizationState(for: request))
  }

  /// Saves a measurement taken at one moment, `date`.
  ///
  /// - Parameters:
  ///   - measurement: The validated measurement.
  ///   - date: The sample's date.
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError``.
  public func save(_ measurement: BodyMeasurement, at date: Date) async throws -> SavedMeasurement {
    try await save(measurement, over: DateInterval(start: date, duration: 0))
  }
}

/// A running observation (of step changes, of live counts); cancel it to stop.
///
/// Cancelling twice, or after the observation ended, does nothing.
public final class StepObservation: Sendable {
  private let onCancel: @Sendable () -> Void
  private let once = OnceFlag()

  /// Creates an observation that runs `onCancel` when first cancelled.
  ///
  /// - Parameter onCancel: What stops it.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = onCancel
  }

  /// Stops the observation.
  public func cancel() {
    if once.claim() { onCancel() }
  }

  /// Whether ``cancel()`` was called.
  public var isCancelled: Bool { once.isClaimed }
}

/// Tells the first of several calls apart from the rest, from any thread.
final class OnceFlag: @unchecked Sendable {
  // Safe to share: `claimed` is read and written only under `lock`.
  private let lock = NSLock()
  private var claimed = false

  /// `true` for the first call only.
  func claim() -> Bool {
    lock.withLock {
      defer { claimed = true }
      return !claimed
    }
  }

  /// Whether ``claim()`` was called.
  var isClaimed: Bool { lock.withLock { claimed } }
}
