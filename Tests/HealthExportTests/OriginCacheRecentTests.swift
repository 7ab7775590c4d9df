import Foundation
import StepKitCore
import Testing

@testable import HealthExport

/// ``OriginCache`` compares a record with the last two origins' bytes after
/// the address before it hashes; these device descriptions are built to slip
/// past that comparison and must find what the hashed lookup finds.
@Suite("The origin cache's comparison with recent origins")
struct OriginCacheRecentTests {
  static let phoneTail =
    "&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:14.4&gt;"

  /// Sources and raw device values, alike in every way the comparison could confuse.
  static let lookups: [(source: String, device: String?)] = [
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8ad5ac0" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2b4fac820" + phoneTail),
    // Differing only after the address: in the last byte before `&gt;`, and in the first.
    (
      "Ada’s iPhone",
      "&lt;&lt;HKDevice: 0x2c8ad5ac0" + phoneTail.replacingOccurrences(of: "14.4", with: "14.5")
    ),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8ad5ac0" + "&gt;; name:iPhone" + phoneTail.dropFirst(15)),
    // Another source with the same device, and one of the same length.
    ("Ada’s iPad", "&lt;&lt;HKDevice: 0x2c8ad5ac0" + phoneTail),
    ("Ada’s iPhonf", "&lt;&lt;HKDevice: 0x2c8ad5ac0" + phoneTail),
    ("Ada’s iPhone", nil),
    // Addresses of unusual lengths and case.
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x1" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0xF" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x0123456789abcdef" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x0123456789ABCDEF" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x0123456789abcdef0" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x0123456789abcdef0123456789" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2C8AD5AC0" + phoneTail),
    // Bytes that are no digits where the address would be, at its usual length.
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8ad5zz0" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8a&gt;5ac0" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x&gt;5ac0ab" + phoneTail),
    // No address at all.
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x" + phoneTail),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0y2c8ad5ac0" + phoneTail),
    ("Ada’s iPhone", "name:iPhone, manufacturer:Apple Inc., model:iPhone"),
    // Truncated descriptions.
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: "),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8ad5ac0"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8ad5ac0&gt;, name:iPh"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x2c8ad5ac0&gt;"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x12&gt;"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x34&gt;"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x1g&gt;"),
    ("Ada’s iPhone", "&lt;&lt;HKDevice: 0x12g&gt;"),
    // The decoded and numeric escapes of `<<`, found by a search.
    ("Ada’s iPhone", "<<HKDevice: 0x6b879dfe0>, name:iPhone"),
    ("Ada’s iPhone", "<<HKDevice: 0x6b879dfe1>, name:iPhone"),
    ("Ada’s iPhone", "&#60;&#60;HKDevice: 0xABCDEF0&#62;, name:iPhone"),
  ]

  /// The key the hashed lookup identifies an origin by: the source and the
  /// device's bytes without the address.
  struct ReferenceKey: Hashable {
    var source: [UInt8]
    var device: [UInt8]?
  }

  static func referenceKey(_ source: String, _ device: String?) -> ReferenceKey {
    var device = device
    let key = device?.withUTF8 { bytes in
      let key = DeviceKey(bytes)
      return Array(key.head) + Array(key.tail)
    }
    return ReferenceKey(source: Array(source.utf8), device: key)
  }

  /// Whether the fast record path may take these bytes on the cache's word
  /// (``OriginCache/findPlain(source:device:)``): a plain source, and no
  /// device or one that starts with the prefix and an address, then plain bytes.
  static func isPlain(_ source: String, _ device: String?) -> Bool {
    func plain(_ bytes: some Sequence<UInt8>) -> Bool {
      bytes.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "<") }
    }
    guard plain(source.utf8) else { return false }
    guard var device else { return true }
    let prefix = "&lt;&lt;HKDevice: 0x"
    guard device.hasPrefix(prefix) else { return false }
    return device.withUTF8 { bytes in
      guard let (start, end) = DeviceKey.address(in: bytes), start == prefix.utf8.count - 2 else {
        return false
      }
      return plain(bytes[end...])
    }
  }

  /// Looks every pair up in order, remembering new ones, and expects the
  /// origin a dictionary of reference keys gives: with
  /// ``OriginCache/findPlain(source:device:)`` when `plain`, which finds
  /// only origins whose bytes, as first remembered, are plain
  /// (``isPlain(_:_:)``): a device without an address can share the key of
  /// one with an address and no tail.
  static func expectReferenceOrigins(_ sequence: [(source: String, device: String?)], plain: Bool = false) {
    var cache = OriginCache()
    var reference: [ReferenceKey: OriginID] = [:]
    var plainKeys: Set<ReferenceKey> = []
    for (source, device) in sequence {
      var source = source
      var device = device
      let key = referenceKey(source, device)
      let label = "\(source) \(device ?? "no device")"
      let expected = !plain || plainKeys.contains(key) ? reference[key] : nil
      let isPlain = isPlain(source, device)
      source.withUTF8 { sourceBytes in
        func find(_ device: UnsafeBufferPointer<UInt8>?) -> OriginID? {
          plain
            ? cache.findPlain(source: sourceBytes, device: device)
            : cache.find(source: sourceBytes, device: device)
        }
        let found = device == nil ? find(nil) : device!.withUTF8 { find($0) }
        #expect(found == expected, "\(label)")
        if reference[key] == nil {
          let id = OriginID(rawValue: UInt16(reference.count))
          if device == nil {
            cache.insert(source: sourceBytes, device: nil, origin: id)
          } else {
            device!.withUTF8 { cache.insert(source: sourceBytes, device: $0, origin: id) }
          }
          reference[key] = id
          if isPlain { plainKeys.insert(key) }
        }
      }
    }
    #expect(cache.count == reference.count)
  }

  @Test("each pair after every other, in both orders")
  func pairs() {
    for first in Self.lookups {
      for second in Self.lookups {
        for plain in [false, true] {
          Self.expectReferenceOrigins([first, second, first, second, second, first], plain: plain)
        }
      }
    }
  }

  @Test("runs of each pair, then every pair after a shuffle")
  func runsAndShuffles() {
    for plain in [false, true] {
      Self.expectReferenceOrigins(Self.lookups.flatMap { [$0, $0, $0] }, plain: plain)
      Self.expectReferenceOrigins(Self.lookups.reversed().flatMap { [$0, $0] }, plain: plain)
      var generator = SplitMix64(seed: 9)
      for _ in 0..<20 {
        Self.expectReferenceOrigins((Self.lookups + Self.lookups).shuffled(using: &generator), plain: plain)
      }
    }
  }

  @Test("an export of these devices gives each record its own device, parsed on its own")
  func exportSamples() throws {
    var body: [String] = []
    var expected: [(source: String, device: Device?)] = []
    // A bare `<` cannot stand in an attribute value.
    let writable = Self.lookups.filter { !($0.device?.contains("<") ?? false) }
    for (index, (source, device)) in (writable.flatMap { [$0, $0] }).enumerated() {
      let minute = index % 60
      let time = "2024-02-29 0\(index / 60):\(minute < 10 ? "0" : "")\(minute)"
      body.append(
        ExportTestSupport.steps(
          "\(index + 1)", start: time + ":00 +0800", end: time + ":30 +0800", source: source, device: device))
      let decoded = device.map {
        $0.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
          .replacingOccurrences(of: "&#60;", with: "<").replacingOccurrences(of: "&#62;", with: ">")
      }
      expected.append((source, decoded.flatMap { Device(hkDeviceDescription: $0) }))
    }
    let outcome = try ExportTestSupport.read(ExportTestSupport.export(body.joined(separator: "\n")))
    #expect(outcome.invalid.count == 0)
    try #require(outcome.samples.count == expected.count)
    for (sample, (source, device)) in zip(outcome.samples, expected) {
      #expect(sample.source == source)
      #expect(sample.device == device)
    }
  }

  /// A device tail of `count` bytes: `&gt;, name:…` and then printable filler.
  static func tail(_ count: Int) -> [UInt8] {
    let start = Array("&gt;, name:Apple Watch, manufacturer:Apple Inc., ".utf8)
    return (0..<count).map { $0 < start.count ? start[$0] : UInt8(ascii: "a") + UInt8($0 % 26) }
  }

  static func device(_ address: String, _ tail: [UInt8]) -> [UInt8] {
    Array("&lt;&lt;HKDevice: 0x\(address)".utf8) + tail
  }

  /// Looks `source` and `device` up both ways (`find` and `findPlain`).
  static func lookUp(_ cache: inout OriginCache, _ source: [UInt8], _ device: [UInt8]?) -> [OriginID?] {
    source.withUnsafeBufferPointer { source in
      guard let device else {
        return [cache.find(source: source, device: nil), cache.findPlain(source: source, device: nil)]
      }
      return device.withUnsafeBufferPointer { device in
        [cache.find(source: source, device: device), cache.findPlain(source: source, device: device)]
      }
    }
  }

  static func insert(_ cache: inout OriginCache, _ source: [UInt8], _ device: [UInt8]?, _ id: UInt16) {
    source.withUnsafeBufferPointer { source in
      guard let device else {
        return cache.insert(source: source, device: nil, origin: OriginID(rawValue: id))
      }
      device.withUnsafeBufferPointer {
        cache.insert(source: source, device: $0, origin: OriginID(rawValue: id))
      }
    }
  }

  /// The comparison with the last two origins covers a span in blocks of
  /// 64, 32, 16, 8, 4 or 1 bytes by its length: a tail of any of those
  /// lengths, and a source, must tell one differing byte at any position,
  /// whether the origin is the last one or the one before.
  @Test(
    "one byte changed anywhere in the source or the device's tail is another origin",
    arguments: [
      0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 200,
    ])
  func oneByteChanged(tailLength: Int) {
    let source = Array("Ada’s iPhone with a longer name than most, to reach past 64 bytes".utf8)
    let other = Array("Ada’s Apple Watch".utf8)
    let tail = Self.tail(tailLength)
    for sourceLength in [0, 1, 3, 5, 12, 16, 20, 40, source.count] {
      let source = Array(source.prefix(sourceLength))
      for device in [Self.device("2c8ad5ac0", tail), nil] {
        var cache = OriginCache()
        Self.insert(&cache, source, device, 0)
        Self.insert(&cache, other, device, 1)
        // The one before the last, then the last.
        let fresh = device.map { _ in Self.device("1b4fac820", tail) }
        #expect(Self.lookUp(&cache, source, fresh) == [OriginID(rawValue: 0), OriginID(rawValue: 0)])
        #expect(Self.lookUp(&cache, source, fresh) == [OriginID(rawValue: 0), OriginID(rawValue: 0)])
        for position in source.indices {
          var changed = source
          changed[position] ^= 0x01
          #expect(Self.lookUp(&cache, changed, fresh) == [nil, nil], "source byte \(position)")
        }
        guard let fresh else { continue }
        for position in (fresh.count - tail.count)..<fresh.count {
          var changed = fresh
          changed[position] = changed[position] == UInt8(ascii: "Z") ? UInt8(ascii: "Y") : UInt8(ascii: "Z")
          #expect(Self.lookUp(&cache, source, changed) == [nil, nil], "tail byte \(position)")
        }
        for position in 0..<(fresh.count - tail.count - 9) {
          var changed = fresh
          changed[position] ^= 0x01
          #expect(Self.lookUp(&cache, source, changed) == [nil, nil], "prefix byte \(position)")
        }
        // Both origins still found, the last and the one before.
        #expect(Self.lookUp(&cache, other, fresh) == [OriginID(rawValue: 1), OriginID(rawValue: 1)])
        #expect(Self.lookUp(&cache, source, fresh) == [OriginID(rawValue: 0), OriginID(rawValue: 0)])
      }
    }
  }

  /// An address of 1 to 16 hexadecimal digits is compared in one vector,
  /// a longer one is found by key; a byte just outside the ranges of digits
  /// and letters, anywhere in it, ends the address there, which makes
  /// another key.
  @Test("addresses of any length are the same origin, and no byte but a digit is part of one")
  func addresses() {
    let source = Array("Ada’s iPhone".utf8)
    let tail = Self.tail(97)
    let digits = Array("0123456789abcdefABCDEF".utf8)
    var cache = OriginCache()
    Self.insert(&cache, source, Self.device("2c8ad5ac0", tail), 0)
    for length in 1...20 {
      let address = String(decoding: (0..<length).map { digits[($0 * 7) % digits.count] }, as: UTF8.self)
      #expect(
        Self.lookUp(&cache, source, Self.device(address, tail)) == [
          OriginID(rawValue: 0), OriginID(rawValue: 0),
        ],
        "\(address)")
      guard length <= 16 else { continue }
      for position in 0..<length {
        for byte in Array("/:@G`g".utf8) + [0x10, 0x19, 0x30 | 0x80] {
          var changed = Self.device(address, tail)
          changed[Self.prefixLength + position] = byte
          #expect(
            Self.lookUp(&cache, source, changed) == [nil, nil], "\(address), byte \(byte) at \(position)")
        }
      }
    }
  }

  static let prefixLength = "&lt;&lt;HKDevice: 0x".utf8.count
}

/// A seeded generator, so a failing shuffle can be repeated.
private struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// ``ByteScanning/equal(_:_:count:)`` gathers a long span's differences
/// before one test; a single differing byte anywhere must still tell.
@Suite("Comparing bytes in words and vectors")
struct ByteEqualityTests {
  @Test("equal spans are equal and one differing byte at any position is not", arguments: Array(1...80))
  func oneDifference(_ count: Int) {
    let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    a.withUnsafeBufferPointer { x in
      var b = a
      b.withUnsafeBufferPointer { y in
        #expect(ByteScanning.equal(x.baseAddress!, y.baseAddress!, count: count))
      }
      for position in 0..<count {
        b = a
        b[position] ^= 0x01
        b.withUnsafeBufferPointer { y in
          #expect(!ByteScanning.equal(x.baseAddress!, y.baseAddress!, count: count), "byte \(position)")
        }
      }
    }
  }
}
