import Foundation

// The simulated device's process: the background time it grants
// (`ProcessInfo.performExpiringActivity(withReason:using:)`), time running out, and a
// suspended app whose HealthKit handlers wait. On a device the process, not HealthKit,
// grants the time; the simulation plays both so that a test can run out of time at a
// chosen moment of a query or of the app's own work.
extension HealthStoreSimulation {
  /// Whether the device grants background time; `true` by default. When
  /// `false`, ``performExpiringActivity(withReason:using:)`` calls its block
  /// once, with `true`, as a device does when it cannot take the assertion.
  public var grantsBackgroundTime: Bool {
    get { withState { $0.grantsBackgroundTime } }
    set { withState { $0.grantsBackgroundTime = newValue } }
  }

  /// `ProcessInfo.performExpiringActivity(withReason:using:)` on the
  /// simulated device: runs `block` with `false` on a thread of its own and
  /// holds background time until that call returns; ``expireBackgroundTime()``
  /// calls it again, concurrently, with `true`. An empty reason raises an
  /// exception on a device, as here (``raisedExceptions``).
  ///
  /// - Parameters:
  ///   - reason: What the time is for; not empty.
  ///   - block: The work; its argument says whether time ran out.
  public func performExpiringActivity(
    withReason reason: String, using block: @escaping @Sendable (Bool) -> Void
  ) {
    if reason.isEmpty {
      raise("NSInvalidArgumentException: performExpiringActivityWithReason: reason must not be empty")
      return
    }
    let id: UInt64? = withState { state in
      guard state.grantsBackgroundTime, !state.isSuspended else { return nil }
      state.activityCount += 1
      state.expiringActivities[state.activityCount] = block
      return state.activityCount
    }
    guard let id else {
      handlerQueue.async { block(true) }
      return
    }
    resumeActivityWaiters()
    // A thread of its own, as the system's activity queue: the block may wait for its work.
    Thread { [self] in
      block(false)
      withState { _ = $0.expiringActivities.removeValue(forKey: id) }
      resumeActivityWaiters()
    }.start()
  }

  /// How many activities hold background time now (their call with `false`
  /// has not returned).
  public var heldBackgroundActivities: Int { withState { $0.expiringActivities.count } }

  /// Suspends until exactly `count` activities hold background time (returns
  /// at once if they do): lets a test wait without timing.
  ///
  /// - Parameter count: The number of held activities to wait for.
  public func waitForHeldBackgroundActivities(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready: Bool = withState { state in
        if state.expiringActivities.count == count { return true }
        state.activityWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  private func resumeActivityWaiters() {
    let due: [CheckedContinuation<Void, Never>] = withState { state in
      let held = state.expiringActivities.count
      defer { state.activityWaiters.removeAll { $0.count == held } }
      return state.activityWaiters.filter { $0.count == held }.map(\.continuation)
    }
    for continuation in due { continuation.resume() }
  }

  /// The app's background time runs out, as on a device: each held
  /// activity's block is called with `true`, here on the calling thread (the
  /// system holds the suspension back until they return), and then the app
  /// is suspended: query and observer handlers wait until ``resumeApp()``.
  /// An observer completion handler not called by then stays uncalled while
  /// the app is suspended, and HealthKit backs off.
  public func expireBackgroundTime() {
    let blocks = withState { state in Array(state.expiringActivities.values) }
    for block in blocks { block(true) }
    withState { $0.isSuspended = true }
  }

  /// Whether the app is suspended (after ``expireBackgroundTime()``).
  public var isSuspended: Bool { withState { $0.isSuspended } }

  /// Brings a suspended app back, as when the person opens it: the handlers
  /// held while it was suspended run now.
  public func resumeApp() {
    withState { $0.isSuspended = false }
    releaseHeldHandlers()
  }

  /// Whether the Health database is slow to answer: while `true`, query
  /// handlers wait (a busy device, a merge check reading many samples);
  /// setting it back to `false` runs them, unless the app is suspended.
  /// Observer calls are not held.
  public var holdsAnswers: Bool {
    get { withState { $0.holdsAnswers } }
    set {
      withState { $0.holdsAnswers = newValue }
      if !newValue { releaseHeldHandlers() }
    }
  }

  /// Runs a query's handler (or, with `observer`, an observer's) on the
  /// handler queue, or holds it while the app is suspended or query answers are held.
  func runHandler(observer: Bool = false, _ handler: @escaping @Sendable () -> Void) {
    let held: Bool = withState { state in
      guard state.isSuspended || (state.holdsAnswers && !observer) else { return false }
      state.heldHandlers.append((observer, handler))
      return true
    }
    if !held { handlerQueue.async(execute: handler) }
  }

  private func releaseHeldHandlers() {
    let ready: [@Sendable () -> Void] = withState { state in
      guard !state.isSuspended else { return [] }
      let due = state.heldHandlers.filter { $0.observer || !state.holdsAnswers }
      state.heldHandlers.removeAll { $0.observer || !state.holdsAnswers }
      return due.map(\.handler)
    }
    for handler in ready { handlerQueue.async(execute: handler) }
  }
}
