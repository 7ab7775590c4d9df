import Foundation

/// The time, and a way to wait for a given time: what live updates need to
/// roll over at midnight.
///
/// Use ``SystemClock`` in the app and ``ManualClock`` in tests, which moves
/// only when told to.
public protocol StepClock: Sendable {
  /// The current date.
  func now() -> Date

  /// Suspends until the clock reaches `date`.
  ///
  /// - Parameter date: When to resume.
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  func sleep(until date: Date) async throws
}

/// The device's clock.
public struct SystemClock: StepClock {
  /// Creates the system clock.
  public init() {}

  /// The current date.
  public func now() -> Date { Date() }

  /// Suspends until the wall clock reaches `date`, re-checking after each
  /// sleep so that a changed system time is noticed.
  ///
  /// - Parameter date: When to resume.
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  public func sleep(until date: Date) async throws {
    while true {
      let remaining = date.timeIntervalSinceNow
      if remaining <= 0 { return }
      // Wake at least every ten minutes: the wall clock may jump.
      let seconds = min(remaining, 600)
      try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
  }
}

/// A clock that moves only when a test moves it.
///
/// ```swift
/// let clock = ManualClock(now: date("2026-03-08T23:59:00"))
/// clock.advance(by: 120)   // resumes everything waiting for midnight
/// ```
public final class ManualClock: StepClock, @unchecked Sendable {
  private let lock = NSLock()
  private var current: Date
  private var waiters: [(id: UInt64, deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = []
  private var nextID: UInt64 = 0
  private var sleepers = 0

  /// Creates a clock showing `now`.
  ///
  /// - Parameter now: The starting time.
  public init(now: Date) { current = now }

  /// The clock's current date.
  public func now() -> Date { lock.withLock { current } }

  /// How many tasks are waiting in ``sleep(until:)`` right now.
  public var waitingCount: Int { lock.withLock { waiters.count } }

  /// Moves the clock to `date` (never backwards) and resumes every task
  /// waiting for a time up to `date`.
  ///
  /// - Parameter date: The new time.
  public func advance(to date: Date) {
    let due: [CheckedContinuation<Void, any Error>] = lock.withLock {
      if date > current { current = date }
      let ready = waiters.filter { $0.deadline <= current }
      waiters.removeAll { $0.deadline <= current }
      return ready.map(\.continuation)
    }
    for continuation in due { continuation.resume() }
  }

  /// Moves the clock forward by `seconds`.
  ///
  /// - Parameter seconds: How far to move.
  public func advance(by seconds: TimeInterval) { advance(to: now().addingTimeInterval(seconds)) }

  /// Suspends until ``advance(to:)`` reaches `date`.
  ///
  /// - Parameter date: When to resume.
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  public func sleep(until date: Date) async throws {
    let id: UInt64 = lock.withLock {
      nextID += 1
      return nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow: Bool = lock.withLock {
          if date <= current { return true }
          waiters.append((id, date, continuation))
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      let cancelled: CheckedContinuation<Void, any Error>? = lock.withLock {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).continuation
      }
      cancelled?.resume(throwing: CancellationError())
    }
    try Task.checkCancellation()
  }
}

extension StepClock {
  /// Starts a task that calls `body` at every local midnight of `calendar`
  /// until it is cancelled: what rolls live counts over to a new day.
  ///
  /// The first midnight is fixed when this is called, so that a clock moved
  /// past midnight before the task runs still produces the rollover.
  func midnightTicks(calendar: Calendar, _ body: @escaping @Sendable () -> Void) -> Task<Void, Never> {
    let firstDayEnd = LocalDays.day(containing: now(), calendar: calendar).end
    return Task {
      var next = firstDayEnd
      while !Task.isCancelled {
        do { try await sleep(until: next) } catch { return }
        next = LocalDays.day(containing: now(), calendar: calendar).end
        body()
      }
    }
  }
}
