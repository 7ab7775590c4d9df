import Foundation
import StepKit

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
      let daily = try await counter.dailySteps(
        in: range.interval(endingAt: now, calendar: counter.calendar, dayStart: counter.dayStart))
      return .showing(HistoryState(daily: daily, range: range, goal: goal, now: now, formatting: formatting))
    } catch {
      return .failed(AccessGuidance(error: StepKitError.wrapping(error), formatting: formatting))
    }
  }
}
