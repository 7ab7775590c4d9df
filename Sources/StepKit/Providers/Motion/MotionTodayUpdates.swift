import Foundation
import StepKitCore

/// Today's live step count from the coprocessor: a baseline query, then cumulative pedometer
/// updates from the day start (local midnight by default), restarted at each day start and when
/// the system says the day or the time zone changed.
///
/// One session per day: `startUpdates(from: dayStart)` on a pedometer of its own, a query for
/// the total so far, and a wait on the clock until the next day start. Everything the pedometer
/// and the clock report arrives as an event tagged with its session, so a late answer from
/// yesterday's session can never be shown as today's count.
struct MotionTodayUpdates: Sendable {
  let source: MotionStepSource
  let calendar: Calendar
  let dayStart: DayStart
  let policy: CountingPolicy

  private enum Event: Sendable {
    case reading(PedometerReading, session: Int)
    case failed(StepKitError, session: Int)
    case midnight(session: Int)
    /// The system said the day or the time zone changed.
    case dayChanged
  }

  /// The sequence; iterating it runs the sessions, and stopping the iteration stops them.
  func stream() -> AsyncThrowingStream<StepCount, any Error> {
    AsyncThrowingStream<StepCount, any Error>.endingAtFirstError { continuation in
      let task = Task { await run(continuation) }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The local day (from the day start) containing `now` (a DST change may make it 23 or 25
  /// hours long, or start it after the day start where that time is skipped).
  func day(containing now: Date) -> DateInterval {
    LocalDays.day(containing: now, calendar: calendar, dayStart: dayStart)
  }

  private func run(_ output: AsyncThrowingStream<StepCount, any Error>.Continuation) async {
    var eventSink: AsyncStream<Event>.Continuation?
    let events = AsyncStream<Event> { eventSink = $0 }
    guard let sink = eventSink else {
      output.finish()
      return
    }
    let pedometer = MotionPedometer(on: source.device)
    var midnight: Task<Void, Never>?
    var session = 0
    var today = day(containing: source.clock.now())
    var last: (end: Date, steps: Int)?

    /// Starts the session for `today` and yields the total so far.
    func begin() async throws {
      session += 1
      last = nil
      let current = session
      let start = today.start
      await pedometer.startUpdates(from: start) { result in
        switch result {
        case .success(let reading): sink.yield(.reading(reading, session: current))
        case .failure(let error): sink.yield(.failed(error, session: current))
        }
      }
      midnight?.cancel()
      let clock = source.clock
      let end = today.end
      midnight = Task {
        do {
          try await clock.sleep(until: end)
          sink.yield(.midnight(session: current))
        } catch {
          // Cancelled: the session ended first.
        }
      }
      let now = source.clock.now()
      // At the very first moment of the day there is nothing to ask about yet.
      let baseline = now > start ? try await pedometer.reading(from: start, to: now) : .empty(at: start)
      publish(baseline)
    }

    /// Yields a reading of the current session if it is newer than the last and changes the count.
    func publish(_ reading: PedometerReading) {
      if let last, reading.end < last.end || reading.steps == last.steps { return }
      last = (reading.end, reading.steps)
      let end = min(max(reading.end, today.start), today.end)
      output.yield(
        StepCount(
          interval: DateInterval(start: today.start, end: end), steps: Double(reading.steps),
          provenance: source.provenance(policy, notes: []), hasData: reading.steps > 0))
    }

    /// Ends yesterday's session and starts today's.
    func rollOver() async throws {
      await pedometer.stopUpdates()
      today = day(containing: max(source.clock.now(), today.end))
      try await begin()
    }

    /// Starts the session of the day containing now, if that is not the current one (after a
    /// time-zone change the day may start at another midnight).
    func followDayChange() async throws {
      let current = day(containing: source.clock.now())
      guard current != today else { return }
      await pedometer.stopUpdates()
      today = current
      try await begin()
    }

    let dayChanges = NotificationObservation(
      center: source.clock.notificationCenter,
      names: [DeviceNotification.calendarDayChanged, DeviceNotification.systemTimeZoneDidChange]
    ) { sink.yield(.dayChanged) }
    defer { dayChanges.cancel() }

    var failure: (any Error)?
    do {
      try source.preflight()
      try await begin()
      for await event in events {
        switch event {
        case .reading(let reading, let owner) where owner == session:
          // A reading past midnight belongs to tomorrow: roll over even if the clock's
          // wake-up is late (the app was suspended).
          if reading.end > today.end {
            try await rollOver()
          } else {
            publish(reading)
          }
        case .failed(let error, let owner) where owner == session:
          throw error
        case .midnight(let owner) where owner == session:
          try await rollOver()
        case .dayChanged:
          try await followDayChange()
        case .reading, .failed, .midnight:
          continue  // from an ended session
        }
      }
    } catch {
      failure = error
    }
    midnight?.cancel()
    await pedometer.stopUpdates()
    sink.finish()
    if let failure {
      output.finish(throwing: failure)
    } else {
      output.finish()
    }
  }
}
