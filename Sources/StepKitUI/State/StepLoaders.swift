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

/// What the history view is showing.
public enum HistoryPhase: Sendable, Hashable {
  /// The days are being read.
  case loading
  /// The days.
  case showing(HistoryState)
  /// Reading failed; the guidance says why and what helps.
  case failed(AccessGuidance)
}

/// Reads the last 7 or 30 days of the counter's calendar.
public struct HistoryLoader: Sendable {
  /// The counter the numbers come from.
  public let counter: StepCounter
  /// The daily goal drawn in the chart, or `nil` for none.
  public var goal: Int?
  /// How texts are written (its calendar is replaced by the counter's).
  public var formatting: StepFormatting

  /// Creates a loader.
  ///
  /// - Parameters:
  ///   - counter: The counter.
  ///   - goal: The daily goal; 10,000 steps by default.
  ///   - formatting: The language and region.
  public init(
    counter: StepCounter, goal: Int? = TodayState.defaultGoal, formatting: StepFormatting = StepFormatting()
  ) {
    self.counter = counter
    self.goal = goal
    self.formatting = formatting
    self.formatting.calendar = counter.calendar
  }

  /// Reads the days of `range`, ending today.
  ///
  /// - Parameter range: 7 or 30 days.
  /// - Returns: The days, or guidance when they could not be read.
  public func load(_ range: HistoryRange) async -> HistoryPhase {
    let now = counter.clock.now()
    do {
      let daily = try await counter.dailySteps(in: range.interval(endingAt: now, calendar: counter.calendar))
      return .showing(HistoryState(daily: daily, range: range, goal: goal, now: now, formatting: formatting))
    } catch {
      return .failed(AccessGuidance(error: StepKitError.wrapping(error), formatting: formatting))
    }
  }
}

/// Checks the app's access and acts on guidance: the model of the access view.
public struct AccessCheck: Sendable {
  /// The counter whose sources are checked.
  public let counter: StepCounter
  /// The HealthKit types the app reads (and writes).
  public var request: AuthorizationRequest
  /// How texts are written.
  public var formatting: StepFormatting

  /// Creates a check.
  ///
  /// - Parameters:
  ///   - counter: The counter.
  ///   - request: What the app asks HealthKit for; steps and distance by default.
  ///   - formatting: The language.
  public init(
    counter: StepCounter, request: AuthorizationRequest = .stepsAndDistance,
    formatting: StepFormatting = StepFormatting()
  ) {
    self.counter = counter
    self.request = request
    self.formatting = formatting
  }

  /// Guidance for the counter's current access, or `nil` when nothing stands in the way.
  ///
  /// - Returns: See ``AccessGuidance/guidance(for:formatting:)``.
  public func guidance() async -> AccessGuidance? {
    AccessGuidance.guidance(for: await counter.authorizationStatus(for: request), formatting: formatting)
  }

  /// Shows the prompt a guidance's ``AccessGuidance/Action/requestHealthAccess``
  /// or ``AccessGuidance/Action/requestMotionAccess`` stands for, and
  /// returns the guidance that follows: `nil` when all is well, the error's
  /// guidance when the request failed. Opening a place is the view's part.
  ///
  /// - Parameter action: The action.
  /// - Returns: The guidance after the person answered.
  public func perform(_ action: AccessGuidance.Action) async -> AccessGuidance? {
    do {
      switch action {
      case .requestHealthAccess: try await counter.requestAuthorization(request)
      case .requestMotionAccess: try await counter.requestMotionAuthorization()
      case .open: break
      }
    } catch {
      return AccessGuidance(error: StepKitError.wrapping(error), formatting: formatting)
    }
    return await guidance()
  }
}

extension DateInterval {
  /// The interval cut off at `end` (when it ends later), never before its start.
  func clamped(toEnd end: Date) -> DateInterval {
    DateInterval(start: start, end: Swift.max(start, Swift.min(self.end, end)))
  }
}
