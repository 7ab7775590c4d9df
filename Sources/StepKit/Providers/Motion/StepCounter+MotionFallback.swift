import Foundation
import StepKitCore

// Live updates under the default strategy, `healthKitThenMotion`: HealthKit's counts while it
// has data, the coprocessor's while it has none or cannot answer, decided again on every
// HealthKit count and at midnight; each CoreMotion count says why it is shown.
extension StepCounter {
  /// What the relay hears from the two sources.
  private enum FallbackEvent: Sendable {
    case health(StepCount)
    case healthEnded((any Error)?)
    /// From the `session`-th run of CoreMotion's updates (a stopped run's late events are ignored).
    case motion(StepCount, session: Int)
    case motionEnded((any Error)?, session: Int)
  }

  /// Relays today's live counts for ``Strategy/healthKitThenMotion``.
  ///
  /// - HealthKit not configured, or unavailable on the device: CoreMotion's counts throughout.
  /// - Each HealthKit count with data is shown (and CoreMotion's updates stop).
  /// - A HealthKit count without data (read access probably denied, or nothing recorded yet)
  ///   asks CoreMotion, only if it is already authorized: when it has steps, its live counts are
  ///   shown with ``FallbackReason/healthKitReturnedNoData`` (or
  ///   ``FallbackReason/healthDatabaseLocked`` for a locked phone's empty count) until a
  ///   HealthKit count has data again; otherwise HealthKit's empty count is shown.
  /// - HealthKit's updates failing with an error that allows a fallback: CoreMotion's counts
  ///   with that reason when CoreMotion is already authorized (else HealthKit's error ends the
  ///   sequence: no prompt unasked), and HealthKit is tried again when CoreMotion's day rolls over.
  ///
  /// - Throws: HealthKit's error when it does not allow a fallback; CoreMotion's error while
  ///   its counts are shown.
  static func healthKitThenMotionUpdates(
    health: (any HealthDataSource)?, motion: (any StepSource)?, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy,
    into output: AsyncThrowingStream<StepCount, any Error>.Continuation
  ) async throws {
    guard let health else {
      guard let motion else { throw StepKitError.sourceNotConfigured(.healthKit) }
      return try await relay(
        motion, reason: .healthKitNotConfigured, calendar: calendar, dayStart: dayStart, policy: policy,
        into: output)
    }
    guard let motion else {
      return try await relay(
        health, reason: nil, calendar: calendar, dayStart: dayStart, policy: policy, into: output)
    }
    if await health.authorizationState() == .unavailable {
      return try await relay(
        motion, reason: .healthDataUnavailable, calendar: calendar, dayStart: dayStart, policy: policy,
        into: output)
    }

    let (events, sink) = makeAsyncStream(of: FallbackEvent.self)
    func follow(
      _ source: any StepSource, count: @escaping @Sendable (StepCount) -> FallbackEvent,
      ended: @escaping @Sendable ((any Error)?) -> FallbackEvent
    ) -> Task<Void, Never> {
      Task {
        do {
          for try await value in source.todayStepUpdates(
            calendar: calendar, dayStart: dayStart, policy: policy)
          {
            sink.yield(count(value))
          }
          sink.yield(ended(nil))
        } catch {
          sink.yield(ended(error))
        }
      }
    }
    func followHealth() -> Task<Void, Never> {
      follow(health, count: { .health($0) }, ended: { .healthEnded($0) })
    }
    var motionSession = 0
    func followMotion() -> Task<Void, Never> {
      motionSession += 1
      let session = motionSession
      return follow(
        motion, count: { .motion($0, session: session) }, ended: { .motionEnded($0, session: session) })
    }

    var healthTask: Task<Void, Never>? = followHealth()
    var motionTask: Task<Void, Never>?
    defer {
      healthTask?.cancel()
      motionTask?.cancel()
      sink.finish()
    }
    /// Why CoreMotion's counts are shown; `nil` while HealthKit's are.
    var reason: FallbackReason?
    /// Whether HealthKit's updates failed, and the day CoreMotion was counting then: HealthKit
    /// is tried again on the next.
    var healthFailed = false
    var healthFailedOn: Date?
    var last: StepCount?
    func show(_ count: StepCount) {
      // The same steps of the same day from the same source, differing only in how far the
      // interval reaches (a probe, then the live count), are not repeated.
      if let last, last.interval.start == count.interval.start, last.steps == count.steps,
        last.provenance == count.provenance, last.hasData == count.hasData
      {
        return
      }
      last = count
      output.yield(count)
    }
    func marked(_ count: StepCount, _ why: FallbackReason) -> StepCount {
      var count = count
      count.provenance.fallbackReason = why
      if why == .healthKitReturnedNoData, !count.provenance.notes.contains(.noDataMayMeanDeniedAccess) {
        count.provenance.notes.append(.noDataMayMeanDeniedAccess)
      }
      return count
    }
    func showHealthKit(_ count: StepCount) {
      reason = nil
      motionTask?.cancel()
      motionTask = nil
      show(count)
    }

    for await event in events {
      if Task.isCancelled { break }
      switch event {
      case .health(let count):
        guard !count.hasData, await mayProbe(motion),
          let probe = try? await motion.steps(in: count.interval, policy: policy), probe.hasData
        else {
          showHealthKit(count)
          continue
        }
        let why: FallbackReason =
          count.provenance.notes.contains(.deviceLocked) ? .healthDatabaseLocked : .healthKitReturnedNoData
        reason = why
        show(marked(probe, why))
        if motionTask == nil { motionTask = followMotion() }
      case .healthEnded(let error):
        healthTask = nil
        // Ended without an error: the consumer stopped.
        guard let error else { return }
        guard let failure = error as? StepKitError, allowsFallback(failure) else { throw error }
        // CoreMotion only when it is already authorized: else its first query shows the prompt.
        guard await mayProbe(motion) else { throw error }
        reason = failure.fallbackReason
        healthFailed = true
        healthFailedOn = nil
        if motionTask == nil { motionTask = followMotion() }
      case .motion(let count, let session):
        guard session == motionSession, motionTask != nil else { continue }
        if healthFailed {
          if let failedOn = healthFailedOn {
            if count.interval.start > failedOn {
              // A new day: HealthKit may answer again (access granted, the phone unlocked).
              healthFailed = false
              healthFailedOn = nil
              healthTask = followHealth()
            }
          } else {
            healthFailedOn = count.interval.start
          }
        }
        guard let why = reason else { continue }
        show(marked(count, why))
      case .motionEnded(let error, let session):
        guard session == motionSession, motionTask != nil else { continue }
        motionTask = nil
        guard reason != nil else { continue }
        if let error { throw error }
        return
      }
    }
  }

  /// Yields `source`'s live counts, marked with `reason`.
  private static func relay(
    _ source: any StepSource, reason: FallbackReason?, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy,
    into output: AsyncThrowingStream<StepCount, any Error>.Continuation
  ) async throws {
    for try await var count in source.todayStepUpdates(calendar: calendar, dayStart: dayStart, policy: policy)
    {
      if let reason {
        count.provenance.fallbackReason = reason
        if reason == .healthKitReturnedNoData, !count.provenance.notes.contains(.noDataMayMeanDeniedAccess) {
          count.provenance.notes.append(.noDataMayMeanDeniedAccess)
        }
      }
      output.yield(count)
    }
  }
}
