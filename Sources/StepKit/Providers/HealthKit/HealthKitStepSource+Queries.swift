import Foundation

#if canImport(HealthKit)
  import HealthKit
#else
  import HealthKitStandIn
#endif

// The HealthKit queries behind HealthKitStepSource. Each callback turns
// HealthKit objects into Sendable values before resuming, and resumes once.
extension HealthKitStepSource {
  static func quantityType(_ kind: QuantityKind) -> HKQuantityType {
    switch kind {
    case .steps: return HKQuantityType(.stepCount)
    case .distance: return HKQuantityType(.distanceWalkingRunning)
    }
  }

  static func unit(_ kind: QuantityKind) -> HKUnit {
    switch kind {
    case .steps: return HKUnit.count()
    case .distance: return HKUnit.meter()
    }
  }

  /// The samples overlapping `interval` (no strict options, as the Health
  /// app counts), without typed-in ones unless the policy is `all`, and
  /// from `sources` when given.
  static func predicate(_ interval: DateInterval, policy: CountingPolicy, sources: Set<HKSource>?)
    -> NSPredicate
  {
    var parts = [HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)]
    if policy != .all {
      // The form libraries with device users ship and report working: a sample without the
      // key is "not YES" and stays. How HealthKit evaluates NOT(predicateForObjects(withMetadataKey:
      // allowedValues:)) for samples without the key is documented nowhere.
      parts.append(NSPredicate(format: "metadata.%K != YES", HKMetadataKeyWasUserEntered))
    }
    if let sources { parts.append(HKQuery.predicateForObjects(from: sources)) }
    return NSCompoundPredicate(andPredicateWithSubpredicates: parts)
  }

  /// Whether a source is one of Apple's own devices (an iPhone or Apple
  /// Watch records under `com.apple.health.<UUID>`; the Health app itself,
  /// where entries are typed in, is `com.apple.Health`).
  static func isAppleDevice(bundleIdentifier: String) -> Bool {
    bundleIdentifier.hasPrefix("com.apple.health.")
  }

  /// Builds the predicate for `policy` and hands it to `run`. For the
  /// `device` policy that needs the sources first (an `HKSourceQuery`), so
  /// `run` is called inside HealthKit's callback: HealthKit objects never
  /// leave it. Exactly one of `run`, `noSources` and `failed` is called.
  func withPolicyPredicate(
    _ kind: QuantityKind, _ interval: DateInterval, _ policy: CountingPolicy,
    failed: @escaping @Sendable (StepKitError) -> Void, noSources: @escaping @Sendable () -> Void,
    run: @escaping @Sendable (NSPredicate) -> Void
  ) {
    withPolicyPredicate(
      Self.quantityType(kind), interval, policy,
      mapError: { StepKitError(healthKitError: $0, reading: kind) },
      failed: failed, noSources: noSources, run: run)
  }

  /// ``withPolicyPredicate(_:_:_:failed:noSources:run:)`` for any quantity
  /// type, its errors mapped by `mapError`.
  func withPolicyPredicate(
    _ quantityType: HKQuantityType, _ interval: DateInterval, _ policy: CountingPolicy,
    mapError: @escaping @Sendable (any Error) -> StepKitError,
    failed: @escaping @Sendable (StepKitError) -> Void, noSources: @escaping @Sendable () -> Void,
    run: @escaping @Sendable (NSPredicate) -> Void
  ) {
    guard policy == .device else {
      run(Self.predicate(interval, policy: policy, sources: nil))
      return
    }
    let samples = HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)
    let query = HKSourceQuery(sampleType: quantityType, samplePredicate: samples) {
      _, sources, error in
      if let error {
        failed(mapError(error))
        return
      }
      let apple = (sources ?? []).filter { Self.isAppleDevice(bundleIdentifier: $0.bundleIdentifier) }
      guard !apple.isEmpty else {
        noSources()
        return
      }
      run(Self.predicate(interval, policy: policy, sources: apple))
    }
    store.execute(query)
  }

  /// HealthKit's merged sum over `interval`, whether any sample matched, and
  /// each source's own sum (`.separateBySource`, the merge check's evidence);
  /// `(0, false, [])` when no sample matched.
  func statisticsSum(_ kind: QuantityKind, in interval: DateInterval, policy: CountingPolicy) async throws
    -> (Double, Bool, [Double])
  {
    try await withCheckedThrowingContinuation { continuation in
      withPolicyPredicate(
        kind, interval, policy, failed: { continuation.resume(throwing: $0) },
        noSources: { continuation.resume(returning: (0, false, [])) }
      ) { predicate in
        let query = HKStatisticsQuery(
          quantityType: Self.quantityType(kind), quantitySamplePredicate: predicate,
          options: [.cumulativeSum, .separateBySource]
        ) { _, statistics, error in
          if let error {
            if StepKitError.isNoData(error) {
              continuation.resume(returning: (0, false, []))
            } else {
              continuation.resume(throwing: StepKitError(healthKitError: error, reading: kind))
            }
            return
          }
          guard let statistics, let sum = statistics.sumQuantity() else {
            continuation.resume(returning: (0, false, []))
            return
          }
          continuation.resume(
            returning: (sum.doubleValue(for: Self.unit(kind)), true, Self.sourceSums(statistics, kind)))
        }
        self.store.execute(query)
      }
    }
  }

  /// Each source's own sum in `statistics` (asked with `.separateBySource`).
  static func sourceSums(_ statistics: HKStatistics, _ kind: QuantityKind) -> [Double] {
    (statistics.sources ?? []).compactMap { statistics.sumQuantity(for: $0)?.doubleValue(for: unit(kind)) }
  }

  /// The handler of a cumulative-sum `HKStatisticsQuery`: resumes
  /// `continuation` with `value` of the sum and `true`, with 0 and `false`
  /// when nothing matched (HealthKit's "no data" included), or with
  /// `mapError` of another error.
  static func sumHandler(
    resuming continuation: CheckedContinuation<(Double, Bool), any Error>,
    value: @escaping @Sendable (HKQuantity) -> Double,
    mapError: @escaping @Sendable (any Error) -> StepKitError
  ) -> @Sendable (HKStatisticsQuery, HKStatistics?, (any Error)?) -> Void {
    { _, statistics, error in
      if let error {
        if StepKitError.isNoData(error) {
          continuation.resume(returning: (0, false))
        } else {
          continuation.resume(throwing: mapError(error))
        }
        return
      }
      guard let sum = statistics?.sumQuantity() else {
        continuation.resume(returning: (0, false))
        return
      }
      continuation.resume(returning: (value(sum), true))
    }
  }

  /// One bucket's start and end, merged sum (`nil` when empty) and its sources' own sums.
  struct Bucket: Sendable {
    var start: Date
    var end: Date
    var sum: Double?
    var sourceSums: [Double] = []
  }

  /// HealthKit's merged sums per day from `anchor` (a local midnight or any
  /// other local time: HealthKit steps one calendar day at a time from it, in
  /// the device's calendar when the query runs), over `range`.
  func collectionSums(_ kind: QuantityKind, in range: DateInterval, policy: CountingPolicy, anchor: Date)
    async throws
    -> [Bucket]
  {
    try await withCheckedThrowingContinuation { continuation in
      withPolicyPredicate(
        kind, range, policy, failed: { continuation.resume(throwing: $0) },
        noSources: { continuation.resume(returning: []) }
      ) { predicate in
        let query = HKStatisticsCollectionQuery(
          quantityType: Self.quantityType(kind), quantitySamplePredicate: predicate,
          options: [.cumulativeSum, .separateBySource], anchorDate: anchor,
          intervalComponents: DateComponents(day: 1))
        query.initialResultsHandler = Self.bucketsHandler(
          over: range, resuming: continuation, mapError: { StepKitError(healthKitError: $0, reading: kind) }
        ) { statistics in
          Bucket(
            start: statistics.startDate, end: statistics.endDate,
            sum: statistics.sumQuantity()?.doubleValue(for: Self.unit(kind)),
            sourceSums: Self.sourceSums(statistics, kind))
        }
        self.store.execute(query)
      }
    }
  }

  /// The initial-results handler of a statistics collection: resumes
  /// `continuation` with each interval over `range` made a bucket by
  /// `bucket`, with none for HealthKit's "no data", or with `mapError` of
  /// another error.
  static func bucketsHandler(
    over range: DateInterval, resuming continuation: CheckedContinuation<[Bucket], any Error>,
    mapError: @escaping @Sendable (any Error) -> StepKitError,
    bucket: @escaping @Sendable (HKStatistics) -> Bucket
  ) -> @Sendable (HKStatisticsCollectionQuery, HKStatisticsCollection?, (any Error)?) -> Void {
    { _, collection, error in
      if let error {
        if StepKitError.isNoData(error) {
          continuation.resume(returning: [])
        } else {
          continuation.resume(throwing: mapError(error))
        }
        return
      }
      var buckets: [Bucket] = []
      collection?.enumerateStatistics(from: range.start, to: range.end) { statistics, _ in
        buckets.append(bucket(statistics))
      }
      continuation.resume(returning: buckets)
    }
  }

  /// Every sample of `kind` overlapping `interval`, typed-in ones included
  /// (the policy is applied by the merge), as a StepKitCore log.
  func fetchSamples(_ kind: QuantityKind, in interval: DateInterval) async throws -> SampleLog {
    let predicate = HKQuery.predicateForSamples(withStart: interval.start, end: interval.end)
    return SampleLog(
      try await withCheckedThrowingContinuation { continuation in
        runAnchoredQuery(kind, predicate: predicate) { continuation.resume(with: $0) }
      })
  }

  /// The samples a statistics query over `interval` under `policy` sums:
  /// the same predicate, through an anchored object query; `nil` when the
  /// `device` policy finds no Apple source or there are more samples than
  /// the merge check reads (``MergeCheck/maximumSamples``).
  func fetchPolicySamples(_ kind: QuantityKind, in interval: DateInterval, policy: CountingPolicy)
    async throws -> SampleLog?
  {
    let samples: [Sample]? = try await withCheckedThrowingContinuation { continuation in
      withPolicyPredicate(
        kind, interval, policy, failed: { continuation.resume(throwing: $0) },
        noSources: { continuation.resume(returning: nil) }
      ) { predicate in
        self.runAnchoredQuery(kind, predicate: predicate, limit: MergeCheck.maximumSamples + 1) {
          continuation.resume(with: $0.map { $0 })
        }
      }
    }
    // More samples than the check reads: HealthKit's number stands.
    guard let samples, samples.count <= MergeCheck.maximumSamples else { return nil }
    return SampleLog(samples)
  }

  /// Runs an anchored object query for every sample of `kind` matching
  /// `predicate` (at most `limit`), handing `done` the samples as StepKitCore values, once.
  func runAnchoredQuery(
    _ kind: QuantityKind, predicate: NSPredicate, limit: Int = HKObjectQueryNoLimit,
    done: @escaping @Sendable (Result<[Sample], StepKitError>) -> Void
  ) {
    let query = HKAnchoredObjectQuery(
      type: Self.quantityType(kind), predicate: predicate, anchor: nil, limit: limit
    ) { _, added, _, _, error in
      if let error {
        done(.failure(StepKitError(healthKitError: error, reading: kind)))
        return
      }
      let unit = Self.unit(kind)
      let converted = (added ?? []).compactMap { $0 as? HKQuantitySample }.map { sample in
        Sample(
          kind: kind, start: sample.startDate, end: sample.endDate,
          value: sample.quantity.doubleValue(for: unit),
          utcOffsetSeconds: TimeZone.current.secondsFromGMT(for: sample.startDate),
          source: sample.sourceRevision.source.name,
          device: sample.device.map {
            Device(
              name: $0.name, manufacturer: $0.manufacturer, model: $0.model, hardware: $0.hardwareVersion,
              software: $0.softwareVersion)
          },
          isUserEntered: Self.isUserEntered(sample.metadata?[HKMetadataKeyWasUserEntered]))
      }
      done(.success(converted))
    }
    store.execute(query)
  }

  /// Reads `HKMetadataKeyWasUserEntered` (an NSNumber holding a BOOL; also
  /// `1`, `true`, `YES` as text).
  static func isUserEntered(_ value: Any?) -> Bool {
    switch value {
    case let flag as Bool: return flag
    case let number as NSNumber: return number.boolValue
    case let text as String: return isUserEnteredMetadataValue(text)
    default: return false
    }
  }
}
