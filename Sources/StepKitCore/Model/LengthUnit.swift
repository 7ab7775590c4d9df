/// Conversion of the length units that walking + running distance records use.
public enum LengthUnit {
  /// Metres per unit for a HealthKit unit string (`km`, `m`, `mi`, `ft`, `yd`, `cm`).
  ///
  /// - Parameter unit: The unit string as an export or `HKUnit.unitString` writes it.
  /// - Returns: The factor, or `nil` for a unit that is not a length.
  public static func metresPerUnit(_ unit: String) -> Double? {
    switch unit {
    case "m": return 1
    case "km": return 1000
    case "cm": return 0.01
    case "mm": return 0.001
    case "mi": return 1609.344
    case "ft": return 0.3048
    case "yd": return 0.9144
    case "in": return 0.0254
    default: return nil
    }
  }

  /// Converts a value in `unit` to metres, or returns `nil` for an unknown unit.
  public static func metres(_ value: Double, unit: String) -> Double? {
    metresPerUnit(unit).map { value * $0 }
  }
}
