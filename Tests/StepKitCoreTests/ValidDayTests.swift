import Foundation
import Testing

@testable import StepKitCore

/// Hours with data, valid days and the per-export summary, checked against
/// hand-computed values and a naive reading of the samples.
@Suite("Hours with data, valid days, summary")
struct ValidDayTests {
  typealias F = Fixture

  @Test("Hours with data: the local hours that hold counted steps, by hand")
  func hoursByHand() {
    let samples = [
      // 09:10-09:20 and 09:40-09:50: one hour.
      F.steps("2026-05-01 09:10", "2026-05-01 09:20", 100, source: "Watch", device: F.watch, offsetHours: 8),
      F.steps("2026-05-01 09:40", "2026-05-01 09:50", 100, source: "Watch", device: F.watch, offsetHours: 8),
      // 10:50-12:10: hours 10, 11 and 12.
      F.steps("2026-05-01 10:50", "2026-05-01 12:10", 800, source: "Watch", device: F.watch, offsetHours: 8),
      // The phone inside the watch's 11:00 hour adds nothing new.
      F.steps("2026-05-01 11:00", "2026-05-01 11:30", 500, source: "Phone", device: F.phone, offsetHours: 8),
      // Typed in at 15:00: not counted under the health policy.
      F.steps(
        "2026-05-01 15:00", "2026-05-01 15:30", 900, source: "Health", userEntered: true, offsetHours: 8),
      // Ends exactly at 17:00: hour 16 only.
      F.steps("2026-05-01 16:30", "2026-05-01 17:00", 50, source: "Phone", device: F.phone, offsetHours: 8),
      // An instant at 20:00 counts for hour 20.
      F.steps("2026-05-01 20:00", "2026-05-01 20:00", 5, source: "Phone", device: F.phone, offsetHours: 8),
    ]
    let tally = SampleLog(samples).tally(CountingOptions())
    #expect(tally.buckets.map(\.hoursWithData) == [6])
    let all = SampleLog(samples).tally(CountingOptions(policy: .all))
    #expect(all.buckets.map(\.hoursWithData) == [7])
    let hours = SampleLog(samples).tally(CountingOptions(unit: .hour))
    #expect(
      hours.buckets.filter { $0.hoursWithData == 1 }.compactMap(\.hour) == [9, 10, 11, 12, 16, 20])
    #expect(hours.buckets.allSatisfy { ($0.hoursWithData == 1) == ($0.steps > 0) })
  }

  @Test("Hours with data of random samples equal a naive count of the hours they touch", arguments: 1...6)
  func hoursAgainstNaive(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed))
    let base = F.date("2026-06-01 00:00").timeIntervalSince1970
    let offsetHours = [8.0, -5, 5.5][seed % 3]
    let sources: [(String, Device?, Bool)] = [
      ("Watch", F.watch, false), ("Phone", F.phone, false), ("App", nil, false), ("Health", nil, true),
    ]
    var samples: [Sample] = []
    for _ in 0..<150 {
      let (name, device, typed) = sources[Int.random(in: 0..<sources.count, using: &random)]
      let start = base + Double(Int.random(in: 0..<(5 * 24 * 60), using: &random)) * 60
      let minutes = Double([0, 1, 7, 30, 95][Int.random(in: 0..<5, using: &random)])
      samples.append(
        Sample(
          kind: .steps, start: Date(timeIntervalSince1970: start),
          end: Date(timeIntervalSince1970: start + minutes * 60),
          value: Double(Int.random(in: 1...500, using: &random)),
          utcOffsetSeconds: Int(offsetHours * 3600), source: name, device: device, isUserEntered: typed))
    }
    let start = try #require(DayStart("04:00"))
    let tally = SampleLog(samples).tally(CountingOptions(dayStart: start))
    // Naive: every sample the policy admits has a positive value, so an hour
    // holds counted steps exactly when some admitted sample touches it.
    var hours = Set<Int>()
    for sample in samples where !sample.isUserEntered {
      let s = Int((sample.start.timeIntervalSince1970 + offsetHours * 3600) / 60)  // local minutes
      let e = Int((sample.end.timeIntervalSince1970 + offsetHours * 3600) / 60)
      if s == e {
        hours.insert(Int((Double(s) / 60).rounded(.down)))
      } else {
        for hour in Int((Double(s) / 60).rounded(.down))...Int((Double(e - 1) / 60).rounded(.down)) {
          hours.insert(hour)
        }
      }
    }
    var perDay: [LocalDate: Int] = [:]
    for hour in hours {
      let day = LocalDate(daysSinceEpoch: Int((Double(hour - 4) / 24).rounded(.down)))
      perDay[day, default: 0] += 1
    }
    for bucket in tally.buckets {
      #expect(bucket.hoursWithData == perDay[bucket.firstDay] ?? 0, "\(bucket.firstDay)")
    }
    #expect(tally.buckets.reduce(0) { $0 + $1.hoursWithData } == hours.count)
  }

  @Test("Valid-day rules parse, print and judge")
  func rules() throws {
    #expect(ValidDayRule("hours:10") == ValidDayRule(minimumHours: 10))
    #expect(ValidDayRule("steps:500") == ValidDayRule(minimumSteps: 500))
    #expect(ValidDayRule("hours:8,steps:500") == ValidDayRule(minimumHours: 8, minimumSteps: 500))
    #expect(ValidDayRule("steps:500,hours:8")?.description == "hours:8,steps:500")
    for bad in ["", "hours", "hours:", "hours:-1", "hours:26", "minutes:10", "hours:1,hours:2", "steps:5x"] {
      #expect(ValidDayRule(bad) == nil, "\(bad)")
    }
    var day = Tally.Bucket(firstDay: LocalDate(daysSinceEpoch: 0))
    day.hoursWithData = 10
    day.steps = 499.5  // rounds to 500
    #expect(ValidDayRule.default.isValid(day))
    #expect(try #require(ValidDayRule("hours:10,steps:500")).isValid(day))
    #expect(!(try #require(ValidDayRule("hours:11")).isValid(day)))
    day.steps = 499.4
    #expect(!(try #require(ValidDayRule("steps:500")).isValid(day)))
  }

  /// A tally of five hand-made days and three sources.
  static func handTally(policy: CountingPolicy = .health) -> Tally {
    let steps: [Double] = [100, 0, 5000, 700, 300]
    let hours = [12, 0, 10, 9, 11]
    let buckets = (0..<5).map { index -> Tally.Bucket in
      var bucket = Tally.Bucket(firstDay: LocalDate("2026-05-0\(index + 1)")!)
      bucket.steps = steps[index]
      bucket.hoursWithData = hours[index]
      bucket.manualSteps = index == 3 ? 250 : 0
      return bucket
    }
    func source(_ name: String, _ sourceClass: SourceClass, _ counted: Double) -> Tally.SourceRow {
      var row = Tally.SourceRow(
        name: name, sourceClass: sourceClass, distanceSourceClass: sourceClass, rank: 1, distanceRank: 1,
        isCounted: true, deviceModels: [])
      row.countedSteps = counted
      return row
    }
    return Tally(
      options: CountingOptions(policy: policy), buckets: Tally.Buckets(buckets),
      sources: [
        source("Watch", .appleWatch, 3660), source("Phone", .iPhone, 1830), source("App", .other, 610),
        source("Health", .typedIn, 0),
      ],
      invalid: InvalidSampleReport(), countedValues: CountedValues())
  }

  @Test("The summary's formulas, by hand")
  func summary() throws {
    let tally = Self.handTally()
    let hours = DaySummary(tally, rule: .default)
    #expect(hours.days == 5)
    #expect(hours.firstDay == LocalDate("2026-05-01"))
    #expect(hours.lastDay == LocalDate("2026-05-05"))
    #expect(hours.daysWithData == 4)
    #expect(hours.validDays == 3)  // 12, 10 and 11 hours
    #expect(hours.meanValidSteps == 1800)  // (100 + 5000 + 300) / 3
    #expect(hours.medianValidSteps == 300)
    #expect(hours.steps == 6100)
    #expect(hours.stepShares == [.appleWatch: 0.6, .iPhone: 0.3, .other: 0.1])
    #expect(hours.typedInStepsLeftOut == 250)
    let both = DaySummary(tally, rule: try #require(ValidDayRule("hours:10,steps:500")))
    #expect(both.validDays == 1)
    #expect(both.meanValidSteps == 5000)
    let steps = DaySummary(tally, rule: try #require(ValidDayRule("steps:500")))
    #expect(steps.validDays == 2)
    #expect(steps.medianValidSteps == 2850)  // (700 + 5000) / 2
    let none = DaySummary(tally, rule: try #require(ValidDayRule("hours:24")))
    #expect(none.validDays == 0)
    #expect(none.meanValidSteps == nil && none.medianValidSteps == nil)
    #expect(DaySummary(Self.handTally(policy: .all), rule: .default).typedInStepsLeftOut == 0)
  }
}
