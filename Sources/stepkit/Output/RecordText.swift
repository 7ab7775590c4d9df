import Foundation
import StepKitCore

/// Writes the text of a record's row as bytes into a reused buffer, with no
/// `String` made per record: ISO 8601 instants, calendar dates and metadata
/// as a JSON object. ``TextFormatting`` makes the same texts as strings.
struct RecordText: ~Copyable {
  private(set) var bytes: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// How many bytes are written.
  private(set) var count = 0

  /// The UTC day ``utcInstant(_:)`` wrote last (days since 1970) and its `yyyy-MM-dd`.
  private var cachedDayNumber = Int64.min
  private let cachedDayText = UnsafeMutablePointer<UInt8>.allocate(capacity: 10)
  /// The date ``date(_:)`` wrote last, as `yyyy-MM-dd`.
  private var cachedDate: LocalDate?
  private let cachedDateText = UnsafeMutablePointer<UInt8>.allocate(capacity: 10)

  init(capacity: Int = 1 << 12) {
    self.capacity = capacity
    bytes = .allocate(capacity: capacity)
  }

  deinit {
    bytes.deallocate()
    cachedDayText.deallocate()
    cachedDateText.deallocate()
  }

  /// Empties the buffer.
  mutating func reset() { count = 0 }

  /// Makes room for `extra` more bytes.
  @inline(__always)
  private mutating func reserve(_ extra: Int) {
    if count + extra > capacity { grow(extra) }
  }

  @inline(never)
  private mutating func grow(_ extra: Int) {
    var newCapacity = capacity * 2
    while newCapacity < count + extra { newCapacity *= 2 }
    let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    grown.update(from: bytes, count: count)
    bytes.deallocate()
    bytes = grown
    capacity = newCapacity
  }

  @inline(__always)
  private mutating func byte(_ b: UInt8) {
    reserve(1)
    bytes[count] = b
    count += 1
  }

  @inline(__always)
  private mutating func digits(_ value: Int, width: Int) {
    reserve(width)
    var v = value
    for k in stride(from: width - 1, through: 0, by: -1) {
      bytes[count + k] = UInt8(truncatingIfNeeded: 48 + v % 10)
      v /= 10
    }
    count += width
  }

  /// Appends `date` as `yyyy-MM-dd`; returns where it starts.
  @discardableResult
  mutating func date(_ date: LocalDate) -> Int {
    let start = count
    if date == cachedDate {
      // Rows come in runs of one local day.
      reserve(10)
      (bytes + count).update(from: cachedDateText, count: 10)
      count += 10
      return start
    }
    let (year, month, day) = (date.year, date.month, date.day)
    if year < 0 || year > 9999 {
      // Beyond four digits: as LocalDate prints it.
      var text = date.description
      text.withUTF8 { append($0) }
      return start
    }
    digits(year, width: 4)
    byte(45)
    digits(month, width: 2)
    byte(45)
    digits(day, width: 2)
    if count - start == 10 {
      cachedDate = date
      cachedDateText.update(from: bytes + start, count: 10)
    }
    return start
  }

  /// Appends an instant in UTC as `2026-11-29T08:30:00Z` (milliseconds only
  /// when not zero), as ``TextFormatting/localDateTime(_:offsetSeconds:)`` writes it at offset zero.
  @discardableResult
  mutating func utcInstant(_ epochMilliseconds: Int64) -> Int {
    let start = count
    let dayNumber = epochMilliseconds / 86_400_000 - (epochMilliseconds % 86_400_000 < 0 ? 1 : 0)
    let msOfDay = epochMilliseconds - dayNumber * 86_400_000
    if dayNumber == cachedDayNumber {
      // Records come in time order: most fall on the day before them.
      reserve(10)
      (bytes + count).update(from: cachedDayText, count: 10)
      count += 10
    } else {
      date(LocalDate(daysSinceEpoch: Int(dayNumber)))
      if count - start == 10 {
        cachedDayNumber = dayNumber
        cachedDayText.update(from: bytes + start, count: 10)
      }
    }
    // `THH:mm:ss`, `.SSS` when not zero, `Z`: written in place after one reserve (a byte at a
    // time, each checking for room, cost about 300 instructions an instant).
    let seconds = Int(msOfDay / 1000)
    let millis = Int(msOfDay % 1000)
    reserve(14)
    let out = bytes + count
    out[0] = 84
    Self.twoDigits(seconds / 3600, at: out + 1)
    out[3] = 58
    Self.twoDigits(seconds / 60 % 60, at: out + 4)
    out[6] = 58
    Self.twoDigits(seconds % 60, at: out + 7)
    var length = 9
    if millis != 0 {
      out[9] = 46
      out[10] = UInt8(truncatingIfNeeded: 48 + millis / 100)
      Self.twoDigits(millis % 100, at: out + 11)
      length = 13
    }
    out[length] = 90
    count += length + 1
    return start
  }

  /// Writes `value` (0 to 99) as two digits at `out`.
  @inline(__always)
  private static func twoDigits(_ value: Int, at out: UnsafeMutablePointer<UInt8>) {
    out[0] = UInt8(truncatingIfNeeded: 48 + value / 10)
    out[1] = UInt8(truncatingIfNeeded: 48 + value % 10)
  }

  /// Appends again the bytes written at `start ..< end`; returns where the copy starts.
  @discardableResult
  mutating func repeatText(from start: Int, to end: Int) -> Int {
    let copy = count
    reserve(end - start)
    (bytes + count).update(from: bytes + start, count: end - start)
    count += end - start
    return copy
  }

  /// Appends `source` as it is.
  mutating func append(_ source: UnsafeBufferPointer<UInt8>) {
    reserve(source.count)
    if let base = source.baseAddress { (bytes + count).update(from: base, count: source.count) }
    count += source.count
  }

  /// Appends `source` as the inside of a JSON string: `"` and `\` escaped,
  /// control characters as `\u00XX`, well-formed UTF-8 as it is, and each
  /// byte that starts no well-formed UTF-8 sequence as U+FFFD.
  ///
  /// - Returns: How many bytes were replaced by U+FFFD.
  @discardableResult
  mutating func jsonStringContent(_ source: UnsafeBufferPointer<UInt8>) -> Int {
    escaped(source, json: true)
  }

  /// Appends `source` escaped for a JSON string (`"` and `\` after a `\`, control
  /// characters as `\u00XX`) or for a quoted CSV field (`"` doubled): runs that need no
  /// escape copied whole, each byte that starts no well-formed UTF-8 sequence as U+FFFD.
  ///
  /// - Returns: How many bytes were replaced by U+FFFD.
  private mutating func escaped(_ source: UnsafeBufferPointer<UInt8>, json: Bool) -> Int {
    reserve(source.count)
    var replaced = 0
    var index = 0
    while index < source.count {
      let run = Self.plainRun(source, from: index, json: json)
      if run > 0 {
        append(UnsafeBufferPointer(rebasing: source[index..<index + run]))
        index += run
        if index == source.count { break }
      }
      let b = source[index]
      if b == 34 || (json && b == 92) {
        byte(json ? 92 : 34)
        byte(b)
      } else if json && b < 32 {
        // `\u00XX`.
        byte(92)
        byte(117)
        byte(48)
        byte(48)
        byte(Self.hexDigit(b >> 4))
        byte(Self.hexDigit(b & 15))
      } else if b < 0x80 {
        byte(b)
      } else if let length = UTF8Check.sequenceLength(source, at: index) {
        append(UnsafeBufferPointer(rebasing: source[index..<index + length]))
        index += length
        continue
      } else {
        byte(0xEF)
        byte(0xBF)
        byte(0xBD)
        replaced += 1
      }
      index += 1
    }
    return replaced
  }

  /// How many bytes from `start` are ASCII that need no escape: neither `"`
  /// nor, in JSON, `\` and control characters, nor, in CSV, `,`, carriage
  /// return and line feed. Eight bytes at a time, each test on the whole word.
  @inline(__always)
  private static func plainRun(_ source: UnsafeBufferPointer<UInt8>, from start: Int, json: Bool) -> Int {
    guard let base = source.baseAddress else { return 0 }
    let n = source.count
    var i = start
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    // Whether a byte of `w` is zero (exact as a yes or no).
    @inline(__always) func hasZero(_ w: UInt64) -> Bool { (w &- ones) & ~w & highs != 0 }
    @inline(__always) func has(_ w: UInt64, _ b: UInt8) -> Bool { hasZero(w ^ (ones &* UInt64(b))) }
    while n &- i >= 8 {
      let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
      if w & highs != 0 || has(w, 34) { break }
      if json {
        // A byte below 32, in a word with no high bit: it goes below zero when 32 is taken away.
        if (w &- ones &* 32) & ~w & highs != 0 || has(w, 92) { break }
      } else if has(w, 44) || has(w, 10) || has(w, 13) {
        break
      }
      i &+= 8
    }
    while i < n {
      let b = base[i]
      if b >= 0x80 || b == 34 { break }
      if json ? (b < 32 || b == 92) : (b == 44 || b == 10 || b == 13) { break }
      i &+= 1
    }
    return i &- start
  }

  private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 48 + v : 87 + v }

  /// Appends `"key":"value"` (with a `,` before it unless it is the first, `first`).
  ///
  /// - Returns: How many bytes of the two were replaced by U+FFFD (``jsonStringContent(_:)``).
  @discardableResult
  mutating func jsonMember(key: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, first: Bool)
    -> Int
  {
    if !first { byte(44) }
    byte(34)
    var replaced = jsonStringContent(key)
    byte(34)
    byte(58)
    byte(34)
    replaced += jsonStringContent(value)
    byte(34)
    return replaced
  }

  /// Appends `"name":"…",`, `source` inside the quotes as
  /// ``jsonStringContent(_:)`` writes it, or `"name":null,` for `nil`.
  ///
  /// - Returns: How many bytes were replaced by U+FFFD.
  @inline(__always)
  mutating func jsonStringMember(_ name: StaticString, _ source: UnsafeBufferPointer<UInt8>?) -> Int {
    byte(34)
    ascii(name)
    ascii("\":")
    var replaced = 0
    if let source {
      byte(34)
      replaced = jsonStringContent(source)
      byte(34)
    } else {
      ascii("null")
    }
    byte(44)
    return replaced
  }

  /// Appends a `{` or `}`.
  mutating func brace(open: Bool) { byte(open ? 123 : 125) }

  /// Appends the ASCII bytes of `text` (punctuation, column names, `null`).
  mutating func ascii(_ text: StaticString) {
    append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  /// Appends one byte.
  mutating func ascii(_ b: UInt8) { byte(b) }

  /// Appends `value` in decimal.
  mutating func integer(_ value: Int) {
    guard value != .min else { return ascii("-9223372036854775808") }
    if value < 0 { byte(45) }
    var width = 1
    var rest = abs(value) / 10
    while rest > 0 {
      width += 1
      rest /= 10
    }
    digits(abs(value), width: width)
  }

  /// Appends `source` as one CSV field (RFC 4180): as it is, or in double
  /// quotes with each `"` doubled when it holds a comma, a `"`, a carriage
  /// return or a line feed; each byte that starts no well-formed UTF-8
  /// sequence as U+FFFD.
  ///
  /// - Returns: How many bytes were replaced by U+FFFD.
  @discardableResult
  mutating func csvField(_ source: UnsafeBufferPointer<UInt8>) -> Int {
    if Self.plainRun(source, from: 0, json: false) == source.count {
      append(source)
      return 0
    }
    var quoted = false
    for b in source where b == 44 || b == 34 || b == 10 || b == 13 {
      quoted = true
      break
    }
    if UTF8Check.isValid(source) {
      if quoted {
        quotedCSVField(utf8: source)
      } else {
        append(source)
      }
      return 0
    }
    if quoted { byte(34) }
    let replaced = escaped(source, json: false)
    if quoted { byte(34) }
    return replaced
  }

  /// Appends well-formed UTF-8 `source` as a quoted CSV field: in double
  /// quotes, each `"` doubled, the runs between them copied whole.
  mutating func quotedCSVField(utf8 source: UnsafeBufferPointer<UInt8>) {
    // At worst every byte a `"`.
    reserve(2 * source.count + 2)
    bytes[count] = 34
    count += 1
    if let base = source.baseAddress {
      var index = 0
      while index < source.count {
        let rest = source.count - index
        guard let hit = memchr(base + index, 34, rest) else {
          (bytes + count).update(from: base + index, count: rest)
          count += rest
          break
        }
        // Up to and with the `"`, then the `"` again.
        let run = UnsafeRawPointer(hit) - UnsafeRawPointer(base + index) + 1
        (bytes + count).update(from: base + index, count: run)
        count += run
        bytes[count] = 34
        count += 1
        index += run
      }
    }
    bytes[count] = 34
    count += 1
  }
}
