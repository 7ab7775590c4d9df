import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

extension HealthKitStepSource {
  /// The most recent sample of a measurement type: an `HKSampleQuery` sorted
  /// by end date, newest first, limit 1.
  ///
  /// HealthKit hides read denial: without read access the app sees only the
  /// samples it saved itself, so `nil` means "none, or not allowed to read".
  ///
  /// - Parameter type: Body mass, height, body temperature, or active or resting energy.
  /// - Returns: The newest sample, or `nil` when there is none the app may see.
  /// - Throws: ``StepKitError/unsupportedDataType(_:)`` for steps, distance and the
  ///   characteristics; ``StepKitError/authorizationNotDetermined(_:)``,
  ///   ``StepKitError/healthDatabaseLocked``, ``StepKitError/missingEntitlement(key:)`` and the
  ///   other HealthKit errors.
  public func mostRecentMeasurement(of type: HealthDataType) async throws -> SavedMeasurement? {
    try requireHealthData()
    guard BodyMeasurement.reading(type, value: 0) != nil, let sampleType = Self.sampleType(type) else {
      throw StepKitError.unsupportedDataType(type)
    }
    let newestFirst = NSSortDescriptor(keyPath: \HKSample.endDate, ascending: false)
    return try await withCheckedThrowingContinuation { continuation in
      let query = HKSampleQuery(
        sampleType: sampleType, predicate: nil, limit: 1, sortDescriptors: [newestFirst]
      ) {
        _, samples, error in
        if let error {
          continuation.resume(throwing: StepKitError(healthKitError: error, type: type))
          return
        }
        guard let sample = samples?.first as? HKQuantitySample,
          let measurement = BodyMeasurement.reading(
            type, value: sample.quantity.doubleValue(for: Self.healthUnit(type)))
        else {
          continuation.resume(returning: nil)
          return
        }
        continuation.resume(
          returning: SavedMeasurement(
            measurement: measurement, interval: DateInterval(start: sample.startDate, end: sample.endDate),
            uuid: sample.uuid))
      }
      store.execute(query)
    }
  }

  /// Energy burned over `interval`: HealthKit's merged sum (a statistics
  /// query), so that an iPhone and an Apple Watch are not counted twice.
  ///
  /// - Parameters:
  ///   - type: ``HealthDataType/activeEnergyBurned`` or ``HealthDataType/basalEnergyBurned``.
  ///   - interval: The interval.
  ///   - policy: Which samples take part: `health` (and `device`, which for
  ///     energy counts like `health`) leaves typed-in entries out, `all` keeps them.
  /// - Returns: The amount; zero with `hasData` `false` when no sample matched.
  /// - Throws: ``StepKitError/unsupportedDataType(_:)`` for another type, and HealthKit's errors.
  public func energyBurned(_ type: HealthDataType, in interval: DateInterval, policy: CountingPolicy)
    async throws -> EnergyAmount
  {
    try requireHealthData()
    try Self.validate(interval)
    guard type == .activeEnergyBurned || type == .basalEnergyBurned, let quantityType = Self.sampleType(type)
    else { throw StepKitError.unsupportedDataType(type) }
    let predicate = Self.predicate(interval, policy: policy == .device ? .health : policy, sources: nil)
    let (value, hasData): (Double, Bool) = try await withCheckedThrowingContinuation { continuation in
      let query = HKStatisticsQuery(
        quantityType: quantityType, quantitySamplePredicate: predicate, options: .cumulativeSum,
        completionHandler: Self.sumHandler(
          resuming: continuation, value: { $0.doubleValue(for: Self.healthUnit(type)) },
          mapError: { StepKitError(healthKitError: $0, type: type) }))
      store.execute(query)
    }
    return EnergyAmount(
      type: type, interval: interval, kilocalories: value, provenance: provenance(policy, hasData: hasData),
      hasData: hasData)
  }
}
