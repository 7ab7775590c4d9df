#if canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Foundation
  import Testing

  /// The Motion & Fitness prompt as a device shows it: answered later, never in the background.
  @Suite("CoreMotion stand-in: the prompt")
  struct MotionPromptTests {
    final class Codes: @unchecked Sendable {
      private let lock = NSLock()
      private var values: [Int?] = []
      func add(_ error: (any Error)?) { lock.withLock { values.append(error.map { ($0 as NSError).code }) } }
      var all: [Int?] { lock.withLock { values } }
    }

    @Test("two requests while the prompt is up wait for the one answer")
    func answeredLater() async throws {
      let device = PedometerSimulator(now: try motionDate("2026-11-29T12:00:00+08:00"))
      let codes = Codes()
      PedometerSimulator.$current.withValue(device) {
        let pedometer = CMPedometer()
        pedometer.queryPedometerData(from: device.now.addingTimeInterval(-60), to: device.now) { _, error in
          codes.add(error)
        }
        let second = CMPedometer()
        second.queryPedometerData(from: device.now.addingTimeInterval(-60), to: device.now) { _, error in
          codes.add(error)
        }
      }
      await device.waitForDeliveries()
      #expect(device.authorization == .authorized)
      #expect(device.promptsShown == 1)  // both requests waited for the one prompt
      #expect(codes.all == [nil, nil])
    }

    @Test("in the background no prompt appears: error 105, and the status stays not determined")
    func background() async throws {
      let device = PedometerSimulator(now: try motionDate("2026-11-29T12:00:00+08:00"))
      device.isInBackground = true
      let codes = Codes()
      PedometerSimulator.$current.withValue(device) {
        let pedometer = CMPedometer()
        pedometer.queryPedometerData(from: device.now.addingTimeInterval(-60), to: device.now) { _, error in
          codes.add(error)
        }
      }
      await device.waitForDeliveries()
      #expect(codes.all == [Int(CMErrorMotionActivityNotAuthorized.rawValue)])
      #expect(device.promptsShown == 0)
      #expect(device.authorization == .notDetermined)
    }
  }
#endif
