import StepKitCore

/// Maps a record's `sourceName` and `device` attributes to the ``OriginID``
/// the log gave them, so that strings are built and device descriptions
/// parsed once per distinct origin, not once per record.
///
/// An origin is identified by the source name and the device's fields, never
/// by the raw `device` bytes: every record's device description carries the
/// address of a transient `HKDevice` object
/// (`&lt;&lt;HKDevice: 0x282a45810&gt;, name:iPhone, …`), new for almost
/// every record. The cache leaves that address out of its key (see
/// ``DeviceKey``), so it holds one entry per distinct source and device
/// (name, manufacturer, model, hardware, software and any later fields, such
/// as `creation date`), whatever the number of records.
struct OriginCache {
  private struct Entry {
    var hash: UInt64
    var keyStart: Int
    var sourceLength: Int
    /// -1 when the record had no device attribute.
    var deviceLength: Int
    /// How many bytes follow the address when the device description
    /// starts with ``OriginCache/addressPrefix`` and an address; -1 otherwise.
    var tailLength: Int
    /// Whether the source and the bytes after the address hold no `"`, no
    /// `<` and no byte below 0x20 (see ``OriginCache/findPlain(source:device:)``).
    var isPlain: Bool
    var origin: OriginID
  }

  /// One of the origins found last, with the fields of its entry that a
  /// record is compared by before any hashing, so that the comparison loads
  /// them from the cache itself rather than through ``entries``.
  private struct Recent {
    /// The entry's index in ``entries``; -1 while the slot is empty.
    var index = -1
    /// The entry's; -1 while the slot is empty, so that no record matches it.
    var sourceLength = -1
    /// The entry's ``Entry/tailLength``.
    var tailLength = -1
    /// How long a device description of this entry's is at the least: the
    /// prefix, one digit and the tail. `Int.max` while the slot is empty or
    /// the entry's device has no address, so that no device is in range.
    var shortestDevice = Int.max
    var keyStart = 0
    var isPlain = false
    var origin = OriginID(rawValue: 0)

    init() {}

    init(_ entry: Entry, index: Int) {
      self.index = index
      sourceLength = entry.sourceLength
      tailLength = entry.tailLength
      if entry.tailLength >= 0 {
        shortestDevice = OriginCache.addressPrefix.utf8CodeUnitCount + 1 + entry.tailLength
      }
      keyStart = entry.keyStart
      isPlain = entry.isPlain
      origin = entry.origin
    }
  }

  /// How nearly every device description starts: the escaped `<<HKDevice: `
  /// and the address's `0x`.
  static let addressPrefix: StaticString = "&lt;&lt;HKDevice: 0x"

  /// Sixteen nonzero bytes, then sixteen zeros: the sixteen from `16 - n` on
  /// are nonzero in their first `n` lanes (0 ... 16), a mask loaded rather
  /// than built from `n`.
  private static let leadingLanes: StaticString = "################\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"

  /// Each entry's key: its source, then (when it has a device) the device's
  /// ``DeviceKey/head`` and ``DeviceKey/tail``.
  private var keyBytes: [UInt8] = []
  private var entries: [Entry] = []
  private var slots = [Int32](repeating: -1, count: 64)
  /// The last two origins with a device that were found or inserted, the
  /// last first. Records come in runs from one or two devices (a watch and
  /// a phone), so nearly every record is one of them.
  private var last = Recent()
  private var previous = Recent()
  /// The last origin without a device, kept apart so that records of a
  /// source without one, interleaved with those of a watch and a phone, do
  /// not push either of those two out.
  private var withoutDevice = Recent()

  /// How many distinct origins the cache holds.
  var count: Int { entries.count }

  /// The cached origin for these bytes, if any.
  ///
  /// - Parameters:
  ///   - source: The raw `sourceName` value.
  ///   - device: The raw `device` value, or `nil` when the record has none.
  @inline(__always)
  mutating func find(source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?) -> OriginID? {
    if let device, sameDevice(last, source, device) { return last.origin }
    return findAfterLast(source: source, device: device, plainOnly: false)
  }

  /// The origin of the last record or the one before, when this record's
  /// source and device (or its lack of one) are theirs, the device's address
  /// aside, and their bytes are plain.
  ///
  /// A match then vouches for every byte of both values: the source and the
  /// device's tail equal bytes with no `"`, `<`, line feed or control
  /// character, and the address between is all hexadecimal digits. A record
  /// read without its attributes lexed relies on that (see
  /// ``XMLScanner/commitDeferredTag(close:selfClosing:)``).
  ///
  /// A record of another origin is looked up by its key: an entry found so
  /// (equal source, equal bytes around an all-hexadecimal address) vouches
  /// for the record's bytes when its own are plain.
  ///
  /// Only the comparison with the last origin is inlined, since nearly every
  /// record is of that origin; the rest is ``findAfterLast(source:device:plainOnly:)``.
  @inline(__always)
  mutating func findPlain(source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?)
    -> OriginID?
  {
    if let device, last.isPlain, sameDevice(last, source, device) { return last.origin }
    return findAfterLast(source: source, device: device, plainOnly: true)
  }

  /// The origin of ``find(source:device:)`` (or, with `plainOnly`, of
  /// ``findPlain(source:device:)``) for a record that is not of the last
  /// origin with a device: the one before, the last without a device, or one
  /// found by key (with `plainOnly`, only when its bytes are plain).
  @inline(never)
  private mutating func findAfterLast(
    source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?, plainOnly: Bool
  ) -> OriginID? {
    if let device {
      if !plainOnly || previous.isPlain, sameDevice(previous, source, device) {
        swap(&last, &previous)
        return last.origin
      }
    } else if !plainOnly || withoutDevice.isPlain, sameSource(withoutDevice, source) {
      return withoutDevice.origin
    }
    guard let index = findKeyed(source: source, device: device), !plainOnly || entries[index].isPlain else {
      return nil
    }
    return entries[index].origin
  }

  /// The entry of ``find(source:device:)``, found by the device's key: with
  /// the last two origins, then by hash. Out of line, so that the path before
  /// it is short.
  @inline(never)
  private mutating func findKeyed(source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?)
    -> Int?
  {
    let key = device.map(DeviceKey.init)
    // A record whose device has no address, or one of a length that
    // `sameDevice` passes over, may still be one of the last two.
    if last.index >= 0, matches(entries[last.index], source, key) { return last.index }
    if previous.index >= 0, matches(entries[previous.index], source, key) {
      swap(&last, &previous)
      return last.index
    }
    let hash = Self.hash(source, key)
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let index = Int(slots[slot])
      if index < 0 { return nil }
      if entries[index].hash == hash, matches(entries[index], source, key) {
        remember(index)
        return index
      }
      slot = (slot + 1) & mask
    }
  }

  /// Remembers `origin` for these bytes (and every other address of the same device).
  mutating func insert(
    source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?, origin: OriginID
  ) {
    let key = device.map(DeviceKey.init)
    let hash = Self.hash(source, key)
    let tailLength = device.map(Self.tailLength) ?? -1
    var isPlain = Self.isPlain(source)
    if let device {
      isPlain =
        isPlain && tailLength >= 0
        && Self.isPlain(UnsafeBufferPointer(rebasing: device[(device.count - tailLength)...]))
    }
    let entry = Entry(
      hash: hash, keyStart: keyBytes.count, sourceLength: source.count, deviceLength: key?.count ?? -1,
      tailLength: tailLength, isPlain: isPlain, origin: origin)
    keyBytes.append(contentsOf: source)
    if let key {
      keyBytes.append(contentsOf: key.head)
      keyBytes.append(contentsOf: key.tail)
    }
    entries.append(entry)
    remember(entries.count - 1)
    if entries.count * 2 > slots.count {
      slots = [Int32](repeating: -1, count: slots.count * 2)
      for (index, entry) in entries.enumerated() { place(entry.hash, index) }
    } else {
      place(hash, entries.count - 1)
    }
  }

  /// Makes entry `index` the last origin found: ``withoutDevice`` when it has
  /// no device, else ``last``, the one before moving to ``previous``.
  private mutating func remember(_ index: Int) {
    let entry = entries[index]
    if entry.deviceLength < 0 {
      withoutDevice = Recent(entry, index: index)
    } else if index == previous.index {
      swap(&last, &previous)
    } else if index != last.index {
      previous = last
      last = Recent(entry, index: index)
    }
  }

  /// Whether `bytes` hold no `"`, no `<` and no byte below 0x20 (once per
  /// origin: byte by byte).
  private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.allSatisfy { $0 >= ASCII.space && $0 != ASCII.quote && $0 != ASCII.lessThan }
  }

  /// How many bytes of `device` follow its address, when it starts with
  /// ``addressPrefix`` and an address (where ``DeviceKey`` finds it first); -1 otherwise.
  private static func tailLength(_ device: UnsafeBufferPointer<UInt8>) -> Int {
    let prefixLength = addressPrefix.utf8CodeUnitCount
    guard device.count >= prefixLength, let base = device.baseAddress,
      ByteScanning.equal(base, addressPrefix),
      let (start, end) = DeviceKey.address(in: device), start == prefixLength - 2
    else { return -1 }
    return device.count - end
  }

  /// Whether the record names `recent`'s source and its device differs
  /// from `recent`'s at most in the address.
  ///
  /// It compares the bytes after the address at the length the entry's
  /// have, before any hashing, and accepts only what ``DeviceKey`` would key
  /// the same: the same ``addressPrefix``, then 1 to 16 hexadecimal digits
  /// up to the entry's tail (whose first byte is not one). The differences
  /// in the prefix, the source, the tail and the address's digits are
  /// gathered in one vector, tested once.
  @inline(__always)
  private func sameDevice(
    _ recent: Recent, _ source: UnsafeBufferPointer<UInt8>, _ device: UnsafeBufferPointer<UInt8>
  )
    -> Bool
  {
    let prefixLength = Self.addressPrefix.utf8CodeUnitCount
    let count = device.count
    // One test for both bounds of the address's length (1 ... 16 digits); an empty slot has no bounds.
    guard recent.sourceLength == source.count, UInt(bitPattern: count &- recent.shortestDevice) < 16 else {
      return false
    }
    // At least 21 bytes long, so not empty.
    let device = device.baseAddress.unsafelyUnwrapped
    let tail = recent.tailLength
    let digits = count &- prefixLength &- tail
    // The prefix's first and last sixteen bytes.
    let prefix = UnsafeRawPointer(Self.addressPrefix.utf8Start)
    var differences =
      (Self.vector(device, 0) ^ Self.vector(prefix, 0))
      | (Self.vector(device, prefixLength &- 16) ^ Self.vector(prefix, prefixLength &- 16))
    let address = device + prefixLength
    if count &- prefixLength >= 16 {
      let wanted = Self.vector(UnsafeRawPointer(Self.leadingLanes.utf8Start), 16 &- digits)
      differences |= wanted & ~DeviceKey.hexLanes(Self.vector(address, 0))
    } else if !DeviceKey.allHexDigits(address, digits, readable: count &- prefixLength) {
      return false
    }
    return keyBytes.withUnsafeBufferPointer { keys in
      // A filled slot's entry has a device, so its key's head is stored.
      guard let keys = keys.baseAddress else { return false }
      let stored = keys + recent.keyStart
      if let base = source.baseAddress { differences |= Self.differences(stored, base, count: source.count) }
      // The stored key is the source, `&lt;&lt;HKDevice: ` and the tail.
      let storedTail = stored + source.count + prefixLength - 2
      differences |= Self.differences(storedTail, device + (count &- tail), count: tail)
      return ByteScanning.isZero(differences)
    }
  }

  /// Whether the record, which has no device, names the source of `recent`,
  /// an origin without one (``withoutDevice``).
  @inline(__always)
  private func sameSource(_ recent: Recent, _ source: UnsafeBufferPointer<UInt8>) -> Bool {
    guard recent.sourceLength == source.count else { return false }
    return keyBytes.withUnsafeBufferPointer { keys in
      guard let stored = keys.baseAddress, let base = source.baseAddress else { return true }
      return ByteScanning.isZero(Self.differences(stored + recent.keyStart, base, count: source.count))
    }
  }

  private mutating func place(_ hash: UInt64, _ index: Int) {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot] >= 0 { slot = (slot + 1) & mask }
    slots[slot] = Int32(index)
  }

  @inline(__always)
  private func matches(_ entry: Entry, _ source: UnsafeBufferPointer<UInt8>, _ device: DeviceKey?) -> Bool {
    guard entry.sourceLength == source.count, entry.deviceLength == (device?.count ?? -1) else {
      return false
    }
    return keyBytes.withUnsafeBufferPointer { keys in
      guard let base = keys.baseAddress else { return true }
      var at = base + entry.keyStart
      guard Self.equal(at, source) else { return false }
      guard let device else { return true }
      at += source.count
      guard Self.equal(at, device.head) else { return false }
      return Self.equal(at + device.head.count, device.tail)
    }
  }

  @inline(__always)
  private static func equal(_ stored: UnsafePointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return true }
    return ByteScanning.equal(stored, base, count: bytes.count)
  }

  @inline(__always)
  private static func vector(_ p: UnsafeRawPointer, _ at: Int) -> SIMD16<UInt8> {
    p.loadUnaligned(fromByteOffset: at, as: SIMD16<UInt8>.self)
  }

  /// The bytes in which `a[0 ..< n]` and `b[0 ..< n]` differ, gathered in
  /// one vector that is all zero when they are equal. Reads nothing outside
  /// them, and has no loop up to 128 bytes (a tail is about 90): a span is
  /// covered by a block from its start and one that ends at its end, of 64,
  /// 32 or 16 bytes, or, below 16, of 8, 4 or 1 bytes.
  @inline(__always)
  private static func differences(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count n: Int)
    -> SIMD16<UInt8>
  {
    let x = UnsafeRawPointer(a)
    let y = UnsafeRawPointer(b)
    /// The differences in the `count` (a multiple of 16) bytes from `at`.
    @inline(__always) func block(_ at: Int, _ count: Int) -> SIMD16<UInt8> {
      var found = vector(x, at) ^ vector(y, at)
      var i = 16
      while i < count {
        found |= vector(x, at &+ i) ^ vector(y, at &+ i)
        i &+= 16
      }
      return found
    }
    @inline(__always) func words(_ first: UInt64, _ second: UInt64) -> SIMD16<UInt8> {
      unsafeBitCast(SIMD2(first, second), to: SIMD16<UInt8>.self)
    }
    @inline(__always) func word(_ at: Int) -> UInt64 {
      x.loadUnaligned(fromByteOffset: at, as: UInt64.self)
        ^ y.loadUnaligned(fromByteOffset: at, as: UInt64.self)
    }
    @inline(__always) func half(_ at: Int) -> UInt64 {
      UInt64(
        x.loadUnaligned(fromByteOffset: at, as: UInt32.self)
          ^ y.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
    @inline(__always) func byte(_ at: Int) -> UInt64 { UInt64(a[at] ^ b[at]) }
    if n > 32 {
      guard n > 64 else { return block(0, 32) | block(n &- 32, 32) }
      var found = block(0, 64)
      if n <= 96 { return found | block(n &- 32, 32) }
      // Longer than any tail seen: 64 bytes at a time, then the last 64.
      var i = 64
      while n &- i > 64 {
        found |= block(i, 64)
        i &+= 64
      }
      return found | block(n &- 64, 64)
    }
    if n > 16 { return block(0, 16) | block(n &- 16, 16) }
    if n >= 8 { return words(word(0), word(n &- 8)) }
    if n >= 4 { return words(half(0), half(n &- 4)) }
    if n >= 1 { return words(byte(0) | byte(n &>> 1), byte(n &- 1)) }
    return SIMD16(repeating: 0)
  }

  @inline(__always)
  private static func hash(_ source: UnsafeBufferPointer<UInt8>, _ device: DeviceKey?) -> UInt64 {
    var h = mix(
      0x9E37_79B9_7F4A_7C15, UInt64(source.count) &+ UInt64(bitPattern: Int64(device?.count ?? -1)) << 32)
    h = mix(h, words(source))
    if let device {
      h = mix(h, words(device.head))
      h = mix(h, words(device.tail))
    }
    return h ^ (h >> 31)
  }

  /// The bytes folded eight at a time.
  @inline(__always)
  private static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    guard let base = bytes.baseAddress else { return 0 }
    let raw = UnsafeRawPointer(base)
    var h: UInt64 = 0
    var i = 0
    while bytes.count - i >= 8 {
      h = mix(h, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
      i += 8
    }
    var tail: UInt64 = 0
    while i < bytes.count {
      tail = tail << 8 | UInt64(base[i])
      i += 1
    }
    return mix(h, tail)
  }

  @inline(__always)
  private static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
    let m = (h ^ word) &* 0xff51_afd7_ed55_8ccd
    return m ^ (m >> 32)
  }
}

/// The bytes of a raw `device` attribute that identify the device: all of
/// them except the object address after `HKDevice:`.
///
/// `&lt;&lt;HKDevice: 0x282a45810&gt;, name:Apple Watch, …` is keyed as
/// `&lt;&lt;HKDevice: ` (``head``) followed by `&gt;, name:Apple Watch, …`
/// (``tail``). A description without an address (an old export, a
/// third-party device) is all head.
struct DeviceKey {
  /// The bytes before the address.
  var head: UnsafeBufferPointer<UInt8>
  /// The bytes after the address.
  var tail: UnsafeBufferPointer<UInt8>

  /// How many bytes the key holds.
  var count: Int { head.count + tail.count }

  /// The key of the raw attribute value `device`.
  @inline(__always)
  init(_ device: UnsafeBufferPointer<UInt8>) {
    guard let (start, end) = Self.address(in: device), let base = device.baseAddress else {
      head = device
      tail = UnsafeBufferPointer(start: device.baseAddress, count: 0)
      return
    }
    head = UnsafeBufferPointer(start: base, count: start)
    tail = UnsafeBufferPointer(start: base + end, count: device.count - end)
  }

  /// Where the hexadecimal object address (`0x282a45810`) lies in `device`.
  ///
  /// It follows `HKDevice:` and one space near the start: at byte 8 in the
  /// escaped form `&lt;&lt;HKDevice: `, which is tried first.
  @inline(__always)
  static func address(in device: UnsafeBufferPointer<UInt8>) -> (start: Int, end: Int)? {
    guard let base = device.baseAddress else { return nil }
    let marker: StaticString = "HKDevice: 0x"
    let markerLength = marker.utf8CodeUnitCount
    let n = device.count
    @inline(__always) func marked(_ at: Int) -> Bool {
      at + markerLength <= n && ByteScanning.equal(base + at, marker)
    }
    var at = 8
    if !marked(at) {
      // Other escapes of `<<` (`&#60;&#60;`, or none at all): look a little further.
      at = 0
      while at < 24, !marked(at) { at += 1 }
      guard at < 24 else { return nil }
    }
    let start = at + markerLength - 2
    var end = start + 2
    // Sixteen bytes at a time while they are all in the value (an address has 9 to 12 digits).
    while n - end >= 16 {
      let v = UnsafeRawPointer(base + end).loadUnaligned(as: SIMD16<UInt8>.self)
      let other = unsafeBitCast(~hexLanes(v), to: SIMD2<UInt64>.self)
      if other[0] | other[1] != 0 {
        end &+= ByteScanning.firstLane(other)
        return end > start + 2 ? (start, end) : nil
      }
      end &+= 16
    }
    while end < n, Self.isHexDigit(base[end]) { end += 1 }
    return end > start + 2 ? (start, end) : nil
  }

  /// Whether the `count` (1 ... 16) bytes at `base` are all hexadecimal
  /// digits; `readable` bytes from `base` on may be read.
  @inline(__always)
  static func allHexDigits(_ base: UnsafePointer<UInt8>, _ count: Int, readable: Int) -> Bool {
    guard readable >= 16 else {
      for i in 0..<count where !isHexDigit(base[i]) { return false }
      return true
    }
    let v = UnsafeRawPointer(base).loadUnaligned(as: SIMD16<UInt8>.self)
    let wanted = ByteScanning.firstLanes(count)
    return ByteScanning.isZero(wanted & ~hexLanes(v))
  }

  /// 0xFF in the lanes of `v` that hold hexadecimal digits, 0 in the others.
  @inline(__always)
  static func hexLanes(_ v: SIMD16<UInt8>) -> SIMD16<UInt8> {
    let digit = ByteScanning.lanes(v &- SIMD16(repeating: UInt8(ascii: "0")) .< SIMD16(repeating: 10))
    let lowercased = v | SIMD16<UInt8>(repeating: 0x20)
    let letter = ByteScanning.lanes(
      lowercased &- SIMD16(repeating: UInt8(ascii: "a")) .< SIMD16(repeating: 6))
    return digit | letter
  }

  /// Whether `byte` is `0`–`9`, `a`–`f` or `A`–`F`.
  @inline(__always)
  static func isHexDigit(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
      || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
  }
}
