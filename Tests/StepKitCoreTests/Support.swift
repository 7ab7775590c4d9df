import Foundation

@testable import StepKitCore

/// Builders for hand-computed cases.
enum Fixture {
  static let watch = Device(
    name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardware: "Watch6,1")
  static let phone = Device(
    name: "iPhone", manufacturer: "Apple Inc.", model: "iPhone", hardware: "iPhone14,2")

  /// `2026-05-01 10:00` in UTC, or with `offset` hours, as a Date.
  static func date(_ text: String, offsetHours: Double = 0) -> Date {
    let parts = text.split(separator: " ")
    let day = LocalDate(String(parts[0]))!
    let time = parts.count > 1 ? parts[1].split(separator: ":").map { Int($0)! } : [0, 0]
    let local =
      Double(day.daysSinceEpoch) * 86_400 + Double(time[0]) * 3600 + Double(time[1]) * 60
      + (time.count > 2 ? Double(time[2]) : 0)
    return Date(timeIntervalSince1970: local - offsetHours * 3600)
  }

  static func steps(
    _ start: String, _ end: String, _ value: Double, source: String, device: Device? = nil,
    userEntered: Bool = false, offsetHours: Double = 0
  ) -> Sample {
    Sample(
      kind: .steps, start: date(start, offsetHours: offsetHours), end: date(end, offsetHours: offsetHours),
      value: value, utcOffsetSeconds: Int(offsetHours * 3600), source: source, device: device,
      isUserEntered: userEntered)
  }

  static func distance(
    _ start: String, _ end: String, _ metres: Double, source: String, device: Device? = nil,
    userEntered: Bool = false, offsetHours: Double = 0
  ) -> Sample {
    Sample(
      kind: .distance, start: date(start, offsetHours: offsetHours), end: date(end, offsetHours: offsetHours),
      value: metres, utcOffsetSeconds: Int(offsetHours * 3600), source: source, device: device,
      isUserEntered: userEntered)
  }

  /// The single-day tally's merged steps.
  static func daySteps(_ samples: [Sample], _ options: CountingOptions = CountingOptions()) -> Double {
    SampleLog(samples).tally(options).total.steps
  }
}

/// A small deterministic generator (SplitMix64) for property tests.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension Double {
  func isClose(to other: Double, tolerance: Double = 1e-6) -> Bool {
    abs(self - other) <= tolerance * max(1, abs(self), abs(other))
  }
}
