import Foundation

// swift-corelibs-foundation has no predicate strings (`NSPredicate(format:)`
// is unavailable on Linux). HealthKit apps filter typed-in samples with one,
// `NSPredicate(format: "metadata.%K != YES", HKMetadataKeyWasUserEntered)`,
// so the stand-in gives that initialiser back (this declaration shadows
// Foundation's for code that imports the stand-in) for the one shape HealthKit
// code uses: a metadata key compared with YES or NO.

extension NSPredicate {
  /// A predicate from a format string, as Foundation parses it on Apple
  /// platforms; the stand-in understands `metadata.%K == YES`, `!= YES`,
  /// `== NO` and `!= NO` with the key as the argument.
  ///
  /// A sample without the key is "not YES" (and "not NO"), as Foundation
  /// compares a missing value (`nil`) with a number: `metadata.%K != YES`
  /// keeps every sample that does not say it was typed in. Any other format
  /// matches nothing and is recorded in ``MetadataFormatPredicate/unparsed``
  /// (Foundation would raise an exception).
  ///
  /// - Parameters:
  ///   - predicateFormat: The format.
  ///   - args: The arguments for `%K`.
  public convenience init(format predicateFormat: String, _ args: any CVarArg...) {
    let parsed = MetadataFormatPredicate(format: predicateFormat, arguments: args.map { "\($0)" })
    if parsed == nil { MetadataFormatPredicate.recordUnparsed(predicateFormat) }
    self.init { object, _ in
      if let probe = object as? PredicateProbe {
        probe.found = parsed
        return false
      }
      guard let parsed, let sample = object as? HKSample else { return false }
      return parsed.matches(sample)
    }
  }
}

/// A parsed `metadata.%K <op> YES|NO` predicate.
public struct MetadataFormatPredicate: Sendable, Equatable {
  /// The metadata key.
  public var key: String
  /// The value compared with (YES or NO).
  public var value: Bool
  /// Whether the comparison is `==` (else `!=`).
  public var equals: Bool

  init?(format: String, arguments: [String]) {
    let words = format.split(separator: " ").map(String.init)
    guard words.count == 3, words[0] == "metadata.%K", let key = arguments.first, arguments.count == 1,
      words[1] == "==" || words[1] == "!=", words[2] == "YES" || words[2] == "NO"
    else { return nil }
    self.key = key
    value = words[2] == "YES"
    equals = words[1] == "=="
  }

  /// Whether `sample` matches: its value for the key compared as a number
  /// (YES is 1); a missing key or a value that is not a number equals neither.
  func matches(_ sample: HKSample) -> Bool {
    let number: Double?
    switch sample.metadata?[key] {
    case let flag as Bool: number = flag ? 1 : 0
    case let value as NSNumber: number = value.doubleValue
    case let value as Int: number = Double(value)
    case let value as Double: number = value
    default: number = nil
    }
    let same = number == (value ? 1 : 0)
    return equals ? same : !same
  }

  private static let lock = NSLock()
  nonisolated(unsafe) private static var unparsedFormats: [String] = []

  /// Formats the stand-in could not parse (a device would have raised an exception).
  public static var unparsed: [String] { lock.withLock { unparsedFormats } }

  static func recordUnparsed(_ format: String) { lock.withLock { unparsedFormats.append(format) } }

  /// The parsed form of a predicate made by ``NSPredicate/init(format:_:)``, if it is one.
  static func of(_ predicate: NSPredicate) -> MetadataFormatPredicate? {
    let probe = PredicateProbe()
    _ = predicate.evaluate(with: probe)
    return probe.found
  }
}

/// Asks a format predicate what it was parsed into.
final class PredicateProbe: NSObject {
  var found: MetadataFormatPredicate?
}
