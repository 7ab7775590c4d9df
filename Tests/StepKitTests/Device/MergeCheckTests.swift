#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  @Suite("HealthKit's merge, checked against StepKit's")
  struct MergeCheckTests {
    let fixture: DeviceFixture
    var day: DateInterval { fixture.day }
    var nine: Date { fixture.nine }
    var ten: Date { fixture.ten }

    init() throws { fixture = try DeviceFixture() }

    func inflatingStore(checks: Bool = true) -> HealthFixture.Store { fixture.inflatingStore(checks: checks) }

    @Test("the stand-in's mode reproduces the report: a metadata filter makes statistics add sources up")
    func standInReproducesInflation() async throws {
      let store = inflatingStore(checks: false)
      try await store.authorize()
      // With the typed-in filter (health policy): added up. Without it (all): merged.
      #expect(try await store.source.steps(in: day, policy: .health).roundedSteps == 1800)
      #expect(try await store.source.steps(in: day, policy: .all).roundedSteps == 1000)
    }

    @Test("an inflated answer is replaced by StepKit's merge, and the provenance says so")
    func corrects() async throws {
      let store = inflatingStore()
      try await store.authorize()
      let count = try await store.source.steps(in: day, policy: .health)
      #expect(count.roundedSteps == 1000)
      #expect(count.hasData)
      #expect(count.provenance.notes == [.healthKitMergeCorrected(healthKitValue: 1800)])
      #expect(store.simulation.executedQueries == ["HKStatisticsQuery", "HKAnchoredObjectQuery"])
      let distance = try await store.source.distance(in: day, policy: .health)
      #expect(distance.meters == 700)
      #expect(distance.provenance.notes == [.healthKitMergeCorrected(healthKitValue: 1300)])
      #expect(
        ResultNote.healthKitMergeCorrected(healthKitValue: 1800).explanation.contains("1800"))
    }

    @Test("daily buckets are checked day by day")
    func dailyCorrected() async throws {
      let store = inflatingStore()
      let nextDay = nine.addingTimeInterval(86_400)
      store.simulation.add(steps: 300, from: nextDay, to: nextDay.addingTimeInterval(600), origin: .iPhone)
      store.simulation.calendar = try HealthFixture.calendar("Asia/Shanghai")
      try await store.authorize()
      let range = DateInterval(start: day.start, duration: 2 * 86_400)
      let daily = try await store.source.dailySteps(
        in: range, calendar: try HealthFixture.calendar("Asia/Shanghai"), policy: .health)
      #expect(daily.days.map(\.roundedSteps) == [1000, 300])
      #expect(daily.provenance.notes == [.healthKitMergeCorrected(healthKitValue: 2100)])
    }

    @Test("a correct merge, or samples that do not overlap, are left as HealthKit answered")
    func leavesCorrectAnswers() async throws {
      let merged = HealthFixture.Store()
      merged.simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      merged.simulation.add(steps: 800, from: nine, to: ten, origin: .iPhone)
      try await merged.authorize()
      let count = try await merged.source.steps(in: day, policy: .health)
      #expect(count.roundedSteps == 1000)
      #expect(count.provenance.notes.isEmpty)

      // Inflating mode, but one source per hour: the raw sum is the merge, nothing to correct.
      let apart = HealthFixture.Store()
      apart.simulation.inflatesFilteredStatistics = true
      apart.simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      apart.simulation.add(steps: 800, from: ten, to: ten.addingTimeInterval(3600), origin: .iPhone)
      try await apart.authorize()
      let separate = try await apart.source.steps(in: day, policy: .health)
      #expect(separate.roundedSteps == 1800)
      #expect(separate.provenance.notes.isEmpty)
    }

    @Test("callers can turn the check off: one query, HealthKit's number as it is")
    func off() async throws {
      let store = inflatingStore(checks: false)
      try await store.authorize()
      #expect(!store.source.checksHealthKitMerge)
      let count = try await store.source.steps(in: day, policy: .health)
      #expect(count.roundedSteps == 1800)
      #expect(store.simulation.executedQueries == ["HKStatisticsQuery"])
    }
  }
#endif
