import Foundation

// Live updates under the default strategy, `healthKitThenMotion`: HealthKit's updates while it
// can answer, the coprocessor's when it cannot, each count saying why.
extension StepCounter {
  /// Relays today's live counts for ``Strategy/healthKitThenMotion``.
  ///
  /// CoreMotion takes over, for the rest of the sequence, when HealthKit is not configured or
  /// unavailable on the device, when HealthKit's updates fail with an error that allows a
  /// fallback (locked device, not yet authorized, a failed query), or when HealthKit's first
  /// count has no data at all while the coprocessor has steps today (read access was
  /// probably denied). The counts from CoreMotion carry the ``FallbackReason``.
  ///
  /// - Throws: HealthKit's error when it does not allow a fallback or there is no motion
  ///   source; the motion source's error once it has taken over.
  static func healthKitThenMotionUpdates(
    health: (any HealthDataSource)?, motion: (any StepSource)?, calendar: Calendar, policy: CountingPolicy,
    into output: AsyncThrowingStream<StepCount, any Error>.Continuation
  ) async throws {
    guard let health else {
      guard let motion else { throw StepKitError.sourceNotConfigured(.healthKit) }
      return try await relay(
        motion, reason: .healthKitNotConfigured, calendar: calendar, policy: policy, into: output)
    }
    guard let motion else {
      return try await relay(health, reason: nil, calendar: calendar, policy: policy, into: output)
    }
    if await health.authorizationState() == .unavailable {
      return try await relay(
        motion, reason: .healthDataUnavailable, calendar: calendar, policy: policy, into: output)
    }
    var takeOver: FallbackReason?
    do {
      var isFirst = true
      for try await count in health.todayStepUpdates(calendar: calendar, policy: policy) {
        if isFirst {
          isFirst = false
          if !count.hasData, let probe = try? await motion.steps(in: count.interval, policy: policy),
            probe.hasData
          {
            takeOver = .healthKitReturnedNoData
            break
          }
        }
        output.yield(count)
      }
    } catch let error as StepKitError where allowsFallback(error) {
      takeOver = error.fallbackReason
    }
    // HealthKit's updates ended without a reason to switch: the consumer stopped.
    guard let takeOver else { return }
    try await relay(motion, reason: takeOver, calendar: calendar, policy: policy, into: output)
  }

  /// Yields `source`'s live counts, marked with `reason`.
  private static func relay(
    _ source: any StepSource, reason: FallbackReason?, calendar: Calendar, policy: CountingPolicy,
    into output: AsyncThrowingStream<StepCount, any Error>.Continuation
  ) async throws {
    for try await var count in source.todayStepUpdates(calendar: calendar, policy: policy) {
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
