import Foundation

/// Time to finish work when the app is not in the foreground, and word of
/// when it runs out.
///
/// HealthKit's background delivery wakes an app for a short time; work that
/// outlasts it (a slow statistics query, the merge check's sample query, an
/// `onUpdate` that uploads) is frozen when iOS suspends the app, and
/// HealthKit's completion handler is never called, so HealthKit backs off.
/// StepKit holds this assertion around background work and, when the system
/// says time is up, calls the completion at once.
///
/// ``SystemBackgroundTime`` asks `ProcessInfo.performExpiringActivity(withReason:using:)`,
/// which works in an app and in its extensions (widgets) alike, where
/// `UIApplication.shared.beginBackgroundTask` is unavailable. Tests pass a
/// simulated device's.
public protocol BackgroundTime: Sendable {
  /// Runs `block` asynchronously, as `ProcessInfo.performExpiringActivity(withReason:using:)`
  /// does: with `false` while the process may run, keeping it running until
  /// that call returns; again, concurrently, with `true` shortly before the
  /// process is suspended; or only with `true` when no time can be had.
  ///
  /// - Parameters:
  ///   - reason: What the time is for (shown when debugging); not empty.
  ///   - block: The work; its argument says whether time ran out.
  func performExpiringActivity(withReason reason: String, using block: @escaping @Sendable (Bool) -> Void)
}

/// The system's background time: `ProcessInfo.performExpiringActivity(withReason:using:)`
/// on iOS and watchOS; elsewhere a process is never suspended, and `block`
/// runs once with `false` on a thread of its own (it may wait for the work,
/// and must not hold a thread of Dispatch's small pool meanwhile).
public struct SystemBackgroundTime: BackgroundTime {
  /// Creates the system's background time.
  public init() {}

  /// Asks the system for time (see ``BackgroundTime/performExpiringActivity(withReason:using:)``).
  ///
  /// - Parameters:
  ///   - reason: What the time is for.
  ///   - block: The work; its argument says whether time ran out.
  public func performExpiringActivity(
    withReason reason: String, using block: @escaping @Sendable (Bool) -> Void
  ) {
    #if os(iOS) || os(watchOS) || os(tvOS) || os(visionOS)
      ProcessInfo.processInfo.performExpiringActivity(withReason: reason, using: block)
    #else
      Thread { block(false) }.start()
    #endif
  }
}

extension StepCounter {
  /// How long background work may take by the counter's own clock, whatever
  /// the system grants: HealthKit's completion is called after 25 seconds at
  /// the latest (iOS gives a background launch about 30).
  public static let backgroundTimeLimit: TimeInterval = 25

  /// Runs `work` holding background time, and calls `finished` exactly once:
  /// with `false` when `work` returns, or with `true` as soon as time runs
  /// out (the system's notice, or ``backgroundTimeLimit`` on `clock`),
  /// whichever comes first. On expiry `work` is cancelled; it asks
  /// `inTime` before it hands anything on.
  static func boundedInBackground(
    _ time: any BackgroundTime, clock: any StepClock, reason: String,
    work: @escaping @Sendable (_ inTime: @escaping @Sendable () -> Bool) async -> Void,
    finished: @escaping @Sendable (_ expired: Bool) -> Void
  ) {
    let state = LockedValue<(done: Bool, tasks: [Task<Void, Never>])>((false, []))
    let released = Release()
    let finish: @Sendable (Bool) -> Void = { expired in
      let tasks: [Task<Void, Never>]? = state.update { state in
        if state.done { return nil }
        state.done = true
        defer { state.tasks = [] }
        return state.tasks
      }
      guard let tasks else { return }
      for task in tasks { task.cancel() }
      finished(expired)
      released.signal()
    }
    time.performExpiringActivity(withReason: reason) { expired in
      // The system keeps the process running until this call with `false` returns.
      if expired { finish(true) } else { released.wait() }
    }
    let worker = Task {
      await work { !state.value.done }
      finish(false)
    }
    let limit = clock.now().addingTimeInterval(backgroundTimeLimit)
    let deadline = Task {
      do { try await clock.sleep(until: limit) } catch { return }
      finish(true)
    }
    let late = state.update { state -> Bool in
      if state.done { return true }
      state.tasks = [worker, deadline]
      return false
    }
    if late { deadline.cancel() }
  }
}

/// One thread waits until another lets it go; a release before the wait is kept.
final class Release: @unchecked Sendable {
  // Safe to share: a semaphore is safe to use from any thread; older SDKs do not mark it Sendable.
  private let semaphore = DispatchSemaphore(value: 0)

  /// Lets the waiting thread (or the next one to wait) go.
  func signal() { semaphore.signal() }

  /// Blocks until ``signal()``.
  func wait() { semaphore.wait() }
}
