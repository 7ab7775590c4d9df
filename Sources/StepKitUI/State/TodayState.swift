import Foundation
import StepKit

/// What the today view shows: the count, the goal ring, the distance and
/// where the number came from, with every text in the person's language.
public struct TodayState: Sendable, Hashable {
  /// The goal when the app sets none.
  public static let defaultGoal = 10_000

  /// Today's steps, rounded as the Health app rounds them.
  public var steps: Int
  /// The daily goal in steps (at least 1).
  public var goal: Int
  /// Today's walking + running distance in metres, when known.
  public var distanceMeters: Double?
  /// Where the count came from.
  public var provenance: Provenance
  /// Whether the source returned any samples at all.
  public var hasData: Bool
  /// How texts are written.
  public var formatting: StepFormatting

  /// Creates the state from today's count and distance.
  ///
  /// - Parameters:
  ///   - count: Today's steps.
  ///   - distance: Today's distance, or `nil` when it could not be read.
  ///   - goal: The daily goal; 10,000 steps by default (values below 1 count as 1).
  ///   - formatting: The language, region and calendar.
  public init(
    count: StepCount, distance: DistanceAmount?, goal: Int = defaultGoal, formatting: StepFormatting
  ) {
    steps = count.roundedSteps
    self.goal = max(1, goal)
    distanceMeters = distance.map(\.meters)
    provenance = count.provenance
    hasData = count.hasData
    self.formatting = formatting
  }

  private var language: StepKitLanguage { formatting.language }

  // MARK: Goal

  /// Steps as a fraction of the goal (above 1 past the goal).
  public var fractionOfGoal: Double { Double(steps) / Double(goal) }

  /// How full the ring is drawn: the fraction of the goal, at most 1.
  public var ringProgress: Double { min(1, max(0, fractionOfGoal)) }

  /// Whether the goal is reached.
  public var isGoalReached: Bool { steps >= goal }

  // MARK: Texts

  /// The headline: `Today`, `今天`.
  public var title: String { language.pick("Today", "今天", "今天") }

  /// The count: `8,421`.
  public var stepsText: String { formatting.number(steps) }

  /// The unit under the count: `steps`, `步`.
  public var unitText: String { language.pick(steps == 1 ? "step" : "steps", "步", "步") }

  /// The goal line: `84% of 10,000 steps`, `Goal reached: 10,000 steps`.
  public var goalText: String {
    let goal = formatting.number(self.goal)
    if isGoalReached {
      return language.pick("Goal reached: \(goal) steps", "已达成目标：\(goal) 步", "已達成目標：\(goal) 步")
    }
    let percent = formatting.percent(fractionOfGoal)
    return language.pick(
      "\(percent)% of \(goal) steps", "目标 \(goal) 步的 \(percent)%", "目標 \(goal) 步的 \(percent)%")
  }

  /// The distance: `5.2 km`; `nil` when unknown.
  public var distanceText: String? { distanceMeters.map { formatting.distance(meters: $0) } }

  /// Where the number came from (see ``StepFormatting/provenanceLine(_:)``).
  public var provenanceText: String { formatting.provenanceLine(provenance) }

  /// Guidance to show beside the count: HealthKit returned nothing (access
  /// may be off), or the Health prompt has not been shown yet.
  public var guidance: AccessGuidance? { formatting.guidance(for: provenance, hasData: hasData) }

  /// What VoiceOver reads for the ring and count together:
  /// `8,421 steps today, 84% of your 10,000-step goal, 5.2 kilometers`.
  public var accessibilityLabel: String {
    let goal = formatting.number(self.goal)
    var parts: [String]
    if isGoalReached {
      parts = [
        language.pick(
          "\(stepsText) \(unitText) today, goal of \(goal) steps reached",
          "今天 \(stepsText) 步，已达成 \(goal) 步的目标",
          "今天 \(stepsText) 步，已達成 \(goal) 步的目標")
      ]
    } else {
      let percent = formatting.percent(fractionOfGoal)
      parts = [
        language.pick(
          "\(stepsText) \(unitText) today, \(percent)% of your \(goal)-step goal",
          "今天 \(stepsText) 步，达成 \(goal) 步目标的 \(percent)%", "今天 \(stepsText) 步，達成 \(goal) 步目標的 \(percent)%")
      ]
    }
    if let meters = distanceMeters { parts.append(formatting.spokenDistance(meters: meters)) }
    return parts.joined(separator: language.pick(", ", "，", "，"))
  }
}
