import Testing

@testable import HealthExport

/// The last device decoded, copied for the next one with another address;
/// the expected texts are written out by hand.
@Suite("Device text memo")
struct DeviceTextMemoTests {
  private static let watch =
    "&lt;&lt;HKDevice: 0x283f2c8a0&gt;, name:Tom &amp; Jerry, model:Watch, hardware:Watch6,1&gt;"
  private static let watchText = "<<HKDevice: 0x283f2c8a0>, name:Tom & Jerry, model:Watch, hardware:Watch6,1>"

  /// `raw` through `memo` into a fresh arena: the text appended, or `nil`.
  private func copied(_ raw: String, _ memo: DeviceTextMemo) -> String? {
    let arena = RecordArena()
    var raw = raw
    return raw.withUTF8 { bytes in
      memo.append(bytes, to: arena).map {
        String(decoding: UnsafeBufferPointer(start: arena.bytes + $0.0, count: $0.1 - $0.0), as: UTF8.self)
      }
    }
  }

  private func remembering(_ raw: String, _ decoded: String) -> DeviceTextMemo {
    var memo = DeviceTextMemo()
    var raw = raw
    var decoded = decoded
    raw.withUTF8 { r in decoded.withUTF8 { d in memo.remember(raw: r, decoded: d) } }
    return memo
  }

  @Test("Another address of the same length is written into the remembered text")
  func anotherAddress() {
    let memo = remembering(Self.watch, Self.watchText)
    #expect(copied(Self.watch, memo) == Self.watchText)
    #expect(
      copied(Self.watch.replacingOccurrences(of: "0x283f2c8a0", with: "0xAB01fe999"), memo)
        == Self.watchText.replacingOccurrences(of: "0x283f2c8a0", with: "0xAB01fe999"))
  }

  @Test(
    "Any other device is not copied",
    arguments: [
      "0x283f2c8a",  // a shorter address
      "0x283f2c8aZ",  // a letter that is no hex digit
      "0x283f2c8a0&gt;, name:Tom &amp; Jerry, model:Watch, hardware:Watch7",
    ])
  func otherDevices(address: String) {
    let memo = remembering(Self.watch, Self.watchText)
    let raw =
      address.hasSuffix("Watch7")
      ? Self.watch.replacingOccurrences(of: "Watch6", with: "Watch7")
      : Self.watch.replacingOccurrences(of: "0x283f2c8a0", with: address)
    #expect(copied(raw, memo) == nil)
  }

  @Test("A device with a character reference before its address, a quote or a line feed is not remembered")
  func notRemembered() {
    for (raw, decoded) in [
      ("&#60;&lt;HKDevice: 0x283f2c8a0&gt;&gt;", "<<HKDevice: 0x283f2c8a0>>"),
      ("&lt;&lt;HKDevice: 0x283f2c8a0&gt;, name:\n&gt;", "<<HKDevice: 0x283f2c8a0>, name:\n>"),
    ] {
      #expect(copied(raw, remembering(raw, decoded)) == nil)
    }
    // With no address, only the same bytes are copied.
    let legacy = remembering("name:Scale &amp; Co", "name:Scale & Co")
    #expect(copied("name:Scale &amp; Co", legacy) == "name:Scale & Co")
    #expect(copied("name:Scale &amp; Cp", legacy) == nil)
  }

  @Test("Decoded lengths and hex digits; the address is the one after HKDevice, not a later 0x")
  func pieces() {
    var text = "&lt;a&amp;&quot;&apos;&gt;b"
    #expect(text.withUTF8 { DeviceTextMemo.decodedLength(of: $0) } == 7)
    text = "&#60;"
    #expect(text.withUTF8 { DeviceTextMemo.decodedLength(of: $0) } == nil)
    #expect((0...255).filter { DeviceKey.isHexDigit(UInt8($0)) }.count == 22)
    let memo = remembering(
      "&lt;&lt;HKDevice: 0x283f2c8a0&gt;, name:0xff&gt;", "<<HKDevice: 0x283f2c8a0>, name:0xff>")
    #expect(
      copied("&lt;&lt;HKDevice: 0x1111aaaa0&gt;, name:0xff&gt;", memo)
        == "<<HKDevice: 0x1111aaaa0>, name:0xff>")
    #expect(copied("&lt;&lt;HKDevice: 0x283f2c8a0&gt;, name:0xfe&gt;", memo) == nil)
  }
}
