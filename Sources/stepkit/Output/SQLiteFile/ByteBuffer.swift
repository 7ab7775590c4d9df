/// A growable byte buffer, reused from row to row: what `[UInt8]` would
/// be here without its uniqueness checks, retains and releases, which cost
/// more than the bytes on a path taken for every record.
struct ByteBuffer: ~Copyable {
  private(set) var base: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  /// How many bytes are held.
  private(set) var count = 0

  init(capacity: Int = 256) {
    self.capacity = max(capacity, 16)
    base = .allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// The bytes held, valid until the buffer next changes.
  var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

  /// Empties the buffer, keeping its memory.
  mutating func removeAll() { count = 0 }

  @inline(__always)
  private mutating func reserve(_ extra: Int) {
    if count + extra > capacity { grow(extra) }
  }

  @inline(never)
  private mutating func grow(_ extra: Int) {
    var newCapacity = capacity * 2
    while newCapacity < count + extra { newCapacity *= 2 }
    let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
    grown.update(from: base, count: count)
    base.deallocate()
    base = grown
    capacity = newCapacity
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    reserve(1)
    base[count] = byte
    count += 1
  }

  @inline(__always)
  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    guard let source = bytes.baseAddress, bytes.count > 0 else { return }
    reserve(bytes.count)
    UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
    count += bytes.count
  }

  @inline(__always)
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { append(UnsafeRawBufferPointer(bytes)) }

  /// Appends `value` big-endian in 4 bytes (a page number).
  @inline(__always)
  mutating func append(bigEndian value: UInt32) {
    reserve(4)
    UnsafeMutableRawPointer(base + count).storeBytes(of: value.bigEndian, as: UInt32.self)
    count += 4
  }

  /// Appends `value` as SQLite's varint: big-endian groups of 7 bits, the
  /// high bit set on all but the last, and a ninth byte carrying 8 bits.
  @inline(__always)
  mutating func appendVarint(_ value: UInt64) {
    if value <= 0x7F {
      append(UInt8(value))
      return
    }
    appendLongVarint(value)
  }

  private mutating func appendLongVarint(_ value: UInt64) {
    reserve(9)
    if value > 0x00FF_FFFF_FFFF_FFFF {
      // Eight groups of 7 bits, then the low 8 bits whole.
      var high = value >> 8
      for k in stride(from: 7, through: 0, by: -1) {
        base[count + k] = UInt8(high & 0x7F) | 0x80
        high >>= 7
      }
      base[count + 8] = UInt8(truncatingIfNeeded: value)
      count += 9
      return
    }
    let length = Self.varintLength(value)
    for k in 0..<length {
      let group = UInt8((value >> UInt64(7 * (length - 1 - k))) & 0x7F)
      base[count + k] = k == length - 1 ? group : group | 0x80
    }
    count += length
  }

  /// How many bytes ``appendVarint(_:)`` writes for `value`.
  @inline(__always)
  static func varintLength(_ value: UInt64) -> Int {
    if value > 0x00FF_FFFF_FFFF_FFFF { return 9 }
    var count = 1
    var rest = value >> 7
    while rest != 0 {
      count += 1
      rest >>= 7
    }
    return count
  }
}

/// `array.withUnsafeBytes(body)`, keeping the error's type (`withUnsafeBytes` rethrows any error).
@inline(__always)
func withBytes(_ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(OutputFileError) -> Void)
  throws(OutputFileError)
{
  var failure: OutputFileError?
  array.withUnsafeBytes { bytes in
    do throws(OutputFileError) { try body(bytes) } catch { failure = error }
  }
  if let failure { throw failure }
}
