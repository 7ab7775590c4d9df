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

extension SampleLog {
  /// Counts the log as COUNTING.md defines: the policy, the priority merge,
  /// and buckets under the time-zone rule.
  ///
  /// - Parameter options: Policy, ranking, bucket unit, time-zone rule and range.
  /// - Returns: One ``Tally/Bucket`` per bucket in the range (empty ones
  ///   included), a row per source, and the invalid-sample report.
  public func tally(_ options: CountingOptions) -> Tally {
    let resolved = ResolvedRanking(log: self, ranking: options.ranking)
    let sourceCount = resolved.rankOfSource.count
    let geometry = BucketGeometry(unit: options.unit)

    // The buckets --from and --to fix (the last hour of the `to` day for hours).
    let fixedFirst = options.from.map { geometry.ordinal(ofDay: $0) }
    let fixedLast = options.to.map { day in
      max(geometry.ordinal(ofDay: day) + (options.unit == .hour ? 23 : 0), fixedFirst ?? Int64.min)
    }
    let range: ClosedRange<Int64>? =
      fixedFirst == nil && fixedLast == nil
      ? nil : (fixedFirst ?? Int64.min)...(fixedLast ?? Int64.max)

    var zone: ZoneOffsets?
    if case .zone(let timeZone) = options.timeZone {
      var lower = Int64.max
      var upper = Int64.min
      for p in packed {
        lower = min(lower, p.startMs)
        upper = max(upper, p.endMs)
      }
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
      zone = ZoneOffsets(zone: timeZone, lowerMs: lower, upperMs: upper)
    }

    var sums = BucketSums(range: range, breakdownWidth: options.includesSourceBreakdown ? 2 * sourceCount : 0)
    var splitter = BucketSplitter(geometry: geometry, zone: zone)
    var rows = (0..<sourceCount).map { source in
      Tally.SourceRow(
        name: sourceFacts[source].name, sourceClass: resolved.classes[source],
        rank: resolved.rankOfSource[source] + 1,
        isCounted: options.policy.admits(userEntered: false, sourceClass: resolved.classes[source])
          || options.policy.admits(userEntered: true, sourceClass: resolved.classes[source]),
        deviceModels: [])
    }
    var models = [Set<String>](repeating: [], count: sourceCount)
    for (index, origin) in originTable.enumerated() {
      if let model = origin.device?.model { models[Int(originSource[index])].insert(model) }
    }

    var firstStart = [Int64](repeating: .max, count: sourceCount)
    var lastEnd = [Int64](repeating: .min, count: sourceCount)
    // Raw pass: every valid sample, typed-in included, no merge.
    for index in 0..<packed.count {
      let p = packed[index]
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
      guard inRange else { continue }
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

    // Merged pass.
    var counted = options.recordsCountedValues ? [Double](repeating: 0, count: packed.count) : []
    let breakdown = options.includesSourceBreakdown
    let rankOfSource = resolved.rankOfSource
    mergePieces(policy: options.policy, resolved: resolved) { piece in
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
          sums.slots[slot].bySource[2 * rankOfSource[source] + Int(kind.rawValue)] += part
        }
      }
      if kind == .steps {
        rows[source].countedSteps += share
      } else {
        rows[source].countedDistanceMeters += share
      }
      if !counted.isEmpty { counted[piece.sampleIndex] += share }
    }

    // Buckets, in order, with the empty ones inside the range.
    var buckets: [Tally.Bucket] = []
    let touched = sums.ordinals.min().map { $0...(sums.ordinals.max() ?? $0) }
    let first = fixedFirst ?? touched?.lowerBound
    let last = fixedLast ?? touched?.upperBound
    if let first, let last, first <= last {
      buckets.reserveCapacity(Int(last - first + 1))
      // Empty hours take the offset of the nearest earlier hour with data, and
      // those before the first one take the first one's.
      var carriedOffsetMs: Int64 =
        sums.ordinals.min().flatMap { sums.slotOfOrdinal[$0] }.flatMap { sums.slots[$0].offsetMs }
        ?? 0
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
            let start = zone.firstInstant(
              from: Int64.min / 2, segment: 0, localAtLeast: local)
            offsetMs = zone.offset(ofSegment: zone.segment(at: start, hint: 0))
          }
          let resolvedOffset = offsetMs ?? carriedOffsetMs
          carriedOffsetMs = resolvedOffset
          bucket.utcOffsetSeconds = Int(resolvedOffset / 1000)
        }
        buckets.append(bucket)
      }
    }

    for source in 0..<sourceCount {
      rows[source].deviceModels = models[source].sorted()
      if firstStart[source] <= lastEnd[source] {
        rows[source].firstStart = Date(epochMilliseconds: firstStart[source])
        rows[source].lastEnd = Date(epochMilliseconds: lastEnd[source])
      }
    }
    let orderedRows = resolved.sourceOfRank.map { rows[$0] }
    return Tally(
      options: options, buckets: buckets, sources: orderedRows, invalid: invalid,
      countedValues: counted)
  }
}
