/// Parses record values (`812`, `0.0123`, `1.5e-05`) straight from bytes.
enum DecimalParser {
  private static let powersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
  ]

  /// The value of a decimal number, correctly rounded.
  ///
  /// Plain decimals with at most 15 significant digits take an exact fast
  /// path (an exact integer divided or multiplied by an exact power of ten);
  /// anything else goes through the standard library's parser.
  ///
  /// - Returns: `nil` when the bytes are not a number.
  @inline(__always)
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    let n = bytes.count
    guard n > 0, n <= 17, let p = bytes.baseAddress else { return slowParse(bytes) }
    let negative = p[0] == 45
    let first = negative ? 1 : 0
    // Seventeen digits at most: no wrapping below 2^64, so the loop carries no overflow checks.
    var mantissa: UInt64 = 0
    var point = -1
    var i = first
    while i < n {
      let digit = p[i] &- 48
      if digit < 10 {
        mantissa = mantissa &* 10 &+ UInt64(digit)
      } else if p[i] == 46 && point < 0 {
        point = i
      } else {
        return slowParse(bytes)
      }
      i &+= 1
    }
    let fractionDigits = point < 0 ? 0 : n &- 1 &- point
    let digits = n &- first &- (point < 0 ? 0 : 1)
    guard digits > 0, digits <= 15 else { return slowParse(bytes) }
    var value = Double(mantissa)
    if fractionDigits > 0 { value /= powersOfTen[fractionDigits] }
    return negative ? -value : value
  }

  private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    guard bytes.count > 0, bytes.count < 400 else { return nil }
    return Double(String(decoding: bytes, as: UTF8.self))
  }
}
