import Foundation

/// One step or distance sample, as HealthKit or an export records it.
///
/// This is the readable form, used by apps and tests. ``SampleLog`` stores
/// samples in a compact encoded form (about 5 bytes each on an export) for
/// the millions of an export.
public struct Sample: Hashable, Sendable {
  /// What the sample measures.
  public var kind: QuantityKind
  /// When the sample starts.
  public var start: Date
  /// When the sample ends (equal to ``start`` for an instant).
  public var end: Date
  /// The value: a step count, or metres for ``QuantityKind/distance``.
  public var value: Double
  /// The UTC offset, in seconds, recorded with the sample's start date
  /// (`+0800` is 28 800).
  public var utcOffsetSeconds: Int
  /// The source's name (an export's `sourceName`, HealthKit's `HKSource.name`).
  public var source: String
  /// The device that recorded the sample, when known.
  public var device: Device?
  /// Whether a person typed the sample in by hand (`HKWasUserEntered` = 1).
  public var isUserEntered: Bool

  /// Creates a sample.
  ///
  /// - Parameters:
  ///   - kind: What the sample measures.
  ///   - start: The start instant.
  ///   - end: The end instant.
  ///   - value: Steps, or metres for distance.
  ///   - utcOffsetSeconds: The UTC offset recorded with `start`.
  ///   - source: The source's name.
  ///   - device: The recording device, when known.
  ///   - isUserEntered: Whether the sample was typed in by hand.
  public init(
    kind: QuantityKind, start: Date, end: Date, value: Double, utcOffsetSeconds: Int = 0,
    source: String, device: Device? = nil, isUserEntered: Bool = false
  ) {
    self.kind = kind
    self.start = start
    self.end = end
    self.value = value
    self.utcOffsetSeconds = utcOffsetSeconds
    self.source = source
    self.device = device
    self.isUserEntered = isUserEntered
  }
}

/// Interprets a metadata value of `HKWasUserEntered` as COUNTING.md says:
/// `1`, `true` or `YES` (any case) mean user-entered.
public func isUserEnteredMetadataValue<S: StringProtocol>(_ value: S) -> Bool {
  let trimmed = value.trimmingCharacters(in: .whitespaces)
  if trimmed == "1" { return true }
  switch trimmed.lowercased() {
  case "true", "yes": return true
  default: return false
  }
}

/// Milliseconds since 1970-01-01T00:00:00Z: the engine's time unit.
public typealias EpochMilliseconds = Int64

extension Date {
  /// This date in whole milliseconds since 1970 (rounded to the nearest).
  public var epochMilliseconds: EpochMilliseconds {
    EpochMilliseconds((timeIntervalSince1970 * 1000).rounded())
  }

  /// The date that lies `milliseconds` after 1970-01-01T00:00:00Z.
  public init(epochMilliseconds milliseconds: EpochMilliseconds) {
    self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
  }
}
