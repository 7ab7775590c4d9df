import Dispatch
import Foundation

/// The simulated device behind ``CMPedometer``: availability, permission, a per-minute history of
/// activity, scripted errors, and a clock that only moves when told to.
///
/// This is the stand-in's test-control surface; it does not exist in CoreMotion. Bind one to a
/// task with `PedometerSimulator.$current.withValue(simulator) { … }`, so tests running in
/// parallel each see their own device; pedometers created inside use it.
///
/// Behaviour, as on an iPhone:
/// - The history reaches back ``historyWindow`` (seven days) from ``now``; a query over older time
///   silently counts only what is left.
/// - A query whose end is ``now`` or later answers everything recorded up to ``now``; activity is
///   kept per minute, and a minute belongs to an interval when the minute's start lies in it.
/// - With permission ``CMAuthorizationStatus/notDetermined``, the first query or update start
///   shows the prompt; the person answers later (``promptAnswer``, applied on the handler queue),
///   and the request is answered after that. Requests made while the prompt is up wait for the
///   same answer. In the background (``isInBackground``) no prompt can appear: the request fails
///   with `CMErrorMotionActivityNotAuthorized` and the permission stays not determined.
/// - Handlers run on one serial background queue; updates are cumulative since their start and
///   follow each change of the visible history.
public final class PedometerSimulator: @unchecked Sendable {
  // Safe to share: all mutable state is read and written only under `lock`; handlers are called
  // outside it, on the one serial `queue`.
  /// Which pedometer features the simulated device has.
  public struct Availability: Sendable, Equatable {
    /// Step counting (`CMPedometer.isStepCountingAvailable()`).
    public var stepCounting: Bool
    /// Distance (`isDistanceAvailable()`).
    public var distance: Bool
    /// Floor counting (`isFloorCountingAvailable()`).
    public var floorCounting: Bool
    /// Pace (`isPaceAvailable()`).
    public var pace: Bool
    /// Cadence (`isCadenceAvailable()`).
    public var cadence: Bool
    /// Pause and resume events (`isPedometerEventTrackingAvailable()`).
    public var eventTracking: Bool

    /// Creates an availability table.
    /// - Parameters:
    ///   - stepCounting: Step counting.
    ///   - distance: Distance.
    ///   - floorCounting: Floor counting.
    ///   - pace: Pace.
    ///   - cadence: Cadence.
    ///   - eventTracking: Pause and resume events.
    public init(
      stepCounting: Bool, distance: Bool, floorCounting: Bool,
      pace: Bool, cadence: Bool, eventTracking: Bool
    ) {
      self.stepCounting = stepCounting
      self.distance = distance
      self.floorCounting = floorCounting
      self.pace = pace
      self.cadence = cadence
      self.eventTracking = eventTracking
    }

    /// An iPhone with a barometer: everything available.
    public static let iPhone = Availability(
      stepCounting: true, distance: true, floorCounting: true, pace: true, cadence: true, eventTracking: true)
    /// An iPad without motion coprocessor: nothing available.
    public static let none = Availability(
      stepCounting: false, distance: false, floorCounting: false, pace: false, cadence: false,
      eventTracking: false)
  }

  /// Activity recorded in one minute, or summed over an interval.
  public struct Activity: Sendable, Equatable {
    /// Steps.
    public var steps: Int
    /// Metres walked or run.
    public var distanceMeters: Double
    /// Flights of stairs climbed.
    public var floorsAscended: Int
    /// Flights of stairs descended.
    public var floorsDescended: Int

    /// Creates an activity record.
    /// - Parameters:
    ///   - steps: Steps.
    ///   - distanceMeters: Metres walked or run.
    ///   - floorsAscended: Flights of stairs climbed.
    ///   - floorsDescended: Flights of stairs descended.
    public init(steps: Int, distanceMeters: Double = 0, floorsAscended: Int = 0, floorsDescended: Int = 0) {
      self.steps = steps
      self.distanceMeters = distanceMeters
      self.floorsAscended = floorsAscended
      self.floorsDescended = floorsDescended
    }

    /// No activity.
    public static let zero = Activity(steps: 0)

    static func + (lhs: Activity, rhs: Activity) -> Activity {
      Activity(
        steps: lhs.steps + rhs.steps,
        distanceMeters: lhs.distanceMeters + rhs.distanceMeters,
        floorsAscended: lhs.floorsAscended + rhs.floorsAscended,
        floorsDescended: lhs.floorsDescended + rhs.floorsDescended)
    }
  }

  /// How far back the motion history reaches: seven days.
  public static let historyWindow: TimeInterval = 7 * 24 * 60 * 60

  /// The simulator that ``CMPedometer`` uses in the current task (a device of its own by default).
  @TaskLocal public static var current = PedometerSimulator(now: Date())

  private struct Session {
    var token: Int
    var start: Date
    var handler: HandlerBox
    var lastDelivered: Activity
  }

  private struct Sleeper {
    var deadline: Date
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now: Date
    var availability: Availability
    var authorization: CMAuthorizationStatus
    var promptAnswer: CMAuthorizationStatus
    var promptsShown = 0
    var promptOpen = false
    var isInBackground = false
    var scriptedErrors: [CMError] = []
    var minutes: [Int64: Activity] = [:]
    var sessions: [Int: Session] = [:]
    var nextID = 0
    var sleepers: [Int: Sleeper] = [:]
    var cancelledSleepers: Set<Int> = []
    var sessionWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var requestsReceived = 0
    var handlerCalls = 0
  }

  /// A pending handler call, prepared under the lock and made outside it.
  private enum Delivery: Sendable {
    case data(HandlerBox, Activity, start: Date, end: Date, availability: Availability, session: (Int, Int)?)
    case failure(HandlerBox, CMError, session: (Int, Int)?)
  }

  private let lock = NSLock()
  private var state: State
  private let queue = DispatchQueue(label: "CoreMotionStandIn.PedometerSimulator")

  /// Creates a simulated device.
  /// - Parameters:
  ///   - now: The simulated time.
  ///   - availability: The pedometer features the device has.
  ///   - authorization: The app's motion permission.
  ///   - promptAnswer: What the user answers when the permission prompt appears.
  public init(
    now: Date,
    availability: Availability = .iPhone,
    authorization: CMAuthorizationStatus = .notDetermined,
    promptAnswer: CMAuthorizationStatus = .authorized
  ) {
    state = State(
      now: now, availability: availability, authorization: authorization, promptAnswer: promptAnswer)
  }

  private func withState<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }

  // MARK: - Settings

  /// The simulated time.
  public var now: Date { withState { $0.now } }

  // Each setting is a property over the locked state, a getter and a setter of one line each,
  // alike on purpose (as in `HealthStoreSimulation` and StepKit's `SimulatedStepSource`): the
  // stand-in plays CoreMotion and may share no code with the other stand-in or with StepKit.

  /// The pedometer features the device has.
  public var availability: Availability {
    get { withState { $0.availability } }
    set { withState { $0.availability = newValue } }
  }

  /// The app's motion permission. Setting ``CMAuthorizationStatus/denied`` or
  /// ``CMAuthorizationStatus/restricted`` (the user changes Settings) ends running updates with
  /// `CMErrorMotionActivityNotAuthorized`.
  public var authorization: CMAuthorizationStatus {
    get { withState { $0.authorization } }
    set {
      let deliveries: [Delivery] = withState { state in
        state.authorization = newValue
        guard newValue == .denied || newValue == .restricted else { return [] }
        let ended = state.sessions.map { id, session in
          Delivery.failure(session.handler, CMErrorMotionActivityNotAuthorized, session: (id, session.token))
        }
        return ended
      }
      deliver(deliveries, endingSessions: true)
      notifySessionWaiters()
    }
  }

  /// What the user answers when the permission prompt appears.
  public var promptAnswer: CMAuthorizationStatus {
    get { withState { $0.promptAnswer } }
    set { withState { $0.promptAnswer = newValue } }
  }

  /// Whether the app is in the background, where the permission prompt cannot appear.
  public var isInBackground: Bool {
    get { withState { $0.isInBackground } }
    set { withState { $0.isInBackground = newValue } }
  }

  /// How many times the permission prompt appeared.
  public var promptsShown: Int { withState { $0.promptsShown } }

  /// How many queries and update starts the device received.
  public var requestsReceived: Int { withState { $0.requestsReceived } }

  /// How many handler calls the device made (answers, updates and errors).
  public var handlerCalls: Int { withState { $0.handlerCalls } }

  /// How many pedometers are receiving updates.
  public var activeUpdateSessions: Int { withState { $0.sessions.count } }

  /// Suspends until exactly `count` pedometers are receiving updates (returns at once if they
  /// are): lets a test wait for updates to start or stop without timing.
  /// - Parameter count: The number of update sessions to wait for.
  public func waitForUpdateSessions(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready: Bool = withState { state in
        if state.sessions.count == count { return true }
        state.sessionWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Wakes the tasks waiting for the current number of update sessions; call after a change.
  private func notifySessionWaiters() {
    let ready: [CheckedContinuation<Void, Never>] = withState { state in
      let count = state.sessions.count
      let due = state.sessionWaiters.filter { $0.count == count }.map(\.continuation)
      state.sessionWaiters.removeAll { $0.count == count }
      return due
    }
    for continuation in ready { continuation.resume() }
  }

  /// Makes the next requests (queries or update starts) fail with `code`, before any other check.
  /// - Parameters:
  ///   - code: The CoreMotion error code to answer with.
  ///   - count: How many requests fail.
  public func failNextRequests(with code: CMError, count: Int = 1) {
    withState { $0.scriptedErrors.append(contentsOf: repeatElement(code, count: max(0, count))) }
  }

  // MARK: - History

  /// Records activity in the minute containing `date` (added to what that minute holds).
  ///
  /// Activity at or before ``now`` is visible at once, and running updates see it.
  /// - Parameters:
  ///   - activity: The activity to add.
  ///   - date: When it happened.
  public func record(_ activity: Activity, at date: Date) {
    let deliveries: [Delivery] = withState { state in
      let minute = Self.minuteIndex(of: date)
      state.minutes[minute] = (state.minutes[minute] ?? .zero) + activity
      return Self.pendingUpdates(&state)
    }
    deliver(deliveries, endingSessions: false)
  }

  /// Records steps in the minute containing `date`.
  /// - Parameters:
  ///   - steps: Steps.
  ///   - distanceMeters: Metres.
  ///   - floorsAscended: Flights climbed.
  ///   - floorsDescended: Flights descended.
  ///   - date: When they happened.
  public func record(
    steps: Int, distanceMeters: Double = 0, floorsAscended: Int = 0, floorsDescended: Int = 0, at date: Date
  ) {
    record(
      Activity(
        steps: steps, distanceMeters: distanceMeters, floorsAscended: floorsAscended,
        floorsDescended: floorsDescended),
      at: date)
  }

  /// Records steps taken now (in the minute containing ``now``).
  /// - Parameters:
  ///   - steps: Steps.
  ///   - distanceMeters: Metres.
  public func walk(steps: Int, distanceMeters: Double = 0) {
    record(Activity(steps: steps, distanceMeters: distanceMeters), at: now)
  }

  /// The activity a query over `start..<end` would answer now (the seven-day window applied).
  /// - Parameters:
  ///   - start: The start of the interval.
  ///   - end: The end of the interval.
  /// - Returns: The summed activity.
  public func activity(from start: Date, to end: Date) -> Activity {
    withState { Self.sum($0, from: start, to: end, clampToHistory: true) }
  }

  // MARK: - Clock

  /// Moves the clock forward; newly visible activity reaches running updates, and sleepers whose
  /// deadline has come wake up.
  /// - Parameter interval: Seconds to move (negative values are ignored).
  public func advance(by interval: TimeInterval) {
    advance(to: now.addingTimeInterval(max(0, interval)))
  }

  /// Moves the clock forward to `date` (never backwards).
  /// - Parameter date: The new time.
  public func advance(to date: Date) {
    let (deliveries, woken): ([Delivery], [CheckedContinuation<Void, any Error>]) = withState { state in
      if date > state.now { state.now = date }
      let due = state.sleepers.filter { $0.value.deadline <= state.now }
      for id in due.keys { state.sleepers[id] = nil }
      return (Self.pendingUpdates(&state), due.values.map(\.continuation))
    }
    deliver(deliveries, endingSessions: false)
    for continuation in woken { continuation.resume() }
  }

  /// Suspends until the simulated clock reaches `deadline` (returns at once if it has).
  /// - Parameter deadline: The time to wait for.
  /// - Throws: `CancellationError` when the task is cancelled first.
  public func sleep(until deadline: Date) async throws {
    let id = withState { state -> Int in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let outcome: Result<Void, any Error>? = withState { state in
          if state.cancelledSleepers.remove(id) != nil { return .failure(CancellationError()) }
          if state.now >= deadline { return .success(()) }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          return nil
        }
        if let outcome { continuation.resume(with: outcome) }
      }
    } onCancel: {
      let sleeper = withState { state -> Sleeper? in
        if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
        state.cancelledSleepers.insert(id)
        return nil
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// How many tasks are waiting in ``sleep(until:)``.
  public var sleepers: Int { withState { $0.sleepers.count } }

  /// Waits until every handler call queued so far has been made, including the answers to
  /// requests that waited for the prompt (those are queued once the person has answered).
  public func waitForDeliveries() async {
    for _ in 0..<2 {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        queue.async { continuation.resume() }
      }
    }
  }

  // MARK: - Requests from CMPedometer

  func registerPedometer() -> Int {
    withState { state in
      state.nextID += 1
      return state.nextID
    }
  }

  /// Whether a request must wait for the person to answer the prompt: the permission is not
  /// determined and the app is in the foreground. Shows the prompt unless it is already up.
  private static func waitsForPrompt(_ state: inout State) -> Bool {
    guard state.authorization == .notDetermined, !state.isInBackground, state.availability.stepCounting,
      state.scriptedErrors.isEmpty
    else { return false }
    if !state.promptOpen {
      state.promptOpen = true
      state.promptsShown += 1
    }
    return true
  }

  /// Runs `request` once the person has answered the prompt (on the handler queue), or at once.
  private func afterPrompt(_ request: @escaping @Sendable () -> Void) {
    let waits = withState { Self.waitsForPrompt(&$0) }
    guard waits else { return request() }
    queue.async { [self] in
      withState { state in
        if state.promptOpen, state.authorization == .notDetermined {
          state.authorization = state.promptAnswer
        }
        state.promptOpen = false
      }
      request()
    }
  }

  /// Applies scripted errors, availability and permission (the prompt was answered before).
  private static func admit(_ state: inout State) -> CMError? {
    state.requestsReceived += 1
    if !state.scriptedErrors.isEmpty { return state.scriptedErrors.removeFirst() }
    guard state.availability.stepCounting else { return CMErrorMotionActivityNotAvailable }
    switch state.authorization {
    case .authorized: return nil
    case .notDetermined, .restricted, .denied: return CMErrorMotionActivityNotAuthorized
    }
  }

  func query(from start: Date, to end: Date, handler: @escaping CMPedometerHandler) {
    let box = HandlerBox(handler)
    afterPrompt { [self] in answerQuery(from: start, to: end, box: box) }
  }

  private func answerQuery(from start: Date, to end: Date, box: HandlerBox) {
    let delivery: Delivery = withState { state in
      if let error = Self.admit(&state) { return .failure(box, error, session: nil) }
      guard end >= start else { return .failure(box, CMErrorInvalidParameter, session: nil) }
      let activity = Self.sum(state, from: start, to: end, clampToHistory: true)
      return .data(box, activity, start: start, end: end, availability: state.availability, session: nil)
    }
    deliver([delivery], endingSessions: false)
  }

  func startUpdates(pedometerID: Int, from start: Date, handler: @escaping CMPedometerHandler) {
    let box = HandlerBox(handler)
    afterPrompt { [self] in beginUpdates(pedometerID: pedometerID, from: start, box: box) }
  }

  private func beginUpdates(pedometerID: Int, from start: Date, box: HandlerBox) {
    let failure: Delivery? = withState { state in
      state.sessions[pedometerID] = nil
      if let error = Self.admit(&state) { return .failure(box, error, session: nil) }
      state.nextID += 1
      let baseline = Self.cumulative(state, since: start)
      state.sessions[pedometerID] = Session(
        token: state.nextID, start: start, handler: box, lastDelivered: baseline)
      return nil
    }
    if let failure { deliver([failure], endingSessions: false) }
    notifySessionWaiters()
  }

  func stopUpdates(pedometerID: Int) {
    withState { $0.sessions[pedometerID] = nil }
    notifySessionWaiters()
  }

  // MARK: - Internals

  private static func minuteIndex(of date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 / 60).rounded(.down))
  }

  private static func minuteStart(_ index: Int64) -> Date {
    Date(timeIntervalSince1970: TimeInterval(index) * 60)
  }

  private static func sum(_ state: State, from start: Date, to end: Date, clampToHistory: Bool) -> Activity {
    let lower = clampToHistory ? max(start, state.now.addingTimeInterval(-historyWindow)) : start
    let reachesNow = end >= state.now
    var total = Activity.zero
    for (index, activity) in state.minutes {
      let minute = minuteStart(index)
      guard minute >= lower, minute <= state.now else { continue }
      guard reachesNow || minute < end else { continue }
      total = total + activity
    }
    return total
  }

  private static func cumulative(_ state: State, since start: Date) -> Activity {
    sum(state, from: start, to: state.now, clampToHistory: false)
  }

  private static func pendingUpdates(_ state: inout State) -> [Delivery] {
    var deliveries: [Delivery] = []
    for (id, session) in state.sessions.sorted(by: { $0.key < $1.key }) {
      let activity = cumulative(state, since: session.start)
      guard activity != session.lastDelivered else { continue }
      state.sessions[id]?.lastDelivered = activity
      deliveries.append(
        .data(
          session.handler, activity, start: session.start, end: state.now, availability: state.availability,
          session: (id, session.token)))
    }
    return deliveries
  }

  /// Queues handler calls; a call for an update session is skipped if the session has ended by then.
  private func deliver(_ deliveries: [Delivery], endingSessions: Bool) {
    for delivery in deliveries {
      let session: (Int, Int)?
      switch delivery {
      case .data(_, _, _, _, _, let owner), .failure(_, _, let owner): session = owner
      }
      if endingSessions, let (id, token) = session {
        withState { state in
          if state.sessions[id]?.token == token { state.sessions[id] = nil }
        }
      }
      queue.async { [self] in
        let stillWanted = withState { state -> Bool in
          if !endingSessions, let (id, token) = session, state.sessions[id]?.token != token { return false }
          state.handlerCalls += 1
          return true
        }
        guard stillWanted else { return }
        switch delivery {
        case .data(let box, let activity, let start, let end, let availability, _):
          box.handler(CMPedometerData(activity, start: start, end: end, availability: availability), nil)
        case .failure(let box, let code, _):
          let error = NSError(
            domain: CMErrorDomain, code: Int(code.rawValue),
            userInfo: [
              NSLocalizedDescriptionKey:
                "The operation couldn’t be completed. (CMErrorDomain error \(code.rawValue).)"
            ])
          box.handler(nil, error)
        }
      }
    }
  }
}

/// Holds a handler (not `Sendable` in CoreMotion's signature) for the simulator's serial queue.
///
/// Every call happens on that one queue, so the handler is never run concurrently with itself.
final class HandlerBox: @unchecked Sendable {
  // Safe to share: the handler is only ever called on the simulator's one serial queue.
  let handler: CMPedometerHandler

  init(_ handler: @escaping CMPedometerHandler) {
    self.handler = handler
  }
}
