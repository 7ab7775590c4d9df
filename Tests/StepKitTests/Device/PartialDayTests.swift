#if canImport(HealthKitStandIn) && canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  @Suite("Partial days: a range inside a day counts only the range")
  struct PartialDayTests {
    /// 10:30–15:00 in Shanghai; samples at 09:00 (outside), 11:00 and 14:00 (inside), 16:00 (outside).
    static let range = ("2026-11-29T10:30:00+08:00", "2026-11-29T15:00:00+08:00")

    @Test("the HealthKit provider's StepKit merge clips the day to 10:30–15:00")
    func healthKitStepKitMerge() async throws {
      let store = HealthFixture.Store(counting: .stepKitMerge(ranking: .default))
      for (hour, steps) in [("09", 1000.0), ("11", 200), ("14", 300), ("16", 4000)] {
        store.simulation.add(
          steps: steps, from: try HealthFixture.date("2026-11-29T\(hour):00:00+08:00"),
          to: try HealthFixture.date("2026-11-29T\(hour):10:00+08:00"), origin: .iPhone)
      }
      try await store.authorize()
      let interval = try HealthFixture.interval(Self.range.0, Self.range.1)
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      let daily = try await store.source.dailySteps(in: interval, calendar: shanghai, policy: .health)
      #expect(daily.days.map(\.roundedSteps) == [500])
      #expect(daily.days[0].interval.duration == 86_400)  // the bucket still names the whole day
      #expect(try await store.source.steps(in: interval, policy: .health).roundedSteps == 500)
      // Statistics (HealthKit's own collection query) agree.
      let statistics = HealthFixture.Store()
      for (hour, steps) in [("09", 1000.0), ("11", 200), ("14", 300), ("16", 4000)] {
        statistics.simulation.add(
          steps: steps, from: try HealthFixture.date("2026-11-29T\(hour):00:00+08:00"),
          to: try HealthFixture.date("2026-11-29T\(hour):10:00+08:00"), origin: .iPhone)
      }
      try await statistics.authorize()
      #expect(
        try await statistics.source.dailySteps(in: interval, calendar: shanghai, policy: .health).days.map(
          \.roundedSteps) == [500])
    }

    @Test("the simulated source clips the day to 10:30–15:00, steps and distance")
    func simulated() async throws {
      let source = SimulatedStepSource()
      for (hour, steps) in [("09", 1000.0), ("11", 200), ("14", 300), ("16", 4000)] {
        source.add(
          try HealthFixture.steps(steps, "2026-11-29T\(hour):00:00+08:00", "2026-11-29T\(hour):10:00+08:00"))
        source.add(
          Sample(
            kind: .distance, start: try HealthFixture.date("2026-11-29T\(hour):00:00+08:00"),
            end: try HealthFixture.date("2026-11-29T\(hour):10:00+08:00"), value: steps / 2, source: "iPhone")
        )
      }
      let interval = try HealthFixture.interval(Self.range.0, Self.range.1)
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      let daily = try await source.dailySteps(in: interval, calendar: shanghai, policy: .health)
      #expect(daily.days.map(\.roundedSteps) == [500])
      let distance = try await source.dailyDistance(in: interval, calendar: shanghai, policy: .health)
      #expect(distance.days.map(\.meters) == [250])
    }

    @Test("the motion source counts 10:30–15:00 too")
    func motion() async throws {
      let rig = try MotionRig(now: "2026-11-29T18:00:00+08:00")
      for (hour, steps) in [("09", 1000), ("11", 200), ("14", 300), ("16", 4000)] {
        try rig.record(steps, at: "2026-11-29T\(hour):05:00+08:00")
      }
      let interval = try HealthFixture.interval(Self.range.0, Self.range.1)
      let daily = try await rig.run {
        try await rig.source.dailySteps(in: interval, calendar: rig.calendar, policy: .health)
      }
      #expect(daily.days.map(\.roundedSteps) == [500])
    }
  }

  @Suite("A restricted pedometer: the guidance names both causes")
  struct RestrictedMotionGuidanceTests {
    @Test("Screen Time restrictions and the Fitness Tracking switch, in English and Simplified Chinese")
    func bothCauses() throws {
      let english = try #require(StepKitError.motionRestricted.recoverySuggestion(in: .english))
      #expect(english.contains("Screen Time"))
      #expect(english.contains("Settings > Privacy & Security > Motion & Fitness > Fitness Tracking"))
      let chinese = try #require(StepKitError.motionRestricted.recoverySuggestion(in: .simplifiedChinese))
      #expect(chinese.contains("屏幕使用时间"))
      #expect(chinese.contains("设置 > 隐私与安全性 > 运动与健身 > 健身追踪"))
    }

    @Test("a restricted status on the device gives that guidance")
    func fromTheDevice() async throws {
      let rig = try MotionRig(now: "2026-11-29T18:00:00+08:00", authorization: .restricted)
      let error = await motionError {
        _ = try await rig.run {
          try await rig.source.steps(
            in: DateInterval(start: rig.device.now.addingTimeInterval(-60), duration: 60), policy: .health)
        }
      }
      #expect(error == .motionRestricted)
      #expect(error?.recoverySuggestion(in: .english)?.contains("Fitness Tracking") == true)
    }

    @Test(
      "denied access names the Fitness Tracking switch too: which status it reports is undocumented",
      arguments: [CMAuthorizationStatus.denied, .restricted])
    func fitnessTrackingEitherWay(status: CMAuthorizationStatus) async throws {
      // The stand-in can play either answer to the Fitness Tracking switch; the guidance must hold for both.
      let rig = try MotionRig(now: "2026-11-29T18:00:00+08:00", authorization: status)
      let error = try #require(
        await motionError {
          _ = try await rig.run {
            try await rig.source.steps(
              in: DateInterval(start: rig.device.now.addingTimeInterval(-60), duration: 60), policy: .health)
          }
        })
      for (language, words) in [
        (StepKitLanguage.english, "Fitness Tracking"), (.simplifiedChinese, "健身追踪"),
        (.traditionalChinese, "健身追蹤"),
      ] {
        #expect(error.recoverySuggestion(in: language)?.contains(words) == true, "\(language)")
      }
    }
  }
#endif
