/// Per-bucket sums over a run of consecutive bucket ordinals, stored densely:
/// a bucket's sums are found by subtraction, with no lookup and no reference
/// counting in the hot loops. A tally's buckets run from the first to the
/// last bucket touched, empty ones included, so the table is no larger than
/// the result.
final class BucketTable: @unchecked Sendable {
  // Safe to share: one thread fills a table, and it is read only after that
  // thread has finished.
  /// The table's storage, for loops that must not touch reference counts;
  /// the table owns it and frees it.
  let view: BucketTableView

  /// The ordinal of slot 0.
  var first: Int64 { view.first }
  /// How many slots.
  var count: Int { view.count }
  /// Breakdown entries per slot: `2 * sources` with the breakdown, else 0.
  var width: Int { view.width }

  /// A table for `ordinals` (none when `nil`), every sum zero, no bucket touched.
  init(ordinals: ClosedRange<Int64>?, width: Int) {
    let count = ordinals.map { Int($0.upperBound - $0.lowerBound) + 1 } ?? 0
    func zeros<T>(_ count: Int, _ value: T) -> UnsafeMutablePointer<T> {
      let pointer = UnsafeMutablePointer<T>.allocate(capacity: count)
      pointer.initialize(repeating: value, count: count)
      return pointer
    }
    view = BucketTableView(
      first: ordinals?.lowerBound ?? 0, count: count, width: width, steps: zeros(count, 0.0),
      distance: zeros(count, 0.0), raw: zeros(count, 0.0), manual: zeros(count, 0.0),
      bySource: zeros(count * width, 0.0), offsetMs: zeros(count, Int64(0)),
      offsetIndex: zeros(count, Int.max))
  }

  deinit {
    for pointer in [view.steps, view.distance, view.raw, view.manual, view.bySource] { pointer.deallocate() }
    view.offsetMs.deallocate()
    view.offsetIndex.deallocate()
  }

  /// The slot of `ordinal`, or `nil` when the table does not hold it.
  func slot(_ ordinal: Int64) -> Int? { view.slot(ordinal) }

  /// Whether any sample touched `slot`.
  func isTouched(_ slot: Int) -> Bool { view.offsetIndex[slot] != Int.max }

  /// Adds `other`'s sums to these, bucket by bucket, and takes its offsets
  /// where its sample comes first; `other`'s ordinals must lie inside these.
  func add(_ other: BucketTable) {
    let into = view
    let from = other.view
    for slot in 0..<from.count {
      let to = Int(from.first - into.first) + slot
      into.steps[to] += from.steps[slot]
      into.distance[to] += from.distance[slot]
      into.raw[to] += from.raw[slot]
      into.manual[to] += from.manual[slot]
      for entry in 0..<width { into.bySource[to * width + entry] += from.bySource[slot * width + entry] }
      into.touch(to, offsetMs: from.offsetMs[slot], index: from.offsetIndex[slot])
    }
  }
}

/// A ``BucketTable``'s storage, valid while the table lives.
struct BucketTableView {
  /// The ordinal of slot 0.
  let first: Int64
  /// How many slots.
  let count: Int
  /// Breakdown entries per slot: `2 * sources` with the breakdown, else 0.
  let width: Int
  let steps: UnsafeMutablePointer<Double>
  let distance: UnsafeMutablePointer<Double>
  let raw: UnsafeMutablePointer<Double>
  let manual: UnsafeMutablePointer<Double>
  /// `width` entries per slot: source `s` (by rank) at `2 * s + kind`.
  let bySource: UnsafeMutablePointer<Double>
  /// The UTC offset the bucket takes for hours: that of the bucket's sample
  /// with the lowest index, whose index is in ``offsetIndex``.
  let offsetMs: UnsafeMutablePointer<Int64>
  /// The index of the sample that gave ``offsetMs``; `Int.max` when no
  /// sample touched the bucket.
  let offsetIndex: UnsafeMutablePointer<Int>

  /// The slot of `ordinal`, or `nil` when the table does not hold it (it
  /// lies outside the tally's fixed range).
  @inline(__always)
  func slot(_ ordinal: Int64) -> Int? {
    let slot = Int(truncatingIfNeeded: ordinal &- first)
    // One unsigned comparison: `count` is never negative.
    return UInt(bitPattern: slot) < UInt(bitPattern: count) ? slot : nil
  }

  /// Records that sample `index`, with `offsetMs`, touched `slot`.
  @inline(__always)
  func touch(_ slot: Int, offsetMs offset: Int64, index: Int) {
    if index < offsetIndex[slot] {
      offsetIndex[slot] = index
      offsetMs[slot] = offset
    }
  }
}
