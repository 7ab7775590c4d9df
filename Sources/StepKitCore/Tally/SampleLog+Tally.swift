import Foundation

/// Sums per bucket ordinal, stored sparsely (a slot per touched bucket) with a
/// one-entry cache, because consecutive pieces nearly always land in the
/// same bucket.
private struct BucketSums {
  struct Slot {
    var steps = 0.0
    var distance = 0.0
    var raw = 0.0
    var manual = 0.0
    var offsetMs: Int64?
    var bySource: [Double]
  }

  let range: ClosedRange<Int64>?
  let breakdownWidth: Int
  var slotOfOrdinal: [Int64: Int] = [:]
  var slots: [Slot] = []
  var ordinals: [Int64] = []
  var lastOrdinal = Int64.min
  var lastSlot = -1

  init(range: ClosedRange<Int64>?, breakdownWidth: Int) {
    self.range = range
    self.breakdownWidth = breakdownWidth
  }

  /// The slot for `ordinal`, or `nil` when it lies outside the fixed range.
  @inline(__always)
  mutating func slot(_ ordinal: Int64, offsetMs: Int64) -> Int? {
    if ordinal == lastOrdinal { return lastSlot }
    if let range, !range.contains(ordinal) { return nil }
    let slot: Int
    if let existing = slotOfOrdinal[ordinal] {
      slot = existing
    } else {
      slot = slots.count
      slotOfOrdinal[ordinal] = slot
      slots.append(
        Slot(offsetMs: offsetMs, bySource: [Double](repeating: 0, count: breakdownWidth)))
      ordinals.append(ordinal)
    }
    lastOrdinal = ordinal
    lastSlot = slot
    return slot
  }
}

extension BucketSums {
  /// Takes the merged sums (`steps`, `distance`, the breakdown) of `merged`,
  /// whose buckets are a subset of these (the raw pass touches every bucket).
  mutating func join(_ merged: BucketSums) {
    for (index, ordinal) in merged.ordinals.enumerated() {
      let from = merged.slots[index]
      guard let slot = slot(ordinal, offsetMs: from.offsetMs ?? 0) else { continue }
      slots[slot].steps = from.steps
      slots[slot].distance = from.distance
      slots[slot].bySource = from.bySource
    }
  }
}

/// Two jobs for `DispatchQueue.concurrentPerform`, which write to disjoint memory.
private struct UncheckedSendable: @unchecked Sendable {
  let first: () -> Void
  let second: () -> Void
  init(_ first: @escaping () -> Void, second: @escaping () -> Void) {
    self.first = first
    self.second = second
  }
  func run(_ job: Int) { job == 0 ? first() : second() }
}

extension SampleLog {
  /// Counts the log as COUNTING.md defines: the policy, the priority merge,
  /// and buckets under the time-zone rule.
  ///
  /// - Parameter options: Policy, ranking, bucket unit, time-zone rule and range.
  /// - Returns: One ``Tally/Bucket`` per bucket in the range (empty ones
  ///   included), a row per source, and the invalid-sample report.
  public func tally(_ options: CountingOptions) -> Tally {
    tally(options, samplesPerBin: MergeBin.targetSamples, inParallel: count >= Self.parallelTallyThreshold)
  }

  /// ``tally(_:)`` merging spans of about `samplesPerBin` samples at a time,
  /// the raw pass beside the merge on another core or after it.
  func tally(_ options: CountingOptions, samplesPerBin: Int, inParallel: Bool = false) -> Tally {
    let resolved = ResolvedRanking(log: self, ranking: options.ranking)
    let geometry = BucketGeometry(unit: options.unit)
    let fixed = fixedRange(options, geometry)
    let zone = zoneOffsets(options)
    let width = options.includesSourceBreakdown ? 2 * resolved.sourceCount : 0
    var sums = BucketSums(range: fixed.range, breakdownWidth: width)
    var rows = sourceRows(resolved, policy: options.policy)
    // The raw pass and the merge sum different fields, each in its own
    // order, so they can run side by side into separate sums and be joined
    // after: the result is the same as one after the other.
    var merged = BucketSums(range: fixed.range, breakdownWidth: width)
    var mergedRows = rows
    var counted = CountedValues()
    let raw = { (sums: inout BucketSums, rows: inout [Tally.SourceRow]) in
      var splitter = BucketSplitter(geometry: geometry, zone: zone)
      addRawSums(to: &sums, rows: &rows, splitter: &splitter)
    }
    let merge = { (sums: inout BucketSums, rows: inout [Tally.SourceRow], counted: inout CountedValues) in
      var splitter = BucketSplitter(geometry: geometry, zone: zone)
      counted = addMergedSums(
        to: &sums, rows: &rows, splitter: &splitter, resolved: resolved, options: options,
        samplesPerBin: samplesPerBin)
    }
    if inParallel {
      withUnsafeMutablePointer(to: &sums) { rawSums in
        withUnsafeMutablePointer(to: &rows) { rawRows in
          withUnsafeMutablePointer(to: &merged) { mergedSums in
            withUnsafeMutablePointer(to: &mergedRows) { mergedRowsPointer in
              withUnsafeMutablePointer(to: &counted) { countedPointer in
                let jobs = UncheckedSendable {
                  raw(&rawSums.pointee, &rawRows.pointee)
                } second: {
                  merge(&mergedSums.pointee, &mergedRowsPointer.pointee, &countedPointer.pointee)
                }
                DispatchQueue.concurrentPerform(iterations: 2) { job in jobs.run(job) }
              }
            }
          }
        }
      }
    } else {
      raw(&sums, &rows)
      merge(&merged, &mergedRows, &counted)
    }
    sums.join(merged)
    for source in rows.indices {
      rows[source].countedSteps = mergedRows[source].countedSteps
      rows[source].countedDistanceMeters = mergedRows[source].countedDistanceMeters
    }
    let buckets = assembleBuckets(
      sums, fixed: fixed, geometry: geometry, zone: zone, sourceCount: resolved.sourceCount, options: options)
    return Tally(
      options: options, buckets: buckets, sources: resolved.steps.sourceOfRank.map { rows[$0] },
      invalid: invalid, countedValues: counted)
  }

  /// From how many samples the raw pass and the merge run side by side.
  static let parallelTallyThreshold = 1 << 16

  // MARK: - The steps of a tally

  /// The buckets `--from` and `--to` fix, as ordinals (the last hour of the
  /// `to` day for hours); `range` is `nil` when neither is given.
  private struct FixedRange {
    var first: Int64?
    var last: Int64?
    var range: ClosedRange<Int64>? {
      first == nil && last == nil ? nil : (first ?? Int64.min)...(last ?? Int64.max)
    }
  }

  private func fixedRange(_ options: CountingOptions, _ geometry: BucketGeometry) -> FixedRange {
    let first = options.from.map { geometry.ordinal(ofDay: $0) }
    let last = options.to.map { day in
      max(geometry.ordinal(ofDay: day) + (options.unit == .hour ? 23 : 0), first ?? Int64.min)
    }
    return FixedRange(first: first, last: last)
  }

  /// For a named zone, its offsets over every sample and the fixed range
  /// (COUNTING.md, step 3); `nil` under the recorded-offset rule.
  private func zoneOffsets(_ options: CountingOptions) -> ZoneOffsets? {
    guard case .zone(let timeZone) = options.timeZone else { return nil }
    var lower = store.minStartMs
    var upper = store.maxEndMs
    if let from = options.from {
      lower = min(lower, Int64(from.daysSinceEpoch) * BucketGeometry.dayMs)
    }
    if let to = options.to {
      upper = max(upper, Int64(to.daysSinceEpoch + 1) * BucketGeometry.dayMs)
    }
    if lower > upper {
      lower = 0
      upper = 0
    }
    return ZoneOffsets(zone: timeZone, lowerMs: lower, upperMs: upper)
  }

  /// One row per source, in source order, with its classes, ranks and device
  /// models; the sums are added by the passes.
  private func sourceRows(_ resolved: ResolvedRanking, policy: CountingPolicy) -> [Tally.SourceRow] {
    var models = [Set<String>](repeating: [], count: resolved.sourceCount)
    for (index, origin) in originTable.enumerated() {
      if let model = origin.device?.model { models[Int(originSource[index])].insert(model) }
    }
    return (0..<resolved.sourceCount).map { source in
      Tally.SourceRow(
        name: sourceFacts[source].name, sourceClass: resolved.steps.classes[source],
        distanceSourceClass: resolved.distance.classes[source],
        rank: resolved.steps.rankOfSource[source] + 1,
        distanceRank: resolved.distance.rankOfSource[source] + 1,
        isCounted: QuantityKind.allCases.contains { kind in
          [false, true].contains {
            policy.admits(userEntered: $0, sourceClass: resolved[kind].classes[source])
          }
        },
        deviceModels: models[source].sorted())
    }
  }

  /// The raw pass (COUNTING.md, Outputs: `raw_steps`, `manual_steps`): every
  /// valid sample, typed-in included, no merge. It also touches the bucket of
  /// every sample, so that the range is the same under every policy, and
  /// gives each source its sample counts, raw sums and first and last dates.
  private func addRawSums(
    to sums: inout BucketSums, rows: inout [Tally.SourceRow], splitter: inout BucketSplitter
  ) {
    var firstStart = [Int64](repeating: .max, count: rows.count)
    var lastEnd = [Int64](repeating: .min, count: rows.count)
    store.decodeAll { _, p in
      let source = Int(originSource[Int(p.origin)])
      let kind = p.kind
      var inRange = false
      var rawShare = 0.0
      splitter.split(
        start: p.startMs, end: p.endMs, value: p.value,
        recordedOffsetMs: Int64(p.offsetMinutes) * 60_000
      ) { ordinal, share, offsetMs in
        guard let slot = sums.slot(ordinal, offsetMs: offsetMs) else { return }
        inRange = true
        rawShare += share
        if kind == .steps {
          sums.slots[slot].raw += share
          if p.isUserEntered { sums.slots[slot].manual += share }
        }
      }
      guard inRange else { return }
      if kind == .steps {
        rows[source].stepSamples += 1
        rows[source].rawSteps += rawShare
        if p.isUserEntered { rows[source].manualSteps += rawShare }
      } else {
        rows[source].distanceSamples += 1
        rows[source].rawDistanceMeters += rawShare
      }
      firstStart[source] = min(firstStart[source], p.startMs)
      lastEnd[source] = max(lastEnd[source], p.endMs)
    }
    for source in rows.indices where firstStart[source] <= lastEnd[source] {
      rows[source].firstStart = Date(epochMilliseconds: firstStart[source])
      rows[source].lastEnd = Date(epochMilliseconds: lastEnd[source])
    }
  }

  /// Steps 1 to 3: the policy, the priority merge, and each merged piece
  /// split across buckets (`steps`, `distance_m`, and what each source added).
  ///
  /// - Returns: With ``CountingOptions/recordsCountedValues``, what each
  ///   sample counted for; otherwise empty.
  private func addMergedSums(
    to sums: inout BucketSums, rows: inout [Tally.SourceRow], splitter: inout BucketSplitter,
    resolved: ResolvedRanking, options: CountingOptions, samplesPerBin: Int
  ) -> CountedValues {
    let counted = CountedPages(count: options.recordsCountedValues ? count : 0, storage: store.storage)
    let breakdown = options.includesSourceBreakdown
    // Breakdowns are in the order of Tally.sources: by step rank.
    let position = resolved.steps.rankOfSource
    // The same shape as the raw pass, on purpose: each pass sums different
    // fields in its own hot loop, and sharing one closure would cost a branch
    // per piece.
    mergePieces(
      policy: options.policy, resolved: resolved, bins: store.mergeBins(targetSamples: samplesPerBin)
    ) { piece in
      let kind = piece.kind
      let source = piece.sourceIndex
      var share = 0.0
      splitter.split(
        start: piece.startMs, end: piece.endMs, value: piece.value,
        recordedOffsetMs: Int64(piece.utcOffsetSeconds) * 1000
      ) { ordinal, part, offsetMs in
        guard let slot = sums.slot(ordinal, offsetMs: offsetMs) else { return }
        share += part
        if kind == .steps {
          sums.slots[slot].steps += part
        } else {
          sums.slots[slot].distance += part
        }
        if breakdown {
          sums.slots[slot].bySource[2 * position[source] + Int(kind.rawValue)] += part
        }
      }
      if kind == .steps {
        rows[source].countedSteps += share
      } else {
        rows[source].countedDistanceMeters += share
      }
      if counted.count > 0 { counted.add(share, at: piece.sampleIndex) }
    }
    return CountedValues(pages: counted)
  }

  /// The buckets in order, with the empty ones inside the range (COUNTING.md,
  /// Outputs), and for hours each hour's UTC offset.
  private func assembleBuckets(
    _ sums: BucketSums, fixed: FixedRange, geometry: BucketGeometry, zone: ZoneOffsets?,
    sourceCount: Int, options: CountingOptions
  ) -> [Tally.Bucket] {
    let touched = sums.ordinals.min().map { $0...(sums.ordinals.max() ?? $0) }
    guard let first = fixed.first ?? touched?.lowerBound, let last = fixed.last ?? touched?.upperBound,
      first <= last
    else { return [] }
    let breakdown = options.includesSourceBreakdown
    var buckets: [Tally.Bucket] = []
    buckets.reserveCapacity(Int(last - first + 1))
    // Empty hours take the offset of the nearest earlier hour with data, and
    // those before the first one take the first one's.
    var carriedOffsetMs: Int64 =
      sums.ordinals.min().flatMap { sums.slotOfOrdinal[$0] }.flatMap { sums.slots[$0].offsetMs } ?? 0
    for ordinal in first...last {
      let (day, hour) = geometry.firstDay(of: ordinal)
      var bucket = Tally.Bucket(firstDay: day, hour: hour)
      var offsetMs: Int64? = nil
      if let slot = sums.slotOfOrdinal[ordinal] {
        let s = sums.slots[slot]
        bucket.steps = s.steps
        bucket.distanceMeters = s.distance
        bucket.rawSteps = s.raw
        bucket.manualSteps = s.manual
        offsetMs = s.offsetMs
        if breakdown {
          bucket.stepsBySource = (0..<sourceCount).map { s.bySource[2 * $0] }
          bucket.distanceMetersBySource = (0..<sourceCount).map { s.bySource[2 * $0 + 1] }
        }
      } else if breakdown {
        bucket.stepsBySource = [Double](repeating: 0, count: sourceCount)
        bucket.distanceMetersBySource = [Double](repeating: 0, count: sourceCount)
      }
      if options.unit == .hour {
        if let zone {
          let local = geometry.localStart(of: ordinal)
          let start = zone.firstInstant(from: Int64.min / 2, segment: 0, localAtLeast: local)
          offsetMs = zone.offset(ofSegment: zone.segment(at: start, hint: 0))
        }
        let resolvedOffset = offsetMs ?? carriedOffsetMs
        carriedOffsetMs = resolvedOffset
        bucket.utcOffsetSeconds = Int(resolvedOffset / 1000)
      }
      buckets.append(bucket)
    }
    return buckets
  }
}
