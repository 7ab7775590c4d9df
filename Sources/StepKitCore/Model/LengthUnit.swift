/// Conversion of the length units that walking + running distance records use.
public enum LengthUnit {
  /// Metres per unit for a HealthKit unit string (`km`, `m`, `mi`, `ft`, `yd`, `cm`).
  ///
  /// - Parameter unit: The unit string as an export or `HKUnit.unitString` writes it.
  /// - Returns: The factor, or `nil` for a unit that is not a length.
  public static func metresPerUnit(_ unit: String) -> Double? {
    var text = unit
    return text.withUTF8 { metresPerUnit(utf8: $0) }
  }

  /// Metres per unit for a unit string given as UTF-8 bytes, so that a reader
  /// can look a unit up without making a `String`. The one table of factors.
  ///
  /// - Parameter unit: The unit's UTF-8 bytes (`km`, `m`, `mi`, `ft`, `yd`, `cm`, `mm`, `in`).
  /// - Returns: The factor, or `nil` for a unit that is not a length.
  @inlinable
  public static func metresPerUnit(utf8 unit: UnsafeBufferPointer<UInt8>) -> Double? {
    switch unit.count {
    case 1:
      return unit[0] == UInt8(ascii: "m") ? 1 : nil
    case 2:
      switch (unit[0], unit[1]) {
      case (UInt8(ascii: "k"), UInt8(ascii: "m")): return 1000
      case (UInt8(ascii: "c"), UInt8(ascii: "m")): return 0.01
      case (UInt8(ascii: "m"), UInt8(ascii: "m")): return 0.001
      case (UInt8(ascii: "m"), UInt8(ascii: "i")): return 1609.344
      case (UInt8(ascii: "f"), UInt8(ascii: "t")): return 0.3048
      case (UInt8(ascii: "y"), UInt8(ascii: "d")): return 0.9144
      case (UInt8(ascii: "i"), UInt8(ascii: "n")): return 0.0254
      default: return nil
      }
    default:
      return nil
    }
  }

  /// Converts a value in `unit` to metres, or returns `nil` for an unknown unit.
  public static func metres(_ value: Double, unit: String) -> Double? {
    metresPerUnit(unit).map { value * $0 }
  }
}
