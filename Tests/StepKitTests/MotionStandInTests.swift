#if canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Foundation
  import Testing

  /// Collects handler calls made on the simulator's queue.
  private final class HandlerLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(steps: Int?, distance: Double?, floorsUp: Int?, code: Int?, domain: String?)] = []

    func add(_ data: CMPedometerData?, _ error: (any Error)?) {
      let nsError = error.map { $0 as NSError }
      lock.lock()
      entries.append(
        (
          data?.numberOfSteps.intValue, data?.distance?.doubleValue, data?.floorsAscended?.intValue,
          nsError?.code, nsError?.domain
        ))
      lock.unlock()
    }

    var all: [(steps: Int?, distance: Double?, floorsUp: Int?, code: Int?, domain: String?)] {
      lock.lock()
      defer { lock.unlock() }
      return entries
    }
  }

  @Suite("CoreMotion stand-in")
  struct MotionStandInTests {
    let start: Date
    let device: PedometerSimulator

    init() throws {
      start = try motionDate("2026-11-29T12:00:00+08:00")
      device = PedometerSimulator(now: start, authorization: .notDetermined, promptAnswer: .authorized)
    }

    private func query(from: Date, to: Date) async -> HandlerLog {
      let log = HandlerLog()
      PedometerSimulator.$current.withValue(device) {
        let pedometer = CMPedometer()
        pedometer.queryPedometerData(from: from, to: to) { data, error in log.add(data, error) }
        // The pedometer must outlive the request; the simulator keeps what it needs.
        withExtendedLifetime(pedometer) {}
      }
      await device.waitForDeliveries()
      return log
    }

    @Test("class functions answer for the task's own device")
    func classFunctionsFollowTheCurrentDevice() {
      let other = PedometerSimulator(now: start, availability: .none, authorization: .denied)
      PedometerSimulator.$current.withValue(device) {
        #expect(CMPedometer.isStepCountingAvailable())
        #expect(CMPedometer.isFloorCountingAvailable())
        #expect(CMPedometer.authorizationStatus() == .notDetermined)
      }
      PedometerSimulator.$current.withValue(other) {
        #expect(!CMPedometer.isStepCountingAvailable())
        #expect(!CMPedometer.isDistanceAvailable())
        #expect(CMPedometer.authorizationStatus() == .denied)
      }
    }

    @Test(
      "the first query shows the prompt once and follows the answer",
      arguments: [
        (CMAuthorizationStatus.authorized, nil as Int?), (.denied, 105), (.restricted, 105),
      ])
    func firstQueryPrompts(answer: CMAuthorizationStatus, expectedCode: Int?) async {
      device.promptAnswer = answer
      device.record(steps: 42, at: start.addingTimeInterval(-600))
      let first = await query(from: start.addingTimeInterval(-3600), to: start)
      let second = await query(from: start.addingTimeInterval(-3600), to: start)
      #expect(device.promptsShown == 1)
      #expect(device.authorization == answer)
      for log in [first, second] {
        #expect(log.all.count == 1)
        #expect(log.all.first?.code == expectedCode)
        #expect(log.all.first?.steps == (expectedCode == nil ? 42 : nil))
      }
    }

    @Test(
      "handlers are called exactly once per request, for data and for every error code",
      arguments: Array(UInt32(100)...UInt32(113)))
    func handlerCalledOnce(code: UInt32) async {
      device.authorization = .authorized
      device.failNextRequests(with: CMError(code))
      let failed = await query(from: start.addingTimeInterval(-60), to: start)
      let succeeded = await query(from: start.addingTimeInterval(-60), to: start)
      #expect(failed.all.count == 1)
      #expect(failed.all.first?.code == Int(code))
      #expect(failed.all.first?.domain == CMErrorDomain)
      #expect(succeeded.all.count == 1)
      #expect(succeeded.all.first?.code == nil)
      #expect(device.handlerCalls == 2)
      #expect(device.requestsReceived == 2)
    }

    @Test("global error constants carry CoreMotion's values")
    func errorConstants() {
      #expect(CMErrorMotionActivityNotAvailable.rawValue == 104)
      #expect(CMErrorMotionActivityNotAuthorized == CMError(rawValue: 105))
      #expect(CMErrorMotionActivityNotEntitled.rawValue == 106)
      #expect(CMErrorNULL.rawValue == 100 && CMErrorSize.rawValue == 113)
    }

    @Test("no step counter: error 104 without a prompt")
    func notAvailable() async {
      device.availability = .none
      let log = await query(from: start.addingTimeInterval(-60), to: start)
      #expect(log.all.first?.code == 104)
      #expect(device.promptsShown == 0)
    }

    @Test("the history reaches back exactly seven days")
    func sevenDayHistory() async {
      device.authorization = .authorized
      let window = PedometerSimulator.historyWindow
      device.record(steps: 1, at: start.addingTimeInterval(-window - 60))  // forgotten
      device.record(steps: 10, at: start.addingTimeInterval(-window))  // the oldest minute kept
      device.record(steps: 100, at: start.addingTimeInterval(-3600))
      device.record(steps: 1000, at: start.addingTimeInterval(3600))  // not yet happened
      let log = await query(from: start.addingTimeInterval(-10 * 86_400), to: start.addingTimeInterval(7200))
      #expect(log.all.first?.steps == 110)
      #expect(device.activity(from: start.addingTimeInterval(-window), to: start).steps == 110)
      device.advance(by: 2 * 3600)
      #expect(device.activity(from: start.addingTimeInterval(-window), to: device.now).steps == 1100)
    }

    @Test("distance and floors are nil where the device lacks them")
    func optionalValues() async {
      device.authorization = .authorized
      device.record(steps: 5, distanceMeters: 4, floorsAscended: 1, at: start.addingTimeInterval(-60))
      let full = await query(from: start.addingTimeInterval(-120), to: start)
      #expect(full.all.first?.distance == 4 && full.all.first?.floorsUp == 1)
      device.availability.distance = false
      device.availability.floorCounting = false
      let reduced = await query(from: start.addingTimeInterval(-120), to: start)
      #expect(reduced.all.first?.steps == 5)
      #expect(reduced.all.first?.distance == nil && reduced.all.first?.floorsUp == nil)
    }

    @Test("updates are cumulative since their start and stop when asked")
    func updates() async {
      device.authorization = .authorized
      device.record(steps: 7, at: start.addingTimeInterval(-300))
      let log = HandlerLog()
      let pedometer = PedometerSimulator.$current.withValue(device) { CMPedometer() }
      pedometer.startUpdates(from: start.addingTimeInterval(-3600)) { data, error in log.add(data, error) }
      #expect(device.activeUpdateSessions == 1)
      device.record(steps: 3, at: start)
      device.advance(by: 60)  // nothing new: no update
      device.record(steps: 5, at: device.now)
      await device.waitForDeliveries()
      #expect(log.all.map(\.steps) == [10, 15])
      pedometer.stopUpdates()
      device.record(steps: 5, at: device.now)
      await device.waitForDeliveries()
      #expect(log.all.count == 2)
      #expect(device.activeUpdateSessions == 0)
    }

    @Test("turning access off ends updates with error 105")
    func revocationEndsUpdates() async {
      device.authorization = .authorized
      let log = HandlerLog()
      let pedometer = PedometerSimulator.$current.withValue(device) { CMPedometer() }
      pedometer.startUpdates(from: start) { data, error in log.add(data, error) }
      device.authorization = .denied
      device.record(steps: 3, at: start)
      await device.waitForDeliveries()
      #expect(log.all.map(\.code) == [105])
      #expect(device.activeUpdateSessions == 0)
      withExtendedLifetime(pedometer) {}
    }

    @Test("the clock wakes sleepers when it reaches their deadline, and cancellation wakes them too")
    func clock() async throws {
      let deadline = start.addingTimeInterval(60)
      let sleeper = Task { try await device.sleep(until: deadline) }
      let cancelled = Task { try await device.sleep(until: deadline.addingTimeInterval(3600)) }
      while device.sleepers < 2 { await Task.yield() }
      device.advance(by: 30)
      #expect(device.sleepers == 2)
      device.advance(by: 30)
      try await sleeper.value
      cancelled.cancel()
      await #expect(throws: CancellationError.self) { try await cancelled.value }
      #expect(device.sleepers == 0)
    }
  }
#endif
