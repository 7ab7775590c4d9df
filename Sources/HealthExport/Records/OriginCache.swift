import StepKitCore

/// Maps the raw bytes of a record's `sourceName` and `device` attributes to
/// the ``OriginID`` the log gave them, so that strings are built and device
/// descriptions parsed once per distinct origin, not once per record.
struct OriginCache {
  private struct Entry {
    var hash: UInt64
    var keyStart: Int
    var sourceLength: Int
    /// -1 when the record had no device attribute.
    var deviceLength: Int
    var origin: OriginID
  }

  private var keyBytes: [UInt8] = []
  private var entries: [Entry] = []
  private var slots = [Int32](repeating: -1, count: 64)
  private var lastHit = -1
  private var previousHit = -1

  /// The cached origin for these bytes, if any.
  @inline(__always)
  mutating func find(source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?) -> OriginID? {
    // Records come in runs from one or two origins (a watch and a phone):
    // compare with the last two before hashing.
    if lastHit >= 0, matches(entries[lastHit], source, device) { return entries[lastHit].origin }
    if previousHit >= 0, matches(entries[previousHit], source, device) {
      swap(&lastHit, &previousHit)
      return entries[lastHit].origin
    }
    let hash = Self.hash(source, device)
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while true {
      let index = Int(slots[slot])
      if index < 0 { return nil }
      if entries[index].hash == hash, matches(entries[index], source, device) {
        previousHit = lastHit
        lastHit = index
        return entries[index].origin
      }
      slot = (slot + 1) & mask
    }
  }

  /// Remembers `origin` for these bytes.
  mutating func insert(
    source: UnsafeBufferPointer<UInt8>, device: UnsafeBufferPointer<UInt8>?, origin: OriginID
  ) {
    let hash = Self.hash(source, device)
    let entry = Entry(
      hash: hash, keyStart: keyBytes.count, sourceLength: source.count, deviceLength: device?.count ?? -1,
      origin: origin)
    keyBytes.append(contentsOf: source)
    if let device { keyBytes.append(contentsOf: device) }
    entries.append(entry)
    previousHit = lastHit
    lastHit = entries.count - 1
    if entries.count * 2 > slots.count {
      slots = [Int32](repeating: -1, count: slots.count * 2)
      for (index, entry) in entries.enumerated() { place(entry.hash, index) }
    } else {
      place(hash, entries.count - 1)
    }
  }

  private mutating func place(_ hash: UInt64, _ index: Int) {
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot] >= 0 { slot = (slot + 1) & mask }
    slots[slot] = Int32(index)
  }

  @inline(__always)
  private func matches(
    _ entry: Entry, _ source: UnsafeBufferPointer<UInt8>, _ device: UnsafeBufferPointer<UInt8>?
  ) -> Bool {
    guard entry.sourceLength == source.count, entry.deviceLength == (device?.count ?? -1) else {
      return false
    }
    return keyBytes.withUnsafeBufferPointer { keys in
      guard let base = keys.baseAddress else { return source.isEmpty && (device?.isEmpty ?? true) }
      if source.count > 0,
        !Platform.bytesEqual(base + entry.keyStart, source.baseAddress!, count: source.count)
      {
        return false
      }
      if let device, device.count > 0,
        !Platform.bytesEqual(base + entry.keyStart + source.count, device.baseAddress!, count: device.count)
      {
        return false
      }
      return true
    }
  }

  @inline(__always)
  private static func hash(_ source: UnsafeBufferPointer<UInt8>, _ device: UnsafeBufferPointer<UInt8>?)
    -> UInt64
  {
    var h = mix(
      0x9E37_79B9_7F4A_7C15, UInt64(source.count) &+ UInt64(bitPattern: Int64(device?.count ?? -1)) << 32)
    h = mix(h, words(source))
    if let device { h = mix(h, words(device)) }
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
