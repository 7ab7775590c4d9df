import Foundation
import StepKitCore

extension StepCounter {
  /// ``dailySteps(in:)`` with days from ``dayStart``: each day's steps asked
  /// of the answering source as one interval (on a device, one HealthKit
  /// statistics query per day, merged by HealthKit).
  func dailyStepsFromDayStart(in interval: DateInterval) async throws -> DailySteps {
    let days = LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart)
    let policy = policy
    return try await answer { source in
      var counts: [StepCount] = []
      for day in days {
        counts.append(try await source.steps(in: LocalDays.part(of: day, within: interval), policy: policy))
      }
      return DailySteps(
        interval: interval, days: zip(days, counts).map { DailySteps.Day(interval: $0, steps: $1.steps) },
        provenance: Self.provenance(counts.map(\.provenance)), hasData: counts.contains { $0.hasData })
    }
  }

  /// ``dailyDistance(in:)`` with days from ``dayStart``, as ``dailyStepsFromDayStart(in:)``.
  func dailyDistanceFromDayStart(in interval: DateInterval) async throws -> DailyDistance {
    let days = LocalDays.days(covering: interval, calendar: calendar, dayStart: dayStart)
    let policy = policy
    return try await answer { source in
      var amounts: [DistanceAmount] = []
      for day in days {
        amounts.append(
          try await source.distance(in: LocalDays.part(of: day, within: interval), policy: policy))
      }
      return DailyDistance(
        interval: interval,
        days: zip(days, amounts).map { DailyDistance.Day(interval: $0, meters: $1.meters) },
        provenance: Self.provenance(amounts.map(\.provenance)), hasData: amounts.contains { $0.hasData })
    }
  }

  /// One provenance for answers given day by day (at least one, as
  /// ``LocalDays`` always gives a day): the first day's, with every day's notes, each once.
  static func provenance(_ days: [Provenance]) -> Provenance {
    var first = days[0]
    for day in days.dropFirst() {
      for note in day.notes where !first.notes.contains(note) { first.notes.append(note) }
    }
    return first
  }
}
