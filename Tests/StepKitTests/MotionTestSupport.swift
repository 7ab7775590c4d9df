#if canImport(CoreMotionStandIn)
  import CoreMotionStandIn
  import Foundation
  import StepKit
  import Testing

  /// The simulated device's clock as StepKit's clock, so "now", the seven-day window and
  /// midnight all follow the device.
  struct DeviceClock: StepClock {
    let device: PedometerSimulator

    func now() -> Date { device.now }

    func sleep(until date: Date) async throws { try await device.sleep(until: date) }
  }

  /// A date from an ISO 8601 string with its offset, e.g. `2026-11-29T08:00:00+08:00`.
  func motionDate(_ text: String) throws -> Date {
    try #require(ISO8601DateFormatter().date(from: text), "not an ISO 8601 date: \(text)")
  }

  /// A Gregorian calendar in the time zone `identifier`.
  func motionCalendar(_ identifier: String) throws -> Calendar {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = try #require(TimeZone(identifier: identifier), "unknown time zone \(identifier)")
    return calendar
  }

  /// A device, and a motion source on it, for one test.
  struct MotionRig {
    let device: PedometerSimulator
    let source: MotionStepSource
    let calendar: Calendar

    /// Creates the device at `now` and a source with a complete Info.plist.
    init(
      now: String, timeZone: String = "Asia/Shanghai",
      authorization: CMAuthorizationStatus = .authorized,
      availability: PedometerSimulator.Availability = .iPhone,
      bundle: any BundleInfo = DictionaryBundleInfo.complete,
      historyLimit: MotionHistoryLimit = .countAvailablePart
    ) throws {
      device = PedometerSimulator(
        now: try motionDate(now), availability: availability, authorization: authorization)
      calendar = try motionCalendar(timeZone)
      // The source belongs to the device current at its creation, from whatever thread it is asked.
      let device = device
      source = PedometerSimulator.$current.withValue(device) {
        MotionStepSource(bundle: bundle, clock: DeviceClock(device: device), historyLimit: historyLimit)
      }
    }

    /// Runs `body` with the rig's device as the current one (class functions of
    /// `CMPedometer` and pedometers created inside answer for it).
    func run<R: Sendable>(_ body: () async throws -> R) async rethrows -> R {
      try await PedometerSimulator.$current.withValue(device) { try await body() }
    }

    /// Records `steps` at `time` (ISO 8601 with offset).
    func record(_ steps: Int, at time: String, meters: Double = 0, floorsUp: Int = 0, floorsDown: Int = 0)
      throws
    {
      device.record(
        steps: steps, distanceMeters: meters, floorsAscended: floorsUp, floorsDescended: floorsDown,
        at: try motionDate(time))
    }
  }

  /// The StepKit error `body` throws, or `nil`.
  func motionError(_ body: () async throws -> Void) async -> StepKitError? {
    do {
      try await body()
      return nil
    } catch let error as StepKitError {
      return error
    } catch {
      Issue.record("not a StepKitError: \(error)")
      return nil
    }
  }
#endif
