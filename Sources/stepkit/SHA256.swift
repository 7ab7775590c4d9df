import Foundation

/// SHA-256 (FIPS 180-4), for the `exports` table's fingerprint of each
/// export file: small and on its own, since the toolchain on Linux offers none
/// without an outside package.
///
/// ```swift
/// var hash = SHA256()
/// hash.update(Array("abc".utf8))
/// hash.hexDigest  // "ba7816bf…"
/// ```
struct SHA256 {
  private static let k: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]

  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
  )
  /// Bytes of an unfinished block.
  private var pending: [UInt8] = []
  private var length: UInt64 = 0

  /// A hash of nothing yet.
  init() { pending.reserveCapacity(64) }

  /// Adds `bytes` to the message.
  mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
    let array = Array(bytes)
    array.withUnsafeBytes { update(bufferPointer: $0) }
  }

  /// Adds the bytes of `buffer` to the message.
  mutating func update(bufferPointer buffer: UnsafeRawBufferPointer) {
    length &+= UInt64(buffer.count)
    var offset = 0
    if !pending.isEmpty {
      let take = min(64 - pending.count, buffer.count)
      pending.append(contentsOf: buffer[0..<take])
      offset = take
      guard pending.count == 64 else { return }
      pending.withUnsafeBytes { compress($0.baseAddress!) }
      pending.removeAll(keepingCapacity: true)
    }
    while buffer.count - offset >= 64 {
      compress(buffer.baseAddress! + offset)
      offset += 64
    }
    pending.append(contentsOf: buffer[offset...])
  }

  /// The digest of the message so far (the hash itself is not changed).
  var digest: [UInt8] {
    var copy = self
    var tail: [UInt8] = [0x80]
    let used = (copy.pending.count + 1) % 64
    tail += [UInt8](repeating: 0, count: (used <= 56 ? 56 - used : 120 - used))
    let bits = length &* 8
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
    }
    let savedLength = copy.length
    copy.update(tail)
    copy.length = savedLength
    let words = [
      copy.state.0, copy.state.1, copy.state.2, copy.state.3, copy.state.4, copy.state.5, copy.state.6,
      copy.state.7,
    ]
    return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * UInt32($0))) } }
  }

  /// The digest as 64 lowercase hexadecimal digits.
  var hexDigest: String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 15)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// Why a file could not be hashed: `p001.zip: Permission denied`.
  struct ReadError: Error, Equatable {
    var message: String
  }

  /// The SHA-256 of the file at `path`, read in 1 MiB pieces.
  ///
  /// - Throws: ``ReadError`` naming the file and the reason it cannot be read.
  static func hexDigest(ofFile path: String) throws(ReadError) -> String {
    guard let file = fopen(path, "rb") else {
      throw ReadError(message: "\(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var hash = SHA256()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let count = fread(buffer.baseAddress, 1, buffer.count, file)
      if count > 0 { hash.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
      if count < buffer.count {
        if ferror(file) != 0 { throw ReadError(message: "\(path): \(String(cString: strerror(errno)))") }
        break
      }
    }
    return hash.hexDigest
  }

  @inline(__always)
  private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

  /// Processes one 64-byte block.
  private mutating func compress(_ block: UnsafeRawPointer) {
    var w = (
      UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0),
      UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0), UInt32(0)
    )
    withUnsafeMutableBytes(of: &w) { raw in
      let words = raw.bindMemory(to: UInt32.self)
      for i in 0..<16 {
        words[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
      }
    }
    var (a, b, c, d, e, f, g, h) = state
    Self.k.withUnsafeBufferPointer { k in
      withUnsafeMutableBytes(of: &w) { raw in
        let w = raw.bindMemory(to: UInt32.self)
        for i in 0..<64 {
          if i >= 16 {
            let w15 = w[(i - 15) & 15]
            let w2 = w[(i - 2) & 15]
            let s0 = Self.rotr(w15, 7) ^ Self.rotr(w15, 18) ^ (w15 >> 3)
            let s1 = Self.rotr(w2, 17) ^ Self.rotr(w2, 19) ^ (w2 >> 10)
            w[i & 15] = w[i & 15] &+ s0 &+ w[(i - 7) & 15] &+ s1
          }
          let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
          let choice = (e & f) ^ (~e & g)
          let t1 = h &+ s1 &+ choice &+ k[i] &+ w[i & 15]
          let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
          let majority = (a & b) ^ (a & c) ^ (b & c)
          let t2 = s0 &+ majority
          h = g
          g = f
          f = e
          e = d &+ t1
          d = c
          c = b
          b = a
          a = t1 &+ t2
        }
      }
    }
    state = (
      state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g,
      state.7 &+ h
    )
  }
}
