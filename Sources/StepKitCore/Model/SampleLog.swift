import Foundation

/// Identifies an *origin*: one source together with one device description.
///
/// Samples store an origin rather than strings, so that a sample takes 24
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

/// A sample in the packed form the engine stores: 24 bytes.
///
/// Times are milliseconds since 1970. A duration too long for 32-bit
/// milliseconds (over 49 days) is kept in whole seconds instead.
@frozen
public struct PackedSample: Sendable {
  @usableFromInline var startMs: Int64
  @usableFromInline var value: Double
  @usableFromInline var duration: UInt32
  @usableFromInline var origin: UInt16
  /// Bits 4...15: the UTC offset in minutes (signed); bit 0: kind; bit 1:
  /// user-entered; bit 2: duration in seconds rather than milliseconds.
  @usableFromInline var bits: UInt16

  @inlinable var kind: QuantityKind { bits & 1 == 0 ? .steps : .distance }
  @inlinable var isUserEntered: Bool { bits & 2 != 0 }
  @inlinable var offsetMinutes: Int { Int(Int16(bitPattern: bits) >> 4) }
  @inlinable var durationMs: Int64 {
    bits & 4 == 0 ? Int64(duration) : Int64(duration) * 1000
  }
  @inlinable var endMs: Int64 { startMs + durationMs }
}

/// The samples to count, stored compactly, with the sources they came from
/// and the invalid samples that were turned away.
///
/// Both callers feed it: the export reader (millions of samples, streamed in)
/// and the app-facing library (a few hundred). Invalid samples are never
/// stored; they are counted in ``invalid`` with their locations.
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

  @usableFromInline var packed: [PackedSample] = []
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
  public private(set) var invalid = InvalidSampleReport()

  /// An empty log.
  public init() {}

  /// Creates a log holding `samples` (invalid ones are reported, not stored).
  public init<S: Sequence>(_ samples: S) where S.Element == Sample {
    for sample in samples { append(sample) }
  }

  /// How many valid samples the log holds.
  public var count: Int { packed.count }

  /// Reserves room for `capacity` samples.
  public mutating func reserveCapacity(_ capacity: Int) { packed.reserveCapacity(capacity) }

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
    // The packed form holds the offset in 12 signed bits of minutes, and a
    // duration in 32 bits of milliseconds or, beyond that, of whole seconds.
    if abs(utcOffsetSeconds) > 2047 * 60 { return .outOfRange }
    let duration = endMs &- startMs
    if duration < 0 || (duration > Int64(UInt32.max) && (duration + 500) / 1000 > Int64(UInt32.max)) {
      return .outOfRange
    }
    return nil
  }

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
      invalid.record(InvalidSample(reason: reason, location: location()))
      return false
    }
    var duration = endMs - startMs
    var bits = UInt16(bitPattern: Int16(utcOffsetSeconds / 60) << 4)
    if kind == .distance { bits |= 1 }
    if userEntered { bits |= 2 }
    if duration > Int64(UInt32.max) {
      duration = (duration + 500) / 1000
      bits |= 4
    }
    packed.append(
      PackedSample(
        startMs: startMs, value: value, duration: UInt32(duration), origin: origin.rawValue,
        bits: bits))
    originSampleCounts[4 * Int(origin.rawValue) + 2 * Int(kind.rawValue) + (userEntered ? 1 : 0)] += 1
    return true
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
  public func sample(at index: Int) -> Sample {
    let p = packed[index]
    let origin = originTable[Int(p.origin)]
    return Sample(
      kind: p.kind, start: Date(epochMilliseconds: p.startMs),
      end: Date(epochMilliseconds: p.endMs), value: p.value,
      utcOffsetSeconds: p.offsetMinutes * 60, source: origin.source, device: origin.device,
      isUserEntered: p.isUserEntered)
  }

  /// The origin of the sample at `index`.
  public func originOfSample(at index: Int) -> OriginID {
    OriginID(rawValue: packed[index].origin)
  }

  /// Every stored sample, in the order appended.
  public var samples: [Sample] { (0..<count).map(sample(at:)) }
}
