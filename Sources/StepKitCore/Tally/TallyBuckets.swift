extension Tally {
  /// A tally's buckets in order, empty ones inside the range included.
  ///
  /// A counted tally does not keep its rows: each ``Tally/Bucket`` is worked out from the
  /// tally's per-bucket sums when it is read, so that 34 years of hours (300,000 rows) take the
  /// sums' 48 bytes a bucket rather than a row's 110 and its breakdown arrays. Reading a bucket
  /// twice gives the same value; outputs read them once, in order, as they write.
  public struct Buckets: RandomAccessCollection, Sendable, Equatable {
    // Two fields, not an enum of the two: an enum of an array and a class reference keeps
    // the reference with a tag in its spare bits, and LeakSanitizer, which looks for untagged
    // pointers, then took the rows' memory for a leak.
    /// Buckets made by hand (empty for a counted tally).
    private let rows: [Bucket]
    /// A counted tally's rows, worked out when read.
    private let computed: BucketRows?

    /// Buckets made by hand (tests, previews), kept as they are.
    ///
    /// - Parameter rows: The buckets in order.
    public init(_ rows: [Bucket]) {
      self.rows = rows
      computed = nil
    }

    init(computed rows: BucketRows) {
      self.rows = []
      computed = rows
    }

    /// Always 0.
    public var startIndex: Int { 0 }

    /// The number of buckets.
    public var endIndex: Int { computed?.count ?? rows.count }

    /// The bucket at `position`, worked out from the tally's sums for a counted tally.
    public subscript(position: Int) -> Bucket {
      guard let computed else { return rows[position] }
      precondition(position >= 0 && position < computed.count, "bucket index out of range")
      return computed.bucket(at: position)
    }

    /// Whether both hold the same buckets in the same order.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
  }
}

/// The rows of a counted tally, worked out from its ``BucketTable`` when read: bucket `i` is
/// ordinal `first + i`. Immutable once made, so safe to share.
final class BucketRows: @unchecked Sendable {
  // Safe to share: nothing here changes after `init`, and the table is only read.
  private let table: BucketTable
  /// The ordinal of row 0.
  private let first: Int64
  /// How many rows.
  let count: Int
  private let geometry: BucketGeometry
  private let zone: ZoneOffsets?
  private let isHours: Bool
  private let breakdown: Bool
  private let sourceCount: Int
  /// ``Tally/Bucket/hoursWithData`` of each table slot.
  private let hoursInTable: [UInt16]
  /// ``Tally/Bucket/hoursWithData`` of the buckets outside the table (none in practice: a
  /// bucket holding counted steps was touched by its sample; kept so that no hour is lost).
  private let hoursOutside: [Int64: Int]
  /// For hours: the offset of buckets before the table (that of its first touched bucket)
  /// and after it (that of its last).
  private let offsetBeforeMs: Int64
  private let offsetAfterMs: Int64

  /// Rows `range` of `table`.
  ///
  /// For hours under the recorded-offset rule, an empty hour takes the offset of the nearest
  /// earlier hour with samples, and those before the first one take the first one's
  /// (COUNTING.md, Outputs). That is written into the untouched slots of `table`'s offsets
  /// here, which nothing reads once the tally is made.
  ///
  /// - Parameters:
  ///   - table: The tally's sums, no longer changed.
  ///   - range: The ordinals of the rows (`nil`: none).
  ///   - hours: For each hour slot holding counted steps, the ordinal of its bucket.
  init(
    table: BucketTable, range: ClosedRange<Int64>?, geometry: BucketGeometry, zone: ZoneOffsets?,
    sourceCount: Int, breakdown: Bool, hours: some Sequence<Int64>
  ) {
    self.table = table
    first = range?.lowerBound ?? 0
    count = range.map { Int($0.upperBound - $0.lowerBound) + 1 } ?? 0
    self.geometry = geometry
    self.zone = zone
    isHours = geometry.unit == .hour
    self.breakdown = breakdown
    self.sourceCount = sourceCount
    var inTable = [UInt16](repeating: 0, count: table.count)
    var outside: [Int64: Int] = [:]
    for ordinal in hours {
      // A bucket holds at most 31 days of 25 hour slots: well within UInt16.
      if let slot = table.slot(ordinal) { inTable[slot] += 1 } else { outside[ordinal, default: 0] += 1 }
    }
    hoursInTable = inTable
    hoursOutside = outside
    let sums = table.view
    var carried = (0..<table.count).first(where: table.isTouched).map { sums.offsetMs[$0] } ?? 0
    offsetBeforeMs = carried
    if isHours && zone == nil {
      for slot in 0..<table.count {
        if table.isTouched(slot) { carried = sums.offsetMs[slot] } else { sums.offsetMs[slot] = carried }
      }
    }
    offsetAfterMs = carried
  }

  /// Row `index`, as the tally defines it.
  func bucket(at index: Int) -> Tally.Bucket {
    let ordinal = first + Int64(index)
    let (day, hour) = geometry.firstDay(of: ordinal)
    var bucket = Tally.Bucket(firstDay: day, hour: hour)
    let sums = table.view
    let slot = table.slot(ordinal)
    if let slot {
      bucket.hoursWithData = Int(hoursInTable[slot])
    } else if !hoursOutside.isEmpty {
      bucket.hoursWithData = hoursOutside[ordinal] ?? 0
    }
    if let slot, table.isTouched(slot) {
      bucket.hasSamples = true
      bucket.steps = sums.steps[slot]
      bucket.distanceMeters = sums.distance[slot]
      bucket.rawSteps = sums.raw[slot]
      bucket.manualSteps = sums.manual[slot]
      if breakdown {
        let width = sums.width
        bucket.stepsBySource = (0..<sourceCount).map { sums.bySource[slot * width + 2 * $0] }
        bucket.distanceMetersBySource = (0..<sourceCount).map { sums.bySource[slot * width + 2 * $0 + 1] }
      }
    } else if breakdown {
      bucket.stepsBySource = [Double](repeating: 0, count: sourceCount)
      bucket.distanceMetersBySource = [Double](repeating: 0, count: sourceCount)
    }
    if isHours {
      let offsetMs: Int64
      if let zone {
        let local = geometry.localStart(of: ordinal)
        let start = zone.firstInstant(from: Int64.min / 2, segment: 0, localAtLeast: local)
        offsetMs = zone.offset(ofSegment: zone.segment(at: start, hint: 0))
      } else if let slot {
        offsetMs = sums.offsetMs[slot]
      } else {
        offsetMs = ordinal < table.first ? offsetBeforeMs : offsetAfterMs
      }
      bucket.utcOffsetSeconds = Int(offsetMs / 1000)
    }
    return bucket
  }
}
