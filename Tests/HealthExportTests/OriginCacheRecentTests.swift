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

  /// Looks every pair up in order, remembering new ones, and expects the
  /// origin a dictionary of reference keys gives.
  static func expectReferenceOrigins(_ sequence: [(source: String, device: String?)]) {
    var cache = OriginCache()
    var reference: [ReferenceKey: OriginID] = [:]
    for (source, device) in sequence {
      var source = source
      var device = device
      let key = referenceKey(source, device)
      let label = "\(source) \(device ?? "no device")"
      source.withUTF8 { sourceBytes in
        func find() -> OriginID? {
          guard device != nil else { return cache.find(source: sourceBytes, device: nil) }
          return device!.withUTF8 { cache.find(source: sourceBytes, device: $0) }
        }
        let found = find()
        #expect(found == reference[key], "\(label)")
        if found == nil {
          let id = OriginID(rawValue: UInt16(reference.count))
          if device == nil {
            cache.insert(source: sourceBytes, device: nil, origin: id)
          } else {
            device!.withUTF8 { cache.insert(source: sourceBytes, device: $0, origin: id) }
          }
          reference[key] = id
        }
      }
    }
    #expect(cache.count == reference.count)
  }

  @Test("each pair after every other, in both orders")
  func pairs() {
    for first in Self.lookups {
      for second in Self.lookups {
        Self.expectReferenceOrigins([first, second, first, second, second, first])
      }
    }
  }

  @Test("runs of each pair, then every pair after a shuffle")
  func runsAndShuffles() {
    Self.expectReferenceOrigins(Self.lookups.flatMap { [$0, $0, $0] })
    Self.expectReferenceOrigins(Self.lookups.reversed().flatMap { [$0, $0] })
    var generator = SplitMix64(seed: 9)
    for _ in 0..<20 {
      Self.expectReferenceOrigins((Self.lookups + Self.lookups).shuffled(using: &generator))
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
