/// Parses record values (`812`, `0.0123`, `1.5e-05`) straight from bytes.
enum DecimalParser {
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
    if fractionDigits > 0 { value /= powerOfTen(fractionDigits) }
    return negative ? -value : value
  }

  /// ``parse(_:)`` for a value followed by at least eight more readable
  /// bytes, with the same result: one of up to eight bytes, digits with at
  /// most one point (what nearly every record holds), is read as one word.
  ///
  /// The word's bytes are checked together: each must be a digit but one,
  /// which may be a point. The point's byte is taken out, and the digits
  /// (the first the most significant, in the word's lowest byte) are
  /// combined in pairs, fours, then eights, three multiplications in all.
  /// The mantissa and the number of digits after the point are those of
  /// ``parse(_:)``'s loop, and so is the division that follows.
  ///
  /// - Precondition: The eight bytes from the value's start can be read.
  @inline(__always)
  static func parse(paddedBytes bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    let n = bytes.count
    guard UInt(bitPattern: n &- 1) < 8 else { return parseInFull(bytes) }
    let p = bytes.baseAddress.unsafelyUnwrapped
    // The value's bytes moved to the top of the word, zeros below (little-endian: byte 0 is lowest).
    let shift = UInt64(truncatingIfNeeded: 64 &- 8 &* n)
    let zeros: UInt64 = 0x3030_3030_3030_3030 &<< shift
    var digits = (UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) &<< shift) ^ zeros
    // A lane holding a digit xor '0' is below 10: no top bit, none after adding 0x76.
    let notDigits = (digits | (digits &+ 0x7676_7676_7676_7676)) & 0x8080_8080_8080_8080
    var fractionDigits = 0
    if notDigits != 0 {
      // One byte only may be other than a digit, a point ('.' xor '0' is 0x1E): any other, a
      // minus sign or an exponent, is left to the loop.
      let lane = UInt64(truncatingIfNeeded: notDigits.trailingZeroBitCount) &>> 3
      guard notDigits & (notDigits &- 1) == 0, (digits &>> (lane &* 8)) & 0xFF == 0x1E, n > 1 else {
        return parseInFull(bytes)
      }
      // The lanes after the point keep their place; those before move up over it.
      let below = (1 &<< (lane &* 8)) &- 1
      let above = ~((below &<< 8) | 0xFF)
      digits = ((digits & below) &<< 8) | (digits & above)
      fractionDigits = Int(truncatingIfNeeded: 7 &- lane)
    }
    // Pairs, then fours, then all eight: each step's lane holds the value of its two halves.
    digits = (digits &* (10 &<< 8 | 1)) &>> 8
    digits = ((digits & 0x00FF_00FF_00FF_00FF) &* (100 &<< 16 | 1)) &>> 16
    digits = ((digits & 0x0000_FFFF_0000_FFFF) &* (10_000 &<< 32 | 1)) &>> 32
    // Below 10^8: the signed conversion is exact.
    var value = Double(Int64(bitPattern: digits))
    if fractionDigits > 0 { value /= powerOfTen(fractionDigits) }
    return value
  }

  /// 10^k for k in 1...15 (the fraction digits of a fast-path value), exactly; a table of
  /// constants, without an array's bounds checks. (`SampleStore.powerOfTen` in StepKitCore is
  /// the same table for 0...9: it is internal there, and making it public would make it part
  /// of StepKitCore's API for one switch.)
  @inline(__always)
  private static func powerOfTen(_ k: Int) -> Double {
    switch k {
    case 1: return 1e1
    case 2: return 1e2
    case 3: return 1e3
    case 4: return 1e4
    case 5: return 1e5
    case 6: return 1e6
    case 7: return 1e7
    case 8: return 1e8
    case 9: return 1e9
    case 10: return 1e10
    case 11: return 1e11
    case 12: return 1e12
    case 13: return 1e13
    case 14: return 1e14
    default: return 1e15
    }
  }

  /// ``parse(_:)``, out of line for ``parse(paddedBytes:)``, which hardly ever calls it.
  @inline(never)
  private static func parseInFull(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    parse(bytes)
  }

  private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    // The standard library's parser reads a C string: a NUL would end the
    // number early (`10\0` `0` read as 10) instead of making it unreadable.
    guard bytes.count > 0, bytes.count < 400, !bytes.contains(0) else { return nil }
    return Double(String(decoding: bytes, as: UTF8.self))
  }
}
