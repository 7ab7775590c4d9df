import Foundation
import StepKit
import StepKitUI
import Testing

@Suite("Today: the count, the goal ring, the distance and where the number came from")
struct TodayStateTests {
  @Test("the ring fills with the fraction of the goal and stops at full; the goal defaults to 10,000")
  func goalProgress() throws {
    let formatting = try Fixture.formatting(.english)
    let partway = TodayState(count: Fixture.count(8_421.4), distance: nil, formatting: formatting)
    #expect(partway.goal == 10_000)
    #expect(partway.steps == 8_421)
    #expect(abs(partway.ringProgress - 0.8421) < 1e-9)
    #expect(!partway.isGoalReached)
    #expect(partway.goalText == "84% of 10,000 steps")
    let past = TodayState(count: Fixture.count(15_000), distance: nil, goal: 12_000, formatting: formatting)
    #expect(past.ringProgress == 1)
    #expect(past.fractionOfGoal == 1.25)
    #expect(past.goalText == "Goal reached: 12,000 steps")
    let nonsense = TodayState(count: Fixture.count(10), distance: nil, goal: 0, formatting: formatting)
    #expect(nonsense.goal == 1)
    #expect(nonsense.ringProgress == 1)
  }

  @Test("99.9% is not shown as 100%: the percentage rounds down")
  func percentRoundsDown() throws {
    let state = TodayState(
      count: Fixture.count(9_999), distance: nil, formatting: try Fixture.formatting(.english))
    #expect(state.goalText == "99% of 10,000 steps")
  }

  @Test(
    "texts in the three languages",
    arguments: [
      (
        StepKitLanguage.english, "steps", "84% of 10,000 steps",
        "8,421 steps today, 84% of your 10,000-step goal"
      ),
      (.simplifiedChinese, "步", "目标 10,000 步的 84%", "今天 8,421 步，达成 10,000 步目标的 84%"),
      (.traditionalChinese, "步", "目標 10,000 步的 84%", "今天 8,421 步，達成 10,000 步目標的 84%"),
    ])
  func languages(language: StepKitLanguage, unit: String, goal: String, spoken: String) throws {
    let state = TodayState(
      count: Fixture.count(8_421), distance: nil,
      formatting: try Fixture.formatting(language, locale: "en_GB"))
    #expect(state.unitText == unit)
    #expect(state.goalText == goal)
    #expect(state.accessibilityLabel == spoken)
  }

  @Test("distance is shown and spoken when known")
  func distance() throws {
    let distance = DistanceAmount(
      interval: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 60), meters: 6_230,
      provenance: Fixture.health(), hasData: true)
    let state = TodayState(
      count: Fixture.count(8_421), distance: distance,
      formatting: try Fixture.formatting(.english, locale: "en_GB"))
    #expect(state.distanceText == "6.2 km")
    #expect(state.accessibilityLabel.hasSuffix(", 6.2 kilometers"))
    #expect(
      TodayState(count: Fixture.count(1), distance: nil, formatting: state.formatting).distanceText == nil)
    #expect(
      TodayState(count: Fixture.count(1), distance: nil, formatting: state.formatting).unitText == "step")
  }

  @Test("the provenance line says which source answered and why a fallback did")
  func provenance() throws {
    let english = try Fixture.formatting(.english)
    #expect(
      TodayState(count: Fixture.count(10), distance: nil, formatting: english).provenanceText
        == "From Health: iPhone and Apple Watch counted once, steps typed in by hand left out.")
    let motion = Provenance(
      source: .motion, policy: .health, manualEntries: .notApplicable, fallbackReason: .healthDatabaseLocked)
    #expect(
      TodayState(count: Fixture.count(10, provenance: motion), distance: nil, formatting: english)
        .provenanceText
        == "From this iPhone’s motion sensors, because the iPhone is locked, so Health can’t be read.")
    let traditional = try Fixture.formatting(.traditionalChinese, locale: "zh_TW")
    #expect(
      TodayState(count: Fixture.count(10, provenance: motion), distance: nil, formatting: traditional)
        .provenanceText == "來自這部 iPhone 的動作感測器，因為 iPhone 已鎖定，無法讀取「健康」。")
    let failed = Provenance(
      source: .motion, policy: .health, manualEntries: .notApplicable,
      fallbackReason: .healthKitFailed(.queryFailed(code: 3, message: "no")))
    #expect(
      english.provenanceLine(failed)
        == "From this iPhone’s motion sensors, because Health failed: Reading health data failed (HealthKit error 3): no."
    )
  }

  @Test(
    "an empty HealthKit answer brings the 'access may be off' guidance; a motion count with steps does not")
  func guidance() throws {
    let english = try Fixture.formatting(.english)
    let empty = TodayState(count: Fixture.count(0, hasData: false), distance: nil, formatting: english)
    #expect(empty.guidance?.situation == .noDataMayMeanDeniedAccess)
    let fallback = Provenance(
      source: .motion, policy: .health, manualEntries: .notApplicable,
      fallbackReason: .healthKitReturnedNoData,
      notes: [.noDataMayMeanDeniedAccess])
    #expect(
      TodayState(count: Fixture.count(500, provenance: fallback), distance: nil, formatting: english)
        .guidance?
        .action == .open(.healthApp))
    let notAsked = Provenance(
      source: .motion, policy: .health, manualEntries: .notApplicable, fallbackReason: .healthKitNotAuthorized
    )
    #expect(
      TodayState(count: Fixture.count(500, provenance: notAsked), distance: nil, formatting: english)
        .guidance?
        .action == .requestHealthAccess)
    let locked = Provenance(
      source: .motion, policy: .health, manualEntries: .notApplicable, fallbackReason: .healthDatabaseLocked)
    #expect(
      TodayState(count: Fixture.count(500, provenance: locked), distance: nil, formatting: english).guidance
        == nil)
    #expect(TodayState(count: Fixture.count(500), distance: nil, formatting: english).guidance == nil)
  }
}
