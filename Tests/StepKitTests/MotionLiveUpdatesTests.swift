#if canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Foundation
  import StepKit
  import Testing

  @Suite("Motion live updates: today's steps, midnight, cancellation")
  struct MotionLiveUpdatesTests {
    @Test("today's total first, then the total after each change")
    func baselineThenUpdates() async throws {
      let rig = try MotionRig(now: "2026-11-29T08:00:00+08:00")
      try rig.record(500, at: "2026-11-29T07:00:00+08:00")
      try rig.record(99, at: "2026-11-28T22:00:00+08:00")
      let midnight = try motionDate("2026-11-29T00:00:00+08:00")
      try await rig.run {
        var updates = rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.steps == 500 && first.hasData)
        #expect(first.interval.start == midnight)
        #expect(
          first.provenance == Provenance(source: .motion, policy: .health, manualEntries: .notApplicable))
        rig.device.walk(steps: 20)
        #expect(try await updates.next()?.steps == 520)
        rig.device.advance(by: 90)
        rig.device.walk(steps: 5, distanceMeters: 4)
        let third = try #require(try await updates.next())
        #expect(third.steps == 525)
        #expect(third.interval.end == rig.device.now)
      }
    }

    @Test("at midnight the count restarts from zero and updates restart from the new midnight")
    func midnightRollover() async throws {
      let rig = try MotionRig(now: "2026-11-29T23:58:00+08:00")
      try rig.record(1000, at: "2026-11-29T10:00:00+08:00")
      let nextMidnight = try motionDate("2026-11-30T00:00:00+08:00")
      try await rig.run {
        var updates = rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        #expect(try await updates.next()?.steps == 1000)
        rig.device.advance(by: 90)  // 23:59:30
        rig.device.walk(steps: 100)
        #expect(try await updates.next()?.steps == 1100)
        rig.device.advance(to: nextMidnight.addingTimeInterval(30))
        let fresh = try #require(try await updates.next())
        #expect(fresh.steps == 0 && !fresh.hasData)
        #expect(fresh.interval.start == nextMidnight)
        #expect(rig.device.activeUpdateSessions == 1)
        rig.device.walk(steps: 30)
        #expect(try await updates.next()?.steps == 30)
      }
    }

    @Test("activity that shows up after midnight is never added to yesterday's count")
    func lateActivityAfterMidnight() async throws {
      let rig = try MotionRig(now: "2026-11-29T23:59:00+08:00")
      try rig.record(1000, at: "2026-11-29T10:00:00+08:00")
      try rig.record(40, at: "2026-11-30T00:00:10+08:00")  // becomes visible when the clock passes it
      let nextMidnight = try motionDate("2026-11-30T00:00:00+08:00")
      try await rig.run {
        var updates = rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        #expect(try await updates.next()?.steps == 1000)
        rig.device.advance(to: nextMidnight.addingTimeInterval(30))
        let next = try #require(try await updates.next())
        #expect(next.interval.start == nextMidnight)
        #expect(next.steps == 40)
      }
    }

    struct DSTCase: Sendable, CustomTestStringConvertible {
      var name: String
      var timeZone: String
      var start: String
      var afterMidnight: String
      var dayStart: String
      var nextDayStart: String
      var dayHours: Double
      var testDescription: String { name }
    }

    static let dstCases = [
      DSTCase(
        name: "Berlin, spring forward (23-hour day)", timeZone: "Europe/Berlin",
        start: "2026-03-29T23:50:00+02:00", afterMidnight: "2026-03-30T00:00:30+02:00",
        dayStart: "2026-03-29T00:00:00+01:00", nextDayStart: "2026-03-30T00:00:00+02:00", dayHours: 23),
      DSTCase(
        name: "Berlin, fall back (25-hour day)", timeZone: "Europe/Berlin",
        start: "2026-10-25T23:50:00+01:00", afterMidnight: "2026-10-26T00:00:30+01:00",
        dayStart: "2026-10-25T00:00:00+02:00", nextDayStart: "2026-10-26T00:00:00+01:00", dayHours: 25),
      DSTCase(
        name: "São Paulo 2018, midnight skipped (day starts 01:00)", timeZone: "America/Sao_Paulo",
        start: "2018-11-03T23:50:00-03:00", afterMidnight: "2018-11-04T01:00:30-02:00",
        dayStart: "2018-11-03T00:00:00-03:00", nextDayStart: "2018-11-04T01:00:00-02:00", dayHours: 24),
    ]

    @Test("midnight rollover on DST days", arguments: dstCases)
    func dstRollover(_ dst: DSTCase) async throws {
      let rig = try MotionRig(now: dst.start, timeZone: dst.timeZone)
      let dayStart = try motionDate(dst.dayStart)
      let nextDayStart = try motionDate(dst.nextDayStart)
      #expect(nextDayStart.timeIntervalSince(dayStart) == dst.dayHours * 3600)
      rig.device.record(steps: 700, at: dayStart.addingTimeInterval(3 * 3600))
      rig.device.record(steps: 7, at: rig.device.now.addingTimeInterval(-60))
      try await rig.run {
        var updates = rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        let first = try #require(try await updates.next())
        #expect(first.steps == 707)
        #expect(first.interval.start == dayStart)
        rig.device.advance(to: try motionDate(dst.afterMidnight))
        let fresh = try #require(try await updates.next())
        #expect(fresh.interval.start == nextDayStart)
        #expect(fresh.steps == 0)
        rig.device.walk(steps: 12)
        #expect(try await updates.next()?.steps == 12)
      }
    }

    @Test("cancelling the consuming task stops the pedometer updates and the midnight wait")
    func cancellationStops() async throws {
      let rig = try MotionRig(now: "2026-11-29T08:00:00+08:00")
      try await rig.run {
        let consumer = Task {
          var seen = 0
          for try await _ in rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health) {
            seen += 1
          }
          return seen
        }
        await rig.device.waitForUpdateSessions(1)
        consumer.cancel()
        await rig.device.waitForUpdateSessions(0)
        _ = try await consumer.value
        rig.device.walk(steps: 10)
        await rig.device.waitForDeliveries()
        #expect(rig.device.activeUpdateSessions == 0)
        #expect(rig.device.sleepers == 0)
      }
    }

    @Test("leaving the loop stops the pedometer updates")
    func breakingOutStops() async throws {
      let rig = try MotionRig(now: "2026-11-29T08:00:00+08:00")
      try rig.record(10, at: "2026-11-29T07:00:00+08:00")
      try await rig.run {
        var totals: [Double] = []
        for try await count in rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health) {
          totals.append(count.steps)
          if totals.count == 2 { break }
          rig.device.walk(steps: 5)
        }
        #expect(totals == [10, 15])
        await rig.device.waitForUpdateSessions(0)
        #expect(rig.device.activeUpdateSessions == 0)
      }
    }

    @Test("turning Motion & Fitness off ends the sequence with motionNotAuthorized")
    func revocationEndsSequence() async throws {
      let rig = try MotionRig(now: "2026-11-29T08:00:00+08:00")
      try await rig.run {
        var updates = rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        let first = try await updates.next()
        #expect(first?.steps == 0)
        rig.device.authorization = .denied
        let error = await motionError { _ = try await updates.next() }
        #expect(error == .motionNotAuthorized)
        await rig.device.waitForUpdateSessions(0)
        #expect(rig.device.sleepers == 0)
      }
    }

    @Test(
      "a failing start ends the sequence with the mapped error",
      arguments: [
        (CMErrorMotionActivityNotEntitled, StepKitError.motionNotEntitled),
        (CMErrorMotionActivityNotAvailable, .motionNotAvailable),
      ])
    func failingStart(code: CMError, expected: StepKitError) async throws {
      let rig = try MotionRig(now: "2026-11-29T08:00:00+08:00")
      rig.device.failNextRequests(with: code)
      try await rig.run {
        var updates = rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        // The start fails on CoreMotion's queue, possibly after today's total was yielded.
        let error = await motionError { while try await updates.next() != nil {} }
        #expect(error == expected)
        let after = try await updates.next()
        #expect(after == nil)
        await rig.device.waitForUpdateSessions(0)
      }
    }

    @Test("not determined: live updates ask once and count after the person allows")
    func liveUpdatesPrompt() async throws {
      let rig = try MotionRig(now: "2026-11-29T08:00:00+08:00", authorization: .notDetermined)
      try rig.record(3, at: "2026-11-29T07:00:00+08:00")
      try await rig.run {
        var updates = rig.source.todayStepUpdates(calendar: rig.calendar, policy: .health).makeAsyncIterator()
        let first = try await updates.next()
        #expect(first?.steps == 3)
        #expect(rig.device.promptsShown == 1)
      }
    }
  }
#endif
