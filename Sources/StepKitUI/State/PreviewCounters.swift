import Foundation
import StepKit

/// Step counters over ``SimulatedStepSource``s with a believable month of
/// walking, for SwiftUI previews, screenshots and tests: no device, no
/// Health data, no prompt.
///
/// ```swift
/// #Preview {
///   TodayView(counter: PreviewCounters.walker())
/// }
/// ```
public enum PreviewCounters {
  /// Steps per day for the last 30 days, oldest first, the last being a full
  /// today (today shows only the part before now).
  public static let month: [Int] = [
    6_240, 8_905, 11_320, 7_410, 4_980, 12_760, 9_830, 10_150, 3_420, 7_980, 8_640, 13_210, 9_070, 6_530,
    10_480,
    5_760, 8_120, 11_940, 7_260, 9_380, 4_410, 10_870, 12_030, 8_210, 6_970, 9_640, 11_480, 7_730, 10_260,
    9_120,
  ]

  /// Metres per step in the scripted distance samples.
  public static let stride = 0.74

  /// A counter whose HealthKit stand-in holds `days` of steps from an
  /// Apple Watch and an iPhone (overlapping, so the merge counts them
  /// once), with walking distance to match.
  ///
  /// - Parameters:
  ///   - days: Steps per day, oldest first, ending today; ``month`` by default.
  ///   - authorization: The HealthKit state it plays; answered (read access unknown) by default.
  ///   - clock: The clock; the system clock by default (a `ManualClock` in tests).
  ///   - calendar: Whose days the steps fall on; the current calendar by default.
  /// - Returns: The counter (HealthKit only; its provenance says HealthKit).
  public static func walker(
    days: [Int] = month, authorization: AuthorizationState = .requestedReadAccessUnknown,
    clock: any StepClock = SystemClock(), calendar: Calendar = .autoupdatingCurrent
  ) -> StepCounter {
    let health = SimulatedStepSource(
      samples: samples(days: days, now: clock.now(), calendar: calendar), authorization: authorization,
      kind: .healthKit, clock: clock)
    return StepCounter(
      health: health, motion: nil, strategy: .healthKit, calendar: calendar, clock: clock,
      bundle: DictionaryBundleInfo.complete)
  }

  /// A counter whose Health source returns nothing (as when read access was
  /// turned off) and whose motion source has not been asked yet.
  ///
  /// - Parameters:
  ///   - clock: The clock.
  ///   - calendar: Whose days count.
  /// - Returns: The counter.
  public static func noHealthData(
    clock: any StepClock = SystemClock(), calendar: Calendar = .autoupdatingCurrent
  ) -> StepCounter {
    StepCounter(
      health: SimulatedStepSource(kind: .healthKit, clock: clock),
      motion: SimulatedStepSource(authorization: .notRequested, kind: .motion, clock: clock),
      calendar: calendar,
      clock: clock, bundle: DictionaryBundleInfo.complete)
  }

  /// A counter that has not asked for Health access yet.
  ///
  /// - Parameters:
  ///   - clock: The clock.
  ///   - calendar: Whose days count.
  /// - Returns: The counter; its prompt moves Health to "requested".
  public static func notAskedYet(
    clock: any StepClock = SystemClock(), calendar: Calendar = .autoupdatingCurrent
  ) -> StepCounter {
    walker(authorization: .notRequested, clock: clock, calendar: calendar)
  }

  /// A counter whose HealthKit source fails every read with `error`.
  ///
  /// - Parameters:
  ///   - error: The error, for example ``StepKitError/healthDatabaseLocked``.
  ///   - clock: The clock.
  ///   - calendar: Whose days count.
  /// - Returns: The counter.
  public static func failing(
    with error: StepKitError, clock: any StepClock = SystemClock(), calendar: Calendar = .autoupdatingCurrent
  ) -> StepCounter {
    let health = SimulatedStepSource(kind: .healthKit, clock: clock)
    for operation in [SimulatedStepSource.Operation.steps, .distance, .liveUpdates] {
      health.failAlways(operation, with: error)
    }
    return StepCounter(
      health: health, motion: nil, strategy: .healthKit, calendar: calendar, clock: clock,
      bundle: DictionaryBundleInfo.complete)
  }

  /// The scripted samples: each day's steps in eight hourly walks from 8:00,
  /// recorded by the Watch and, overlapping, by the iPhone (which counts a
  /// little less); the day ending today, and only what lies before `now`.
  static func samples(days: [Int], now: Date, calendar: Calendar) -> [Sample] {
    let watch = Device(name: "Apple Watch", model: "Watch", hardware: "Watch6,1")
    let phone = Device(name: "iPhone", model: "iPhone", hardware: "iPhone15,2")
    let today = calendar.startOfDay(for: now)
    var samples: [Sample] = []
    for (index, total) in days.enumerated() {
      let back = days.count - 1 - index
      guard let day = calendar.date(byAdding: .day, value: -back, to: today) else { continue }
      let share = Double(total) / 8
      for hour in 8..<16 {
        guard let start = calendar.date(byAdding: .hour, value: hour, to: day) else { continue }
        let end = start.addingTimeInterval(50 * 60)
        guard end <= now else { continue }
        samples.append(
          Sample(kind: .steps, start: start, end: end, value: share, source: "Apple Watch", device: watch))
        samples.append(
          Sample(kind: .steps, start: start, end: end, value: share * 0.9, source: "iPhone", device: phone))
        samples.append(
          Sample(
            kind: .distance, start: start, end: end, value: share * stride, source: "Apple Watch",
            device: watch))
      }
    }
    return samples
  }
}
