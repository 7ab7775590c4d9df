import Foundation

/// Metric prefixes (`HKMetricPrefix`).
public enum HKMetricPrefix: Int, Sendable {
  case none = 0
  case pico, nano, micro, milli, centi, deci, deca, hecto, kilo, mega, giga, tera, femto

  var factor: Double {
    switch self {
    case .none: return 1
    case .pico: return 1e-12
    case .nano: return 1e-9
    case .micro: return 1e-6
    case .milli: return 1e-3
    case .centi: return 1e-2
    case .deci: return 1e-1
    case .deca: return 1e1
    case .hecto: return 1e2
    case .kilo: return 1e3
    case .mega: return 1e6
    case .giga: return 1e9
    case .tera: return 1e12
    case .femto: return 1e-15
    }
  }

  var symbol: String {
    ["", "p", "n", "mc", "m", "c", "d", "da", "h", "k", "M", "G", "T", "f"][rawValue]
  }
}

/// A unit (`HKUnit`): the counts, lengths and masses StepKit uses.
public class HKUnit: NSObject {
  enum Dimension: Sendable { case count, length, mass }

  /// The unit's string (`count`, `m`, `km`, `kg`, `lb`, …).
  public let unitString: String
  let dimension: Dimension
  /// Size in the dimension's base unit (count, metre, gram).
  let factor: Double

  required init(unitString: String, dimension: Dimension, factor: Double) {
    self.unitString = unitString
    self.dimension = dimension
    self.factor = factor
  }

  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKUnit else { return false }
    return other.dimension == dimension && other.factor == factor
  }

  public override var hash: Int { unitString.hashValue }

  /// The count unit.
  public class func count() -> Self { Self(unitString: "count", dimension: .count, factor: 1) }
  /// Metres.
  public class func meter() -> Self { Self(unitString: "m", dimension: .length, factor: 1) }
  /// Grams with a prefix.
  public class func gramUnit(with prefix: HKMetricPrefix) -> Self {
    Self(unitString: prefix.symbol + "g", dimension: .mass, factor: prefix.factor)
  }
}

/// An amount in a unit (`HKQuantity`).
public class HKQuantity: NSObject {
  let unit: HKUnit
  let value: Double

  /// Creates a quantity.
  ///
  /// - Parameters:
  ///   - unit: The unit.
  ///   - value: The amount.
  public init(unit: HKUnit, doubleValue value: Double) {
    self.unit = unit
    self.value = value
  }

  func isCompatible(with unit: HKUnit) -> Bool { unit.dimension == self.unit.dimension }

  /// The amount in `unit`. Like HealthKit (which raises an exception), an
  /// incompatible unit is a programming error.
  public func doubleValue(for unit: HKUnit) -> Double {
    precondition(
      isCompatible(with: unit),
      "HKQuantity: \(self.unit.unitString) is not compatible with \(unit.unitString)")
    return value * self.unit.factor / unit.factor
  }
}
