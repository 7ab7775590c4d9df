/// The record types ``ExportReader/forEachRecord(in:ofTypes:threads:progress:_:)``
/// hands out: one or a few `type` identifiers, compared as bytes.
///
/// ```swift
/// let heartRate = RecordTypeFilter(["HKQuantityTypeIdentifierHeartRate"])
/// ```
public struct RecordTypeFilter: Sendable {
  /// The identifiers, as given.
  public let identifiers: [String]
  /// Each identifier's UTF-8 followed by `"`: what a record's `type` holds, closing quote included.
  private let quoted: [[UInt8]]

  /// The longest identifier taken: the fast path compares it inside a tag's
  /// first bytes (``XMLScanner/deferralWindow``).
  public static let longestIdentifierBytes = 512

  /// A filter for records whose `type` is one of `identifiers`.
  ///
  /// - Parameter identifiers: HealthKit identifiers as exports write them
  ///   (`HKQuantityTypeIdentifierHeartRate`, `HKCategoryTypeIdentifierSleepAnalysis`);
  ///   longer ones than ``longestIdentifierBytes`` are dropped.
  public init(_ identifiers: [String]) {
    let kept = identifiers.filter { !$0.isEmpty && $0.utf8.count <= Self.longestIdentifierBytes }
    self.identifiers = kept
    quoted = kept.map { Array($0.utf8) + [UInt8(ascii: "\"")] }
  }

  /// Whether the bytes at `bytes` start with a wanted identifier and its closing quote.
  ///
  /// - Precondition: ``longestIdentifierBytes`` + 1 bytes from `bytes` can be read.
  @inline(__always)
  func matchesQuoted(_ bytes: UnsafePointer<UInt8>) -> Bool {
    for candidate in quoted {
      let equal = candidate.withUnsafeBufferPointer {
        ByteScanning.equal(bytes, $0.baseAddress!, count: $0.count)
      }
      if equal { return true }
    }
    return false
  }

  /// Whether `value`, a whole `type` value, is a wanted identifier.
  func contains(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = value.baseAddress else { return false }
    for candidate in quoted where candidate.count == value.count + 1 {
      let equal = candidate.withUnsafeBufferPointer {
        ByteScanning.equal(base, $0.baseAddress!, count: value.count)
      }
      if equal { return true }
    }
    return false
  }
}
