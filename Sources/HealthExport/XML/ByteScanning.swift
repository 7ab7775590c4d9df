/// The ASCII bytes XML markup is made of, named as swift-nio names them.
enum ASCII {
  static let tab = UInt8(ascii: "\t")
  static let lineFeed = UInt8(ascii: "\n")
  static let carriageReturn = UInt8(ascii: "\r")
  static let space = UInt8(ascii: " ")
  static let exclamationMark = UInt8(ascii: "!")
  static let quote = UInt8(ascii: "\"")
  static let numberSign = UInt8(ascii: "#")
  static let ampersand = UInt8(ascii: "&")
  static let apostrophe = UInt8(ascii: "'")
  static let hyphen = UInt8(ascii: "-")
  static let period = UInt8(ascii: ".")
  static let slash = UInt8(ascii: "/")
  static let zero = UInt8(ascii: "0")
  static let nine = UInt8(ascii: "9")
  static let colon = UInt8(ascii: ":")
  static let semicolon = UInt8(ascii: ";")
  static let lessThan = UInt8(ascii: "<")
  static let equals = UInt8(ascii: "=")
  static let greaterThan = UInt8(ascii: ">")
  static let questionMark = UInt8(ascii: "?")
  static let leftBracket = UInt8(ascii: "[")
  static let rightBracket = UInt8(ascii: "]")
  static let underscore = UInt8(ascii: "_")
  static let lowercaseA = UInt8(ascii: "a")
  static let lowercaseX = UInt8(ascii: "x")
  /// Setting this bit turns an ASCII capital letter into its lowercase.
  static let lowercaseBit: UInt8 = 0x20
  /// Bytes from here on are parts of multi-byte UTF-8 sequences.
  static let firstNonASCII: UInt8 = 0x80
}

/// Byte-level search and counting loops the scanner's hot path is made of.
///
/// The counting loops are written so the optimiser can vectorise them: a
/// fixed-size inner block accumulates into 8-bit lanes that cannot overflow.
enum ByteScanning {
  /// The index of the first `byte` in `base[from ..< to]`, or `nil`.
  @inline(__always)
  static func find(_ byte: UInt8, in base: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int? {
    guard from < to else { return nil }
    guard let hit = Platform.firstByte(byte, in: base + from, count: to - from) else { return nil }
    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
  }

  /// The index of the first `byte` in `base[from ..< to]`, or `nil`, for
  /// spans that are usually short (attribute values): eight bytes at a time
  /// for the first 32, then `memchr`.
  ///
  /// It may read up to seven bytes past `to`, never past the scanner
  /// buffer's ``XMLScanner/slack``.
  @inline(__always)
  static func findNear(_ byte: UInt8, in base: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int? {
    let raw = UnsafeRawPointer(base)
    let ones: UInt64 = 0x0101_0101_0101_0101
    let pattern = UInt64(byte) &* ones
    var i = from
    let near = min(to, from + 32)
    while i < near {
      // Bytes equal to `byte` become zero; the lowest zero byte sets its top bit first.
      let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ pattern
      let zeros = (word &- ones) & ~word & (ones << 7)
      if zeros != 0 {
        let hit = i + zeros.trailingZeroBitCount >> 3
        return hit < to ? hit : nil
      }
      i += 8
    }
    return find(byte, in: base, from: i, to: to)
  }

  /// The index of the first `byte` in `base[from ..< to]`, or `nil`, sixteen
  /// bytes at a time with no call, for spans that are usually short.
  ///
  /// It may read up to 15 bytes past `to`, never past the scanner buffer's
  /// ``XMLScanner/slack``.
  @inline(__always)
  static func findShort(_ byte: UInt8, in base: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int? {
    let raw = UnsafeRawPointer(base)
    let pattern = SIMD16<UInt8>(repeating: byte)
    var i = from
    while i < to {
      let hits = unsafeBitCast(
        lanes(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self) .== pattern),
        to: SIMD2<UInt64>.self)
      if hits[0] | hits[1] != 0 {
        let hit = i &+ firstLane(hits)
        return hit < to ? hit : nil
      }
      i &+= 16
    }
    return nil
  }

  /// Whether `base[0 ..< text.utf8CodeUnitCount]` equals the ASCII `text`,
  /// compared in words (names and values are short; `memcmp` is a call).
  @inline(__always)
  static func equal(_ base: UnsafePointer<UInt8>, _ text: StaticString) -> Bool {
    let n = text.utf8CodeUnitCount
    let a = UnsafeRawPointer(base)
    let b = UnsafeRawPointer(text.utf8Start)
    @inline(__always) func word(_ p: UnsafeRawPointer, _ at: Int) -> UInt64 {
      p.loadUnaligned(fromByteOffset: at, as: UInt64.self)
    }
    @inline(__always) func half(_ p: UnsafeRawPointer, _ at: Int) -> UInt32 {
      p.loadUnaligned(fromByteOffset: at, as: UInt32.self)
    }
    switch n {
    case 0: return true
    case 1...3:
      for i in 0..<n where base[i] != text.utf8Start[i] { return false }
      return true
    case 4...7:
      return half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4)
    default:
      // The last word first: the names compared differ at their ends
      // (`HKQuantityTypeIdentifierStepCount`, `…HeartRate`).
      guard word(a, n - 8) == word(b, n - 8) else { return false }
      var i = 0
      while i + 8 < n {
        guard word(a, i) == word(b, i) else { return false }
        i += 8
      }
      return true
    }
  }

  /// Whether `a[0 ..< count]` equals `b[0 ..< count]`, compared in words
  /// and vectors without reading past either (names, sources and device
  /// descriptions are short: `memcmp` is a call).
  @inline(__always)
  static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count n: Int) -> Bool {
    let x = UnsafeRawPointer(a)
    let y = UnsafeRawPointer(b)
    @inline(__always) func word(_ p: UnsafeRawPointer, _ at: Int) -> UInt64 {
      p.loadUnaligned(fromByteOffset: at, as: UInt64.self)
    }
    @inline(__always) func half(_ p: UnsafeRawPointer, _ at: Int) -> UInt32 {
      p.loadUnaligned(fromByteOffset: at, as: UInt32.self)
    }
    switch n {
    case ..<1: return true
    case 1...3:
      for i in 0..<n where a[i] != b[i] { return false }
      return true
    case 4...7:
      return half(x, 0) == half(y, 0) && half(x, n &- 4) == half(y, n &- 4)
    case 8...16:
      return word(x, 0) == word(y, 0) && word(x, n &- 8) == word(y, n &- 8)
    default:
      @inline(__always) func vector(_ p: UnsafeRawPointer, _ at: Int) -> SIMD16<UInt8> {
        p.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self)
      }
      // The last sixteen bytes (overlapping the ones before), then the
      // others, their differences gathered so that one test ends the loop.
      var differences = vector(x, n &- 16) ^ vector(y, n &- 16)
      var i = 0
      while n &- i > 16 {
        differences |= vector(x, i) ^ vector(y, i)
        i &+= 16
      }
      return isZero(differences)
    }
  }

  /// Counts line feeds and stray control characters (C0 controls other than
  /// tab, line feed and carriage return) in `base[0 ..< count]`.
  ///
  /// Sixteen bytes at a time it counts bytes below 0x20 and line feeds; only a
  /// block where the two differ (tabs, carriage returns, stray controls) is
  /// looked at byte by byte.
  @inline(__always)
  static func countLinesAndControls(_ base: UnsafePointer<UInt8>, _ count: Int) -> (lines: Int, controls: Int)
  {
    var lines = 0
    var controls = 0
    var i = 0
    let raw = UnsafeRawPointer(base)
    let newline = SIMD16<UInt8>(repeating: ASCII.lineFeed)
    let space = SIMD16<UInt8>(repeating: ASCII.space)
    let zero = SIMD16<UInt8>(repeating: 0)
    while count - i >= 16 {
      // Up to 252 vectors per block, so that 8-bit lanes cannot overflow.
      let blockStart = i
      let blockEnd = i + min((count - i) & ~15, 252 * 16)
      var newlines = zero
      var belowSpace = zero
      // Four vectors a round, without overflow checks: the loop's own cost
      // was half of each vector's.
      while blockEnd &- i >= 64 {
        for k in 0..<4 {
          let v = raw.loadUnaligned(fromByteOffset: i &+ k &* 16, as: SIMD16<UInt8>.self)
          newlines &-= lanes(v .== newline)
          belowSpace &-= lanes(v .< space)
        }
        i &+= 64
      }
      while i < blockEnd {
        let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        newlines &-= lanes(v .== newline)
        belowSpace &-= lanes(v .< space)
        i &+= 16
      }
      let blockLines = sum(newlines)
      let blockBelow = sum(belowSpace)
      lines += blockLines
      if blockBelow != blockLines {
        for j in blockStart..<blockEnd {
          let b = base[j]
          if b < ASCII.space && b != ASCII.tab && b != ASCII.lineFeed && b != ASCII.carriageReturn {
            controls += 1
          }
        }
      }
    }
    while i < count {
      let b = base[i]
      if b == ASCII.lineFeed {
        lines += 1
      } else if b < ASCII.space && b != ASCII.tab && b != ASCII.carriageReturn {
        controls += 1
      }
      i += 1
    }
    return (lines, controls)
  }

  /// Whether `base[from ..< to]` holds no `"`, no `<` and no byte below
  /// 0x20 (so no line feed and no control character), sixteen bytes at a
  /// time. It may read up to 15 bytes past `to`, never past the scanner
  /// buffer's ``XMLScanner/slack``.
  @inline(__always)
  static func isPlain(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Bool {
    let quote = SIMD16<UInt8>(repeating: ASCII.quote)
    let lessThan = SIMD16<UInt8>(repeating: ASCII.lessThan)
    let space = SIMD16<UInt8>(repeating: ASCII.space)
    return holdsNone(base, from: from, to: to) { v in
      lanes(v .== quote) | lanes(v .== lessThan) | lanes(v .< space)
    }
  }

  /// Whether `base[from ..< to]` is plain (``isPlain(_:from:to:)``) and holds
  /// no `&` either, so that it is its own decoded text. It may read up to 15
  /// bytes past `to`, never past the scanner buffer's ``XMLScanner/slack``.
  @inline(__always)
  static func isLiteral(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Bool {
    let quote = SIMD16<UInt8>(repeating: ASCII.quote)
    let lessThan = SIMD16<UInt8>(repeating: ASCII.lessThan)
    let ampersand = SIMD16<UInt8>(repeating: ASCII.ampersand)
    let space = SIMD16<UInt8>(repeating: ASCII.space)
    return holdsNone(base, from: from, to: to) { v in
      lanes(v .== quote) | lanes(v .== lessThan) | lanes(v .== ampersand) | lanes(v .< space)
    }
  }

  /// Whether no byte of `base[from ..< to]` is in a lane that `unwanted`
  /// sets, sixteen bytes at a time without an early exit (a value is short:
  /// one branch at the end costs less than one per vector). It may read up
  /// to 15 bytes past `to`, never past the scanner buffer's ``XMLScanner/slack``.
  ///
  /// - Parameter unwanted: All ones in the lanes of the bytes not wanted.
  @inline(__always)
  static func holdsNone(
    _ base: UnsafePointer<UInt8>, from: Int, to: Int, _ unwanted: (SIMD16<UInt8>) -> SIMD16<UInt8>
  ) -> Bool {
    let raw = UnsafeRawPointer(base)
    var found = SIMD16<UInt8>(repeating: 0)
    var i = from
    while to &- i >= 16 {
      found |= unwanted(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
      i &+= 16
    }
    if i < to {
      found |= unwanted(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)) & firstLanes(to &- i)
    }
    return isZero(found)
  }

  /// The first `>` in `base[from ..< to]` (`to - from` at most 4,080) and
  /// how many `"` come before it, or `nil` when none comes before `to`, or
  /// when the bytes before it hold a `<`, a `'` or a byte below 0x20 (a line
  /// feed, a tab, a control character); sixteen bytes at a time, in one pass.
  /// It may read up to 15 bytes past `to`, never past the scanner buffer's
  /// ``XMLScanner/slack``.
  @inline(__always)
  static func plainTagEnd(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> (close: Int, quotes: Int)? {
    let raw = UnsafeRawPointer(base)
    let quote = SIMD16<UInt8>(repeating: ASCII.quote)
    let lessThan = SIMD16<UInt8>(repeating: ASCII.lessThan)
    let greaterThan = SIMD16<UInt8>(repeating: ASCII.greaterThan)
    let apostrophe = SIMD16<UInt8>(repeating: ASCII.apostrophe)
    let space = SIMD16<UInt8>(repeating: ASCII.space)
    // 8-bit lanes count up to 255 vectors.
    precondition(to &- from <= 255 &* 16)
    var counts = SIMD16<UInt8>(repeating: 0)
    var bad = SIMD16<UInt8>(repeating: 0)
    var i = from
    // Four vectors a round while none holds a `>`: one test for the four.
    while to &- i >= 64 {
      let v0 = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      let v1 = raw.loadUnaligned(fromByteOffset: i &+ 16, as: SIMD16<UInt8>.self)
      let v2 = raw.loadUnaligned(fromByteOffset: i &+ 32, as: SIMD16<UInt8>.self)
      let v3 = raw.loadUnaligned(fromByteOffset: i &+ 48, as: SIMD16<UInt8>.self)
      let ends =
        lanes(v0 .== greaterThan) | lanes(v1 .== greaterThan) | lanes(v2 .== greaterThan)
        | lanes(v3 .== greaterThan)
      if !isZero(ends) { break }
      counts &-= lanes(v0 .== quote)
      counts &-= lanes(v1 .== quote)
      counts &-= lanes(v2 .== quote)
      counts &-= lanes(v3 .== quote)
      bad |= lanes(v0 .== lessThan) | lanes(v0 .== apostrophe) | lanes(v0 .< space)
      bad |= lanes(v1 .== lessThan) | lanes(v1 .== apostrophe) | lanes(v1 .< space)
      bad |= lanes(v2 .== lessThan) | lanes(v2 .== apostrophe) | lanes(v2 .< space)
      bad |= lanes(v3 .== lessThan) | lanes(v3 .== apostrophe) | lanes(v3 .< space)
      i &+= 64
    }
    while i < to {
      let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      // A lane that matches is all ones: subtracting it adds one.
      var quotes = lanes(v .== quote)
      var unwanted = lanes(v .== lessThan) | lanes(v .== apostrophe) | lanes(v .< space)
      let ends = unsafeBitCast(lanes(v .== greaterThan), to: SIMD2<UInt64>.self)
      if ends[0] | ends[1] != 0 {
        let lane = firstLane(ends)
        guard i &+ lane < to else { return nil }
        let before = firstLanes(lane)
        quotes &= before
        unwanted &= before
        counts &-= quotes
        bad |= unwanted
        return isZero(bad) ? (i &+ lane, sum(counts)) : nil
      }
      counts &-= quotes
      bad |= unwanted
      i &+= 16
    }
    return nil
  }

  /// How many `"` and `'` the `count` bytes at `base` hold, or `nil` when
  /// they hold a `<`; sixteen bytes at a time. It may read up to 15 bytes
  /// past `count`, never past the scanner buffer's ``XMLScanner/slack``.
  @inline(__always)
  static func quotesUnlessLessThan(_ base: UnsafePointer<UInt8>, _ count: Int) -> (
    quotes: Int, apostrophes: Int
  )? {
    let raw = UnsafeRawPointer(base)
    let quote = SIMD16<UInt8>(repeating: ASCII.quote)
    let apostrophe = SIMD16<UInt8>(repeating: ASCII.apostrophe)
    let lessThan = SIMD16<UInt8>(repeating: ASCII.lessThan)
    var quotes = 0
    var bad = SIMD16<UInt8>(repeating: 0)
    var apostrophes = SIMD16<UInt8>(repeating: 0)
    var i = 0
    while i < count {
      // Up to 252 vectors per block, so that 8-bit lanes cannot overflow.
      let blockEnd = min(count, i &+ 252 &* 16)
      var counts = SIMD16<UInt8>(repeating: 0)
      while blockEnd &- i >= 64 {
        for k in 0..<4 {
          let v = raw.loadUnaligned(fromByteOffset: i &+ k &* 16, as: SIMD16<UInt8>.self)
          counts &-= lanes(v .== quote)
          apostrophes |= lanes(v .== apostrophe)
          bad |= lanes(v .== lessThan)
        }
        i &+= 64
      }
      while blockEnd &- i >= 16 {
        let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        // A lane that matches is all ones: subtracting it adds one.
        counts &-= lanes(v .== quote)
        apostrophes |= lanes(v .== apostrophe)
        bad |= lanes(v .== lessThan)
        i &+= 16
      }
      if i < blockEnd {
        let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        let inside = firstLanes(blockEnd &- i)
        counts &-= lanes(v .== quote) & inside
        apostrophes |= lanes(v .== apostrophe) & inside
        bad |= lanes(v .== lessThan) & inside
        i = blockEnd
      }
      quotes &+= sum(counts)
    }
    guard isZero(bad) else { return nil }
    return (quotes, isZero(apostrophes) ? 0 : 1)
  }

  /// A vector compare's lanes as bytes, 0xFF where it holds.
  @inline(__always)
  static func lanes(_ mask: SIMDMask<SIMD16<Int8>>) -> SIMD16<UInt8> {
    unsafeBitCast(mask, to: SIMD16<UInt8>.self)
  }

  /// The index of the first 0xFF lane of `lanes` (a vector compare read as
  /// two words, which are not both zero).
  @inline(__always)
  static func firstLane(_ hits: SIMD2<UInt64>) -> Int {
    hits[0] != 0 ? hits[0].trailingZeroBitCount &>> 3 : 8 &+ hits[1].trailingZeroBitCount &>> 3
  }

  /// 0xFF in the first `count` lanes (0 ... 16), 0 in the others.
  @inline(__always)
  static func firstLanes(_ count: Int) -> SIMD16<UInt8> {
    let indices = SIMD16<UInt8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    return lanes(indices .< SIMD16(repeating: UInt8(truncatingIfNeeded: count)))
  }

  /// Whether every lane is zero.
  @inline(__always)
  static func isZero(_ vector: SIMD16<UInt8>) -> Bool {
    let words = unsafeBitCast(vector, to: SIMD2<UInt64>.self)
    return words[0] | words[1] == 0
  }

  /// The sum of the lanes (each below 256, so no lane carries into the next).
  @inline(__always)
  static func sum(_ vector: SIMD16<UInt8>) -> Int {
    let words = unsafeBitCast(vector, to: SIMD2<UInt64>.self)
    // The bytes of a word summed: pairs first (at most 510 each), then the
    // four 16-bit pairs gathered into the top by a multiply.
    @inline(__always) func bytes(_ word: UInt64) -> Int {
      let even = word & 0x00FF_00FF_00FF_00FF
      let odd = (word &>> 8) & 0x00FF_00FF_00FF_00FF
      return Int(truncatingIfNeeded: ((even &+ odd) &* 0x0001_0001_0001_0001) &>> 48)
    }
    return bytes(words[0]) &+ bytes(words[1])
  }

  /// The index just past the last line feed in `base[0 ..< to]`, or `nil`.
  static func lineStart(_ base: UnsafePointer<UInt8>, before to: Int) -> Int? {
    var i = to - 1
    while i >= 0 {
      if base[i] == ASCII.lineFeed { return i + 1 }
      i -= 1
    }
    return nil
  }

  /// Whether `base[at ..< at + text.count]` equals the ASCII `text`.
  @inline(__always)
  static func matches(_ base: UnsafePointer<UInt8>, at: Int, limit: Int, _ text: StaticString) -> Bool {
    let n = text.utf8CodeUnitCount
    guard limit - at >= n else { return false }
    return Platform.bytesEqual(base + at, text.utf8Start, count: n)
  }

  /// Whether `byte` is XML white space.
  @inline(__always)
  static func isSpace(_ byte: UInt8) -> Bool {
    byte == ASCII.space || byte == ASCII.lineFeed || byte == ASCII.tab || byte == ASCII.carriageReturn
  }

  /// Whether `byte` can start an XML name (ASCII letters, `_`, `:`, or any
  /// byte of a multi-byte UTF-8 sequence).
  @inline(__always)
  static func isNameStart(_ byte: UInt8) -> Bool {
    (byte | ASCII.lowercaseBit) &- ASCII.lowercaseA < 26 || byte >= ASCII.firstNonASCII
      || byte == ASCII.underscore || byte == ASCII.colon
  }

  /// Whether `byte` can continue an XML name.
  @inline(__always)
  static func isNameByte(_ byte: UInt8) -> Bool {
    isNameStart(byte) || byte &- ASCII.zero < 10 || byte == ASCII.hyphen || byte == ASCII.period
  }

  /// The index of the first byte in `base[from ..< to]` that cannot continue
  /// an XML name, or `to`.
  @inline(__always)
  static func nameEnd(in base: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int {
    var i = from
    while i < to {
      let byte = base[i]
      // Letters first: the names in exports are made of nothing else, and end at `=` or a space.
      if (byte | ASCII.lowercaseBit) &- ASCII.lowercaseA >= 26 {
        guard byte != ASCII.equals, byte > ASCII.space, isNameByte(byte) else { break }
      }
      i += 1
    }
    return i
  }
}
