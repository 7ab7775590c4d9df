import Foundation

/// Identifies an *origin*: one source together with one device description.
///
/// Samples store an origin rather than strings, so that a sample takes a few
/// bytes however long its source and device names are.
public struct OriginID: Hashable, Sendable, Comparable {
  /// The index into ``SampleLog/origins``.
  public let rawValue: UInt16
  /// Creates an identifier from its index.
  public init(rawValue: UInt16) { self.rawValue = rawValue }
  /// Orders by ascending value.
  public static func < (lhs: OriginID, rhs: OriginID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A source and the device it reported for a group of samples.
public struct Origin: Hashable, Sendable {
  /// The source's name.
  public var source: String
  /// The device, when the samples carried one.
  public var device: Device?
  /// Creates an origin.
  public init(source: String, device: Device?) {
    self.source = source
    self.device = device
  }
}

/// The samples to count, stored compactly, with the sources they came from
/// and the invalid samples that were turned away.
///
/// Both callers feed it: the export reader (millions of samples, streamed in)
/// and the app-facing library (a few hundred). Invalid samples are never
/// stored; they are counted in ``invalid`` with their locations.
///
/// Samples are kept in blocks of 256, each sample encoded against the one
/// before it (start as a difference in whole seconds when it has no
/// milliseconds, a repeated duration or origin as one bit, a value as a short
/// decimal when that decodes to the very same `Double`): about 5 bytes per
/// sample on an export rather than 24. Every field comes back exactly as it
/// was appended, except the UTC offset, which is kept in whole minutes.
/// Reading in order (``forEachSample(_:)``) decodes each block once;
/// ``sample(at:)`` decodes from the start of the sample's block.
///
/// Memory stays flat however long the history: the encoded samples beyond a
/// budget of a few megabytes (``SampleStorage``) go to an anonymous temporary
/// file and are read back a stretch at a time whenever the log is read or
/// counted. A log within the budget never creates a file.
///
/// ```swift
/// var log = SampleLog()
/// log.append(Sample(kind: .steps, start: a, end: b, value: 812, source: "Apple Watch"))
/// let tally = log.tally(CountingOptions(unit: .day))
/// ```
public struct SampleLog: Sendable {
  /// Per-source facts the ranking needs.
  @usableFromInline struct SourceFacts: Sendable {
    var name: String
  }

  var store = SampleStore()
  @usableFromInline var originTable: [Origin] = []
  @usableFromInline var originSource: [Int32] = []
  /// Per origin, kind and user-entered flag: how many samples were stored,
  /// at `4 * origin + 2 * kind.rawValue + (userEntered ? 1 : 0)`. The
  /// ranking reads it per kind (COUNTING.md, step 2: one list per data type).
  @usableFromInline var originSampleCounts: [Int] = []
  var originIndex: [Origin: UInt16] = [:]
  @usableFromInline var sourceFacts: [SourceFacts] = []
  var sourceIndex: [String: Int32] = [:]

  /// Samples that were not stored because they are invalid.
  public internal(set) var invalid = InvalidSampleReport()

  /// What a reader collects into this log: `nil` (the default) for steps
  /// (``QuantityKind/steps``) and walking + running distance
  /// (``QuantityKind/distance``); otherwise the records of this one
  /// cumulative type, converted to its ``CumulativeType/unit``, held as
  /// ``QuantityKind/steps`` samples, so that the engine counts any type as it
  /// counts steps (a ``Tally``'s `steps` and `rawSteps` are then this type's
  /// merged and plain sums), and no distance.
  ///
  /// ```swift
  /// var log = SampleLog()
  /// log.countedType = .activeEnergyBurned
  /// try ExportReader.read(.path("export.zip"), into: &log)
  /// let kcal = log.tally(CountingOptions()).total.steps
  /// ```
  public var countedType: CumulativeType?

  /// The logs of a log made with ``init(countingEach:storage:)``: one per
  /// cumulative type, in the order given, each filled as a log whose
  /// ``countedType`` is that type would be filled by the same read; empty
  /// for any other log.
  public internal(set) var typeLogs: [SampleLog] = []

  /// An empty log, keeping samples as ``SampleStorage/standard`` says.
  public init() {}

  /// An empty log, keeping samples as `storage` says.
  ///
  /// - Parameter storage: How many bytes of samples stay in memory, and where the rest go.
  public init(storage: SampleStorage) {
    store = SampleStore(storage: storage)
  }

  /// How the log keeps its samples.
  public var storage: SampleStorage { store.storage }

  /// Creates a log holding `samples` (invalid ones are reported, not stored).
  public init<S: Sequence>(_ samples: S) where S.Element == Sample {
    for sample in samples { append(sample) }
  }

  /// How many valid samples the log holds.
  public var count: Int { store.count }

  /// The earliest start and the latest end of the samples, milliseconds
  /// since 1970; `nil` when the log is empty.
  public var timeSpan: (earliestStartMs: EpochMilliseconds, latestEndMs: EpochMilliseconds)? {
    count == 0 ? nil : (store.minStartMs, store.maxEndMs)
  }

  /// The bytes the stored samples take (their encoding and block records),
  /// for reports of memory use.
  public var storedSampleBytes: Int { store.storedBytes }

  /// How many of the samples' bytes are in the temporary file rather than in
  /// memory (0 while the log is within its ``storage`` budget).
  public var spilledSampleBytes: Int { store.spilledBytes }

  /// The first failure of the temporary file, or `nil`.
  ///
  /// A failure to make or write it (``SampleStorageError/Operation/create``,
  /// ``SampleStorageError/Operation/write``) left the samples in memory: counts
  /// stay right. A failure to read it back (``SampleStorageError/losesSamples``)
  /// means counts and samples read since are wrong and must be discarded;
  /// check after reading or counting a log that spilled.
  public var storageFailure: SampleStorageError? { store.storageFailure }

  /// Reserves room for `capacity` samples (their block table; the samples
  /// themselves grow in chunks and never move).
  public mutating func reserveCapacity(_ capacity: Int) { store.reserveCapacity(capacity) }

  /// Every origin seen, indexed by ``OriginID/rawValue``.
  public var origins: [Origin] { originTable }

  /// The names of every source seen, in the order they first appeared.
  public var sourceNames: [String] { sourceFacts.map(\.name) }

  /// The identifier for `source` with `device`, registering it on first use.
  ///
  /// - Returns: `nil` when the log already holds 65 536 origins.
  public mutating func origin(source: String, device: Device?) -> OriginID? {
    let key = Origin(source: source, device: device)
    if let existing = originIndex[key] { return OriginID(rawValue: existing) }
    guard originTable.count <= Int(UInt16.max) else { return nil }
    let sourceID: Int32
    if let known = sourceIndex[source] {
      sourceID = known
    } else {
      sourceID = Int32(sourceFacts.count)
      sourceIndex[source] = sourceID
      sourceFacts.append(SourceFacts(name: source))
    }
    let id = UInt16(originTable.count)
    originTable.append(key)
    originSource.append(sourceID)
    originSampleCounts.append(contentsOf: [0, 0, 0, 0])
    originIndex[key] = id
    return OriginID(rawValue: id)
  }

  /// The largest UTC offset a sample may carry, in minutes either way:
  /// about ±34 hours.
  ///
  /// Real offsets lie between −12 and +14 hours, so this turns away only
  /// corrupt dates, while leaving room for any clock. It keeps an offset
  /// within the 16-bit minutes a stored sample holds, its zigzag varint in a
  /// store's block to two bytes (2 × 2047 < 2^14), and it bounds how far a
  /// bucket under the recorded offsets can lie from the UTC instant (the
  /// widest offsets a tally allows for).
  @usableFromInline static let maximumOffsetMinutes = 2047

  /// Why ``append(kind:startMs:endMs:value:utcOffsetSeconds:origin:userEntered:location:)``
  /// would turn a sample away, or `nil` when it would store it: the one place
  /// the rules for invalid samples live (COUNTING.md, Inputs).
  ///
  /// A reader that must pay to find a sample's location asks this first and
  /// finds the location only for the samples it rejects.
  ///
  /// - Parameters:
  ///   - startMs: Start, milliseconds since 1970.
  ///   - endMs: End, milliseconds since 1970.
  ///   - value: Steps, or metres.
  ///   - utcOffsetSeconds: The offset recorded with the start date.
  /// - Returns: The reason, or `nil` for a valid sample.
  @inlinable
  public static func rejection(
    startMs: EpochMilliseconds, endMs: EpochMilliseconds, value: Double, utcOffsetSeconds: Int
  ) -> InvalidSample.Reason? {
    if endMs < startMs { return .endBeforeStart }
    if !value.isFinite { return .nonFiniteValue }
    if value < 0 { return .negativeValue }
    // Offsets beyond ±34 hours and durations beyond 136 years are no real clock's.
    if abs(utcOffsetSeconds) > maximumOffsetMinutes * 60 { return .outOfRange }
    let duration = endMs &- startMs
    if duration < 0 || (duration > Int64(UInt32.max) && (duration + 500) / 1000 > Int64(UInt32.max)) {
      return .outOfRange
    }
    return nil
  }

  /// The most steps, or metres, a sample from an export may hold for each
  /// minute of its time (an instant counts as a minute): a thousand times a
  /// sprinter's cadence, so that no walk or run comes near it, and every
  /// sum of plausible samples stays far inside what output integers hold.
  public static let mostPlausiblePerMinute = 1_000_000.0

  /// Whether `value` over `[startMs, endMs)` is more than
  /// ``mostPlausiblePerMinute`` allows.
  @inlinable
  public static func isImplausible(value: Double, startMs: EpochMilliseconds, endMs: EpochMilliseconds)
    -> Bool
  {
    let minutes = Double(max(endMs &- startMs, 60_000)) / 60_000
    return value > mostPlausiblePerMinute * minutes
  }

  /// How many distinct origins (a source with a device) a log holds.
  public static let maximumOrigins = Int(UInt16.max) + 1

  /// Appends a sample in engine units, or reports it as invalid.
  ///
  /// - Parameters:
  ///   - kind: Steps or distance.
  ///   - startMs: Start, milliseconds since 1970.
  ///   - endMs: End, milliseconds since 1970.
  ///   - value: Steps, or metres.
  ///   - utcOffsetSeconds: The offset recorded with the start date.
  ///   - origin: From ``origin(source:device:)``.
  ///   - userEntered: Whether the sample was typed in by hand.
  ///   - location: Where the sample came from; evaluated only when it is invalid.
  /// - Returns: `true` when the sample was stored, `false` when it was reported invalid.
  @discardableResult
  public mutating func append(
    kind: QuantityKind, startMs: EpochMilliseconds, endMs: EpochMilliseconds, value: Double,
    utcOffsetSeconds: Int, origin: OriginID, userEntered: Bool,
    location: @autoclosure () -> SourceLocation? = nil
  ) -> Bool {
    if let reason = Self.rejection(
      startMs: startMs, endMs: endMs, value: value, utcOffsetSeconds: utcOffsetSeconds)
    {
      reject(reason, at: location())
      return false
    }
    appendValid(
      kind: kind, startMs: startMs, endMs: endMs, value: value, utcOffsetSeconds: utcOffsetSeconds,
      origin: origin, userEntered: userEntered)
    return true
  }

  /// Appends a sample in engine units that the caller has already found
  /// valid: ``rejection(startMs:endMs:value:utcOffsetSeconds:)`` returned
  /// `nil` for these very values. A reader that asks it first for every
  /// sample (to find a location only for those turned away) stores the valid
  /// ones here without the rules being checked twice; a sample it turns away
  /// goes to ``append(kind:startMs:endMs:value:utcOffsetSeconds:origin:userEntered:location:)``,
  /// which reports it.
  ///
  /// A sample that broke that promise would be stored wrong, so this is
  /// offered only to the package's own readers, as the `ExportReading` SPI
  /// (`@_spi(ExportReading) import StepKitCore`); everyone else appends with
  /// ``append(kind:startMs:endMs:value:utcOffsetSeconds:origin:userEntered:location:)``.
  ///
  /// - Precondition: The sample is valid (checked in debug builds only).
  /// - Parameters:
  ///   - kind: Steps or distance.
  ///   - startMs: Start, milliseconds since 1970.
  ///   - endMs: End, milliseconds since 1970.
  ///   - value: Steps, or metres.
  ///   - utcOffsetSeconds: The offset recorded with the start date.
  ///   - origin: From ``origin(source:device:)``.
  ///   - userEntered: Whether the sample was typed in by hand.
  @_spi(ExportReading)
  @inline(__always)
  public mutating func appendValid(
    kind: QuantityKind, startMs: EpochMilliseconds, endMs: EpochMilliseconds, value: Double,
    utcOffsetSeconds: Int, origin: OriginID, userEntered: Bool
  ) {
    assert(
      Self.rejection(startMs: startMs, endMs: endMs, value: value, utcOffsetSeconds: utcOffsetSeconds) == nil,
      "appendValid(kind:startMs:endMs:value:utcOffsetSeconds:origin:userEntered:) given an invalid sample")
    // Valid: `rejection` bounds the offset to ±maximumOffsetMinutes, so it fits 16 bits.
    storeValid(
      StoredSample(
        startMs: startMs, endMs: endMs, value: value, origin: origin.rawValue,
        offsetMinutes: Int16(truncatingIfNeeded: utcOffsetSeconds / 60), kind: kind,
        isUserEntered: userEntered))
  }

  /// Records a sample turned away, out of line: kept out of
  /// ``append(kind:startMs:endMs:value:utcOffsetSeconds:origin:userEntered:location:)``
  /// (a few instructions a sample), which hardly ever calls it.
  @inline(never)
  mutating func reject(_ reason: InvalidSample.Reason, at location: SourceLocation?) {
    invalid.record(InvalidSample(reason: reason, location: location))
  }

  /// Stores a sample already found valid and counts it for its origin, kind
  /// and hand-typed flag (``originSampleCounts``).
  @inline(__always)
  mutating func storeValid(_ sample: StoredSample) {
    store.append(sample)
    originSampleCounts[
      4 * Int(sample.origin) + 2 * Int(sample.kind.rawValue) + (sample.isUserEntered ? 1 : 0)] += 1
  }

  /// Appends a sample, or reports it as invalid.
  ///
  /// - Parameters:
  ///   - sample: The sample.
  ///   - location: Where it came from, for the invalid-sample report.
  /// - Returns: `true` when the sample was stored.
  @discardableResult
  public mutating func append(_ sample: Sample, location: SourceLocation? = nil) -> Bool {
    guard let origin = origin(source: sample.source, device: sample.device) else {
      invalid.record(InvalidSample(reason: .outOfRange, location: location))
      return false
    }
    guard sample.start.timeIntervalSince1970.isFinite, sample.end.timeIntervalSince1970.isFinite
    else {
      invalid.record(InvalidSample(reason: .outOfRange, location: location))
      return false
    }
    return append(
      kind: sample.kind, startMs: sample.start.epochMilliseconds,
      endMs: sample.end.epochMilliseconds, value: sample.value,
      utcOffsetSeconds: sample.utcOffsetSeconds, origin: origin,
      userEntered: sample.isUserEntered, location: location)
  }

  /// Records a sample that could not even be decoded (a bad date, a missing
  /// attribute) in the invalid-sample report.
  public mutating func reportInvalid(_ reason: InvalidSample.Reason, location: SourceLocation?) {
    invalid.record(InvalidSample(reason: reason, location: location))
  }

  /// The sample at `index` (0 ..< ``count``), in readable form.
  ///
  /// Decodes from the start of the sample's block; to read many samples in
  /// order, ``forEachSample(_:)`` is faster.
  public func sample(at index: Int) -> Sample {
    readable(store.sample(at: index))
  }

  /// The origin of the sample at `index`.
  public func originOfSample(at index: Int) -> OriginID {
    OriginID(rawValue: store.sample(at: index).origin)
  }

  /// Every stored sample, in the order appended.
  public var samples: [Sample] {
    var all: [Sample] = []
    all.reserveCapacity(count)
    forEachSample { _, sample in all.append(sample) }
    return all
  }

  /// Hands every stored sample, in the order appended, to `body` with its index.
  public func forEachSample<Failure: Error>(
    _ body: (_ index: Int, _ sample: Sample) throws(Failure) -> Void
  ) throws(Failure) {
    try store.decodeAll { (index, stored) throws(Failure) in try body(index, readable(stored)) }
  }

  /// Hands every stored sample, in the order appended, to `body` in engine
  /// units, with its index: what a reader copying samples between logs needs,
  /// without building strings.
  public func forEachEntry<Failure: Error>(
    _ body: (_ index: Int, _ entry: Entry) throws(Failure) -> Void
  ) throws(Failure) {
    try store.decodeAll { (index, stored) throws(Failure) in
      try body(
        index,
        Entry(
          kind: stored.kind, startMs: stored.startMs, endMs: stored.endMs, value: stored.value,
          utcOffsetSeconds: Int(stored.offsetMinutes) * 60, origin: OriginID(rawValue: stored.origin),
          isUserEntered: stored.isUserEntered))
    }
  }

  /// A stored sample in engine units, as
  /// ``append(kind:startMs:endMs:value:utcOffsetSeconds:origin:userEntered:location:)`` takes it.
  public struct Entry: Sendable, Hashable {
    /// Steps or distance.
    public var kind: QuantityKind
    /// Start, milliseconds since 1970.
    public var startMs: EpochMilliseconds
    /// End, milliseconds since 1970.
    public var endMs: EpochMilliseconds
    /// Steps, or metres.
    public var value: Double
    /// The offset recorded with the start date, seconds (whole minutes).
    public var utcOffsetSeconds: Int
    /// The sample's origin in the log it came from.
    public var origin: OriginID
    /// Whether the sample was typed in by hand.
    public var isUserEntered: Bool
  }

  private func readable(_ p: StoredSample) -> Sample {
    let origin = originTable[Int(p.origin)]
    return Sample(
      kind: p.kind, start: Date(epochMilliseconds: p.startMs),
      end: Date(epochMilliseconds: p.endMs), value: p.value,
      utcOffsetSeconds: Int(p.offsetMinutes) * 60, source: origin.source, device: origin.device,
      isUserEntered: p.isUserEntered)
  }
}
