import Foundation

/// The step count a person trusts: what the Health app shows, with hand-typed
/// steps left out, from HealthKit, with CoreMotion when HealthKit cannot answer.
///
/// ```swift
/// let counter = StepCounter.shared
/// try await counter.requestAuthorization()
/// let today = try await counter.todaySteps()
/// print(today.roundedSteps, today.provenance.source)
/// ```
///
/// Every answer carries its ``Provenance``: which source answered, the
/// policy, whether hand-typed steps were left out, and why a fallback
/// answered when one did.
public final class StepCounter: Sendable {
  /// Which sources answer, in what order.
  public enum Strategy: String, Sendable, Hashable, CaseIterable {
    /// HealthKit only.
    case healthKit
    /// CoreMotion only (this iPhone's own motion history, seven days).
    case motion
    /// HealthKit; CoreMotion when HealthKit is unavailable, locked, not yet
    /// authorized, failing, or returns no data at all. Except on a device
    /// without HealthKit, CoreMotion is asked only when the app already has
    /// Motion & Fitness access, so that no prompt appears unasked. The default.
    case healthKitThenMotion
  }

  /// The counter an app uses: HealthKit, then CoreMotion, the `health`
  /// policy, the phone's calendar as it changes (`Calendar.autoupdatingCurrent`),
  /// the system clock and `Bundle.main`.
  public static let shared = StepCounter(health: HealthKitStepSource(), motion: MotionStepSource())

  /// The health store source (HealthKit, or a simulated one).
  public let health: (any HealthDataSource)?
  /// The motion source (CoreMotion, or a simulated one).
  public let motion: (any StepSource)?
  /// Which sources answer.
  public let strategy: Strategy
  /// Which samples take part in HealthKit answers.
  public let policy: CountingPolicy
  /// Whose midnights cut days.
  public let calendar: Calendar
  /// The local time at which days begin (midnight by default): "today" and
  /// every daily answer run from it to the same time the next day.
  public let dayStart: DayStart
  /// The clock for "today".
  public let clock: any StepClock
  /// The app's Info.plist, checked before any prompt.
  public let bundle: any BundleInfo
  /// Where background work gets its time (``registerBackgroundDelivery(frequency:onUpdate:)``).
  public let backgroundTime: any BackgroundTime

  /// Creates a counter over the given sources.
  ///
  /// - Parameters:
  ///   - health: The HealthKit source (``HealthKitStepSource``) or a
  ///     ``SimulatedStepSource``; `nil` for none.
  ///   - motion: The CoreMotion source, or a simulated one; `nil` for none.
  ///   - strategy: Which sources answer; HealthKit then CoreMotion by default.
  ///   - policy: Which samples count; ``CountingPolicy/health`` (hand-typed
  ///     steps left out) by default.
  ///   - calendar: Whose midnights cut days; `Calendar.autoupdatingCurrent` by
  ///     default, which follows the phone's time zone and calendar settings
  ///     as they change (a stored `Calendar.current` keeps the zone it was
  ///     created in, so after travel "today" would start at the old zone's midnight).
  ///   - dayStart: The local time at which days begin, in `calendar`'s time
  ///     zone; midnight by default ("my day resets at 4 am": `DayStart("04:00")!`).
  ///   - clock: The clock; the system clock by default.
  ///   - bundle: The Info.plist; `Bundle.main` by default.
  ///   - backgroundTime: Where background work gets its time; the system's
  ///     (`ProcessInfo.performExpiringActivity`) by default.
  public init(
    health: (any HealthDataSource)?, motion: (any StepSource)?, strategy: Strategy = .healthKitThenMotion,
    policy: CountingPolicy = .health, calendar: Calendar = .autoupdatingCurrent,
    dayStart: DayStart = .midnight,
    clock: any StepClock = SystemClock(),
    bundle: any BundleInfo = MainBundleInfo(),
    backgroundTime: any BackgroundTime = SystemBackgroundTime()
  ) {
    self.health = health
    self.motion = motion
    self.strategy = strategy
    self.policy = policy
    self.calendar = calendar
    self.dayStart = dayStart
    self.clock = clock
    self.bundle = bundle
    self.backgroundTime = backgroundTime
  }

  // MARK: Authorization

  /// Asks for access to the types in `request`.
  ///
  /// Checks the Info.plist for `NSHealthShareUsageDescription` (and
  /// `NSHealthUpdateUsageDescription` when writing) first: HealthKit
  /// terminates an app that asks without them.
  ///
  /// - Parameter request: Types to read and write; steps and distance by default.
  /// - Throws: ``StepKitError/missingUsageDescription(key:)``,
  ///   ``StepKitError/healthDataUnavailable``, or another ``StepKitError``.
  public func requestAuthorization(_ request: AuthorizationRequest = .stepsAndDistance) async throws {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    try bundle.requireUsageDescriptions(request.requiredInfoPlistKeys)
    try await health.requestAuthorization(request)
  }

  /// What is known about the app's access, per source.
  ///
  /// - Parameter request: The HealthKit types to ask about; steps and distance by default.
  /// - Returns: The HealthKit and motion states (`nil` for a source the counter lacks).
  public func authorizationStatus(for request: AuthorizationRequest = .stepsAndDistance) async
    -> AuthorizationStatus
  {
    async let healthOutcome = health?.authorizationOutcome(for: request)
    async let motionState = motion?.authorizationState()
    switch await healthOutcome {
    case .success(let state)?:
      return AuthorizationStatus(healthKit: state, motion: await motionState)
    case .failure(let error)?:
      return AuthorizationStatus(healthKit: .notRequested, motion: await motionState, healthKitError: error)
    case nil:
      return AuthorizationStatus(healthKit: nil, motion: await motionState)
    }
  }

  // MARK: Steps and distance

  /// Steps from the start of today (local midnight, or ``dayStart``) until now.
  ///
  /// - Returns: The count with its provenance.
  /// - Throws: ``StepKitError``.
  public func todaySteps() async throws -> StepCount {
    try await steps(in: todayInterval())
  }

  /// Steps in `interval`.
  ///
  /// - Parameter interval: The half-open interval to count.
  /// - Returns: The count with its provenance.
  /// - Throws: ``StepKitError``.
  public func steps(in interval: DateInterval) async throws -> StepCount {
    let policy = policy
    return try await answer { try await $0.steps(in: interval, policy: policy) }
  }

  /// Steps per local day over `interval` (see ``StepSource/dailySteps(in:calendar:policy:)``).
  ///
  /// - Parameter interval: The range.
  /// - Returns: One bucket per local day, empty days included.
  /// - Throws: ``StepKitError``.
  public func dailySteps(in interval: DateInterval) async throws -> DailySteps {
    let policy = policy
    let calendar = calendar
    let dayStart = dayStart
    return try await answer {
      try await $0.dailySteps(in: interval, calendar: calendar, dayStart: dayStart, policy: policy)
    }
  }

  /// Walking + running distance from the start of today (local midnight, or ``dayStart``) until now.
  ///
  /// - Returns: The distance with its provenance.
  /// - Throws: ``StepKitError``.
  public func todayDistance() async throws -> DistanceAmount {
    try await distance(in: todayInterval())
  }

  /// Walking + running distance in `interval`.
  ///
  /// - Parameter interval: The half-open interval.
  /// - Returns: The distance with its provenance.
  /// - Throws: ``StepKitError``.
  public func distance(in interval: DateInterval) async throws -> DistanceAmount {
    let policy = policy
    return try await answer { try await $0.distance(in: interval, policy: policy) }
  }

  /// Walking + running distance per local day over `interval`.
  ///
  /// - Parameter interval: The range.
  /// - Returns: One bucket per local day.
  /// - Throws: ``StepKitError``.
  public func dailyDistance(in interval: DateInterval) async throws -> DailyDistance {
    let policy = policy
    let calendar = calendar
    let dayStart = dayStart
    return try await answer {
      try await $0.dailyDistance(in: interval, calendar: calendar, dayStart: dayStart, policy: policy)
    }
  }

  /// What each source contributed to the steps in `interval`, under the
  /// counter's policy: each app's and device's counted steps after the merge
  /// and its own steps before it (see ``SourceBreakdown`` and
  /// ``HealthKitStepSource/sourceBreakdown(in:policy:)``). HealthKit's
  /// samples only: CoreMotion has one source, this iPhone.
  ///
  /// - Parameter interval: The interval to explain.
  /// - Returns: Each source's counted and raw steps.
  /// - Throws: ``StepKitError/sourceNotConfigured(_:)`` without a HealthKit
  ///   source, or another ``StepKitError``.
  public func sourceBreakdown(in interval: DateInterval) async throws -> SourceBreakdown {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    return try await health.sourceBreakdown(in: interval, policy: policy)
  }

  // Copies the settings it uses before the stream, as `todayStepUpdatesLargerOfBoth` does, alike in
  // shape only: each stream's task captures its own values, not the counter.

  /// Today's steps, now and whenever they change, rolling over at each day
  /// start (``dayStart``; midnight by default) of ``calendar``'s time zone at
  /// that moment: a new day begins with a fresh count even across a DST
  /// change (a 23- or 25-hour day) or after the phone changes time zone.
  ///
  /// With ``Strategy/healthKitThenMotion``, the choice between HealthKit and
  /// CoreMotion is made again on every HealthKit count and at midnight:
  /// CoreMotion's counts are shown while HealthKit has no data today and the
  /// coprocessor (already authorized) has steps, and after HealthKit's
  /// updates fail with an error that allows a fallback (HealthKit is tried
  /// again at the next midnight); HealthKit's counts are shown again as soon
  /// as it has data. A locked phone pauses HealthKit's count
  /// (``ResultNote/deviceLocked``) rather than handing the day to
  /// CoreMotion. Counts from CoreMotion carry the ``FallbackReason``.
  ///
  /// - Returns: An asynchronous sequence of today's totals; it ends when the
  ///   consuming task is cancelled or with a ``StepKitError``.
  public func todayStepUpdates() -> AsyncThrowingStream<StepCount, any Error> {
    let calendar = calendar
    let dayStart = dayStart
    let policy = policy
    let health = health
    let motion = motion
    let strategy = strategy
    return AsyncThrowingStream<StepCount, any Error>.endingAtFirstError { continuation in
      let task = Task {
        do {
          let source: (any StepSource)?
          switch strategy {
          case .healthKit: source = health
          case .motion: source = motion
          case .healthKitThenMotion:
            // HealthKit, handing over to CoreMotion when it cannot answer (StepCounter+MotionFallback.swift).
            try await Self.healthKitThenMotionUpdates(
              health: health, motion: motion, calendar: calendar, dayStart: dayStart, policy: policy,
              into: continuation)
            continuation.finish()
            return
          }
          guard let source else {
            throw StepKitError.sourceNotConfigured(strategy == .motion ? .motion : .healthKit)
          }
          for try await count in source.todayStepUpdates(
            calendar: calendar, dayStart: dayStart, policy: policy)
          {
            continuation.yield(count)
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  // MARK: Characteristics and body measurements

  /// The person's biological sex from Health.
  ///
  /// - Returns: The value; ``Characteristic/notSetOrNotAllowed`` or
  ///   ``Characteristic/notRequested`` when there is none.
  /// - Throws: ``StepKitError`` when Health is unavailable or locked.
  public func biologicalSex() async throws -> Characteristic<BiologicalSex> {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    return try await health.biologicalSex()
  }

  /// The person's date of birth from Health (Gregorian year, month and day).
  ///
  /// - Returns: The value; ``Characteristic/notSetOrNotAllowed`` or
  ///   ``Characteristic/notRequested`` when there is none.
  /// - Throws: ``StepKitError`` when Health is unavailable or locked.
  public func dateOfBirth() async throws -> Characteristic<DateComponents> {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    return try await health.dateOfBirth()
  }

  /// Saves body mass to Health, converted to kilograms and checked for plausibility.
  ///
  /// - Parameters:
  ///   - bodyMass: The mass, in any unit.
  ///   - date: The sample's date; now by default.
  /// - Returns: What was saved.
  /// - Throws: ``StepKitError/implausibleMeasurement(_:value:unit:plausible:)``,
  ///   ``StepKitError/missingUsageDescription(key:)``, ``StepKitError/writeAccessDenied(_:)``,
  ///   ``StepKitError/saveFailed(_:code:message:)``.
  @discardableResult
  public func save(bodyMass: Measurement<UnitMass>, at date: Date? = nil) async throws -> SavedMeasurement {
    try await save(BodyMeasurement.bodyMass(bodyMass), at: date)
  }

  /// Saves height to Health, converted to metres and checked for plausibility.
  ///
  /// - Parameters:
  ///   - height: The height, in any unit.
  ///   - date: The sample's date; now by default.
  /// - Returns: What was saved.
  /// - Throws: See ``save(bodyMass:at:)``.
  @discardableResult
  public func save(height: Measurement<UnitLength>, at date: Date? = nil) async throws -> SavedMeasurement {
    try await save(BodyMeasurement.height(height), at: date)
  }

  func save(_ measurement: BodyMeasurement, at date: Date?) async throws -> SavedMeasurement {
    try await save(measurement, over: DateInterval(start: date ?? clock.now(), duration: 0))
  }

  func save(_ measurement: BodyMeasurement, over interval: DateInterval) async throws -> SavedMeasurement {
    guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
    try bundle.requireUsageDescriptions([InfoPlistKey.healthUpdateUsageDescription])
    return try await health.save(measurement, over: interval)
  }

  // MARK: Strategy

  /// The start of today (local midnight, or the day start) until now.
  func todayInterval() -> DateInterval {
    LocalDays.todaySoFar(at: clock.now(), calendar: calendar, dayStart: dayStart)
  }

  /// Asks the sources in the order the strategy gives.
  func answer<R: ProvenancedResult>(_ ask: @Sendable (any StepSource) async throws -> R) async throws -> R {
    switch strategy {
    case .healthKit:
      guard let health else { throw StepKitError.sourceNotConfigured(.healthKit) }
      return try await ask(health)
    case .motion:
      guard let motion else { throw StepKitError.sourceNotConfigured(.motion) }
      return try await ask(motion)
    case .healthKitThenMotion:
      guard let health else {
        guard let motion else { throw StepKitError.sourceNotConfigured(.healthKit) }
        var result = try await ask(motion)
        result.provenance.fallbackReason = .healthKitNotConfigured
        return result
      }
      let primary: R
      do {
        primary = try await ask(health)
      } catch let error as StepKitError {
        guard let motion, Self.allowsFallback(error) else { throw error }
        // Only a device without HealthKit makes CoreMotion the source proper; on any other
        // HealthKit error (access not yet asked for, on first launch) asking CoreMotion while
        // its access is not determined would show the Motion & Fitness prompt unasked.
        let motionAnswers = error == .healthDataUnavailable ? true : await Self.mayProbe(motion)
        guard motionAnswers else { throw error }
        do {
          var result = try await ask(motion)
          result.provenance.fallbackReason = error.fallbackReason
          return result
        } catch let motionError {
          // When HealthKit cannot work on this device, the motion error is the
          // one a person can act on; otherwise HealthKit's is.
          if error == .healthDataUnavailable { throw motionError }
          throw error
        }
      }
      guard !primary.hasData, let motion, await Self.mayProbe(motion) else { return primary }
      // No HealthKit data at all (read access may be denied): CoreMotion may know better.
      guard var result = try? await ask(motion), result.hasData else { return primary }
      result.provenance.fallbackReason = .healthKitReturnedNoData
      result.provenance.notes.append(.noDataMayMeanDeniedAccess)
      return result
    }
  }

  /// Whether CoreMotion may be asked "just to see" when HealthKit has no data:
  /// only when the app already has Motion & Fitness access. A query while
  /// access is not determined would show the permission prompt nobody asked
  /// for; denied or restricted access cannot answer anyway.
  static func mayProbe(_ motion: any StepSource) async -> Bool {
    await motion.authorizationState() == .authorized
  }

  /// Whether HealthKit's `error` lets CoreMotion answer instead.
  static func allowsFallback(_ error: StepKitError) -> Bool {
    switch error {
    case .healthDataUnavailable, .healthDataRestricted, .healthDatabaseLocked, .authorizationNotDetermined,
      .queryFailed:
      return true
    default:
      return false
    }
  }
}

/// What is known about the app's access, per source.
public struct AuthorizationStatus: Sendable, Hashable {
  /// HealthKit's state, or `nil` when the counter has no HealthKit source.
  public var healthKit: AuthorizationState?
  /// CoreMotion's state, or `nil` when the counter has no motion source.
  public var motion: AuthorizationState?
  /// Why HealthKit could not say (a missing entitlement, a failing store),
  /// or `nil`. When set, ``healthKit`` is only a placeholder: show this error
  /// rather than a button that asks for access.
  public var healthKitError: StepKitError?

  /// Creates a status.
  ///
  /// - Parameters:
  ///   - healthKit: HealthKit's state.
  ///   - motion: CoreMotion's state.
  ///   - healthKitError: Why HealthKit could not say, if it could not.
  public init(
    healthKit: AuthorizationState?, motion: AuthorizationState?, healthKitError: StepKitError? = nil
  ) {
    self.healthKit = healthKit
    self.motion = motion
    self.healthKitError = healthKitError
  }
}
