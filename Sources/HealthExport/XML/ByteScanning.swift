#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Byte-level search and counting loops the scanner's hot path is made of.
///
/// The counting loops are written so the optimiser can vectorise them: a
/// fixed-size inner block accumulates into 8-bit lanes that cannot overflow.
enum ByteScanning {
  /// The index of the first `byte` in `base[from ..< to]`, or `nil`.
  @inline(__always)
  static func find(_ byte: UInt8, in base: UnsafeMutablePointer<UInt8>, from: Int, to: Int) -> Int? {
    guard from < to else { return nil }
    guard let hit = memchr(base + from, Int32(byte), to - from) else { return nil }
    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
  }

  /// Counts line feeds and stray control characters (C0 controls other than
  /// tab, line feed and carriage return) in `base[0 ..< count]`.
  @inline(__always)
  static func countLinesAndControls(_ base: UnsafePointer<UInt8>, _ count: Int) -> (lines: Int, controls: Int) {
    var lines = 0
    var controls = 0
    var i = 0
    while i < count {
      let blockEnd = i + min(count - i, 255)
      var l: UInt8 = 0
      var c: UInt8 = 0
      while i < blockEnd {
        let b = base[i]
        l &+= b == 10 ? 1 : 0
        c &+= (b < 32) && (b != 9) && (b != 10) && (b != 13) ? 1 : 0
        i += 1
      }
      lines += Int(l)
      controls += Int(c)
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
    var odd: UInt8 = 0
    var i = 0
    while i < count {
      let blockEnd = i + min(count - i, 255)
      var q: UInt8 = 0
      var bad: UInt8 = 0
      while i < blockEnd {
        let b = base[i]
        q &+= b == 34 ? 1 : 0
        bad |= (b == 39) || (b == 60) ? 1 : 0
        i += 1
      }
      quotes += Int(q)
      odd |= bad
    }
    return odd == 0 && quotes & 1 == 0
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
    return memcmp(base + at, text.utf8Start, n) == 0
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
