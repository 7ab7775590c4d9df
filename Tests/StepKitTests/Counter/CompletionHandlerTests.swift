import Dispatch
import Foundation
import StepKit
import Testing

/// Counts calls and remembers on which queue they ran.
final class CallLog: @unchecked Sendable {
  private let lock = NSLock()
  private var calls = 0
  private var offQueue = 0

  func record(onExpectedQueue: Bool) {
    lock.withLock {
      calls += 1
      if !onExpectedQueue { offQueue += 1 }
    }
  }

  var count: Int { lock.withLock { calls } }
  var callsOffQueue: Int { lock.withLock { offQueue } }
}

@Suite("Completion handlers: called exactly once, on the given queue")
struct CompletionHandlerTests {
  static let key = DispatchSpecificKey<String>()

  func queue(_ label: String) -> DispatchQueue {
    let queue = DispatchQueue(label: label)
    queue.setSpecific(key: Self.key, value: label)
    return queue
  }

  /// How many completion-handler APIs ``call(_:_:_:on:log:)`` exercises.
  static let apiCount = 11

  enum Path: String, CaseIterable, Sendable {
    case success, scriptedFailure, unavailable, missingUsageDescription, invalidMeasurement, noSource
  }

  func counter(for path: Path) -> StepCounter {
    let health = SimulatedStepSource(
      samples: [], authorization: path == .unavailable ? .unavailable : .notRequested)
    switch path {
    case .scriptedFailure:
      health.failAlways(.steps, with: .healthDatabaseLocked)
      health.failAlways(.characteristics, with: .healthDatabaseLocked)
      health.failAlways(.measurements, with: .healthDatabaseLocked)
      health.failAlways(.save, with: .missingEntitlement(key: InfoPlistKey.healthKitEntitlement))
    case .unavailable:
      health.failAlways(.steps, with: .healthDataUnavailable)
    default: break
    }
    let bundle = path == .missingUsageDescription ? DictionaryBundleInfo([:]) : .complete
    return StepCounter(
      health: path == .noSource ? nil : health, motion: nil, strategy: .healthKit, bundle: bundle)
  }

  /// Calls one completion-handler API and waits for the handler.
  func call(_ index: Int, _ counter: StepCounter, _ path: Path, on queue: DispatchQueue, log: CallLog) async {
    let label = queue.label
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done: @Sendable () -> Void = {
        log.record(onExpectedQueue: DispatchQueue.getSpecific(key: Self.key) == label)
        continuation.resume()
      }
      let interval = DateInterval(start: Date(timeIntervalSince1970: 0), duration: 86_400)
      let invalid = path == .invalidMeasurement
      switch index % Self.apiCount {
      case 0: counter.requestAuthorization(queue: queue) { _ in done() }
      case 1: counter.todaySteps(queue: queue) { _ in done() }
      case 2: counter.dailySteps(in: interval, queue: queue) { _ in done() }
      case 3: counter.biologicalSex(queue: queue) { _ in done() }
      case 4:
        let mass = Measurement(value: invalid ? -1 : 70, unit: UnitMass.kilograms)
        counter.save(bodyMass: mass, queue: queue) { _ in done() }
      case 5:
        let temperature = Measurement(value: invalid ? 60 : 37, unit: UnitTemperature.celsius)
        counter.save(bodyTemperature: temperature, queue: queue) { _ in done() }
      case 6:
        let energy = Measurement(value: invalid ? -5 : 200, unit: UnitEnergy.kilocalories)
        counter.save(activeEnergyBurned: energy, from: interval.start, to: interval.end, queue: queue) { _ in
          done()
        }
      case 7: counter.mostRecentMeasurement(of: invalid ? .steps : .bodyMass, queue: queue) { _ in done() }
      case 8:
        let type =
          invalid
          ? CumulativeType(identifier: "HKQuantityTypeIdentifierUVExposure", unit: .count)
          : .basalEnergyBurned
        counter.total(of: type, in: interval, queue: queue) { _ in done() }
      case 9: counter.todayDistance(queue: queue) { _ in done() }
      default: counter.distance(in: interval, queue: queue) { _ in done() }
      }
    }
  }

  @Test("every API and every path calls its handler once", arguments: Path.allCases)
  func everyPath(path: Path) async throws {
    let counter = counter(for: path)
    let log = CallLog()
    let target = queue("stepkit.tests.\(path.rawValue)")
    for index in 0..<Self.apiCount { await call(index, counter, path, on: target, log: log) }
    #expect(log.count == Self.apiCount)
    #expect(log.callsOffQueue == 0)
  }

  @Test("1,000 concurrent calls: 1,000 handler calls, none off the queue")
  func concurrentCalls() async throws {
    let counter = counter(for: .success)
    let log = CallLog()
    let target = queue("stepkit.tests.concurrent")
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<1000 {
        group.addTask {
          await call(index, counter, index % 2 == 0 ? .success : .invalidMeasurement, on: target, log: log)
        }
      }
    }
    #expect(log.count == 1000)
    #expect(log.callsOffQueue == 0)
  }

  @Test("results and errors arrive intact")
  func resultsArrive() async throws {
    let health = SimulatedStepSource(samples: [
      Sample(
        kind: .steps, start: Date(timeIntervalSince1970: 100), end: Date(timeIntervalSince1970: 200),
        value: 42, source: "iPhone")
    ])
    health.failNext(.steps, with: .healthDatabaseLocked)
    let counter = StepCounter(
      health: health, motion: nil, strategy: .healthKit, bundle: DictionaryBundleInfo.complete)
    let target = queue("stepkit.tests.results")
    let interval = DateInterval(start: Date(timeIntervalSince1970: 0), duration: 1000)
    let first: Result<StepCount, StepKitError> = await withCheckedContinuation { continuation in
      counter.steps(in: interval, queue: target) { continuation.resume(returning: $0) }
    }
    #expect(first.map(\.roundedSteps) == .failure(.healthDatabaseLocked))
    let second: Result<StepCount, StepKitError> = await withCheckedContinuation { continuation in
      counter.steps(in: interval, queue: target) { continuation.resume(returning: $0) }
    }
    #expect(second.map(\.roundedSteps) == .success(42))
  }
}
