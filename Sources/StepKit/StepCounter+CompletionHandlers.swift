import Dispatch
import Foundation

// Completion-handler forms of StepCounter's API for older call sites. Each
// handler is called exactly once, on every path, on `queue` (the main queue
// by default), with a Result whose failure is a StepKitError.
extension StepCounter {
  /// Runs `work` and delivers its result to `completion` once, on `queue`.
  func deliver<T: Sendable>(
    on queue: DispatchQueue, to completion: @escaping @Sendable (Result<T, StepKitError>) -> Void,
    _ work: @escaping @Sendable () async throws -> T
  ) {
    let target = CallbackQueue(queue)
    Task {
      let result: Result<T, StepKitError>
      do {
        result = .success(try await work())
      } catch {
        result = .failure(StepKitError.wrapping(error))
      }
      target.queue.async { completion(result) }
    }
  }

  /// Asks for access; see ``requestAuthorization(_:)``.
  ///
  /// - Parameters:
  ///   - request: Types to read and write.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with success or the error.
  public func requestAuthorization(
    _ request: AuthorizationRequest = .stepsAndDistance, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<Void, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.requestAuthorization(request) }
  }

  /// Today's steps; see ``todaySteps()``.
  ///
  /// - Parameters:
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the count or the error.
  public func todaySteps(
    queue: DispatchQueue = .main, completion: @escaping @Sendable (Result<StepCount, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.todaySteps() }
  }

  /// Each source's counted and raw steps in `interval`; see ``sourceBreakdown(in:)``.
  ///
  /// - Parameters:
  ///   - interval: The interval to explain.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the breakdown or the error.
  public func sourceBreakdown(
    in interval: DateInterval, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<SourceBreakdown, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.sourceBreakdown(in: interval) }
  }

  /// Steps in `interval`; see ``steps(in:)``.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the count or the error.
  public func steps(
    in interval: DateInterval, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<StepCount, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.steps(in: interval) }
  }

  /// Steps per local day; see ``dailySteps(in:)``.
  ///
  /// - Parameters:
  ///   - interval: The range.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the days or the error.
  public func dailySteps(
    in interval: DateInterval, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<DailySteps, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.dailySteps(in: interval) }
  }

  /// Today's walking + running distance; see ``todayDistance()``.
  ///
  /// - Parameters:
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the distance or the error.
  public func todayDistance(
    queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<DistanceAmount, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.todayDistance() }
  }

  /// Walking + running distance in `interval`; see ``distance(in:)``.
  ///
  /// - Parameters:
  ///   - interval: The interval.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the distance or the error.
  public func distance(
    in interval: DateInterval, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<DistanceAmount, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.distance(in: interval) }
  }

  /// The person's biological sex; see ``biologicalSex()``.
  ///
  /// - Parameters:
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the answer or the error.
  public func biologicalSex(
    queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<Characteristic<BiologicalSex>, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.biologicalSex() }
  }

  /// The person's date of birth; see ``dateOfBirth()``.
  ///
  /// - Parameters:
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with the answer or the error.
  public func dateOfBirth(
    queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<Characteristic<DateComponents>, StepKitError>) -> Void
  ) {
    deliver(on: queue, to: completion) { try await self.dateOfBirth() }
  }

  /// Saves body mass; see ``save(bodyMass:at:)``.
  ///
  /// - Parameters:
  ///   - bodyMass: The mass, in any unit.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with what was saved or the error.
  public func save(
    bodyMass: Measurement<UnitMass>, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<SavedMeasurement, StepKitError>) -> Void
  ) {
    let kilograms = bodyMass.converted(to: .kilograms).value
    deliver(on: queue, to: completion) {
      try await self.save(bodyMass: Measurement(value: kilograms, unit: .kilograms))
    }
  }

  /// Saves height; see ``save(height:at:)``.
  ///
  /// - Parameters:
  ///   - height: The height, in any unit.
  ///   - queue: Where `completion` runs; the main queue by default.
  ///   - completion: Called once with what was saved or the error.
  public func save(
    height: Measurement<UnitLength>, queue: DispatchQueue = .main,
    completion: @escaping @Sendable (Result<SavedMeasurement, StepKitError>) -> Void
  ) {
    let meters = height.converted(to: .meters).value
    deliver(on: queue, to: completion) {
      try await self.save(height: Measurement(value: meters, unit: .meters))
    }
  }
}

/// A dispatch queue carried into a task. Dispatch queues are thread-safe;
/// the iOS 16.5 SDK does not mark them `Sendable` yet.
struct CallbackQueue: @unchecked Sendable {
  // Safe to share: dispatch queues are thread-safe; the iOS 16.5 SDK does not mark them `Sendable`.
  let queue: DispatchQueue
  init(_ queue: DispatchQueue) { self.queue = queue }
}
