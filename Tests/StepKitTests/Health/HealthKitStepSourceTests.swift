#if canImport(HealthKitStandIn)
  import Foundation
  import HealthKitStandIn
  import StepKit
  import Testing

  @Suite("HealthKit provider: counting")
  struct HealthKitCountingTests {
    let day: DateInterval

    init() throws {
      day = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
    }

    @Test("iPhone and Apple Watch are merged, not summed", arguments: HealthFixture.countings)
    func mergesWatchAndPhone(counting: HealthKitStepSource.Counting) async throws {
      let store = HealthFixture.Store(counting: counting)
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      let ten = try HealthFixture.date("2026-11-29T10:00:00+08:00")
      let eleven = try HealthFixture.date("2026-11-29T11:00:00+08:00")
      store.simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      store.simulation.add(steps: 800, from: nine, to: ten, origin: .iPhone)
      store.simulation.add(steps: 500, from: ten, to: eleven, origin: .iPhone)
      try await store.authorize()

      let count = try await store.source.steps(in: day, policy: .health)
      #expect(count.roundedSteps == 1500)
      #expect(count.hasData)
      #expect(count.provenance == Provenance(source: .healthKit, policy: .health, manualEntries: .excluded))
    }

    @Test(
      "typed-in steps are left out before the merge, not subtracted after it",
      arguments: HealthFixture.countings)
    func typedInStepsLeftOut(counting: HealthKitStepSource.Counting) async throws {
      let store = HealthFixture.Store(counting: counting)
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      let ten = try HealthFixture.date("2026-11-29T10:00:00+08:00")
      store.simulation.add(steps: 1000, from: nine, to: ten, origin: .appleWatch)
      store.simulation.add(steps: 5000, from: nine, to: ten, origin: .healthApp, userEntered: true)
      try await store.authorize()

      let health = try await store.source.steps(in: day, policy: .health)
      #expect(health.roundedSteps == 1000)
      #expect(health.provenance.manualEntries == .excluded)
      // With `all`, the typed-in entry outranks the watch for the hour it covers.
      let all = try await store.source.steps(in: day, policy: .all)
      #expect(all.roundedSteps == 5000)
      #expect(all.provenance.manualEntries == .included)
    }

    @Test("the device policy keeps only Apple's iPhone and Watch sources", arguments: HealthFixture.countings)
    func devicePolicy(counting: HealthKitStepSource.Counting) async throws {
      let store = HealthFixture.Store(counting: counting)
      try store.addSteps(1000, "2026-11-29T09:00:00+08:00", "2026-11-29T10:00:00+08:00", origin: .appleWatch)
      try store.addSteps(3000, "2026-11-29T12:00:00+08:00", "2026-11-29T13:00:00+08:00", origin: .otherApp)
      try await store.authorize()

      #expect(try await store.source.steps(in: day, policy: .device).roundedSteps == 1000)
      #expect(try await store.source.steps(in: day, policy: .health).roundedSteps == 4000)
    }

    @Test("the device policy with no Apple source answers zero without data")
    func devicePolicyWithoutAppleSources() async throws {
      let store = HealthFixture.Store()
      try store.addSteps(3000, "2026-11-29T12:00:00+08:00", "2026-11-29T13:00:00+08:00", origin: .otherApp)
      try await store.authorize()
      let count = try await store.source.steps(in: day, policy: .device)
      #expect(count.steps == 0)
      #expect(!count.hasData)
    }

    @Test("samples crossing the interval's edges count in proportion")
    func proportionalEdges() async throws {
      let store = HealthFixture.Store()
      // 600 steps from 23:30 to 00:30: half belongs to each day.
      try store.addSteps(600, "2026-11-28T23:30:00+08:00", "2026-11-29T00:30:00+08:00", origin: .iPhone)
      try await store.authorize()
      #expect(try await store.source.steps(in: day, policy: .health).roundedSteps == 300)
    }

    @Test("distance comes back as a measurement", arguments: HealthFixture.countings)
    func distance(counting: HealthKitStepSource.Counting) async throws {
      let store = HealthFixture.Store(counting: counting)
      let nine = try HealthFixture.date("2026-11-29T09:00:00+08:00")
      let ten = try HealthFixture.date("2026-11-29T10:00:00+08:00")
      store.simulation.add(meters: 2500, from: nine, to: ten, origin: .appleWatch)
      store.simulation.add(meters: 2000, from: nine, to: ten, origin: .iPhone)
      try await store.authorize()

      let amount = try await store.source.distance(in: day, policy: .health)
      #expect(amount.meters == 2500)
      #expect(abs(amount.distance.converted(to: .kilometers).value - 2.5) < 1e-9)
    }

    @Test("statistics come from HealthKit's statistics query; the merge strategy uses an anchored query")
    func queryKinds() async throws {
      let statistics = HealthFixture.Store()
      let merge = HealthFixture.Store(counting: .stepKitMerge(ranking: .default))
      try await statistics.authorize()
      try await merge.authorize()
      _ = try await statistics.source.steps(in: day, policy: .health)
      _ = try await merge.source.steps(in: day, policy: .health)
      _ = try await statistics.source.dailySteps(in: day, calendar: .current, policy: .health)
      #expect(statistics.simulation.executedQueries == ["HKStatisticsQuery", "HKStatisticsCollectionQuery"])
      #expect(merge.simulation.executedQueries == ["HKAnchoredObjectQuery"])
    }
  }

  @Suite("HealthKit provider: daily buckets")
  struct HealthKitDailyTests {
    @Test(
      "days start at local midnight across DST changes (23- and 25-hour days)",
      arguments: [
        ("2026-03-07T00:00:00-05:00", "2026-03-10T00:00:00-04:00", [24.0, 23.0, 24.0]),
        ("2026-10-31T00:00:00-04:00", "2026-11-03T00:00:00-05:00", [24.0, 25.0, 24.0]),
      ])
    func dstDays(start: String, end: String, hours: [Double]) async throws {
      let newYork = try HealthFixture.calendar("America/New_York")
      let store = HealthFixture.Store()
      store.simulation.calendar = newYork
      let range = try HealthFixture.interval(start, end)
      // 1000 steps at noon each day, and 240 steps spread over 22:00 to 02:00 of the first night.
      for day in LocalDays.days(covering: range, calendar: newYork) {
        let noon = day.start.addingTimeInterval(12 * 3600)
        store.simulation.add(steps: 1000, from: noon, to: noon.addingTimeInterval(600), origin: .iPhone)
      }
      let firstMidnight = LocalDays.days(covering: range, calendar: newYork)[1].start
      store.simulation.add(
        steps: 240, from: firstMidnight.addingTimeInterval(-2 * 3600),
        to: firstMidnight.addingTimeInterval(2 * 3600),
        origin: .appleWatch)
      try await store.authorize()

      let daily = try await store.source.dailySteps(in: range, calendar: newYork, policy: .health)
      #expect(daily.days.map { $0.interval.duration / 3600 } == hours)
      #expect(daily.days.map(\.roundedSteps) == [1120, 1120, 1000])
      for day in daily.days {
        #expect(
          newYork.dateComponents([.hour, .minute], from: day.interval.start)
            == DateComponents(hour: 0, minute: 0))
      }
    }

    @Test(
      "partial days at the ends cover whole days but count only samples in the range",
      arguments: HealthFixture.countings)
    func partialBuckets(counting: HealthKitStepSource.Counting) async throws {
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      let store = HealthFixture.Store(counting: counting)
      store.simulation.calendar = shanghai
      let add = { (value: Double, start: String, end: String) in
        try store.addSteps(value, start, end, origin: .iPhone)
      }
      try add(700, "2026-11-28T08:00:00+08:00", "2026-11-28T08:10:00+08:00")  // before the range
      try add(300, "2026-11-28T14:00:00+08:00", "2026-11-28T14:10:00+08:00")
      try add(200, "2026-11-29T09:00:00+08:00", "2026-11-29T09:10:00+08:00")
      try add(900, "2026-11-29T18:00:00+08:00", "2026-11-29T18:10:00+08:00")  // after the range
      try await store.authorize()

      let range = try HealthFixture.interval("2026-11-28T12:00:00+08:00", "2026-11-29T12:00:00+08:00")
      let daily = try await store.source.dailySteps(in: range, calendar: shanghai, policy: .health)
      #expect(daily.days.count == 2)
      #expect(daily.days[0].interval.start == (try HealthFixture.date("2026-11-28T00:00:00+08:00")))
      #expect(daily.days[1].interval.end == (try HealthFixture.date("2026-11-30T00:00:00+08:00")))
      #expect(daily.days.map(\.roundedSteps) == [300, 200])
      #expect(daily.totalSteps == 500)
    }

    @Test("empty days inside the range are kept, as zero")
    func emptyDays() async throws {
      let shanghai = try HealthFixture.calendar("Asia/Shanghai")
      let store = HealthFixture.Store()
      store.simulation.calendar = shanghai
      try store.addSteps(100, "2026-11-27T09:00:00+08:00", "2026-11-27T09:05:00+08:00", origin: .iPhone)
      try await store.authorize()
      let range = try HealthFixture.interval("2026-11-27T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
      let daily = try await store.source.dailySteps(in: range, calendar: shanghai, policy: .health)
      #expect(daily.days.map(\.roundedSteps) == [100, 0, 0])
      let distance = try await store.source.dailyDistance(in: range, calendar: shanghai, policy: .health)
      #expect(distance.days.map(\.meters) == [0, 0, 0])
      #expect(!distance.hasData)
    }
  }

  @Suite("HealthKit provider: availability, authorization and errors")
  struct HealthKitErrorPathTests {
    let day: DateInterval

    init() throws {
      day = try HealthFixture.interval("2026-11-29T00:00:00+08:00", "2026-11-30T00:00:00+08:00")
    }

    @Test("an unavailable device (iPad, Mac) is a state and a clear error")
    func unavailable() async throws {
      await HealthStoreSimulation.$deviceSupportsHealthData.withValue(false) {
        let store = HealthFixture.Store()
        #expect(await store.source.authorizationState() == .unavailable)
        await #expect(throws: StepKitError.healthDataUnavailable) { try await store.authorize() }
        await #expect(throws: StepKitError.healthDataUnavailable) {
          try await store.source.steps(in: day, policy: .health)
        }
        await #expect(throws: StepKitError.healthDataUnavailable) { try await store.source.biologicalSex() }
        var iterator = store.source.todayStepUpdates(calendar: .current, policy: .health).makeAsyncIterator()
        await #expect(throws: StepKitError.healthDataUnavailable) { try await iterator.next() }
      }
    }

    @Test("reading before asking is 'not determined'")
    func notDetermined() async throws {
      let store = HealthFixture.Store()
      #expect(await store.source.authorizationState() == .notRequested)
      await #expect(throws: StepKitError.authorizationNotDetermined(.steps)) {
        try await store.source.steps(in: day, policy: .health)
      }
      await #expect(throws: StepKitError.authorizationNotDetermined(.walkingRunningDistance)) {
        try await store.source.distance(in: day, policy: .health)
      }
    }

    @Test(
      "after the prompt, read access is unknown whether it was allowed or denied", arguments: [true, false])
    func readAccessIsHidden(allowed: Bool) async throws {
      let store = HealthFixture.Store()
      store.simulation.defaultAnswer = allowed ? .allow : .deny
      try store.addSteps(1000, "2026-11-29T09:00:00+08:00", "2026-11-29T10:00:00+08:00", origin: .appleWatch)
      try await store.authorize()
      #expect(await store.source.authorizationState() == .requestedReadAccessUnknown)
      #expect(store.simulation.promptCount == 1)
      try await store.authorize()
      #expect(store.simulation.promptCount == 1, "no second prompt for types already answered")

      let count = try await store.source.steps(in: day, policy: .health)
      if allowed {
        #expect(count.roundedSteps == 1000)
        #expect(count.provenance.notes.isEmpty)
      } else {
        // Denied reads look exactly like an empty database.
        #expect(count.steps == 0)
        #expect(!count.hasData)
        #expect(count.provenance.notes == [.noDataMayMeanDeniedAccess])
      }
    }

    @Test("a locked device cannot be read")
    func locked() async throws {
      let store = HealthFixture.Store()
      try await store.authorize()
      store.simulation.isLocked = true
      await #expect(throws: StepKitError.healthDatabaseLocked) {
        try await store.source.steps(in: day, policy: .health)
      }
      await #expect(throws: StepKitError.healthDatabaseLocked) {
        try await store.source.dailySteps(in: day, calendar: .current, policy: .health)
      }
      await #expect(throws: StepKitError.healthDatabaseLocked) { try await store.source.dateOfBirth() }
    }

    @Test("restricted access is reported")
    func restricted() async throws {
      let store = HealthFixture.Store()
      store.simulation.isRestricted = true
      await #expect(throws: StepKitError.healthDataRestricted) { try await store.authorize() }
    }

    @Test("a cancelled prompt is reported")
    func cancelledPrompt() async throws {
      let store = HealthFixture.Store()
      store.simulation.authorizationFailure = .errorUserCanceled
      await #expect(throws: StepKitError.authorizationCancelled) { try await store.authorize() }
    }

    @Test("query failures carry HealthKit's code", arguments: HealthFixture.countings)
    func queryFailure(counting: HealthKitStepSource.Counting) async throws {
      let store = HealthFixture.Store(counting: counting)
      try await store.authorize()
      store.simulation.queryFailure = .errorInvalidArgument
      do {
        _ = try await store.source.steps(in: day, policy: .health)
        Issue.record("expected a failure")
      } catch let error as StepKitError {
        guard case .queryFailed(let code, let message) = error else {
          Issue.record("unexpected \(error)")
          return
        }
        #expect(code == 3)
        #expect(!message.isEmpty)
      }
    }
  }

  @Suite("HealthKit provider: characteristics, saving, background delivery")
  struct HealthKitProfileTests {
    @Test("biological sex: a value, 'not set or not allowed', or 'not requested' — never a crash")
    func biologicalSex() async throws {
      let store = HealthFixture.Store()
      #expect(try await store.source.biologicalSex() == .notRequested)
      store.simulation.biologicalSex = .female
      store.simulation.answers[HKCharacteristicTypeIdentifier.biologicalSex.rawValue] = .allow
      try await store.authorize(AuthorizationRequest(read: [.biologicalSex]))
      #expect(try await store.source.biologicalSex() == .value(.female))

      let denied = HealthFixture.Store()
      denied.simulation.biologicalSex = .male
      denied.simulation.defaultAnswer = .deny
      try await denied.authorize(AuthorizationRequest(read: [.biologicalSex]))
      #expect(try await denied.source.biologicalSex() == .notSetOrNotAllowed)
    }

    @Test("date of birth: a value, or 'not set or not allowed'")
    func dateOfBirth() async throws {
      let store = HealthFixture.Store()
      #expect(try await store.source.dateOfBirth() == .notRequested)
      try await store.authorize(AuthorizationRequest(read: [.dateOfBirth]))
      #expect(try await store.source.dateOfBirth() == .notSetOrNotAllowed)
      store.simulation.dateOfBirth = DateComponents(
        calendar: Calendar(identifier: .gregorian), year: 1990, month: 5, day: 17)
      #expect(try await store.source.dateOfBirth() == .value(DateComponents(year: 1990, month: 5, day: 17)))
    }

    @Test("saving body mass and height stores samples in SI units")
    func save() async throws {
      let store = HealthFixture.Store()
      try await store.authorize(.everything)
      #expect(store.source.writeAccess(for: .bodyMass) == .authorized)
      let date = try HealthFixture.date("2026-11-29T08:00:00+08:00")
      let mass = try BodyMeasurement.bodyMass(Measurement(value: 150, unit: .pounds))
      let saved = try await store.source.save(mass, at: date)
      let expected = Measurement(value: 150, unit: UnitMass.pounds).converted(to: .kilograms).value
      #expect(abs(saved.measurement.siValue - expected) < 1e-9)
      #expect(saved.measurement.type == .bodyMass)
      _ = try await store.source.save(
        try BodyMeasurement.height(Measurement(value: 180, unit: .centimeters)), at: date)
      #expect(store.simulation.storedSampleCount == 2)
    }

    @Test("a denied or failing save is surfaced, never swallowed")
    func saveFailures() async throws {
      let date = try HealthFixture.date("2026-11-29T08:00:00+08:00")
      let mass = BodyMeasurement.bodyMass(kilograms: 70)

      let notAsked = HealthFixture.Store()
      await #expect(throws: StepKitError.authorizationNotDetermined(.bodyMass)) {
        try await notAsked.source.save(mass, at: date)
      }

      let denied = HealthFixture.Store()
      denied.simulation.answers[HKQuantityTypeIdentifier.bodyMass.rawValue] = .init(read: true, share: false)
      try await denied.authorize(.everything)
      #expect(denied.source.writeAccess(for: .bodyMass) == .denied)
      await #expect(throws: StepKitError.writeAccessDenied(.bodyMass)) {
        try await denied.source.save(mass, at: date)
      }

      let failing = HealthFixture.Store()
      try await failing.authorize(.everything)
      failing.simulation.saveFailure = .errorInvalidArgument
      do {
        _ = try await failing.source.save(mass, at: date)
        Issue.record("expected a failure")
      } catch StepKitError.saveFailed(let type, let code, _) {
        #expect(type == .bodyMass)
        #expect(code == 3)
      }
    }

    @Test("saves still work while the device is locked")
    func saveWhileLocked() async throws {
      let store = HealthFixture.Store()
      try await store.authorize(.everything)
      store.simulation.isLocked = true
      _ = try await store.source.save(.height(meters: 1.7), at: Date())
      #expect(store.simulation.storedSampleCount == 1)
    }

    @Test("background delivery for steps is at most hourly, and its failure is reported")
    func backgroundDelivery() async throws {
      let store = HealthFixture.Store()
      try await store.source.enableBackgroundDelivery(frequency: .immediate)
      #expect(store.simulation.backgroundDelivery[HKQuantityTypeIdentifier.stepCount.rawValue] == .hourly)

      let missingEntitlement = HealthFixture.Store()
      missingEntitlement.simulation.backgroundDeliveryFailure = .errorAuthorizationDenied
      do {
        try await missingEntitlement.source.enableBackgroundDelivery(frequency: .hourly)
        Issue.record("expected a failure")
      } catch StepKitError.backgroundDeliveryFailed(let code, _) {
        #expect(code == 4)
      }
    }
  }
#endif
