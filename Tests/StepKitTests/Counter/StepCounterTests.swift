import Foundation
import StepKit
import Testing

#if canImport(HealthKitStandIn)
  import HealthKitStandIn
#endif

@Suite("StepCounter: authorization, Info.plist, body measurements")
struct StepCounterTests {
  func counter(
    health: SimulatedStepSource?, motion: SimulatedStepSource? = nil,
    bundle: DictionaryBundleInfo = .complete, clock: any StepClock = SystemClock()
  ) -> StepCounter {
    StepCounter(health: health, motion: motion, clock: clock, bundle: bundle)
  }

  @Test(
    "a missing usage description is named, and HealthKit is never asked",
    arguments: [
      (AuthorizationRequest.stepsAndDistance, [String: String](), "NSHealthShareUsageDescription"),
      (.everything, ["NSHealthShareUsageDescription": "Shows your steps."], "NSHealthUpdateUsageDescription"),
      (.stepsAndDistance, ["NSHealthShareUsageDescription": "   "], "NSHealthShareUsageDescription"),
    ])
  func missingUsageDescription(request: AuthorizationRequest, info: [String: String], key: String)
    async throws
  {
    let health = SimulatedStepSource(authorization: .notRequested)
    let counter = counter(health: health, bundle: DictionaryBundleInfo(info))
    await #expect(throws: StepKitError.missingUsageDescription(key: key)) {
      try await counter.requestAuthorization(request)
    }
    #expect(health.callCount(.authorization) == 0)
    #expect(await health.authorizationState() == .notRequested)
  }

  @Test("with the descriptions present, the prompt is shown")
  func authorizes() async throws {
    let health = SimulatedStepSource(authorization: .notRequested)
    let counter = counter(health: health)
    try await counter.requestAuthorization(.everything)
    #expect(health.callCount(.authorization) == 1)
    #expect(await counter.authorizationStatus().healthKit == .requestedReadAccessUnknown)
  }

  @Test("a counter without a health source says so")
  func noHealthSource() async throws {
    let counter = StepCounter(
      health: nil, motion: nil, strategy: .healthKit, bundle: DictionaryBundleInfo.complete)
    await #expect(throws: StepKitError.sourceNotConfigured(.healthKit)) {
      try await counter.requestAuthorization()
    }
    await #expect(throws: StepKitError.sourceNotConfigured(.healthKit)) { try await counter.todaySteps() }
    await #expect(throws: StepKitError.sourceNotConfigured(.healthKit)) { try await counter.biologicalSex() }
    #expect(await counter.authorizationStatus() == AuthorizationStatus(healthKit: nil, motion: nil))
  }

  @Test(
    "body measurements are converted, validated and saved",
    arguments: [
      (Measurement(value: 150, unit: UnitMass.pounds).converted(to: .kilograms).value, true),
      (0.0, false), (-70, false), (900, false), (Double.nan, false), (Double.infinity, false),
    ])
  func bodyMass(kilograms: Double, valid: Bool) async throws {
    let health = SimulatedStepSource()
    let counter = counter(health: health)
    if valid {
      let saved = try await counter.save(bodyMass: Measurement(value: kilograms, unit: .kilograms))
      #expect(saved.measurement == .bodyMass(kilograms: kilograms))
      #expect(health.savedMeasurements.count == 1)
    } else {
      do {
        try await counter.save(bodyMass: Measurement(value: kilograms * 1000, unit: .grams))
        Issue.record("\(kilograms) kg was accepted")
      } catch StepKitError.implausibleMeasurement(let type, _, let unit, let plausible) {
        #expect(type == .bodyMass)
        #expect(unit == "kg")
        #expect(plausible == BodyMeasurement.plausibleKilograms)
      }
      #expect(health.savedMeasurements.isEmpty)
    }
  }

  @Test("heights in any unit are stored in metres; implausible ones are refused")
  func height() async throws {
    let health = SimulatedStepSource()
    let counter = counter(health: health)
    try await counter.save(height: Measurement(value: 5.9, unit: .feet))
    #expect(abs((health.savedMeasurements.first?.measurement.siValue ?? 0) - 1.79832) < 1e-9)
    await #expect(
      throws: StepKitError.implausibleMeasurement(.height, value: 18, unit: "m", plausible: 0.2...3)
    ) {
      try await counter.save(height: Measurement(value: 18, unit: .meters))
    }
  }

  @Test("writing checks NSHealthUpdateUsageDescription first, and save failures surface")
  func saveFailures() async throws {
    let health = SimulatedStepSource()
    let noUpdateKey = counter(
      health: health, bundle: DictionaryBundleInfo(["NSHealthShareUsageDescription": "Shows your steps."]))
    await #expect(throws: StepKitError.missingUsageDescription(key: "NSHealthUpdateUsageDescription")) {
      try await noUpdateKey.save(height: Measurement(value: 1.8, unit: .meters))
    }
    health.failNext(.save, with: .writeAccessDenied(.height))
    await #expect(throws: StepKitError.writeAccessDenied(.height)) {
      try await counter(health: health).save(height: Measurement(value: 1.8, unit: .meters))
    }
  }

  @Test("characteristics pass through as values")
  func characteristics() async throws {
    let health = SimulatedStepSource()
    health.scriptedBiologicalSex = .value(.other)
    health.scriptedDateOfBirth = .notRequested
    let counter = counter(health: health)
    #expect(try await counter.biologicalSex() == .value(.other))
    #expect(try await counter.dateOfBirth() == .notRequested)
  }

  @Test("today runs from local midnight of the counter's calendar to the clock's now")
  func todayInterval() async throws {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: "Asia/Shanghai"))
    let clock = ManualClock(now: try HealthFixture.date("2026-11-29T00:30:00+08:00"))
    let health = SimulatedStepSource(
      samples: [
        try HealthFixture.steps(50, "2026-11-28T23:50:00+08:00", "2026-11-29T00:10:00+08:00"),
        try HealthFixture.steps(70, "2026-11-29T00:15:00+08:00", "2026-11-29T00:20:00+08:00"),
      ], clock: clock)
    let counter = StepCounter(
      health: health, motion: nil, strategy: .healthKit, calendar: calendar, clock: clock,
      bundle: DictionaryBundleInfo.complete)
    let today = try await counter.todaySteps()
    #expect(today.interval.start == (try HealthFixture.date("2026-11-29T00:00:00+08:00")))
    #expect(today.interval.end == clock.now())
    #expect(today.roundedSteps == 95)
  }

  @Test("background delivery is passed to the health source")
  func backgroundDelivery() async throws {
    let health = SimulatedStepSource()
    try await counter(health: health).enableBackgroundDelivery()
    #expect(health.backgroundDeliveryFrequency == .hourly)
  }
}

#if canImport(HealthKitStandIn)
  @Suite("StepCounter over the HealthKit stand-in")
  struct StepCounterHealthKitTests {
    @Test("the authorization truth table: unavailable, not requested, requested with read access unknown")
    func truthTable() async throws {
      let simulation = HealthStoreSimulation()
      let health = HealthKitStepSource(store: HKHealthStore(simulation: simulation))
      let counter = StepCounter(
        health: health, motion: nil, strategy: .healthKit, bundle: DictionaryBundleInfo.complete)
      #expect(await counter.authorizationStatus().healthKit == .notRequested)
      simulation.defaultAnswer = .deny
      try await counter.requestAuthorization()
      #expect(await counter.authorizationStatus().healthKit == .requestedReadAccessUnknown)
      // Asking for more types than were answered brings the prompt back.
      #expect(await counter.authorizationStatus(for: .everything).healthKit == .notRequested)
      await HealthStoreSimulation.$deviceSupportsHealthData.withValue(false) {
        #expect(await counter.authorizationStatus().healthKit == .unavailable)
      }
    }

    @Test("an empty answer says that access may be denied, with the Settings path")
    func emptyAnswerNote() async throws {
      let simulation = HealthStoreSimulation()
      simulation.defaultAnswer = .deny
      let counter = StepCounter(
        health: HealthKitStepSource(store: HKHealthStore(simulation: simulation)), motion: nil,
        strategy: .healthKit,
        bundle: DictionaryBundleInfo.complete)
      try await counter.requestAuthorization()
      let today = try await counter.todaySteps()
      #expect(!today.hasData)
      #expect(today.provenance.notes == [.noDataMayMeanDeniedAccess])
      #expect(
        ResultNote.noDataMayMeanDeniedAccess.explanation.contains("Settings > Health > Data Access & Devices")
      )
    }

    @Test("on a device without HealthKit, CoreMotion's count comes with the reason")
    func fallbackWhenUnavailable() async throws {
      let motion = SimulatedStepSource(
        samples: [try HealthFixture.steps(321, "2026-11-29T09:00:00+08:00", "2026-11-29T09:30:00+08:00")],
        authorization: .authorized, kind: .motion)
      let counter = StepCounter(
        health: HealthKitStepSource(), motion: motion, bundle: DictionaryBundleInfo.complete)
      let range = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
      let count = try await HealthStoreSimulation.$deviceSupportsHealthData.withValue(false) {
        try await counter.steps(in: range)
      }
      #expect(count.roundedSteps == 321)
      #expect(count.provenance.source == .motion)
      #expect(count.provenance.fallbackReason == .healthDataUnavailable)
      #expect(count.provenance.manualEntries == .notApplicable)
    }
  }
#endif
