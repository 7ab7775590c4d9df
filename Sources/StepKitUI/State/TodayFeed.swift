import Foundation
import StepKit

/// What the today view is showing.
public enum TodayPhase: Sendable, Hashable {
  /// The first count has not arrived yet.
  case loading
  /// Today's count.
  case showing(TodayState)
  /// Counting failed; the guidance says why and what helps.
  case failed(AccessGuidance)
}

/// Today's count as it changes: follows ``StepCounter/todayStepUpdates()``
/// (which starts afresh at each midnight of the counter's calendar) and
/// reads the distance with each new count (left out when it cannot be read:
/// the count does not wait for it or fail with it).
public struct TodayFeed: Sendable {
  /// The counter the numbers come from.
  public let counter: StepCounter
  /// The daily goal.
  public var goal: Int
  /// How texts are written (its calendar is replaced by the counter's).
  public var formatting: StepFormatting

  /// Creates a feed.
  ///
  /// - Parameters:
  ///   - counter: The counter (a ``SimulatedStepSource`` one in previews and tests).
  ///   - goal: The daily goal; 10,000 steps by default.
  ///   - formatting: The language and region.
  public init(
    counter: StepCounter, goal: Int = TodayState.defaultGoal, formatting: StepFormatting = StepFormatting()
  ) {
    self.counter = counter
    self.goal = goal
    self.formatting = formatting
    self.formatting.calendar = counter.calendar
  }

  /// The phases to show, loading first; the sequence ends when counting
  /// fails (with ``TodayPhase/failed(_:)``) or the consuming task is cancelled.
  ///
  /// - Returns: The phases.
  public func phases() -> AsyncStream<TodayPhase> {
    let counter = counter
    let goal = goal
    let formatting = formatting
    return AsyncStream { continuation in
      let task = Task {
        continuation.yield(.loading)
        do {
          for try await count in counter.todayStepUpdates() {
            let distance = try? await counter.distance(in: count.interval.clamped(toEnd: counter.clock.now()))
            continuation.yield(
              .showing(TodayState(count: count, distance: distance, goal: goal, formatting: formatting)))
          }
        } catch is CancellationError {
          // The view went away: nothing to show.
        } catch {
          continuation.yield(
            .failed(AccessGuidance(error: StepKitError.wrapping(error), formatting: formatting)))
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}

extension DateInterval {
  /// The interval cut off at `end` (when it ends later), never before its start.
  func clamped(toEnd end: Date) -> DateInterval {
    DateInterval(start: start, end: Swift.max(start, Swift.min(self.end, end)))
  }
}
