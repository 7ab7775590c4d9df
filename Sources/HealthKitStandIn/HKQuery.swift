import Foundation

/// How a date predicate matches a sample (`HKQueryOptions`).
public struct HKQueryOptions: OptionSet, Sendable, Hashable {
  /// The raw bits.
  public let rawValue: UInt
  /// Creates options.
  public init(rawValue: UInt) { self.rawValue = rawValue }
  /// The sample's start must lie in `[start, end)`.
  public static let strictStartDate = HKQueryOptions(rawValue: 1 << 0)
  /// The sample's end must lie in `[start, end)`.
  public static let strictEndDate = HKQueryOptions(rawValue: 1 << 1)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The largest number of results a query may return: no limit (`HKObjectQueryNoLimit`).
public var HKObjectQueryNoLimit: Int { 0 }

/// The base of every query (`HKQuery`).
public class HKQuery: NSObject {
  /// The queried type.
  public let objectType: HKObjectType?
  /// The query's predicate.
  public let predicate: NSPredicate?
  private let executions = NSLock()
  private var executed = false

  init(objectType: HKObjectType?, predicate: NSPredicate?) {
    self.objectType = objectType
    self.predicate = predicate
  }

  /// Marks the query as started; HealthKit raises an exception on a second run.
  func markExecuted() {
    let first: Bool = executions.withLock {
      defer { executed = true }
      return !executed
    }
    precondition(first, "HKQuery: a query instance can be executed only once")
  }

  /// Starts the query against `simulation` (each query kind overrides this).
  func start(in simulation: HealthStoreSimulation, deviceSupported: Bool) {}

  /// Samples whose interval matches the dates and options.
  public class func predicateForSamples(
    withStart startDate: Date?, end endDate: Date?, options: HKQueryOptions = []
  )
    -> NSPredicate
  {
    HKStandInPredicate(.dates(start: startDate, end: endDate, options: options))
  }

  /// Objects whose metadata value for `key` is one of `allowedValues`.
  public class func predicateForObjects(withMetadataKey key: String, allowedValues: [Any]) -> NSPredicate {
    HKStandInPredicate(.metadataIn(key, allowedValues.compactMap(MetadataValue.init)))
  }

  /// Objects written by any of `sources`.
  public class func predicateForObjects(from sources: Set<HKSource>) -> NSPredicate {
    HKStandInPredicate(.sources(Set(sources.map(\.bundleIdentifier))))
  }
}

/// A metadata value as the stand-in compares it.
enum MetadataValue: Hashable {
  case bool(Bool)
  case number(Double)
  case string(String)

  init?(_ any: Any) {
    switch any {
    case let value as Bool: self = .bool(value)
    case let value as Int: self = .number(Double(value))
    case let value as Double: self = .number(value)
    case let value as NSNumber: self = .number(value.doubleValue)
    case let value as String: self = .string(value)
    default: return nil
    }
  }

  /// Booleans and numbers compare as numbers, as NSNumber does.
  var normalized: MetadataValue {
    if case .bool(let value) = self { return .number(value ? 1 : 0) }
    return self
  }
}

/// A HealthKit predicate: NSPredicate cannot evaluate HealthKit key paths on
/// Linux, so the stand-in's factories return predicates it interprets itself.
/// `NSCompoundPredicate`s of these are interpreted too.
final class HKStandInPredicate: NSPredicate {
  enum Condition {
    case dates(start: Date?, end: Date?, options: HKQueryOptions)
    case metadataIn(String, [MetadataValue])
    case sources(Set<String>)
  }

  let condition: Condition

  init(_ condition: Condition) {
    self.condition = condition
    super.init(value: true)
  }

  required init?(coder: NSCoder) { nil }

  override func evaluate(with object: Any?) -> Bool {
    guard let sample = object as? HKSample else { return false }
    return matches(sample)
  }

  override func evaluate(with object: Any?, substitutionVariables bindings: [String: Any]?) -> Bool {
    evaluate(with: object)
  }

  func matches(_ sample: HKSample) -> Bool {
    switch condition {
    case .dates(let start, let end, let options):
      let lower = start ?? .distantPast
      let upper = end ?? .distantFuture
      if options.contains(.strictStartDate), !(sample.startDate >= lower && sample.startDate < upper) {
        return false
      }
      if options.contains(.strictEndDate), !(sample.endDate >= lower && sample.endDate < upper) {
        return false
      }
      if options.isEmpty {
        // Overlap: the sample's interval meets [start, end); an instant inside counts.
        if sample.startDate == sample.endDate { return sample.startDate >= lower && sample.startDate < upper }
        return sample.startDate < upper && sample.endDate > lower
      }
      return true
    case .metadataIn(let key, let allowed):
      guard let raw = sample.metadata?[key], let value = MetadataValue(raw) else { return false }
      return allowed.contains { $0.normalized == value.normalized }
    case .sources(let bundleIdentifiers):
      return bundleIdentifiers.contains(sample.sourceRevision.source.bundleIdentifier)
    }
  }
}

/// Interprets HealthKit predicates and compounds of them.
enum PredicateInterpreter {
  /// Whether `sample` matches `predicate`. With `missingKeyIsNull`, a metadata condition on a
  /// key the sample lacks is unknown, as in SQL, and stays unknown under NOT: the sample is
  /// left out whatever the NOT says.
  static func matches(_ predicate: NSPredicate?, _ sample: HKSample, missingKeyIsNull: Bool = false) -> Bool {
    evaluate(predicate, sample, missingKeyIsNull: missingKeyIsNull) ?? false
  }

  /// Three-valued evaluation: `nil` is unknown (Kleene's logic for AND, OR and NOT).
  private static func evaluate(_ predicate: NSPredicate?, _ sample: HKSample, missingKeyIsNull: Bool) -> Bool?
  {
    guard let predicate else { return true }
    if let leaf = predicate as? HKStandInPredicate {
      if missingKeyIsNull, case .metadataIn(let key, _) = leaf.condition, sample.metadata?[key] == nil {
        return nil
      }
      return leaf.matches(sample)
    }
    if let compound = predicate as? NSCompoundPredicate {
      let parts = compound.subpredicates.map { evaluate($0, sample, missingKeyIsNull: missingKeyIsNull) }
      switch compound.compoundPredicateType {
      case .and: return parts.contains(false) ? false : (parts.contains(nil) ? nil : true)
      case .or: return parts.contains(true) ? true : (parts.contains(nil) ? nil : false)
      case .not: return (parts.first ?? true).map { !$0 }
      @unknown default: return false
      }
    }
    return predicate.evaluate(with: sample)
  }

  /// Whether a predicate (or a compound holding it) filters on metadata.
  static func hasMetadataCondition(_ predicate: NSPredicate?) -> Bool {
    guard let predicate else { return false }
    if let leaf = predicate as? HKStandInPredicate, case .metadataIn = leaf.condition { return true }
    if !(predicate is HKStandInPredicate), !(predicate is NSCompoundPredicate),
      MetadataFormatPredicate.of(predicate) != nil
    {
      return true
    }
    if let compound = predicate as? NSCompoundPredicate {
      return compound.subpredicates.contains { hasMetadataCondition($0) }
    }
    return false
  }

  /// The date range a predicate restricts to (the intersection of the
  /// date predicates under AND), or `nil` for none.
  static func dateRange(_ predicate: NSPredicate?) -> (start: Date?, end: Date?)? {
    guard let predicate else { return nil }
    if let leaf = predicate as? HKStandInPredicate, case .dates(let start, let end, _) = leaf.condition {
      return (start, end)
    }
    if let compound = predicate as? NSCompoundPredicate, compound.compoundPredicateType == .and {
      var result: (start: Date?, end: Date?)?
      for part in compound.subpredicates {
        guard let range = dateRange(part) else { continue }
        let start = [result?.start, range.start].compactMap { $0 }.max()
        let end = [result?.end, range.end].compactMap { $0 }.min()
        result = (start, end)
      }
      return result
    }
    return nil
  }
}
