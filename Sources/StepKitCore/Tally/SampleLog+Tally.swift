import Foundation

extension SampleLog {
  /// Counts the log as COUNTING.md defines: the policy, the priority merge,
  /// and buckets under the time-zone rule, on up to as many threads as the
  /// system has processors.
  ///
  /// - Parameter options: Policy, ranking, bucket unit, time-zone rule and range.
  /// - Returns: One ``Tally/Bucket`` per bucket in the range (empty ones
  ///   included), a row per source, and the invalid-sample report.
  public func tally(_ options: CountingOptions) -> Tally {
    tally(options, threads: ProcessInfo.processInfo.activeProcessorCount)
  }

  /// Counts the log as ``tally(_:)`` does, on at most `threads` threads.
  ///
  /// A large log is tallied in parts, each a run of consecutive spans of
  /// time, which the threads take one after another as they come free; the
  /// parts' sums are then added in order of time. How the log is cut depends
  /// only on the log, never on `threads` or on which thread took which part,
  /// so the result is the same, to the last bit, on any number of threads.
  ///
  /// - Parameters:
  ///   - options: Policy, ranking, bucket unit, time-zone rule and range.
  ///   - threads: How many threads may work on it (1: only the calling thread).
  public func tally(_ options: CountingOptions, threads: Int) -> Tally {
    tally(
      options, samplesPerBin: MergeBin.targetSamples, parts: Self.tallyParts(forSamples: count),
      threads: threads)
  }

  /// Into how many parts a log of `count` samples is cut: one per
  /// ``partSamples``, at most ``maximumParts``. A function of the log alone:
  /// the parts add their sums in their own order, so the count fixes the
  /// last bits of the result.
  static func tallyParts(forSamples count: Int) -> Int {
    min(maximumParts, max(1, count / partSamples))
  }

  /// About how many samples make a part of a tally worth its own thread: a
  /// merge bin's worth, whose work dwarfs a part's fixed cost (its tables
  /// and a pass over the block index).
  static let partSamples = MergeBin.targetSamples

  /// The most parts a tally is cut into: several per thread, handed out as
  /// threads come free, so that uneven parts and uneven cores even out
  /// (parts differ by a third in cost on real-shaped exports).
  static let maximumParts = 16

  /// ``tally(_:threads:)`` merging spans of about `samplesPerBin` samples at
  /// a time, in `parts` parts (fewer when there are fewer spans).
  /// With `itemLimit`, a bin that gathers more samples than that is merged in
  /// passes (tests set it low, so that small cases take that path).
  func tally(
    _ options: CountingOptions, samplesPerBin: Int, parts: Int, threads: Int,
    itemLimit: Int = MergeItems.defaultLimit
  ) -> Tally {
    tally(
      options, bins: store.mergeBins(targetSamples: samplesPerBin), parts: parts, threads: threads,
      itemLimit: itemLimit)
  }

  /// ``tally(_:threads:)`` over the given spans (tests place their edges
  /// where they choose), in `parts` parts of as many consecutive spans each
  /// as can be (fewer parts when there are fewer spans).
  func tally(
    _ options: CountingOptions, bins: [MergeBin], parts: Int, threads: Int,
    itemLimit: Int = MergeItems.defaultLimit
  ) -> Tally {
    precondition(bins.first?.lower == .min && bins.last?.upper == .max, "bins must cover all time")
    let resolved = ResolvedRanking(log: self, ranking: options.ranking)
    let geometry = BucketGeometry(unit: options.unit, dayStartMs: options.dayStart.milliseconds)
    let fixed = fixedRange(options, geometry)
    let zone = zoneOffsets(options)
    // Offsets are whole minutes within ±maximumOffsetMinutes (`rejection`), or the zone's.
    let bound = Int64(Self.maximumOffsetMinutes * 60_000)
    let plan = TallyPlan(
      options: options, resolved: resolved, geometry: geometry, zone: zone, fixed: fixed.range,
      width: options.includesSourceBreakdown ? 2 * resolved.sourceCount : 0,
      lowestOffsetMs: zone.map { $0.offsets.min() ?? 0 } ?? -bound,
      highestOffsetMs: zone.map { $0.offsets.max() ?? 0 } ?? bound, blocks: BlocksByStart(store.blocks),
      hourSlots: Self.hourSlots(options.dayStart), itemLimit: itemLimit)
    let partCount = max(1, min(parts, bins.count))
    let partBins = (0..<partCount).map { part in
      bins[(part * bins.count / partCount)..<((part + 1) * bins.count / partCount)]
    }
    // What each sample counted for, paged through the log's temporary file
    // beyond its memory budget; filled by one thread (the pages are not shared).
    let counted =
      options.recordsCountedValues ? CountedPages(count: count, storage: store.storage) : nil
    let partials = { () -> [PartialTally] in
      let workers = counted == nil ? max(1, min(threads, partCount)) : 1
      guard workers > 1 else {
        return partBins.map { tallyPart($0, plan, counted: counted) }
      }
      let results = SharedBuffer(
        buffer: UnsafeMutableBufferPointer<PartialTally?>.allocate(capacity: partCount))
      results.buffer.initialize(repeating: nil)
      defer {
        results.buffer.deinitialize()
        results.buffer.deallocate()
      }
      // Each worker takes the next part left until none is; the parts never share a sample.
      let dispenser = PartDispenser(count: partCount)
      DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while let part = dispenser.take() {
          results.buffer[part] = tallyPart(partBins[part], plan, counted: nil)
        }
      }
      return results.buffer.map { $0! }
    }()
    // The parts' sums, added in order of time.
    let lower = partials.compactMap { $0.table.count > 0 ? $0.table.first : nil }.min()
    let upper = partials.compactMap { $0.table.count > 0 ? $0.table.first + Int64($0.table.count) - 1 : nil }
      .max()
    let table: BucketTable
    if partials.count == 1 {
      table = partials[0].table
    } else {
      table = BucketTable(ordinals: lower.flatMap { lower in upper.map { lower...$0 } }, width: plan.width)
      for partial in partials { table.add(partial.table) }
    }
    var rows = sourceRows(resolved, policy: options.policy)
    for source in rows.indices {
      var sums = SourceSums()
      for partial in partials { sums.add(partial.sources[source]) }
      rows[source].stepSamples = sums.stepSamples
      rows[source].distanceSamples = sums.distanceSamples
      rows[source].rawSteps = sums.rawSteps
      rows[source].manualSteps = sums.manualSteps
      rows[source].rawDistanceMeters = sums.rawDistanceMeters
      rows[source].countedSteps = sums.countedSteps
      rows[source].countedDistanceMeters = sums.countedDistanceMeters
      if sums.firstStart <= sums.lastEnd {
        rows[source].firstStart = Date(epochMilliseconds: sums.firstStart)
        rows[source].lastEnd = Date(epochMilliseconds: sums.lastEnd)
      }
    }
    var hours = partials[0].hoursWithSteps
    for partial in partials.dropFirst() { hours.formUnion(partial.hoursWithSteps) }
    let bucketRows = BucketRows(
      table: table, range: shownRange(table, fixed: fixed), geometry: geometry, zone: zone,
      sourceCount: resolved.sourceCount, breakdown: options.includesSourceBreakdown,
      hours: hours.lazy.map { geometry.ordinal(ofLocal: plan.hourSlots.localStart(of: $0)) })
    return Tally(
      options: options, buckets: Tally.Buckets(computed: bucketRows),
      sources: resolved.steps.sourceOfRank.map { rows[$0] },
      invalid: invalid, countedValues: counted.map(CountedValues.init(pages:)) ?? CountedValues())
  }

  /// How many buckets ``tally(_:)`` makes under `options`, at most: from
  /// `--from` (else the first sample's bucket) to `--to` (else the last
  /// sample's), judged with the widest UTC offsets, so never fewer than the
  /// tally's. A caller that must bound its memory asks this first.
  ///
  /// - Parameter options: The bucket unit and range.
  /// - Returns: The count, or 0 when the tally has no buckets.
  public func bucketCountBound(_ options: CountingOptions) -> Int64 {
    let geometry = BucketGeometry(unit: options.unit)
    let fixed = fixedRange(options, geometry)
    let widest = Int64(SampleLog.maximumOffsetMinutes) * 60_000
    let first: Int64
    let last: Int64
    if count > 0 {
      let low = store.minStartMs < Int64.min + widest ? Int64.min : store.minStartMs - widest
      let high = store.maxEndMs > Int64.max - widest ? Int64.max : store.maxEndMs + widest
      first = fixed.first ?? geometry.ordinal(ofLocal: low)
      last = fixed.last ?? geometry.ordinal(ofLocal: high)
    } else {
      guard let from = fixed.first, let to = fixed.last else { return 0 }
      (first, last) = (from, to)
    }
    let (span, overflow) = last.subtractingReportingOverflow(first)
    if overflow { return .max }
    return span < 0 ? 0 : span == .max ? .max : span + 1
  }

  // MARK: - The steps of a tally

  /// The hour slots of ``Tally/Bucket/hoursWithData`` under `dayStart`: clock
  /// hours, shifted by the day start's minutes so that they tile its days.
  static func hourSlots(_ dayStart: DayStart) -> BucketGeometry {
    BucketGeometry(unit: .hour, hourShiftMs: Int64(dayStart.minute) * 60_000)
  }

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
      upper = max(upper, Int64(to.daysSinceEpoch + 1) * BucketGeometry.dayMs + options.dayStart.milliseconds)
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

  /// The ordinals the samples that `bins` own can touch, within the fixed
  /// range; `nil` when there are none.
  private func ordinals(of bins: ArraySlice<MergeBin>, _ plan: TallyPlan) -> ClosedRange<Int64>? {
    guard let lowerBin = bins.first, let upperBin = bins.last, count > 0 else { return nil }
    // The latest end of a sample starting before the part's end, judged by blocks.
    let latestEnd = plan.blocks.latestEnd(ofBlocksStartingBefore: upperBin.upper)
    let earliestStart = max(lowerBin.lower, store.minStartMs)
    guard latestEnd >= earliestStart else { return nil }
    func ordinal(_ t: Int64, _ offset: Int64) -> Int64 {
      let (local, overflow) = t.addingReportingOverflow(offset)
      return plan.geometry.ordinal(ofLocal: overflow ? (offset < 0 ? .min : .max) : local)
    }
    var first = ordinal(earliestStart, plan.lowestOffsetMs)
    var last = ordinal(latestEnd, plan.highestOffsetMs)
    if let fixed = plan.fixed {
      first = max(first, fixed.lowerBound)
      last = min(last, fixed.upperBound)
    }
    return first <= last ? first...last : nil
  }

  /// Tallies the samples that `bins` own, into sums of their own.
  ///
  /// One walk over the bins does both passes, each sample decoded once:
  ///
  /// - the raw pass (COUNTING.md, Outputs: `raw_steps`, `manual_steps`):
  ///   every valid sample, typed-in included, no merge. It also touches the
  ///   bucket of every sample, so that the range is the same under every
  ///   policy, and gives each source its sample counts, raw sums and first
  ///   and last dates;
  /// - steps 1 to 3: the policy, the priority merge, and each merged piece
  ///   split across buckets (`steps`, `distance_m`, and what each source
  ///   added), and with ``CountingOptions/recordsCountedValues`` what each
  ///   sample counted for, added to `counted` at the sample's index.
  private func tallyPart(_ bins: ArraySlice<MergeBin>, _ plan: TallyPlan, counted: CountedPages?)
    -> PartialTally
  {
    let sourceCount = plan.resolved.sourceCount
    let part = PartialTally(
      table: BucketTable(ordinals: ordinals(of: bins, plan), width: plan.width), sourceCount: sourceCount)
    // Plain pointers for the hot loops: a closure that captured the table
    // itself would retain it once per sample.
    let table = part.table.view
    let rows = part.sources
    var rawSplitter = BucketSplitter(geometry: plan.geometry, zone: plan.zone)
    var mergeSplitter = BucketSplitter(geometry: plan.geometry, zone: plan.zone)
    var hourSplitter = BucketSplitter(geometry: plan.hourSlots, zone: plan.zone)
    var lastHour = Int64.min
    var hoursWithSteps = Set<Int64>()
    defer { part.hoursWithSteps = hoursWithSteps }
    let breakdown = plan.width > 0
    let width = plan.width
    // Breakdowns are in the order of Tally.sources: by step rank.
    let position = plan.resolved.steps.rankOfSource
    originSource.withUnsafeBufferPointer { originSource in
      position.withUnsafeBufferPointer { position in
        // The same shape in both passes, on purpose: each sums different
        // fields in its own loop, and sharing one closure would cost a
        // branch per piece.
        mergePieces(
          policy: plan.options.policy, resolved: plan.resolved, bins: bins, blocks: plan.blocks,
          combinesAlike: counted == nil, itemLimit: plan.itemLimit,
          owned: { index, p in
            let source = Int(originSource[Int(p.origin)])
            let isSteps = p.kind == .steps
            // No overflow: an offset is within ±maximumOffsetMinutes.
            let offsetMs = Int64(p.offsetMinutes) &* 60_000
            let rawShare: Double
            if let ordinal = rawSplitter.lastOrdinal(
              holdingStart: p.startMs, end: p.endMs, recordedOffsetMs: offsetMs)
            {
              // The common case, the sample whole in the bucket of the one
              // before: what the split below does, without its closure.
              guard let slot = table.slot(ordinal) else { return }
              // As the split below sums it, from zero (which turns -0 into +0).
              rawShare = 0.0 + p.value
              table.touch(slot, offsetMs: offsetMs, index: index)
              if isSteps {
                table.raw[slot] += p.value
                if p.isUserEntered { table.manual[slot] += p.value }
              }
            } else {
              var inRange = false
              var sum = 0.0
              rawSplitter.splitInFull(
                start: p.startMs, end: p.endMs, value: p.value, recordedOffsetMs: offsetMs
              ) { ordinal, share, offsetMs in
                guard let slot = table.slot(ordinal) else { return }
                inRange = true
                sum += share
                table.touch(slot, offsetMs: offsetMs, index: index)
                if isSteps {
                  table.raw[slot] += share
                  if p.isUserEntered { table.manual[slot] += share }
                }
              }
              guard inRange else { return }
              rawShare = sum
            }
            let row = rows.baseAddress.unsafelyUnwrapped + source
            // No overflow: fewer samples than Int.max.
            if isSteps {
              row.pointee.stepSamples &+= 1
              row.pointee.rawSteps += rawShare
              if p.isUserEntered { row.pointee.manualSteps += rawShare }
            } else {
              row.pointee.distanceSamples &+= 1
              row.pointee.rawDistanceMeters += rawShare
            }
            row.pointee.firstStart = min(row.pointee.firstStart, p.startMs)
            row.pointee.lastEnd = max(row.pointee.lastEnd, p.endMs)
          }
        ) { piece in
          let isSteps = piece.kind == .steps
          let source = piece.sourceIndex
          // No overflow: a rank is below the number of sources, an offset within a day or two.
          let column = 2 &* position[source] &+ Int(piece.kind.rawValue)
          let offsetMs = Int64(piece.utcOffsetSeconds) &* 1000
          // The hours holding counted steps (COUNTING.md, Outputs: hours_with_data).
          if isSteps && piece.value > 0 {
            if let hour = hourSplitter.lastOrdinal(
              holdingStart: piece.startMs, end: piece.endMs, recordedOffsetMs: offsetMs)
            {
              if hour != lastHour {
                lastHour = hour
                hoursWithSteps.insert(hour)
              }
            } else {
              hourSplitter.splitInFull(
                start: piece.startMs, end: piece.endMs, value: piece.value, recordedOffsetMs: offsetMs
              ) { hour, part, _ in
                guard part > 0 else { return }
                lastHour = hour
                hoursWithSteps.insert(hour)
              }
            }
          }
          let share: Double
          if let ordinal = mergeSplitter.lastOrdinal(
            holdingStart: piece.startMs, end: piece.endMs, recordedOffsetMs: offsetMs)
          {
            // The common case, as in the raw pass: the piece whole in the last bucket.
            if let slot = table.slot(ordinal) {
              // As the split below sums it, from zero.
              share = 0.0 + piece.value
              if isSteps {
                table.steps[slot] += piece.value
              } else {
                table.distance[slot] += piece.value
              }
              if breakdown { table.bySource[slot * width + column] += piece.value }
            } else {
              share = 0.0
            }
          } else {
            var sum = 0.0
            mergeSplitter.splitInFull(
              start: piece.startMs, end: piece.endMs, value: piece.value, recordedOffsetMs: offsetMs
            ) { ordinal, part, _ in
              guard let slot = table.slot(ordinal) else { return }
              sum += part
              if isSteps {
                table.steps[slot] += part
              } else {
                table.distance[slot] += part
              }
              if breakdown { table.bySource[slot * width + column] += part }
            }
            share = sum
          }
          if isSteps {
            rows[source].countedSteps += share
          } else {
            rows[source].countedDistanceMeters += share
          }
          counted?.add(share, at: piece.sampleIndex)
        }
      }
    }
    return part
  }

  /// The ordinals of the tally's rows (COUNTING.md, Outputs): `--from` to `--to`, else from
  /// the first to the last bucket that counts something under the policy; `nil` for none.
  private func shownRange(_ table: BucketTable, fixed: FixedRange) -> ClosedRange<Int64>? {
    let sums = table.view
    // The range opens and closes with buckets that count something under the policy: buckets
    // holding only samples the policy drops (a typed-in entry days before the first step) do
    // not open or close it. With nothing counted at all, every bucket with a sample is shown.
    func counts(_ slot: Int) -> Bool {
      table.isTouched(slot) && (sums.steps[slot] != 0 || sums.distance[slot] != 0)
    }
    let slots = 0..<table.count
    let shown =
      slots.first(where: counts).map { ($0, slots.last(where: counts) ?? $0) }
      ?? slots.first(where: table.isTouched).map { ($0, slots.last(where: table.isTouched) ?? $0) }
    let touched = shown.map { (table.first + Int64($0.0))...(table.first + Int64($0.1)) }
    guard let first = fixed.first ?? touched?.lowerBound, let last = fixed.last ?? touched?.upperBound,
      first <= last
    else { return nil }
    return first...last
  }
}
