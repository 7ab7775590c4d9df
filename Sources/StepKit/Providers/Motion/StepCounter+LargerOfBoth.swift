import Foundation
import StepKitCore

/// Today's steps from HealthKit and from the motion coprocessor side by side, and the larger
/// of the two: what apps that follow WeChat's behaviour show.
///
/// This is a deliberate choice, not a merge rule: HealthKit's merged count deduplicates iPhone
/// and Apple Watch and is what the Health app shows; the coprocessor counts only this iPhone
/// but cannot be edited and is there even when Health read access was denied. Taking the
/// larger never shows less than either, at the price of sometimes showing more than Health.
public struct CombinedStepCount: Sendable, Hashable {
  /// Why ``count`` is the one to show.
  public enum Choice: String, Sendable, Hashable, CaseIterable {
    /// Both answered and HealthKit's merged count was at least the coprocessor's.
    case healthKitLarger
    /// Both answered and the coprocessor counted more (for example, Health read access was
    /// denied, or the iPhone's samples had not reached Health yet).
    case motionLarger
    /// Only HealthKit answered (CoreMotion failed or is not configured).
    case onlyHealthKit
    /// Only the coprocessor answered (HealthKit failed, is unavailable or is not configured).
    case onlyMotion
  }

  /// The count to show, with the provenance of the source it came from.
  public var count: StepCount
  /// Why ``count`` was chosen.
  public var choice: Choice
  /// HealthKit's answer, or why there was none.
  public var healthKit: Result<StepCount, StepKitError>
  /// The coprocessor's answer, or why there was none.
  public var motion: Result<StepCount, StepKitError>

  /// Creates a combined count from the two answers.
  ///
  /// - Parameters:
  ///   - healthKit: HealthKit's answer or error.
  ///   - motion: The coprocessor's answer or error.
  /// - Throws: When neither answered: the coprocessor's error if HealthKit is unavailable on
  ///   the device or not configured (the one a person can act on), else HealthKit's.
  public init(healthKit: Result<StepCount, StepKitError>, motion: Result<StepCount, StepKitError>) throws {
    try self.init(healthKit: healthKit, motion: motion, staleHealthKit: false, staleMotion: false)
  }

  /// Creates a combined count; a count marked stale (from an earlier day than the other's,
  /// right after midnight) is kept for reference but not chosen.
  init(
    healthKit: Result<StepCount, StepKitError>, motion: Result<StepCount, StepKitError>,
    staleHealthKit: Bool, staleMotion: Bool
  ) throws {
    self.healthKit = healthKit
    self.motion = motion
    switch (healthKit, motion) {
    case (.success(let health), .success(let coprocessor)):
      if staleHealthKit || (!staleMotion && coprocessor.steps > health.steps) {
        var chosen = coprocessor
        if !health.hasData && !staleHealthKit { chosen.provenance.fallbackReason = .healthKitReturnedNoData }
        count = chosen
        choice = staleHealthKit ? .onlyMotion : .motionLarger
      } else {
        count = health
        choice = staleMotion ? .onlyHealthKit : .healthKitLarger
      }
    case (.success(let health), .failure):
      count = health
      choice = .onlyHealthKit
    case (.failure(let error), .success(let coprocessor)):
      var chosen = coprocessor
      chosen.provenance.fallbackReason =
        error == .sourceNotConfigured(.healthKit) ? .healthKitNotConfigured : error.fallbackReason
      count = chosen
      choice = .onlyMotion
    case (.failure(let healthError), .failure(let motionError)):
      switch healthError {
      case .healthDataUnavailable, .sourceNotConfigured: throw motionError
      default: throw healthError
      }
    }
  }
}

extension StepCounter {
  /// Today's steps from both HealthKit and the motion coprocessor, and the larger of the two.
  ///
  /// Both are asked whatever the counter's ``Strategy``; see ``CombinedStepCount`` for why an
  /// app would show the larger.
  ///
  /// - Returns: Both answers and the one to show.
  /// - Throws: ``StepKitError`` when neither source answered.
  public func todayStepsLargerOfBoth() async throws -> CombinedStepCount {
    let interval = todayInterval()
    let policy = policy
    async let health = Self.outcome(of: health) { try await $0.steps(in: interval, policy: policy) }
    async let motion = Self.outcome(of: motion, kind: .motion) {
      try await $0.steps(in: interval, policy: policy)
    }
    return try CombinedStepCount(healthKit: await health, motion: await motion)
  }

  /// Today's steps from both sources, live: a new combined count whenever either changes,
  /// rolling over at each day start (midnight, or ``dayStart``).
  ///
  /// Right after midnight, a count still from yesterday is not compared with today's: until
  /// both have rolled over, the one for the later day is shown. When one source fails, the
  /// other carries on alone; the sequence ends with an error only when both have failed.
  ///
  /// - Returns: The combined counts; the sequence ends when the consuming task is cancelled.
  public func todayStepUpdatesLargerOfBoth() -> AsyncThrowingStream<CombinedStepCount, any Error> {
    let health: (any StepSource)? = health
    let motion = motion
    let calendar = calendar
    let dayStart = dayStart
    let policy = policy
    return AsyncThrowingStream<CombinedStepCount, any Error>.endingAtFirstError { continuation in
      let task = Task {
        await Self.combine(
          health: health, motion: motion, calendar: calendar, dayStart: dayStart, policy: policy,
          into: continuation)
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  private static func outcome(
    of source: (any StepSource)?, kind: StepSourceKind = .healthKit,
    _ ask: @Sendable (any StepSource) async throws -> StepCount
  ) async -> Result<StepCount, StepKitError> {
    guard let source else { return .failure(.sourceNotConfigured(kind)) }
    do {
      return .success(try await ask(source))
    } catch {
      return .failure(StepKitError.wrapping(error))
    }
  }

  private enum LiveEvent: Sendable {
    case health(Result<StepCount, StepKitError>)
    case motion(Result<StepCount, StepKitError>)
  }

  private static func combine(
    health: (any StepSource)?, motion: (any StepSource)?, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy,
    into output: AsyncThrowingStream<CombinedStepCount, any Error>.Continuation
  ) async {
    var sink: AsyncStream<LiveEvent>.Continuation?
    let events = AsyncStream<LiveEvent> { sink = $0 }
    guard let sink else { return output.finish() }
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        await forward(health, kind: .healthKit, calendar: calendar, dayStart: dayStart, policy: policy) {
          sink.yield(.health($0))
        }
      }
      group.addTask {
        await forward(motion, kind: .motion, calendar: calendar, dayStart: dayStart, policy: policy) {
          sink.yield(.motion($0))
        }
      }
      var latestHealth: Result<StepCount, StepKitError>?
      var latestMotion: Result<StepCount, StepKitError>?
      var last: CombinedStepCount?
      for await event in events {
        switch event {
        case .health(let result): latestHealth = result
        case .motion(let result): latestMotion = result
        }
        guard let health = latestHealth, let motion = latestMotion else { continue }
        do {
          // Right after midnight one source may still report yesterday: show the later day.
          var staleHealth = false
          var staleMotion = false
          if case .success(let healthCount) = health, case .success(let motionCount) = motion {
            staleHealth = healthCount.interval.start < motionCount.interval.start
            staleMotion = motionCount.interval.start < healthCount.interval.start
          }
          let combined = try CombinedStepCount(
            healthKit: health, motion: motion, staleHealthKit: staleHealth, staleMotion: staleMotion)
          if combined != last {
            last = combined
            output.yield(combined)
          }
        } catch {
          output.finish(throwing: error)
          break
        }
      }
      group.cancelAll()
    }
    sink.finish()
    output.finish()
  }

  /// Passes on each count of `source`'s live updates, and its failure, if any.
  private static func forward(
    _ source: (any StepSource)?, kind: StepSourceKind, calendar: Calendar, dayStart: DayStart,
    policy: CountingPolicy,
    to deliver: @Sendable (Result<StepCount, StepKitError>) -> Void
  ) async {
    guard let source else { return deliver(.failure(.sourceNotConfigured(kind))) }
    do {
      for try await count in source.todayStepUpdates(calendar: calendar, dayStart: dayStart, policy: policy) {
        deliver(.success(count))
      }
    } catch {
      deliver(.failure(StepKitError.wrapping(error)))
    }
  }
}
