#if canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Foundation
  @testable import StepKit
  import Testing

  @Suite("Motion step source: authorization, errors, history window")
  struct MotionStepSourceTests {
    static let now = "2026-11-29T12:00:00+08:00"

    // MARK: Authorization

    @Test(
      "authorizationStatus() maps to AuthorizationState without showing the prompt",
      arguments: [
        (
          PedometerSimulator.Availability.iPhone, CMAuthorizationStatus.notDetermined,
          AuthorizationState.notRequested
        ),
        (.iPhone, .authorized, .authorized),
        (.iPhone, .denied, .denied),
        (.iPhone, .restricted, .restricted),
        (.none, .authorized, .unavailable),
        (.none, .notDetermined, .unavailable),
      ])
    func authorizationStates(
      availability: PedometerSimulator.Availability, status: CMAuthorizationStatus,
      expected: AuthorizationState
    ) async throws {
      let rig = try MotionRig(now: Self.now, authorization: status, availability: availability)
      let state = await rig.run { await rig.source.authorizationState() }
      #expect(state == expected)
      #expect(rig.device.promptsShown == 0)
      #expect(rig.device.requestsReceived == 0)
    }

    @Test(
      "not determined: the query goes ahead and the prompt decides",
      arguments: [
        (CMAuthorizationStatus.authorized, nil as StepKitError?), (.denied, .motionNotAuthorized),
        (.restricted, .motionNotAuthorized),
      ])
    func notDeterminedPromptsOnFirstQuery(answer: CMAuthorizationStatus, expected: StepKitError?) async throws
    {
      let rig = try MotionRig(now: Self.now, authorization: .notDetermined)
      rig.device.promptAnswer = answer
      try rig.record(300, at: "2026-11-29T09:00:00+08:00")
      let interval = DateInterval(start: try motionDate("2026-11-29T00:00:00+08:00"), end: rig.device.now)
      let error = await motionError {
        let count = try await rig.run { try await rig.source.steps(in: interval, policy: .health) }
        #expect(count.steps == 300)
      }
      #expect(error == expected)
      #expect(rig.device.promptsShown == 1)
      #expect(await rig.run { await rig.source.authorizationState() } == AuthorizationState(answer))
    }

    @Test(
      "denied, restricted and unavailable fail before CoreMotion is asked",
      arguments: [
        (
          PedometerSimulator.Availability.iPhone, CMAuthorizationStatus.denied,
          StepKitError.motionNotAuthorized
        ),
        (.iPhone, .restricted, .motionRestricted),
        (.none, .authorized, .motionNotAvailable),
      ])
    func refusedBeforeQuery(
      availability: PedometerSimulator.Availability, status: CMAuthorizationStatus, expected: StepKitError
    ) async throws {
      let rig = try MotionRig(now: Self.now, authorization: status, availability: availability)
      let interval = DateInterval(start: rig.device.now.addingTimeInterval(-3600), end: rig.device.now)
      let error = await motionError {
        _ = try await rig.run { try await rig.source.steps(in: interval, policy: .health) }
      }
      #expect(error == expected)
      #expect(rig.device.requestsReceived == 0)
    }

    @Test(
      "requestAuthorization() shows the prompt through a query and reports the answer",
      arguments: [
        CMAuthorizationStatus.authorized, .denied,
      ])
    func requestAuthorization(answer: CMAuthorizationStatus) async throws {
      let rig = try MotionRig(now: Self.now, authorization: .notDetermined)
      rig.device.promptAnswer = answer
      let state = try await rig.run { try await rig.source.requestAuthorization() }
      #expect(state == AuthorizationState(answer))
      #expect(rig.device.promptsShown == 1)
    }

    @Test(
      "NSMotionUsageDescription is required before any request",
      arguments: [
        [:], [InfoPlistKey.motionUsageDescription: "  "],
      ])
    func missingUsageDescription(values: [String: String]) async throws {
      let rig = try MotionRig(
        now: Self.now, authorization: .notDetermined, bundle: DictionaryBundleInfo(values))
      let interval = DateInterval(start: rig.device.now.addingTimeInterval(-3600), end: rig.device.now)
      let expected = StepKitError.missingUsageDescription(key: "NSMotionUsageDescription")
      #expect(
        await motionError {
          _ = try await rig.run { try await rig.source.steps(in: interval, policy: .health) }
        } == expected)
      #expect(
        await motionError { _ = try await rig.run { try await rig.source.requestAuthorization() } }
          == expected)
      var updates = await rig.run { rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health) }
        .makeAsyncIterator()
      #expect(await motionError { _ = try await updates.next() } == expected)
      #expect(rig.device.requestsReceived == 0)
      #expect(rig.device.promptsShown == 0)
    }

    // MARK: Errors

    static let errorTable: [(UInt32, StepKitError?)] = [
      (104, .motionNotAvailable), (105, .motionNotAuthorized), (106, .motionNotEntitled),
      (109, .motionNotAvailable), (110, .motionNotEntitled), (111, .motionNotAuthorized),
      (100, nil), (101, nil), (102, nil), (103, nil), (107, nil), (108, nil), (112, nil), (113, nil),
    ]

    @Test("every CoreMotion error code becomes a StepKitError", arguments: errorTable)
    func errorCodes(code: UInt32, expected: StepKitError?) async throws {
      let rig = try MotionRig(now: Self.now)
      rig.device.failNextRequests(with: CMError(code))
      let interval = DateInterval(start: rig.device.now.addingTimeInterval(-3600), end: rig.device.now)
      let error = await motionError {
        _ = try await rig.run { try await rig.source.steps(in: interval, policy: .health) }
      }
      if let expected {
        #expect(error == expected)
      } else {
        guard case .motionQueryFailed(let reported, let message) = error else {
          Issue.record("expected motionQueryFailed, got \(String(describing: error))")
          return
        }
        #expect(reported == Int(code))
        #expect(!message.isEmpty)
      }
      // Exactly one answer per request: the next request succeeds on its own.
      #expect(rig.device.handlerCalls == 1)
      _ = try await rig.run { try await rig.source.steps(in: interval, policy: .health) }
      #expect(rig.device.handlerCalls == 2)
    }

    @Test("permission errors point to Motion & Fitness in Settings, in English and Simplified Chinese")
    func guidance() {
      let english = StepKitError.motionNotAuthorized.recoverySuggestion(in: .english) ?? ""
      let chinese = StepKitError.motionNotAuthorized.recoverySuggestion(in: .simplifiedChinese) ?? ""
      #expect(english.contains("Settings > Privacy & Security > Motion & Fitness"))
      #expect(chinese.contains("设置 > 隐私与安全性 > 运动与健身"))
      for error in [
        StepKitError.motionNotAvailable, .motionRestricted, .motionNotEntitled,
        .motionQueryFailed(code: 103, message: "x"),
      ] {
        #expect(!error.description(in: .english).isEmpty)
        #expect(!error.description(in: .simplifiedChinese).isEmpty)
      }
      #expect(
        StepKitError.motionRestricted.recoverySuggestion(in: .simplifiedChinese)?.contains("屏幕使用时间") == true)
    }

    @Test("a handler called twice resumes the waiting query once; the second call is ignored")
    func resumeOnce() async throws {
      let reading = PedometerReading(
        start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 60), steps: 3,
        distanceMeters: nil,
        floorsAscended: nil, floorsDescended: nil)
      let value = try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<PedometerReading, any Error>) in
        let once = ResumeOnce(continuation)
        once.resume(with: .success(reading))
        once.resume(with: .failure(.motionNotAuthorized))
      }
      #expect(value == reading)
    }

    // MARK: Answers

    @Test("steps, distance and floors for an interval, with the motion provenance")
    func answers() async throws {
      let rig = try MotionRig(now: Self.now)
      try rig.record(1200, at: "2026-11-29T08:00:00+08:00", meters: 900, floorsUp: 3, floorsDown: 2)
      try rig.record(34, at: "2026-11-29T11:59:00+08:00", meters: 20)
      try rig.record(999, at: "2026-11-28T23:59:00+08:00")  // yesterday
      let today = DateInterval(start: try motionDate("2026-11-29T00:00:00+08:00"), end: rig.device.now)
      let (steps, distance, activity) = try await rig.run {
        (
          try await rig.source.steps(in: today, policy: .device),
          try await rig.source.distance(in: today, policy: .health),
          try await rig.source.activity(in: today)
        )
      }
      #expect(steps.steps == 1234 && steps.hasData)
      #expect(steps.provenance == Provenance(source: .motion, policy: .device, manualEntries: .notApplicable))
      #expect(distance.meters == 920)
      #expect(activity.steps == 1234 && activity.floorsAscended == 3 && activity.floorsDescended == 2)
      #expect(activity.distanceMeters == 920)
    }

    @Test("no steps: an answer without data, not an error")
    func emptyAnswer() async throws {
      let rig = try MotionRig(now: Self.now)
      let hour = DateInterval(start: rig.device.now.addingTimeInterval(-3600), end: rig.device.now)
      let count = try await rig.run { try await rig.source.steps(in: hour, policy: .health) }
      #expect(count.steps == 0)
      #expect(!count.hasData)
    }

    @Test("floors and distance where the device lacks them")
    func missingCapabilities() async throws {
      var availability = PedometerSimulator.Availability.iPhone
      availability.floorCounting = false
      availability.distance = false
      let rig = try MotionRig(now: Self.now, availability: availability)
      try rig.record(10, at: "2026-11-29T11:00:00+08:00", meters: 8, floorsUp: 1)
      let hour = DateInterval(start: rig.device.now.addingTimeInterval(-3600), end: rig.device.now)
      let activity = try await rig.run { try await rig.source.activity(in: hour) }
      #expect(activity.steps == 10 && activity.floorsAscended == nil && activity.distanceMeters == nil)
      let error = await motionError {
        _ = try await rig.run { try await rig.source.distance(in: hour, policy: .health) }
      }
      guard case .motionQueryFailed(let code, _) = error else {
        Issue.record("expected motionQueryFailed, got \(String(describing: error))")
        return
      }
      #expect(code == 109)
      let capabilities = await rig.run { MotionStepSource.capabilities }
      #expect(capabilities == MotionCapabilities(stepCounting: true, distance: false, floorCounting: false))
    }

    // MARK: Seven days

    @Test("an interval starting exactly seven days ago is answered whole")
    func windowStartIsInside() async throws {
      let rig = try MotionRig(now: Self.now)
      let earliest = rig.device.now.addingTimeInterval(-7 * 86_400)
      rig.device.record(steps: 5, at: earliest)
      let count = try await rig.run {
        try await rig.source.steps(in: DateInterval(start: earliest, end: rig.device.now), policy: .health)
      }
      #expect(count.steps == 5)
      #expect(count.provenance.notes.isEmpty)
      #expect(rig.source.earliestAvailableDate() == earliest)
    }

    @Test("an interval reaching further back is counted from the window's start, with a note")
    func truncated() async throws {
      let rig = try MotionRig(now: Self.now)
      let earliest = rig.device.now.addingTimeInterval(-7 * 86_400)
      rig.device.record(steps: 5, at: earliest)
      rig.device.record(steps: 1, at: earliest.addingTimeInterval(-60))
      let interval = DateInterval(start: earliest.addingTimeInterval(-86_400), end: rig.device.now)
      let count = try await rig.run { try await rig.source.steps(in: interval, policy: .health) }
      #expect(count.steps == 5)
      #expect(count.interval == interval)
      #expect(count.provenance.notes == [.truncatedHistory(earliestAvailable: earliest)])
    }

    @Test("with historyLimit .fail, or wholly before the window, the answer is an error")
    func outside() async throws {
      let failing = try MotionRig(now: Self.now, historyLimit: .fail)
      let lenient = try MotionRig(now: Self.now)
      let earliest = failing.device.now.addingTimeInterval(-7 * 86_400)
      let reachingBack = DateInterval(start: earliest.addingTimeInterval(-1), end: failing.device.now)
      let before = DateInterval(start: earliest.addingTimeInterval(-86_400), end: earliest)
      let expected = StepKitError.motionOutsideHistory(earliestAvailable: earliest)
      // Reaching back past the window fails under .fail; lying wholly before it fails either way.
      for (rig, interval) in [(failing, reachingBack), (lenient, before)] {
        #expect(
          await motionError {
            _ = try await rig.run { try await rig.source.steps(in: interval, policy: .health) }
          } == expected)
        #expect(
          await motionError {
            _ = try await rig.run {
              try await rig.source.dailySteps(in: interval, calendar: rig.calendar, policy: .health)
            }
          } == expected)
      }
      #expect(failing.device.requestsReceived == 0 && lenient.device.requestsReceived == 0)
    }

    @Test("daily buckets: local days, the part before the window left out, future days empty")
    func dailyBuckets() async throws {
      let rig = try MotionRig(now: Self.now)
      let earliest = rig.device.now.addingTimeInterval(-7 * 86_400)  // 2026-11-22T12:00+08:00
      for day in 20...29 {
        try rig.record(day * 10, at: "2026-11-\(day)T13:00:00+08:00", meters: Double(day))
        try rig.record(1, at: "2026-11-\(day)T06:00:00+08:00")
      }
      let interval = DateInterval(
        start: try motionDate("2026-11-19T00:00:00+08:00"), end: try motionDate("2026-12-01T00:00:00+08:00"))
      let (daily, distance) = try await rig.run {
        (
          try await rig.source.dailySteps(in: interval, calendar: rig.calendar, policy: .health),
          try await rig.source.dailyDistance(in: interval, calendar: rig.calendar, policy: .health)
        )
      }
      let starts = try (22...30).map { try motionDate("2026-11-\($0)T00:00:00+08:00") }
      #expect(daily.days.map(\.interval.start) == starts)
      // 22nd: only from 12:00 (13:00 kept, 06:00 forgotten); 29th: up to now, 12:00 (06:00 only);
      // 30th: future.
      #expect(daily.days.map(\.steps) == [220, 231, 241, 251, 261, 271, 281, 1, 0])
      #expect(daily.provenance.notes == [.truncatedHistory(earliestAvailable: earliest)])
      #expect(daily.hasData)
      #expect(distance.days.map(\.meters) == [22, 23, 24, 25, 26, 27, 28, 0, 0])
    }

    @Test("daily buckets follow DST: a 23-hour day in Berlin")
    func dailyBucketsAcrossDST() async throws {
      let rig = try MotionRig(now: "2026-03-30T12:00:00+02:00", timeZone: "Europe/Berlin")
      try rig.record(100, at: "2026-03-29T23:30:00+02:00")
      try rig.record(7, at: "2026-03-30T00:30:00+02:00")
      let interval = DateInterval(
        start: try motionDate("2026-03-29T00:00:00+01:00"), end: try motionDate("2026-03-31T00:00:00+02:00"))
      let daily = try await rig.run {
        try await rig.source.dailySteps(in: interval, calendar: rig.calendar, policy: .health)
      }
      #expect(daily.days.map(\.interval.duration) == [23 * 3600, 24 * 3600])
      #expect(daily.days.map(\.steps) == [100, 7])
    }
  }

  extension AuthorizationState {
    /// The state a CoreMotion status maps to on a device with a step counter.
    init(_ status: CMAuthorizationStatus) {
      switch status {
      case .notDetermined: self = .notRequested
      case .restricted: self = .restricted
      case .denied: self = .denied
      case .authorized: self = .authorized
      }
    }
  }
#endif
