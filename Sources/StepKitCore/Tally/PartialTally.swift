/// One source's sums in a part of a tally.
struct SourceSums {
  var stepSamples = 0
  var distanceSamples = 0
  var rawSteps = 0.0
  var manualSteps = 0.0
  var rawDistanceMeters = 0.0
  var countedSteps = 0.0
  var countedDistanceMeters = 0.0
  var firstStart = Int64.max
  var lastEnd = Int64.min

  mutating func add(_ other: SourceSums) {
    stepSamples += other.stepSamples
    distanceSamples += other.distanceSamples
    rawSteps += other.rawSteps
    manualSteps += other.manualSteps
    rawDistanceMeters += other.rawDistanceMeters
    countedSteps += other.countedSteps
    countedDistanceMeters += other.countedDistanceMeters
    firstStart = min(firstStart, other.firstStart)
    lastEnd = max(lastEnd, other.lastEnd)
  }
}

/// What one part of a tally adds up: the buckets its samples touch and each
/// source's sums.
final class PartialTally: @unchecked Sendable {
  // Safe to share: filled by one thread, read after it has finished.
  let table: BucketTable
  let sources: UnsafeMutableBufferPointer<SourceSums>
  /// The hour slots (``TallyPlan/hourSlots`` ordinals) that hold counted steps.
  var hoursWithSteps = Set<Int64>()

  init(table: BucketTable, sourceCount: Int) {
    self.table = table
    sources = .allocate(capacity: sourceCount)
    sources.initialize(repeating: SourceSums())
  }

  deinit { sources.deallocate() }
}
