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

/// A unit (`HKUnit`): the counts, lengths, masses, temperatures, energies,
/// times, volumes and international units StepKit uses.
public class HKUnit: NSObject {
  enum Dimension: Sendable { case count, length, mass, temperature, energy, time, volume, pharmacology }

  /// The unit's string (`count`, `m`, `km`, `kg`, `degC`, `kcal`, …).
  public let unitString: String
  let dimension: Dimension
  /// Size in the dimension's base unit (count, metre, gram, kelvin, joule, second, litre).
  let factor: Double
  /// Where the unit's zero lies in the base unit (temperatures only: 273.15 for °C).
  let offset: Double

  required init(unitString: String, dimension: Dimension, factor: Double, offset: Double = 0) {
    self.unitString = unitString
    self.dimension = dimension
    self.factor = factor
    self.offset = offset
  }

  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKUnit else { return false }
    return other.dimension == dimension && other.factor == factor && other.offset == offset
  }

  public override var hash: Int { unitString.hashValue }

  /// The count unit.
  public class func count() -> Self { Self(unitString: "count", dimension: .count, factor: 1) }
  /// Metres.
  public class func meter() -> Self { Self(unitString: "m", dimension: .length, factor: 1) }
  /// Metres with a prefix.
  public class func meterUnit(with prefix: HKMetricPrefix) -> Self {
    Self(unitString: prefix.symbol + "m", dimension: .length, factor: prefix.factor)
  }
  /// Grams.
  public class func gram() -> Self { gramUnit(with: .none) }
  /// Grams with a prefix.
  public class func gramUnit(with prefix: HKMetricPrefix) -> Self {
    Self(unitString: prefix.symbol + "g", dimension: .mass, factor: prefix.factor)
  }
  /// Degrees Celsius.
  public class func degreeCelsius() -> Self {
    Self(unitString: "degC", dimension: .temperature, factor: 1, offset: 273.15)
  }
  /// Degrees Fahrenheit.
  public class func degreeFahrenheit() -> Self {
    Self(unitString: "degF", dimension: .temperature, factor: 5.0 / 9.0, offset: 459.67 * 5.0 / 9.0)
  }
  /// Kelvin.
  public class func kelvin() -> Self { Self(unitString: "K", dimension: .temperature, factor: 1) }
  /// Joules.
  public class func joule() -> Self { jouleUnit(with: .none) }
  /// Joules with a prefix.
  public class func jouleUnit(with prefix: HKMetricPrefix) -> Self {
    Self(unitString: prefix.symbol + "J", dimension: .energy, factor: prefix.factor)
  }
  /// Kilocalories (the food "Calorie").
  public class func kilocalorie() -> Self { Self(unitString: "kcal", dimension: .energy, factor: 4184) }
  /// Large calories (`Cal`, a kilocalorie; iOS 11).
  public class func largeCalorie() -> Self { Self(unitString: "Cal", dimension: .energy, factor: 4184) }
  /// Small calories (`cal`; iOS 11).
  public class func smallCalorie() -> Self { Self(unitString: "cal", dimension: .energy, factor: 4.184) }
  /// Seconds.
  public class func second() -> Self { secondUnit(with: .none) }
  /// Seconds with a prefix (`ms`).
  public class func secondUnit(with prefix: HKMetricPrefix) -> Self {
    Self(unitString: prefix.symbol + "s", dimension: .time, factor: prefix.factor)
  }
  /// Minutes.
  public class func minute() -> Self { Self(unitString: "min", dimension: .time, factor: 60) }
  /// Hours.
  public class func hour() -> Self { Self(unitString: "hr", dimension: .time, factor: 3600) }
  /// Days.
  public class func day() -> Self { Self(unitString: "d", dimension: .time, factor: 86_400) }
  /// Litres.
  public class func liter() -> Self { literUnit(with: .none) }
  /// Litres with a prefix (`mL`).
  public class func literUnit(with prefix: HKMetricPrefix) -> Self {
    Self(unitString: prefix.symbol + "L", dimension: .volume, factor: prefix.factor)
  }
  /// International units (`IU`; iOS 11): insulin, compatible with no other unit.
  public class func internationalUnit() -> Self {
    Self(unitString: "IU", dimension: .pharmacology, factor: 1)
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
    if unit.isEqual(self.unit) { return value }
    return (value * self.unit.factor + self.unit.offset - unit.offset) / unit.factor
  }
}
