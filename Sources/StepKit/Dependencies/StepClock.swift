import Foundation
import StepKitCore

/// The time, a way to wait for a given time, and where the device says that
/// the day, the time zone or the lock state changed: what live updates need
/// to roll over at midnight, follow the phone across time zones, and resume
/// after the phone is unlocked.
///
/// Use ``SystemClock`` in the app and ``ManualClock`` in tests, which moves
/// only when told to and has a notification center of its own.
public protocol StepClock: Sendable {
  /// The current date.
  func now() -> Date

  /// Suspends until the clock reaches `date`.
  ///
  /// - Parameter date: When to resume.
  /// - Throws: `CancellationError` when the waiting task is cancelled.
  func sleep(until date: Date) async throws

  /// Where ``DeviceNotification``s are posted; `NotificationCenter.default` by default.
  var notificationCenter: NotificationCenter { get }
}

extension StepClock {
  /// The app's notification center, where the system posts
  /// `NSCalendarDayChanged`, `NSSystemTimeZoneDidChange` and
  /// `UIApplication.protectedDataDidBecomeAvailableNotification`.
  public var notificationCenter: NotificationCenter { .default }
}

/// The system notifications StepKit's live updates follow.
public enum DeviceNotification {
  /// The calendar day changed (`NSCalendarDayChanged`): at midnight, after a
  /// time or time-zone change, or when the app wakes after midnight.
  public static let calendarDayChanged: Notification.Name = .NSCalendarDayChanged
  /// The phone's time zone changed (`NSSystemTimeZoneDidChange`).
  public static let systemTimeZoneDidChange: Notification.Name = .NSSystemTimeZoneDidChange
  /// Protected data (the Health database) became readable after the phone was
  /// unlocked (`UIApplication.protectedDataDidBecomeAvailableNotification`).
  public static let protectedDataDidBecomeAvailable = Notification.Name(
    "UIApplicationProtectedDataDidBecomeAvailable")
}

/// Observes notifications until cancelled (or released), calling `body` for each.
final class NotificationObservation: @unchecked Sendable {
  // Safe to share: `tokens` is read and written only under `lock`; `NotificationCenter` is thread-safe.
  private let center: NotificationCenter
  private let lock = NSLock()
  private var tokens: [NSObjectProtocol]

  init(center: NotificationCenter, names: [Notification.Name], _ body: @escaping @Sendable () -> Void) {
    self.center = center
    tokens = names.map { name in center.addObserver(forName: name, object: nil, queue: nil) { _ in body() } }
  }

  func cancel() {
    let ended: [NSObjectProtocol] = lock.withLock {
      defer { tokens = [] }
      return tokens
    }
    for token in ended { center.removeObserver(token) }
  }

  deinit { cancel() }
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
  // Safe to share: `current` and `waiters` are read and written only under `lock`.
  private let lock = NSLock()
  private var current: Date
  private var waiters: [(id: UInt64, deadline: Date, continuation: CheckedContinuation<Void, any Error>)] = []
  private var nextID: UInt64 = 0
  private var sleepers = 0

  /// Creates a clock showing `now`.
  ///
  /// - Parameters:
  ///   - now: The starting time.
  ///   - notificationCenter: Where tests post ``DeviceNotification``s; a
  ///     center of the clock's own by default, so tests running in parallel
  ///     do not see each other's.
  public init(now: Date, notificationCenter: NotificationCenter = NotificationCenter()) {
    current = now
    self.notificationCenter = notificationCenter
  }

  /// Where ``DeviceNotification``s reach live updates that use this clock.
  public let notificationCenter: NotificationCenter

  /// The clock's current date.
  public func now() -> Date { lock.withLock { current } }

  /// Moves the clock to `date` (never backwards) without waking the tasks
  /// waiting in ``sleep(until:)``: what a suspended app sees when it wakes
  /// after midnight, before its timers have fired. The system then posts
  /// ``DeviceNotification/calendarDayChanged``; ``post(_:)`` it to follow.
  ///
  /// - Parameter date: The new time.
  public func jump(to date: Date) {
    lock.withLock { if date > current { current = date } }
  }

  /// Posts a ``DeviceNotification`` on ``notificationCenter``.
  ///
  /// - Parameter name: ``DeviceNotification/calendarDayChanged``,
  ///   ``DeviceNotification/systemTimeZoneDidChange`` or
  ///   ``DeviceNotification/protectedDataDidBecomeAvailable``.
  public func post(_ name: Notification.Name) {
    notificationCenter.post(name: name, object: nil)
  }

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
        // Cancelled before waiting (the cancellation handler found no waiter to end): never wait.
        let resumeNow: Bool? = lock.withLock {
          if date <= current { return true }
          if Task.isCancelled { return nil }
          waiters.append((id, date, continuation))
          return false
        }
        switch resumeNow {
        case true?: continuation.resume()
        case nil: continuation.resume(throwing: CancellationError())
        case false?: break
        }
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
  /// Calls `body` at every day start (local midnight, or `dayStart`) of
  /// `calendar`, and whenever the system says the day or the time zone
  /// changed (`NSCalendarDayChanged`, `NSSystemTimeZoneDidChange`), until
  /// cancelled: what starts live counts on a new day, and on the right day
  /// start after travel.
  ///
  /// The first day start is fixed when this is called, so that a clock moved
  /// past it before the task runs still produces the rollover. After a
  /// notification, and after each rollover, the next one is worked out afresh
  /// (with `Calendar.autoupdatingCurrent`, in the time zone of that moment).
  func dayChanges(calendar: Calendar, dayStart: DayStart = .midnight, _ body: @escaping @Sendable () -> Void)
    -> DayChanges
  {
    DayChanges(clock: self, calendar: calendar, dayStart: dayStart, body)
  }
}

/// The running day-change watch of ``StepClock/dayChanges(calendar:dayStart:_:)``.
final class DayChanges: @unchecked Sendable {
  // Safe to share: the `let`s are constant (`body` is `@Sendable`); `sleeper`, `observation` and
  // `cancelled` are read and written only under `lock`.
  private let clock: any StepClock
  private let calendar: Calendar
  private let dayStart: DayStart
  private let body: @Sendable () -> Void
  private let lock = NSLock()
  private var sleeper: Task<Void, Never>?
  private var observation: NotificationObservation?
  private var cancelled = false

  init(clock: any StepClock, calendar: Calendar, dayStart: DayStart, _ body: @escaping @Sendable () -> Void) {
    self.clock = clock
    self.calendar = calendar
    self.dayStart = dayStart
    self.body = body
    schedule(until: LocalDays.day(containing: clock.now(), calendar: calendar, dayStart: dayStart).end)
    observation = NotificationObservation(
      center: clock.notificationCenter,
      names: [DeviceNotification.calendarDayChanged, DeviceNotification.systemTimeZoneDidChange]
    ) { [weak self] in
      guard let self else { return }
      self.schedule(
        until: LocalDays.day(containing: self.clock.now(), calendar: self.calendar, dayStart: self.dayStart)
          .end)
      self.body()
    }
  }

  /// Replaces the wait with one for `first`, then for each following day start.
  private func schedule(until first: Date) {
    let clock = clock
    let calendar = calendar
    let dayStart = dayStart
    let body = body
    let task = Task {
      var next = first
      while !Task.isCancelled {
        do { try await clock.sleep(until: next) } catch { return }
        next = LocalDays.day(containing: max(clock.now(), next), calendar: calendar, dayStart: dayStart).end
        body()
      }
    }
    let previous: Task<Void, Never>? = lock.withLock {
      if cancelled { return task }
      defer { sleeper = task }
      return sleeper
    }
    previous?.cancel()
  }

  /// Stops the watch: `body` is not called again.
  func cancel() {
    let (task, watch): (Task<Void, Never>?, NotificationObservation?) = lock.withLock {
      cancelled = true
      defer {
        sleeper = nil
        observation = nil
      }
      return (sleeper, observation)
    }
    task?.cancel()
    watch?.cancel()
  }
}
