import StepKitCore

/// Parses the export's date formats straight from bytes (no `DateFormatter`,
/// no `String`):
///
/// - `2016-04-15 07:27:26 +0100` (also `+01:00`), what every export since
///   iOS 10 writes;
/// - `20140104084300-0800` (`yyyyMMddHHmmss±hhmm`), what iOS 8 and iOS 9 wrote.
///
/// `Z`, or no offset at all, is *not* accepted: every export date carries an offset.
enum ExportDateParser {
  /// A parsed date: the instant and the UTC offset it was written with.
  struct Parsed: Equatable {
    var epochMilliseconds: Int64
    var utcOffsetSeconds: Int
  }

  // A list of stored fields, alike in shape only with other types' lists of as many fields:
  // nothing in it to share.

  /// Where the fields of one layout start.
  private struct Layout {
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var offsetSign: Int
  }

  /// `yyyy-MM-dd HH:mm:ss ±HHMM` (25 bytes) or `… ±HH:MM` (26 bytes).
  private static let spaced = Layout(month: 5, day: 8, hour: 11, minute: 14, second: 17, offsetSign: 20)
  /// `yyyyMMddHHmmss±HHMM` (19 bytes).
  private static let compact = Layout(month: 4, day: 6, hour: 8, minute: 10, second: 12, offsetSign: 14)

  /// Parses one date in either format.
  ///
  /// - Returns: `nil` when the text is not a valid date in one of the formats.
  @inline(__always)
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Parsed? {
    let n = bytes.count
    guard let p = bytes.baseAddress else { return nil }
    let layout: Layout
    switch n {
    case 25, 26:
      let dash = UInt8(ascii: "-")
      let space = UInt8(ascii: " ")
      let colon = UInt8(ascii: ":")
      guard p[4] == dash, p[7] == dash, p[10] == space, p[13] == colon, p[16] == colon, p[19] == space
      else { return nil }
      layout = spaced
    case 19:
      layout = compact
    default:
      return nil
    }
    /// Two decimal digits at `i`, or a negative number when either is not a digit.
    @inline(__always) func twoDigits(_ i: Int) -> Int {
      let tens = Int(p[i]) &- 48
      let ones = Int(p[i + 1]) &- 48
      guard tens >= 0, tens <= 9, ones >= 0, ones <= 9 else { return -1000 }
      return tens * 10 + ones
    }
    let century = twoDigits(0)
    let yearOfCentury = twoDigits(2)
    let month = twoDigits(layout.month)
    let day = twoDigits(layout.day)
    let hour = twoDigits(layout.hour)
    let minute = twoDigits(layout.minute)
    let second = twoDigits(layout.second)
    let sign = p[layout.offsetSign]
    guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
    let offsetHours = twoDigits(layout.offsetSign + 1)
    let offsetMinutes: Int
    if n == 26 {
      guard p[23] == UInt8(ascii: ":") else { return nil }
      offsetMinutes = twoDigits(24)
    } else {
      offsetMinutes = twoDigits(layout.offsetSign + 3)
    }
    guard century >= 0, yearOfCentury >= 0 else { return nil }
    let year = century * 100 + yearOfCentury
    guard month >= 1, month <= 12, day >= 1, day <= LocalDate.daysIn(month: month, year: year),
      hour >= 0, hour <= 23, minute >= 0, minute <= 59, second >= 0, second <= 60,
      offsetHours >= 0, offsetHours <= 23, offsetMinutes >= 0, offsetMinutes <= 59
    else { return nil }
    let offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60)
    let days = LocalDate.daysSinceEpoch(year: year, month: month, day: day)
    let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
    return Parsed(epochMilliseconds: seconds * 1000, utcOffsetSeconds: offset)
  }

  /// The calendar date of the last `yyyy-MM-dd HH:mm:ss ±HHMM` parsed, so that
  /// the many records of one day skip the calendar arithmetic and its checks.
  ///
  /// It also keeps the hour of the last date parsed, and the one before:
  /// records minutes apart share their first 13 bytes (`2016-04-15 07`) and
  /// their offset, so only the minutes and seconds are left to read; and an
  /// export interleaves sources a stretch at a time, going back a little
  /// for each, so dates go back and forth between two hours as they cross one's end.
  struct DayCache {
    /// The date's first ten bytes (`2016-04-15`), as words.
    fileprivate var head: UInt64 = 0
    fileprivate var tail: UInt16 = 0
    /// Days since 1970-01-01 of that date; `nil` before the first date.
    fileprivate var days: Int?
    /// The hour of the last date parsed, and the other hour cached before it.
    fileprivate var hour = CachedHour.none
    fileprivate var previousHour = CachedHour.none

    init() {}
  }

  /// An hour of a valid date, for dates that fall in it.
  fileprivate struct CachedHour {
    var key: HourKey
    /// Seconds since 1970 of the hour's start, in its offset; and the offset.
    var seconds: Int64
    var offset: Int

    /// No hour: its key is one no bytes match (its words disagree on the bytes they share).
    static let none = CachedHour(key: HourKey(head: 0, middle: 0xFF, zone: 0), seconds: 0, offset: 0)
  }

  /// The bytes of a 25-byte date but its minutes and seconds: bytes 0–7 and
  /// 5–12 (`2016-04-15 07`), and the offset's six, 19–24 (` +0100`).
  fileprivate struct HourKey: Equatable {
    var head: UInt64
    var middle: UInt64
    var zone: UInt64

    init(head: UInt64, middle: UInt64, zone: UInt64) {
      self.head = head
      self.middle = middle
      self.zone = zone
    }

    /// The key of the 25 bytes at `raw`.
    @inline(__always)
    init(_ raw: UnsafeRawPointer) {
      head = raw.loadUnaligned(as: UInt64.self)
      middle = raw.loadUnaligned(fromByteOffset: 5, as: UInt64.self)
      zone = raw.loadUnaligned(fromByteOffset: 17, as: UInt64.self) &>> 16
    }
  }

  /// Bytes 13–20 of a 25-byte date (`:mm:ss +`), in which the minute and
  /// second are checked and read eight bytes at a time.
  private struct Clock {
    /// The word, little-endian: byte 13 is its lowest.
    let word: UInt64

    @inline(__always)
    init(_ raw: UnsafeRawPointer) {
      word = raw.loadUnaligned(fromByteOffset: 13, as: UInt64.self)
    }

    /// Each byte xor '0': a digit's value in the digit lanes.
    @inline(__always)
    private var digits: UInt64 { word ^ 0x3030_3030_3030_3030 }

    /// The minute in byte 1 and the second in byte 4 (meaningful only when
    /// lanes 1, 2, 4 and 5 hold digits): each lane times ten plus the next
    /// one, no lane exceeding 99 and so none carrying.
    @inline(__always)
    private var pairs: UInt64 {
      let lanes = digits & 0x0000_FFFF_00FF_FF00
      return lanes &* 10 &+ (lanes &>> 8)
    }

    /// 0 when the bytes are `:mm:ss` with a minute of at most 59 and a second
    /// of at most 60 (a leap second); else not, with a bit set in a lane that fails.
    @inline(__always)
    var fault: UInt64 {
      let separators = (word ^ 0x0000_0000_3A00_003A) & 0x0000_0000_FF00_00FF  // ':' at 0 and 3
      // A digit's lane xor '0' is below 10: no top bit, none after adding 0x76.
      let digits = self.digits
      let notDigits = (digits | (digits &+ 0x7676_7676_7676_7676)) & 0x0000_8080_0080_8000
      // Adding 68 to the minute and 67 to the second sets their top bits at 60 and 61.
      let outOfRange = (pairs &+ 0x0000_0043_0000_4400) & 0x0000_0080_0000_8000
      return separators | notDigits | outOfRange
    }

    /// The seconds since the start of the hour (when ``fault`` is 0).
    @inline(__always)
    var secondsIntoHour: Int64 {
      let pairs = self.pairs
      return Int64(truncatingIfNeeded: (pairs &>> 8) & 0xFF) &* 60
        &+ Int64(truncatingIfNeeded: (pairs &>> 32) & 0xFF)
    }
  }

  /// Parses one date as ``parse(_:)-(UnsafeBufferPointer<UInt8>)`` does, with
  /// the same result, reusing the calendar date of the last one when it is the same.
  @inline(__always)
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>, cache: inout DayCache) -> Parsed? {
    guard bytes.count == 25, let p = bytes.baseAddress else { return parse(bytes) }
    let raw = UnsafeRawPointer(p)
    let hour = HourKey(raw)
    if hour != cache.hour.key {
      guard hour == cache.previousHour.key else { return parseHour(bytes, hour, cache: &cache) }
      swap(&cache.hour, &cache.previousHour)
    }
    // The same hour and offset: `:mm:ss` at 13 is all that is new.
    let clock = Clock(raw)
    guard clock.fault == 0 else { return nil }
    return Parsed(
      epochMilliseconds: (cache.hour.seconds &+ clock.secondsIntoHour) &* 1000,
      utcOffsetSeconds: cache.hour.offset)
  }

  /// A record's start and end, milliseconds since 1970, and the UTC offset of its start.
  struct Span: Equatable {
    var startMs: Int64
    var endMs: Int64
    var utcOffsetSeconds: Int
  }

  /// Parses a record's start and end dates, with the results (and the cache
  /// after) of ``parse(_:cache:)`` on one, then on the other: `nil` when
  /// either is not a valid date. The end's offset is checked but not
  /// returned, as a sample keeps only its start's.
  ///
  /// Records mostly start and end within the hour of the record before, and
  /// so within the last hour cached: then the two times are read and checked
  /// together, every byte of both accounted for (bytes 0–12 and 19–24 equal
  /// those of that hour's date, which was valid; 13–18 checked here).
  @inline(__always)
  static func parse(
    start: UnsafeBufferPointer<UInt8>, end: UnsafeBufferPointer<UInt8>, cache: inout DayCache
  ) -> Span? {
    guard start.count == 25, end.count == 25, let s = start.baseAddress, let e = end.baseAddress else {
      return parseApart(start: start, end: end, cache: &cache)
    }
    let startRaw = UnsafeRawPointer(s)
    let endRaw = UnsafeRawPointer(e)
    let startHour = HourKey(startRaw)
    guard startHour == cache.hour.key, HourKey(endRaw) == startHour else {
      return parseApart(start: start, end: end, cache: &cache)
    }
    let startClock = Clock(startRaw)
    let endClock = Clock(endRaw)
    guard startClock.fault | endClock.fault == 0 else { return nil }
    return Span(
      startMs: (cache.hour.seconds &+ startClock.secondsIntoHour) &* 1000,
      endMs: (cache.hour.seconds &+ endClock.secondsIntoHour) &* 1000, utcOffsetSeconds: cache.hour.offset)
  }

  /// ``parse(start:end:cache:)`` for dates not both in the last hour cached: one, then the other.
  @inline(never)
  private static func parseApart(
    start: UnsafeBufferPointer<UInt8>, end: UnsafeBufferPointer<UInt8>, cache: inout DayCache
  ) -> Span? {
    guard let startParsed = parse(start, cache: &cache), let endParsed = parse(end, cache: &cache) else {
      return nil
    }
    return Span(
      startMs: startParsed.epochMilliseconds, endMs: endParsed.epochMilliseconds,
      utcOffsetSeconds: startParsed.utcOffsetSeconds)
  }

  /// ``parse(_:cache:)`` for a 25-byte date whose hour (`hour`, its key) is
  /// neither cached one: parses it and, when it is valid, caches its hour
  /// (the last one becoming the one before).
  @inline(never)
  private static func parseHour(
    _ bytes: UnsafeBufferPointer<UInt8>, _ hour: HourKey, cache: inout DayCache
  ) -> Parsed? {
    guard let parsed = parseDay(bytes, cache: &cache), let p = bytes.baseAddress else { return nil }
    // A valid date: remember its hour.
    let minute = (Int(p[14]) &- 48) &* 10 &+ (Int(p[15]) &- 48)
    let second = (Int(p[17]) &- 48) &* 10 &+ (Int(p[18]) &- 48)
    cache.previousHour = cache.hour
    cache.hour = CachedHour(
      key: hour, seconds: parsed.epochMilliseconds / 1000 - Int64(minute * 60 + second),
      offset: parsed.utcOffsetSeconds)
    return parsed
  }

  /// ``parse(_:cache:)`` for a 25-byte date whose hour is not the cached one.
  @inline(__always)
  private static func parseDay(_ bytes: UnsafeBufferPointer<UInt8>, cache: inout DayCache) -> Parsed? {
    guard bytes.count == 25, let p = bytes.baseAddress else { return parse(bytes) }
    let raw = UnsafeRawPointer(p)
    let head = raw.loadUnaligned(as: UInt64.self)
    let tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
    @inline(__always) func twoDigits(_ i: Int) -> Int {
      let tens = Int(p[i]) &- 48
      let ones = Int(p[i + 1]) &- 48
      guard tens >= 0, tens <= 9, ones >= 0, ones <= 9 else { return -1000 }
      return tens * 10 + ones
    }
    guard let days = cache.days, head == cache.head, tail == cache.tail else {
      guard let parsed = parse(bytes) else { return nil }
      // A valid date: remember its calendar date.
      cache.head = head
      cache.tail = tail
      cache.days = LocalDate.daysSinceEpoch(
        year: twoDigits(0) * 100 + twoDigits(2), month: twoDigits(5), day: twoDigits(8))
      return parsed
    }
    // The same date: check and read the time and the offset only, eight
    // bytes at a time: ` HH:mm:s` at 10 and `ss ±HHMM` at 17.
    let time = raw.loadUnaligned(fromByteOffset: 10, as: UInt64.self)
    let zone = raw.loadUnaligned(fromByteOffset: 17, as: UInt64.self)
    // The separators (little-endian: byte 0 is the word's lowest).
    let timeSeparators: UInt64 = 0x00FF_0000_FF00_00FF  // bytes 0, 3, 6
    let timeSeparatorBytes: UInt64 = 0x003A_0000_3A00_0020  // ' ', ':', ':'
    let zoneSeparators: UInt64 = 0x0000_0000_00FF_0000  // byte 2
    let zoneSeparatorBytes: UInt64 = 0x0000_0000_0020_0000  // ' '
    guard time & timeSeparators == timeSeparatorBytes, zone & zoneSeparators == zoneSeparatorBytes else {
      return nil
    }
    // Digits: each byte xor '0' must be below 10 (no top bit, and none after adding 0x76).
    let zeros: UInt64 = 0x3030_3030_3030_3030
    let timeDigits = time ^ zeros
    let zoneDigits = zone ^ zeros
    let high: UInt64 = 0x8080_8080_8080_8080
    let step: UInt64 = 0x7676_7676_7676_7676
    let timeDigitLanes: UInt64 = 0xFF00_FFFF_00FF_FF00  // bytes 1, 2, 4, 5, 7
    let zoneDigitLanes: UInt64 = 0xFFFF_FFFF_0000_FFFF  // bytes 0, 1, 4, 5, 6, 7
    guard (timeDigits | (timeDigits &+ step)) & high & timeDigitLanes == 0,
      (zoneDigits | (zoneDigits &+ step)) & high & zoneDigitLanes == 0
    else { return nil }
    @inline(__always) func digit(_ word: UInt64, _ byte: Int) -> Int {
      Int(truncatingIfNeeded: (word &>> (8 &* UInt64(byte))) & 0xFF)
    }
    let hour = digit(timeDigits, 1) &* 10 &+ digit(timeDigits, 2)
    let minute = digit(timeDigits, 4) &* 10 &+ digit(timeDigits, 5)
    let second = digit(zoneDigits, 0) &* 10 &+ digit(zoneDigits, 1)
    let offsetHours = digit(zoneDigits, 4) &* 10 &+ digit(zoneDigits, 5)
    let offsetMinutes = digit(zoneDigits, 6) &* 10 &+ digit(zoneDigits, 7)
    let sign = p[20]
    guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
      hour <= 23, minute <= 59, second <= 60, offsetHours <= 23, offsetMinutes <= 59
    else { return nil }
    let magnitude = offsetHours &* 3600 &+ offsetMinutes &* 60
    let offset = sign == UInt8(ascii: "-") ? -magnitude : magnitude
    let seconds = Int64(days) &* 86_400 &+ Int64(hour &* 3600 &+ minute &* 60 &+ second) &- Int64(offset)
    return Parsed(epochMilliseconds: seconds &* 1000, utcOffsetSeconds: offset)
  }

  /// Parses a date held in a `String`.
  static func parse(_ text: String) -> Parsed? {
    var copy = text
    return copy.withUTF8 { parse($0) }
  }
}
