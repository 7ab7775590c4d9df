/// The last `device` attribute decoded, so that the next one with the same
/// bytes but for the object address is copied instead of decoded again.
///
/// Apple's exports write a device as its `HKDevice` description with the
/// brackets escaped, `&lt;&lt;HKDevice: 0x283f2c8a0&gt;, name:Apple Watch, …&gt;`,
/// and give it a fresh object address in every record. Decoding the five
/// entity references byte by byte cost a wanted record more than any other
/// attribute; a device whose bytes equal the remembered one's outside the
/// address (hex digits, of the same length) decodes to the remembered text
/// with its own address written in.
struct DeviceTextMemo {
  /// The raw bytes remembered, as written in the export.
  private var raw: [UInt8] = []
  /// Their decoded text.
  private var decoded: [UInt8] = []
  /// Where the address's hex digits lie in ``raw``, and where they start in ``decoded``.
  private var rawAddress = 0..<0
  private var decodedAddress = 0

  /// Remembers the device written `raw` and decoded as `decoded`, when
  /// `raw` is plain text (no `"`, `<` or byte below 0x20, so that a copy
  /// vouches for the same of every device it matches) and both hold their
  /// address at the same length; forgets the last one otherwise.
  mutating func remember(raw: UnsafeBufferPointer<UInt8>, decoded: UnsafeBufferPointer<UInt8>) {
    // The hex digits after `HKDevice: 0x`, as the origin cache finds them.
    let rawAddress = DeviceKey.address(in: raw).map { ($0.start + 2)..<$0.end } ?? 0..<0
    guard !raw.contains(where: { $0 == ASCII.quote || $0 == ASCII.lessThan || $0 < ASCII.space }),
      let decodedAddress = Self.decodedLength(
        of: UnsafeBufferPointer(rebasing: raw[..<rawAddress.lowerBound])),
      decodedAddress + rawAddress.count <= decoded.count,
      decoded[decodedAddress..<(decodedAddress + rawAddress.count)].elementsEqual(raw[rawAddress])
    else {
      self = DeviceTextMemo()
      return
    }
    self.raw = Array(raw)
    self.decoded = Array(decoded)
    self.rawAddress = rawAddress
    self.decodedAddress = decodedAddress
  }

  /// Appends the decoded text of the device written `raw` to `arena` when it
  /// is the remembered one's bytes with another address; returns its span,
  /// or `nil` (having appended nothing) for any other device.
  @inline(__always)
  func append(_ raw: UnsafeBufferPointer<UInt8>, to arena: RecordArena) -> (Int, Int)? {
    guard raw.count == self.raw.count, let new = raw.baseAddress, !self.raw.isEmpty else { return nil }
    return self.raw.withUnsafeBufferPointer { known -> (Int, Int)? in
      let old = known.baseAddress!
      let after = rawAddress.upperBound
      guard ByteScanning.equal(new, old, count: rawAddress.lowerBound),
        ByteScanning.equal(new + after, old + after, count: raw.count - after)
      else { return nil }
      for i in rawAddress where !DeviceKey.isHexDigit(new[i]) { return nil }
      let span = decoded.withUnsafeBufferPointer { arena.append($0) }
      (arena.bytes + span.0 + decodedAddress).update(
        from: new + rawAddress.lowerBound, count: rawAddress.count)
      return span
    }
  }

  /// The length of `text` decoded when its only references are the five
  /// predefined entities (`&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;`); `nil` for any other.
  static func decodedLength(of text: UnsafeBufferPointer<UInt8>) -> Int? {
    var length = 0
    var i = 0
    while i < text.count {
      if text[i] == ASCII.ampersand {
        guard let name = entities.first(where: { text[i...].starts(with: $0) }) else { return nil }
        i += name.count
      } else {
        i += 1
      }
      length += 1
    }
    return length
  }

  private static let entities = ["&lt;", "&gt;", "&amp;", "&quot;", "&apos;"].map { Array($0.utf8) }
}
