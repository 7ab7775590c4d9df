import Foundation

/// A scripted, in-memory step source for unit tests and SwiftUI previews.
///
/// It counts like HealthKit (StepKitCore's priority merge of the scripted
/// samples under the policy), plays any ``AuthorizationState``, fails on cue,
/// stores what is saved, and drives live updates from its clock.
///
/// ```swift
/// let clock = ManualClock(now: noon)
/// let source = SimulatedStepSource(clock: clock)
/// source.add(Sample(kind: .steps, start: nine, end: ten, value: 1200, source: "Apple Watch"))
/// source.failNext(.steps, with: .healthDatabaseLocked)
/// let counter = StepCounter(health: source, motion: nil, clock: clock, bundle: DictionaryBundleInfo.complete)
/// ```
///
/// Use `kind` to make it pose as HealthKit or CoreMotion in a preview.
public final class SimulatedStepSource: HealthDataSource, @unchecked Sendable {
  // Safe to share: all mutable state is in `state`, read and written only under `lock`.
  /// Operations a scripted failure can target.
  public enum Operation: String, Sendable, Hashable, CaseIterable {
    /// Steps and daily steps.
    case steps
    /// Distance and daily distance.
    case distance
    /// Authorization requests.
    case authorization
    /// Characteristic reads.
    case characteristics
    /// Saves.
    case save
    /// Most recent measurements and energy burned.
    case measurements
    /// Live updates (fails the sequence).
    case liveUpdates
    /// Enabling background delivery.
    case backgroundDelivery
  }

  struct State {
    var log = SampleLog()
    var authorization: AuthorizationState
    var answerToPrompt: AuthorizationState = .requestedReadAccessUnknown
    var failures: [Operation: [StepKitError]] = [:]
    var persistentFailures: [Operation: StepKitError] = [:]
    var biologicalSex: Characteristic<BiologicalSex> = .notSetOrNotAllowed
    var dateOfBirth: Characteristic<DateComponents> = .notSetOrNotAllowed
    var saved: [SavedMeasurement] = []
    var listeners: [UUID: AsyncStream<Void>.Continuation] = [:]
    var calls: [Operation: Int] = [:]
    var backgroundDelivery: BackgroundDeliveryFrequency?
    var changeObservers: [UUID: @Sendable (@escaping @Sendable () -> Void) -> Void] = [:]
    var changesDelivered = 0
    var changesAcknowledged = 0
  }

  private let lock = NSLock()
  private var state: State
  /// The kind recorded in provenance (``StepSourceKind/simulated`` by default).
  public let kind: StepSourceKind
  /// The clock "today" and midnight come from.
  public let clock: any StepClock
  /// How sources are ranked in the merge.
  public let ranking: SourceRanking

  /// Creates a simulated source.
  ///
  /// - Parameters:
  ///   - samples: The samples it holds.
  ///   - authorization: The state it reports; ``AuthorizationState/requestedReadAccessUnknown`` by default.
  ///   - kind: The kind recorded in provenance.
  ///   - clock: The clock for "today" and midnight.
  ///   - ranking: How sources are ranked in the merge.
  public init(
    samples: [Sample] = [], authorization: AuthorizationState = .requestedReadAccessUnknown,
    kind: StepSourceKind = .simulated, clock: any StepClock = SystemClock(), ranking: SourceRanking = .default
  ) {
    state = State(log: SampleLog(samples), authorization: authorization)
    self.kind = kind
    self.clock = clock
    self.ranking = ranking
  }

  private func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
    try lock.withLock { try body(&state) }
  }

  // MARK: Script

  /// Adds samples and wakes live updates.
  ///
  /// - Parameter samples: The samples.
  public func add(_ samples: Sample...) { add(contentsOf: samples) }

  /// Adds samples and wakes live updates.
  ///
  /// - Parameter samples: The samples.
  public func add(contentsOf samples: [Sample]) {
    let (listeners, observers) = withState { state in
      for sample in samples { state.log.append(sample) }
      state.changesDelivered += state.changeObservers.count
      return (Array(state.listeners.values), Array(state.changeObservers.values))
    }
    for listener in listeners { listener.yield() }
    for observer in observers {
      let once = OnceFlag()
      observer { [weak self] in
        if once.claim() { self?.withState { $0.changesAcknowledged += 1 } }
      }
    }
  }

  /// Each source's counted and raw steps in `interval`, merged with ``ranking``.
  ///
  /// - Parameters:
  ///   - interval: The interval to explain.
  ///   - policy: Which samples count.
  /// - Returns: The breakdown.
  /// - Throws: A scripted ``Operation/steps`` failure.
  public func sourceBreakdown(in interval: DateInterval, policy: CountingPolicy) async throws
    -> SourceBreakdown
  {
    try begin(.steps)
    let (totals, hasData) = try totals(interval, policy)
    return SourceBreakdown(
      interval: interval, totals: totals, provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

  /// How many changes were reported to ``observeStepChanges(_:)`` observers,
  /// and how many of them were acknowledged (`done` called).
  public var observedChanges: (delivered: Int, acknowledged: Int) {
    withState { ($0.changesDelivered, $0.changesAcknowledged) }
  }

  /// Calls `onChange` after each ``add(_:)``, as an observer query would.
  ///
  /// - Parameter onChange: Called for each change with `done`.
  /// - Returns: The observation.
  public func observeStepChanges(
    _ onChange: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
  ) -> StepObservation {
    let id = UUID()
    withState { $0.changeObservers[id] = onChange }
    return StepObservation { [weak self] in self?.withState { _ = $0.changeObservers.removeValue(forKey: id) }
    }
  }

  /// Makes the next call of `operation` fail with `error` (queued: call again for more).
  ///
  /// - Parameters:
  ///   - operation: The operation.
  ///   - error: The error it throws.
  public func failNext(_ operation: Operation, with error: StepKitError) {
    withState { $0.failures[operation, default: []].append(error) }
  }

  /// Makes every call of `operation` fail with `error` until cleared with `nil`.
  ///
  /// - Parameters:
  ///   - operation: The operation.
  ///   - error: The error, or `nil` to stop failing.
  public func failAlways(_ operation: Operation, with error: StepKitError?) {
    withState { $0.persistentFailures[operation] = error }
  }

  // Each control is a property over the locked state, a getter and a setter of one line each,
  // alike on purpose (as in the stand-ins' `HealthStoreSimulation` and `PedometerSimulator`,
  // which may share no code with StepKit): every control keeps its own documentation.

  /// The state reported by ``authorizationState()``.
  public var authorization: AuthorizationState {
    get { withState { $0.authorization } }
    set { withState { $0.authorization = newValue } }
  }

  /// The state ``requestAuthorization(_:)`` moves to.
  public var answerToPrompt: AuthorizationState {
    get { withState { $0.answerToPrompt } }
    set { withState { $0.answerToPrompt = newValue } }
  }

  /// What ``biologicalSex()`` answers.
  public var scriptedBiologicalSex: Characteristic<BiologicalSex> {
    get { withState { $0.biologicalSex } }
    set { withState { $0.biologicalSex = newValue } }
  }

  /// What ``dateOfBirth()`` answers.
  public var scriptedDateOfBirth: Characteristic<DateComponents> {
    get { withState { $0.dateOfBirth } }
    set { withState { $0.dateOfBirth = newValue } }
  }

  /// Everything saved so far, in order.
  public var savedMeasurements: [SavedMeasurement] { withState { $0.saved } }

  /// How many times `operation` was called.
  ///
  /// - Parameter operation: The operation.
  /// - Returns: The number of calls.
  public func callCount(_ operation: Operation) -> Int { withState { $0.calls[operation] ?? 0 } }

  /// The background delivery frequency enabled, if any.
  public var backgroundDeliveryFrequency: BackgroundDeliveryFrequency? { withState { $0.backgroundDelivery } }

  /// Counts a call and throws its scripted failure, if any.
  private func begin(_ operation: Operation) throws {
    let failure: StepKitError? = withState { state in
      state.calls[operation, default: 0] += 1
      if var queued = state.failures[operation], !queued.isEmpty {
        let first = queued.removeFirst()
        state.failures[operation] = queued
        return first
      }
      return state.persistentFailures[operation]
    }
    if let failure { throw failure }
  }

  // MARK: StepSource

  /// The scripted state.
  ///
  /// - Returns: ``authorization``.
  public func authorizationState() async -> AuthorizationState { authorization }

  private func provenance(_ policy: CountingPolicy, hasData: Bool) -> Provenance {
    Provenance(
      source: kind, policy: policy,
      manualEntries: kind == .motion ? .notApplicable : (policy == .all ? .included : .excluded),
      notes: hasData ? [] : [.noDataMayMeanDeniedAccess])
  }

  private func totals(_ interval: DateInterval, _ policy: CountingPolicy) throws -> (IntervalTotals, Bool) {
    guard interval.end >= interval.start else {
      throw StepKitError.invalidInterval(start: interval.start, end: interval.end)
    }
    let totals = withState { $0.log.totals(in: interval, policy: policy, ranking: ranking) }
    return (totals, totals.sampleCount > 0)
  }

  /// One bucket per local day covering `interval`, each made by `bucket` of
  /// the day and its totals within `interval`; and whether any day had samples.
  private func daily<Day>(
    _ interval: DateInterval, _ calendar: Calendar, _ dayStart: DayStart, _ policy: CountingPolicy,
    bucket: (DateInterval, IntervalTotals) -> Day
  ) throws -> (days: [Day], hasData: Bool) {
    var hasData = false
    let days = try LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart).map { day in
      let (totals, any) = try totals(LocalDays.part(of: day, within: interval), policy)
      hasData = hasData || any
      return bucket(day, totals)
    }
    return (days, hasData)
  }

  /// Merged steps of the scripted samples.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The count.
  /// - Throws: A scripted ``StepKitError``, or ``StepKitError/invalidInterval(start:end:)``.
  public func steps(in interval: DateInterval, policy: CountingPolicy) async throws -> StepCount {
    try begin(.steps)
    let (totals, hasData) = try totals(interval, policy)
    return StepCount(
      interval: interval, steps: totals.steps, provenance: provenance(policy, hasData: hasData),
      hasData: hasData)
  }

  /// Merged distance of the scripted samples.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - policy: Which samples take part.
  /// - Returns: The distance.
  /// - Throws: A scripted ``StepKitError``.
  public func distance(in interval: DateInterval, policy: CountingPolicy) async throws -> DistanceAmount {
    try begin(.distance)
    let (totals, hasData) = try totals(interval, policy)
    return DistanceAmount(
      interval: interval, meters: totals.distanceMeters, provenance: provenance(policy, hasData: hasData),
      hasData: hasData)
  }

  // The midnight methods forward to the day-start ones, as in every StepKit source, and the
  // distance twins follow the step ones, alike on purpose: each is public API of a line or two
  // over `daily`, which holds the logic for both (StepSource's extension makes the day-start
  // methods from the midnight ones, so a built-in source forwards back).

  /// Merged steps per local day, each counting only what falls within `interval`.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose midnights cut days.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: A scripted ``StepKitError``.
  public func dailySteps(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy) async throws
    -> DailySteps
  {
    try await dailySteps(in: interval, calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// Merged steps per day from `dayStart`, each counting only what falls within `interval`.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: A scripted ``StepKitError``.
  public func dailySteps(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailySteps {
    try begin(.steps)
    let (days, hasData) = try daily(interval, calendar, dayStart, policy) {
      DailySteps.Day(interval: $0, steps: $1.steps)
    }
    return DailySteps(
      interval: interval, days: days, provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

  /// Merged distance per local day.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose midnights cut days.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: A scripted ``StepKitError``.
  public func dailyDistance(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy)
    async throws
    -> DailyDistance
  {
    try await dailyDistance(in: interval, calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// Merged distance per day from `dayStart`.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Which samples take part.
  /// - Returns: One bucket per day.
  /// - Throws: A scripted ``StepKitError``.
  public func dailyDistance(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailyDistance {
    try begin(.distance)
    let (days, hasData) = try daily(interval, calendar, dayStart, policy) {
      DailyDistance.Day(interval: $0, meters: $1.distanceMeters)
    }
    return DailyDistance(
      interval: interval, days: days, provenance: provenance(policy, hasData: hasData), hasData: hasData)
  }

  // The midnight method forwards to the day-start one, as in every StepKit source, alike on
  // purpose: the midnight methods are StepSource's requirements (what a third-party source
  // implements) and each source documents its own behaviour under them.

  /// Today's steps now, after each ``add(_:)``, and afresh at each midnight of the clock.
  ///
  /// - Parameters:
  ///   - calendar: Whose midnight starts "today".
  ///   - policy: Which samples take part.
  /// - Returns: The sequence of today's totals.
  public func todayStepUpdates(calendar: Calendar, policy: CountingPolicy) -> AsyncThrowingStream<
    StepCount, any Error
  > {
    todayStepUpdates(calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// Today's steps now, after each ``add(_:)``, and afresh at each day start of the clock.
  ///
  /// - Parameters:
  ///   - calendar: Whose time zone's local times cut days.
  ///   - dayStart: The local time at which "today" begins.
  ///   - policy: Which samples take part.
  /// - Returns: The sequence of today's totals.
  public func todayStepUpdates(calendar: Calendar, dayStart: DayStart, policy: CountingPolicy)
    -> AsyncThrowingStream<StepCount, any Error>
  {
    let (wakeups, wake) = makeAsyncStream(of: Void.self)
    let id = UUID()
    withState { $0.listeners[id] = wake }
    let clock = clock
    return AsyncThrowingStream<StepCount, any Error>.endingAtFirstError { continuation in
      let midnights = clock.dayChanges(calendar: calendar, dayStart: dayStart) { wake.yield() }
      let updates = Task {
        do {
          try self.begin(.liveUpdates)
        } catch {
          return continuation.finish(throwing: error)
        }
        wake.yield()
        await continuation.yieldChanges(for: wakeups) {
          let today = LocalDays.day(containing: clock.now(), calendar: calendar, dayStart: dayStart)
          let (totals, hasData) = try self.totals(today, policy)
          return StepCount(
            interval: today, steps: totals.steps, provenance: self.provenance(policy, hasData: hasData),
            hasData: hasData)
        }
      }
      continuation.onTermination = { [weak self] _ in
        updates.cancel()
        midnights.cancel()
        wake.finish()
        self?.withState { _ = $0.listeners.removeValue(forKey: id) }
      }
    }
  }

  // MARK: HealthDataSource

  /// Moves ``authorization`` to ``answerToPrompt`` (unless unavailable).
  ///
  /// - Parameter request: Ignored beyond the scripted answer.
  /// - Throws: A scripted failure, or ``StepKitError/healthDataUnavailable``
  ///   when ``authorization`` is ``AuthorizationState/unavailable``.
  public func requestAuthorization(_ request: AuthorizationRequest) async throws {
    try begin(.authorization)
    try withState { state in
      if state.authorization == .unavailable { throw StepKitError.healthDataUnavailable }
      state.authorization = state.answerToPrompt
    }
  }

  /// The scripted state, whatever the request.
  ///
  /// - Parameter request: Ignored.
  /// - Returns: ``authorization``.
  public func authorizationState(for request: AuthorizationRequest) async -> AuthorizationState {
    authorization
  }

  /// The scripted biological sex.
  ///
  /// - Returns: ``scriptedBiologicalSex``.
  /// - Throws: A scripted failure.
  public func biologicalSex() async throws -> Characteristic<BiologicalSex> {
    try begin(.characteristics)
    return scriptedBiologicalSex
  }

  /// The scripted date of birth.
  ///
  /// - Returns: ``scriptedDateOfBirth``.
  /// - Throws: A scripted failure.
  public func dateOfBirth() async throws -> Characteristic<DateComponents> {
    try begin(.characteristics)
    return scriptedDateOfBirth
  }

  /// Records the measurement in ``savedMeasurements``.
  ///
  /// - Parameters:
  ///   - measurement: The measurement.
  ///   - interval: Its interval.
  /// - Returns: What was saved.
  /// - Throws: A scripted failure.
  public func save(_ measurement: BodyMeasurement, over interval: DateInterval) async throws
    -> SavedMeasurement
  {
    try begin(.save)
    let saved = SavedMeasurement(measurement: measurement, interval: interval, uuid: UUID())
    withState { $0.saved.append(saved) }
    return saved
  }

  /// The saved measurement of `type` with the latest end date.
  ///
  /// - Parameter type: A measurement type.
  /// - Returns: The newest saved measurement, or `nil`.
  /// - Throws: A scripted failure (``Operation/measurements``), or
  ///   ``StepKitError/unsupportedDataType(_:)``.
  public func mostRecentMeasurement(of type: HealthDataType) async throws -> SavedMeasurement? {
    try begin(.measurements)
    guard BodyMeasurement.reading(type, value: 0) != nil else { throw StepKitError.unsupportedDataType(type) }
    return savedMeasurements.filter { $0.measurement.type == type }.max { $0.date < $1.date }
  }

  /// The saved energy measurements of `type`, each counted in proportion to
  /// the part of its interval inside `interval`.
  ///
  /// - Parameters:
  ///   - type: Active or resting energy.
  ///   - interval: The interval.
  ///   - policy: Recorded in the provenance.
  /// - Returns: The amount.
  /// - Throws: A scripted failure (``Operation/measurements``), or ``StepKitError/unsupportedDataType(_:)``.
  public func energyBurned(_ type: HealthDataType, in interval: DateInterval, policy: CountingPolicy)
    async throws -> EnergyAmount
  {
    try begin(.measurements)
    guard type == .activeEnergyBurned || type == .basalEnergyBurned else {
      throw StepKitError.unsupportedDataType(type)
    }
    guard interval.end >= interval.start else {
      throw StepKitError.invalidInterval(start: interval.start, end: interval.end)
    }
    var total = 0.0
    var hasData = false
    for saved in savedMeasurements where saved.measurement.type == type {
      guard let part = saved.interval.intersection(with: interval), saved.interval.duration > 0 else {
        continue
      }
      hasData = true
      total += saved.measurement.siValue * part.duration / saved.interval.duration
    }
    return EnergyAmount(
      type: type, interval: interval, kilocalories: total, provenance: provenance(policy, hasData: hasData),
      hasData: hasData)
  }

  /// Records the frequency.
  ///
  /// - Parameter frequency: How often at most.
  /// - Throws: A scripted failure.
  public func enableBackgroundDelivery(frequency: BackgroundDeliveryFrequency) async throws {
    try begin(.backgroundDelivery)
    withState { $0.backgroundDelivery = frequency }
  }
}
