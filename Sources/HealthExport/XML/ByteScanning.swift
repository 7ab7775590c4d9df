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
    let newline = SIMD16<UInt8>(repeating: 10)
    let space = SIMD16<UInt8>(repeating: 32)
    let one = SIMD16<UInt8>(repeating: 1)
    let zero = SIMD16<UInt8>(repeating: 0)
    while count - i >= 16 {
      // Up to 255 vectors per block, so that 8-bit lanes cannot overflow.
      let blockStart = i
      let blockEnd = i + min((count - i) & ~15, 255 * 16)
      var newlines = zero
      var belowSpace = zero
      while i < blockEnd {
        let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        newlines &+= zero.replacing(with: one, where: v .== newline)
        belowSpace &+= zero.replacing(with: one, where: v .< space)
        i += 16
      }
      let blockLines = Int(SIMD16<UInt16>(truncatingIfNeeded: newlines).wrappedSum())
      let blockBelow = Int(SIMD16<UInt16>(truncatingIfNeeded: belowSpace).wrappedSum())
      lines += blockLines
      if blockBelow != blockLines {
        for j in blockStart..<blockEnd {
          let b = base[j]
          if b < 32 && b != 9 && b != 10 && b != 13 { controls += 1 }
        }
      }
    }
    while i < count {
      let b = base[i]
      if b == 10 {
        lines += 1
      } else if b < 32 && b != 9 && b != 13 {
        controls += 1
      }
      i += 1
    }
    return (lines, controls)
  }

  /// Whether `base[0 ..< count]` can be the inside of a start tag that needs
  /// no careful look: an even number of `"`, and no `'` or `<`.
  ///
  /// When it returns `true`, the `>` that follows lies outside every quoted
  /// attribute value, so it ends the tag.
  @inline(__always)
  static func isPlainTagBody(_ base: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var quotes = 0
    var bad = false
    var i = 0
    let raw = UnsafeRawPointer(base)
    let quote = SIMD16<UInt8>(repeating: 34)
    let apostrophe = SIMD16<UInt8>(repeating: 39)
    let less = SIMD16<UInt8>(repeating: 60)
    let one = SIMD16<UInt8>(repeating: 1)
    let zero = SIMD16<UInt8>(repeating: 0)
    if count >= 16 {
      var quoteLanes = zero
      var badLanes = zero
      var vectors = 0
      while count - i >= 16 {
        let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
        quoteLanes &+= zero.replacing(with: one, where: v .== quote)
        badLanes |= zero.replacing(with: one, where: (v .== apostrophe) .| (v .== less))
        i += 16
        vectors += 1
        if vectors == 255 {
          quotes += Int(SIMD16<UInt16>(truncatingIfNeeded: quoteLanes).wrappedSum())
          quoteLanes = zero
          vectors = 0
        }
      }
      if i < count {
        // The last 16 bytes, overlapping what was already counted.
        let v = raw.loadUnaligned(fromByteOffset: count - 16, as: SIMD16<UInt8>.self)
        let lanes = SIMD16<UInt8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let fresh = lanes .>= SIMD16<UInt8>(repeating: UInt8(16 - (count - i)))
        quoteLanes &+= zero.replacing(with: one, where: (v .== quote) .& fresh)
        badLanes |= zero.replacing(with: one, where: (v .== apostrophe) .| (v .== less))
        i = count
      }
      quotes += Int(SIMD16<UInt16>(truncatingIfNeeded: quoteLanes).wrappedSum())
      bad = SIMD16<UInt16>(truncatingIfNeeded: badLanes).wrappedSum() != 0
    }
    while i < count {
      let b = base[i]
      if b == 34 { quotes += 1 }
      if b == 39 || b == 60 { bad = true }
      i += 1
    }
    return !bad && quotes & 1 == 0
  }

  /// The index just past the last line feed in `base[0 ..< to]`, or `nil`.
  static func lineStart(_ base: UnsafePointer<UInt8>, before to: Int) -> Int? {
    var i = to - 1
    while i >= 0 {
      if base[i] == 10 { return i + 1 }
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
    byte == 32 || byte == 10 || byte == 9 || byte == 13
  }

  /// Whether `byte` can start an XML name (ASCII letters, `_`, `:`, or any
  /// byte of a multi-byte UTF-8 sequence).
  @inline(__always)
  static func isNameStart(_ byte: UInt8) -> Bool {
    (byte | 0x20 >= 97 && byte | 0x20 <= 122) || byte == 95 || byte == 58 || byte >= 0x80
  }

  /// Whether `byte` can continue an XML name.
  @inline(__always)
  static func isNameByte(_ byte: UInt8) -> Bool {
    isNameStart(byte) || (byte >= 48 && byte <= 57) || byte == 45 || byte == 46
  }
}
