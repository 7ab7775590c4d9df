import Foundation
import Testing

@testable import stepkit

/// SHA-256 against the published test vectors (FIPS 180-4 examples, NIST
/// CAVP short messages) and, for files, against the system's `sha256sum`.
@Suite("SHA-256")
struct SHA256Tests {
  static func hex(_ text: String) -> String {
    var hash = SHA256()
    hash.update(Array(text.utf8))
    return hash.hexDigest
  }

  @Test("known vectors")
  func vectors() {
    #expect(Self.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(Self.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    #expect(
      Self.hex(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
      ) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
    // One million 'a's, fed in uneven pieces so that blocks straddle the calls.
    var hash = SHA256()
    var left = 1_000_000
    var piece = 1
    while left > 0 {
      let count = min(piece, left)
      hash.update([UInt8](repeating: UInt8(ascii: "a"), count: count))
      left -= count
      piece = piece % 157 + 13
    }
    #expect(hash.hexDigest == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  @Test("padding lengths around a block's end")
  func paddingEdges() {
    // 55, 56, 63 and 64 bytes: the length field fits, does not, and a full block.
    #expect(
      Self.hex(String(repeating: "a", count: 55))
        == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
    #expect(
      Self.hex(String(repeating: "a", count: 56))
        == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
    #expect(
      Self.hex(String(repeating: "a", count: 64))
        == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
  }

  @Test("a file's digest, and an unreadable file named")
  func file() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-\(UUID().uuidString)")
      .path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    var hash = SHA256()
    hash.update(bytes)
    #expect(try SHA256.hexDigest(ofFile: path) == hash.hexDigest)
    #expect(throws: SHA256.ReadError.self) { try SHA256.hexDigest(ofFile: path + ".missing") }
  }
}
