import Foundation

/// Steps, distance and floors from this iPhone's motion coprocessor (CoreMotion's `CMPedometer`).
///
/// The coprocessor counts this device's own steps all the time, whether or not the app runs,
/// and keeps the last seven days. Its count cannot be edited by the person or by other apps,
/// which is why step-ranking apps trust it; it knows nothing of an Apple Watch or of steps typed
/// into Health.
///
/// Before each request the source checks, in order:
/// 1. the Info.plist holds `NSMotionUsageDescription` (the system terminates an app that reads
///    motion data without it): else ``StepKitError/missingUsageDescription(key:)``;
/// 2. the device counts steps: else ``StepKitError/motionNotAvailable``;
/// 3. the permission (`CMPedometer.authorizationStatus()`): denied or restricted throw at once
///    (``StepKitError/motionNotAuthorized``, ``StepKitError/motionRestricted``); *not determined*
///    goes ahead, because the system shows the prompt on the first query.
///
/// CoreMotion errors become ``StepKitError`` values: 104 ``StepKitError/motionNotAvailable``,
/// 105 ``StepKitError/motionNotAuthorized``, 106 ``StepKitError/motionNotEntitled``, others
/// ``StepKitError/motionQueryFailed(code:message:)``. Their recovery suggestions name
/// Settings > Privacy & Security > Motion & Fitness (设置 > 隐私与安全性 > 运动与健身).
///
/// Answers carry ``Provenance/source`` ``StepSourceKind/motion`` and
/// ``ManualEntries/notApplicable``: the coprocessor has no hand-typed or third-party steps, so
/// its count satisfies every ``CountingPolicy`` and the policy is recorded as given.
/// `hasData` is `true` when at least one step was counted.
public struct MotionStepSource: StepSource {
  /// How far back CoreMotion's history reaches: seven days.
  public static let historyLength: TimeInterval = MotionHistoryWindow.length

  /// Always ``StepSourceKind/motion``.
  public var kind: StepSourceKind { .motion }
  /// The app's Info.plist, checked for `NSMotionUsageDescription`.
  public let bundle: any BundleInfo
  /// The clock: "now", the seven-day window, and midnight for live updates.
  public let clock: any StepClock
  /// What to do with intervals that reach back beyond the seven days.
  public let historyLimit: MotionHistoryLimit

  /// The device the source was created on: any thread that asks reads that device.
  let device: PedometerDevice
  private let pedometer: MotionPedometer

  /// Creates the motion source.
  ///
  /// - Parameters:
  ///   - bundle: The Info.plist to check; `Bundle.main` by default.
  ///   - clock: The clock; the system clock by default.
  ///   - historyLimit: What to do with intervals older than seven days; count the part that
  ///     is left by default.
  public init(
    bundle: any BundleInfo = MainBundleInfo(), clock: any StepClock = SystemClock(),
    historyLimit: MotionHistoryLimit = .countAvailablePart
  ) {
    self.bundle = bundle
    self.clock = clock
    self.historyLimit = historyLimit
    device = PedometerDevice()
    pedometer = MotionPedometer(on: device)
  }

  /// What this device's motion coprocessor measures.
  public static var capabilities: MotionCapabilities { PedometerAccess.capabilities() }

  /// The earliest moment the history still holds (now minus seven days).
  ///
  /// - Returns: The start of the seven-day window.
  public func earliestAvailableDate() -> Date {
    MotionHistoryWindow(now: clock.now()).earliest
  }

  // MARK: - Authorization

  /// The app's Motion & Fitness permission; never shows the prompt.
  ///
  /// - Returns: ``AuthorizationState/unavailable`` without a step counter,
  ///   ``AuthorizationState/notRequested`` before the prompt, else authorized, denied or restricted.
  public func authorizationState() async -> AuthorizationState {
    device.authorizationState
  }

  /// Shows the Motion & Fitness prompt if it has not been shown, by asking for the last minute
  /// of steps (CoreMotion has no other way to ask), and returns the resulting state.
  ///
  /// - Returns: The state after the person answered.
  /// - Throws: ``StepKitError/missingUsageDescription(key:)``, ``StepKitError/motionNotAvailable``,
  ///   ``StepKitError/motionNotEntitled`` or another CoreMotion failure; a refusal is returned as
  ///   ``AuthorizationState/denied``, not thrown.
  @discardableResult
  public func requestAuthorization() async throws -> AuthorizationState {
    try preflight()
    let now = clock.now()
    do {
      _ = try await pedometer.reading(from: now.addingTimeInterval(-60), to: now)
    } catch StepKitError.motionNotAuthorized {
      // The person said no; the state below says so.
    }
    return device.authorizationState
  }

  // MARK: - Intervals

  /// Steps, distance and floors in `interval`.
  ///
  /// - Parameter interval: The interval, within the last seven days.
  /// - Returns: What the coprocessor measured, with its provenance.
  /// - Throws: ``StepKitError`` (see the type's overview), and
  ///   ``StepKitError/motionOutsideHistory(earliestAvailable:)`` for an interval before the window.
  public func activity(in interval: DateInterval) async throws -> MotionActivity {
    let (reading, notes) = try await read(interval)
    return MotionActivity(
      interval: interval, steps: reading.steps, distanceMeters: reading.distanceMeters,
      floorsAscended: reading.floorsAscended, floorsDescended: reading.floorsDescended,
      provenance: provenance(.health, notes: notes))
  }

  /// Steps in `interval`, from the seven days of motion history.
  ///
  /// - Parameters:
  ///   - interval: The half-open interval `[start, end)`.
  ///   - policy: Recorded in the provenance (the coprocessor's count satisfies every policy).
  /// - Returns: The count; a ``ResultNote/truncatedHistory(earliestAvailable:)`` note when only
  ///   the part inside the seven days was counted.
  /// - Throws: ``StepKitError``.
  public func steps(in interval: DateInterval, policy: CountingPolicy) async throws -> StepCount {
    let (reading, notes) = try await read(interval)
    return StepCount(
      interval: interval, steps: Double(reading.steps), provenance: provenance(policy, notes: notes),
      hasData: reading.steps > 0)
  }

  /// Walking + running distance in `interval`, from the seven days of motion history.
  ///
  /// - Parameters:
  ///   - interval: The half-open interval `[start, end)`.
  ///   - policy: Recorded in the provenance.
  /// - Returns: The distance.
  /// - Throws: ``StepKitError``; ``StepKitError/motionQueryFailed(code:message:)`` with code 109
  ///   (`CMErrorNotAvailable`) on a device that does not estimate distance.
  public func distance(in interval: DateInterval, policy: CountingPolicy) async throws -> DistanceAmount {
    try requireDistance()
    let (reading, notes) = try await read(interval)
    let meters = reading.distanceMeters ?? 0
    return DistanceAmount(
      interval: interval, meters: meters, provenance: provenance(policy, notes: notes),
      hasData: reading.steps > 0 || meters > 0)
  }

  // The midnight methods forward to the day-start ones, as in every StepKit source, alike on
  // purpose: StepSource's extension makes the day-start methods from the midnight ones (what a
  // third-party source implements), so a built-in source that counts from any day start forwards back.

  /// Steps per local day over `interval`.
  ///
  /// Days that lie wholly before the seven-day window are left out (with
  /// ``MotionHistoryLimit/countAvailablePart``) and the first day inside counts from the
  /// window's start; the note ``ResultNote/truncatedHistory(earliestAvailable:)`` says so.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose midnights cut the days (23- and 25-hour days on DST changes).
  ///   - policy: Recorded in the provenance.
  /// - Returns: The days in order.
  /// - Throws: ``StepKitError``.
  public func dailySteps(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy) async throws
    -> DailySteps
  {
    try await dailySteps(in: interval, calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// Steps per day from `dayStart` over `interval`, each day asked of the
  /// coprocessor as ``dailySteps(in:calendar:policy:)`` asks for midnight days.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Recorded in the provenance.
  /// - Returns: The days in order.
  /// - Throws: ``StepKitError``.
  public func dailySteps(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailySteps {
    let (days, notes) = try await readDays(interval, calendar: calendar, dayStart: dayStart)
    return DailySteps(
      interval: interval,
      days: days.map { DailySteps.Day(interval: $0.day, steps: Double($0.reading?.steps ?? 0)) },
      provenance: provenance(policy, notes: notes),
      hasData: days.contains { ($0.reading?.steps ?? 0) > 0 })
  }

  /// Walking + running distance per local day over `interval`, bucketed as
  /// ``dailySteps(in:calendar:policy:)`` does.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose midnights cut the days.
  ///   - policy: Recorded in the provenance.
  /// - Returns: The days in order.
  /// - Throws: ``StepKitError``; code 109 on a device that does not estimate distance.
  public func dailyDistance(in interval: DateInterval, calendar: Calendar, policy: CountingPolicy)
    async throws
    -> DailyDistance
  {
    try await dailyDistance(in: interval, calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// Walking + running distance per day from `dayStart`, as
  /// ``dailySteps(in:calendar:dayStart:policy:)``.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which days begin.
  ///   - policy: Recorded in the provenance.
  /// - Returns: The days in order.
  /// - Throws: ``StepKitError``; code 109 on a device that does not estimate distance.
  public func dailyDistance(
    in interval: DateInterval, calendar: Calendar, dayStart: DayStart, policy: CountingPolicy
  ) async throws -> DailyDistance {
    try requireDistance()
    let (days, notes) = try await readDays(interval, calendar: calendar, dayStart: dayStart)
    return DailyDistance(
      interval: interval,
      days: days.map { DailyDistance.Day(interval: $0.day, meters: $0.reading?.distanceMeters ?? 0) },
      provenance: provenance(policy, notes: notes),
      hasData: days.contains { ($0.reading?.steps ?? 0) > 0 || ($0.reading?.distanceMeters ?? 0) > 0 })
  }

  // MARK: - Live

  /// Today's cumulative steps from the coprocessor, now and whenever they change.
  ///
  /// Yields today's total first, then each new total from `startUpdates(from: midnight)`, and a
  /// fresh total at each local midnight of `calendar` (updates restart from the new midnight;
  /// on days whose midnight a DST change skips, from the day's first moment). Stopping the
  /// iteration (or cancelling its task) stops the pedometer updates.
  ///
  /// - Parameters:
  ///   - calendar: Whose midnight starts "today".
  ///   - policy: Recorded in each count's provenance.
  /// - Returns: The totals; the sequence ends with a ``StepKitError`` when the pedometer fails
  ///   (for example ``StepKitError/motionNotAuthorized`` when access is turned off).
  public func todayStepUpdates(calendar: Calendar, policy: CountingPolicy) -> AsyncThrowingStream<
    StepCount, any Error
  > {
    todayStepUpdates(calendar: calendar, dayStart: .midnight, policy: policy)
  }

  /// ``todayStepUpdates(calendar:policy:)`` with days from `dayStart`: updates restart from
  /// each day start of `calendar`'s time zone (where a DST change skips it, from the first
  /// moment after the gap).
  ///
  /// - Parameters:
  ///   - calendar: Whose time zone's local times cut the days.
  ///   - dayStart: The local time at which "today" begins.
  ///   - policy: Recorded in each count's provenance.
  /// - Returns: The totals, as ``todayStepUpdates(calendar:policy:)``.
  public func todayStepUpdates(calendar: Calendar, dayStart: DayStart, policy: CountingPolicy)
    -> AsyncThrowingStream<StepCount, any Error>
  {
    MotionTodayUpdates(source: self, calendar: calendar, dayStart: dayStart, policy: policy).stream()
  }

  // MARK: - Internals

  /// Checks the Info.plist, the device and the permission before a request.
  func preflight() throws {
    try bundle.requireUsageDescriptions([InfoPlistKey.motionUsageDescription])
    switch device.authorizationState {
    case .unavailable: throw StepKitError.motionNotAvailable
    case .denied: throw StepKitError.motionNotAuthorized
    case .restricted: throw StepKitError.motionRestricted
    case .notRequested, .requestedReadAccessUnknown, .authorized: return
    }
  }

  private func requireDistance() throws {
    try bundle.requireUsageDescriptions([InfoPlistKey.motionUsageDescription])
    let capabilities = device.capabilities
    guard capabilities.stepCounting else { throw StepKitError.motionNotAvailable }
    guard capabilities.distance else {
      throw StepKitError.motionQueryFailed(
        code: PedometerAccess.notAvailableCode, message: "This device does not estimate distance.")
    }
  }

  func provenance(_ policy: CountingPolicy, notes: [ResultNote]) -> Provenance {
    Provenance(source: .motion, policy: policy, manualEntries: .notApplicable, notes: notes)
  }

  /// Asks the pedometer for `part`, ending it at `now` at the latest (nothing is known of the
  /// future, and CoreMotion is asked only about the past).
  private func reading(of part: DateInterval, now: Date) async throws -> PedometerReading {
    let end = min(part.end, now)
    guard end > part.start else { return .empty(at: part.start) }
    return try await pedometer.reading(from: part.start, to: end)
  }

  /// Reads `interval`, applying the seven-day window and the history limit.
  private func read(_ interval: DateInterval) async throws -> (PedometerReading, [ResultNote]) {
    try preflight()
    let now = clock.now()
    let window = MotionHistoryWindow(now: now)
    switch window.fit(interval) {
    case .inside(let part):
      return (try await reading(of: part, now: now), [])
    case .truncated(let part):
      guard historyLimit == .countAvailablePart else {
        throw StepKitError.motionOutsideHistory(earliestAvailable: window.earliest)
      }
      return (try await reading(of: part, now: now), [.truncatedHistory(earliestAvailable: window.earliest)])
    case .outside:
      throw StepKitError.motionOutsideHistory(earliestAvailable: window.earliest)
    }
  }

  /// One local day and what the pedometer answered for its part inside the range
  /// (`nil` for a part that lies wholly in the future).
  private struct DayReading {
    var day: DateInterval
    var reading: PedometerReading?
  }

  /// Reads each local day of `interval`, applying the seven-day window and the history limit.
  private func readDays(_ interval: DateInterval, calendar: Calendar, dayStart: DayStart) async throws -> (
    [DayReading], [ResultNote]
  ) {
    try preflight()
    let now = clock.now()
    let window = MotionHistoryWindow(now: now)
    switch window.fit(interval) {
    case .outside: throw StepKitError.motionOutsideHistory(earliestAvailable: window.earliest)
    case .truncated where historyLimit == .fail:
      throw StepKitError.motionOutsideHistory(earliestAvailable: window.earliest)
    case .inside, .truncated: break
    }
    var truncated = false
    var result: [DayReading] = []
    for day in LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart) {
      let part = LocalDays.part(of: day, within: interval)
      let asked: DateInterval
      switch window.fit(part) {
      case .inside(let inside): asked = inside
      case .truncated(let inside):
        truncated = true
        asked = inside
      case .outside:
        truncated = true
        continue
      }
      if asked.start >= now {
        result.append(DayReading(day: day, reading: nil))
      } else {
        result.append(DayReading(day: day, reading: try await reading(of: asked, now: now)))
      }
    }
    return (result, truncated ? [.truncatedHistory(earliestAvailable: window.earliest)] : [])
  }
}
