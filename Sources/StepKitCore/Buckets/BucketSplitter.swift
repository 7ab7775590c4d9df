/// Splits a stretch of time across bucket boundaries in proportion to time
/// (COUNTING.md, step 3), under one time-zone rule.
struct BucketSplitter {
  let geometry: BucketGeometry
  let zone: ZoneOffsets?
  private var segmentHint = 0
  /// The local bounds `[lower, upper)` and ordinal of the last bucket the
  /// `recorded` rule found: consecutive samples nearly always fall inside
  /// one bucket, which then costs two comparisons instead of divisions.
  private var cachedLower = Int64.max
  private var cachedUpper = Int64.min
  private var cachedOrdinal: Int64 = 0

  /// How far from Int64's ends a cached bucket must lie: more than the
  /// longest sample (136 years) and offset (34 hours), so that the wrapping
  /// sums of ``lastOrdinal(holdingStart:end:recordedOffsetMs:)`` are exact
  /// whenever they fall in it.
  static let cacheMargin: Int64 = 1 << 43

  init(geometry: BucketGeometry, zone: ZoneOffsets?) {
    self.geometry = geometry
    self.zone = zone
  }

  /// The ordinal of the bucket that holds all of `[start, end)` when it is
  /// the one the `recorded` rule found last, else `nil`. The case nearly
  /// every sample takes, a sample inside the bucket of the one before: the
  /// caller then adds the whole value there, in its own loop, and calls
  /// ``splitInFull(start:end:value:recordedOffsetMs:_:)`` only when this is `nil`.
  @inline(__always)
  func lastOrdinal(holdingStart start: Int64, end: Int64, recordedOffsetMs offset: Int64) -> Int64? {
    // The sums may wrap only for times within a day or two of Int64's ends;
    // no bucket is cached within ``cacheMargin`` of them, so a wrapped sum
    // never passes (and the full split then reports it as it always has).
    let localStart = start &+ offset
    guard zone == nil, localStart >= cachedLower, localStart < cachedUpper, end &+ offset <= cachedUpper
    else { return nil }
    return cachedOrdinal
  }

  /// The hour holding a stretch that begins in `segment` at clock hour `ordinal`, named by the
  /// clock at the hour's start (COUNTING.md, step 3), as HealthKit's hourly statistics and
  /// `Calendar.dateInterval(of: .hour, for:)` name it: an hour that began before the segment's
  /// change, on the hour of the clock before it, keeps that clock's name. Only a change by whole
  /// hours at a time off the hour does that (Pacific/Chatham's at 03:45 and 02:45): its quarter
  /// hour after the change belongs to the hour that began at 03:00 (going back) or 02:00 (going
  /// forward). Half-hour changes (Lord Howe) leave hours on the clock they are read on.
  @inline(__always)
  private func hourNamedAtItsStart(_ ordinal: Int64, offset: Int64, segment: Int, _ zone: ZoneOffsets)
    -> Int64
  {
    let hourStart = geometry.localStart(of: ordinal) - offset
    guard segment > 0, hourStart < zone.start(ofSegment: segment) else { return ordinal }
    let localBefore = hourStart + zone.offset(ofSegment: segment - 1)
    let before = geometry.ordinal(ofLocal: localBefore)
    return geometry.localStart(of: before) == localBefore ? before : ordinal
  }

  /// Hands each bucket's share of `value` over `[start, end)` to `body` as
  /// `(ordinal, share, utcOffsetMs)`, under either rule. An instant goes
  /// whole to the bucket that contains it. Out of line: callers try
  /// ``lastOrdinal(holdingStart:end:recordedOffsetMs:)`` first.
  ///
  /// - Parameter recordedOffsetMs: The sample's own offset, used by the `recorded` rule.
  @inline(never)
  mutating func splitInFull(
    start: Int64, end: Int64, value: Double, recordedOffsetMs: Int64,
    _ body: (_ ordinal: Int64, _ share: Double, _ offsetMs: Int64) -> Void
  ) {
    if let zone {
      var segment = zone.segment(at: start, hint: segmentHint)
      segmentHint = segment
      if start == end {
        let offset = zone.offset(ofSegment: segment)
        var ordinal = zone.ordinal(at: start, segment: segment, geometry)
        if geometry.unit == .hour {
          ordinal = hourNamedAtItsStart(ordinal, offset: offset, segment: segment, zone)
        }
        body(ordinal, value, offset)
        return
      }
      let scale = value / Double(end - start)
      var t = start
      while t < end {
        segment = zone.segment(at: t, hint: segment)
        let offset = zone.offset(ofSegment: segment)
        var ordinal = zone.ordinal(at: t, segment: segment, geometry)
        let boundary = zone.firstInstant(
          from: t, segment: segment, localAtLeast: geometry.localStart(of: ordinal + 1))
        let next = min(boundary, end)
        if geometry.unit == .hour {
          ordinal = hourNamedAtItsStart(ordinal, offset: offset, segment: segment, zone)
        }
        body(ordinal, next == end && t == start ? value : Double(next - t) * scale, offset)
        t = next
      }
      segmentHint = segment
    } else {
      let offset = recordedOffsetMs
      let localStart = start + offset
      if localStart >= cachedLower && localStart < cachedUpper && end + offset <= cachedUpper {
        body(cachedOrdinal, value, offset)
        return
      }
      var ordinal = geometry.ordinal(ofLocal: localStart)
      let upper = geometry.localStart(of: ordinal + 1)
      let lower = geometry.localStart(of: ordinal)
      if lower > Int64.min + Self.cacheMargin && upper < Int64.max - Self.cacheMargin {
        cachedLower = lower
        cachedUpper = upper
      } else {
        cachedLower = .max
        cachedUpper = .min
      }
      cachedOrdinal = ordinal
      if start == end {
        body(ordinal, value, offset)
        return
      }
      var boundary = upper - offset
      if boundary >= end {
        body(ordinal, value, offset)
        return
      }
      let scale = value / Double(end - start)
      var t = start
      while true {
        let next = min(boundary, end)
        body(ordinal, Double(next - t) * scale, offset)
        if next == end { return }
        t = next
        ordinal += 1
        boundary = geometry.localStart(of: ordinal + 1) - offset
      }
    }
  }
}
