import Foundation
import StepKitCore
import Testing

@testable import HealthExport

/// Every record's `device` attribute carries the address of a transient
/// `HKDevice` object; an origin is the source and the device's fields.
@Suite("Origins are identified without the HKDevice address")
struct OriginIdentityTests {
  /// Devices as real exports describe them, `%@` standing for the address.
  static let watch =
    "&lt;&lt;HKDevice: %@&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3&gt;"
  static let phone =
    "&lt;&lt;HKDevice: %@&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone16,2, software:17.3&gt;"
  /// The same iPhone after a software update: another device.
  static let updatedPhone =
    "&lt;&lt;HKDevice: %@&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone16,2, software:17.4&gt;"
  /// iOS 12: `manufacturer:Apple`.
  static let oldPhone =
    "&lt;&lt;HKDevice: %@&gt;, name:iPhone, manufacturer:Apple, model:iPhone, hardware:iPhone9,4, software:12.1&gt;"
  /// Headphones: no hardware or software field, a `creation date` at the end (iOS 17).
  static let airPods =
    "&lt;&lt;HKDevice: %@&gt;, name:AirPods Pro, manufacturer:Apple Inc., model:0x200e, localIdentifier:38:EC:0D:BF:32:C6-tacl, creation date:2020-06-01 06:06:25 +0000&gt;"

  static func device(_ template: String, address: Int) -> String {
    template.replacingOccurrences(of: "%@", with: "0x" + String(0x2_8200_0000 + address * 16, radix: 16))
  }

  /// `count` step records cycling through `devices`, each with its own address.
  static func export(_ devices: [(source: String, template: String)], count: Int, freshAddresses: Bool)
    -> String
  {
    var body: [String] = []
    for index in 0..<count {
      let (source, template) = devices[index % devices.count]
      let minute = index % 50
      body.append(
        ExportTestSupport.steps(
          "\(10 + index)", start: "2024-02-29 08:\(minute < 10 ? "0" : "")\(minute):00 +0800",
          end: "2024-02-29 08:\(minute < 10 ? "0" : "")\(minute):30 +0800", source: source,
          device: device(template, address: freshAddresses ? index : 0)))
    }
    return ExportTestSupport.export(body.joined(separator: "\n"))
  }

  static let devices: [(source: String, template: String)] = [
    ("Ada’s Apple Watch", watch), ("Ada’s iPhone", phone), ("Ada’s iPhone", updatedPhone),
    ("Ada’s iPhone", oldPhone), ("Ada’s iPhone", airPods), ("Ada’s Apple Watch", watch),
  ]

  @Test("a fresh address on every record gives one origin per distinct device")
  func freshAddresses() throws {
    var log = SampleLog()
    let xml = Self.export(Self.devices, count: 600, freshAddresses: true)
    _ = try ExportReader.read(.data(Data(xml.utf8), name: "export.xml"), into: &log)
    #expect(log.count == 600)
    #expect(log.origins.count == 5)
    #expect(Set(log.origins.compactMap(\.device?.software)) == ["10.3", "17.3", "17.4", "12.1"])
    #expect(log.origins.contains { $0.device?.name == "AirPods Pro" && $0.device?.hardware == nil })
  }

  @Test("fresh and repeated addresses read to the same samples and origins")
  func addressesDoNotMatter() throws {
    let fresh = try ExportTestSupport.read(Self.export(Self.devices, count: 120, freshAddresses: true))
    let repeated = try ExportTestSupport.read(Self.export(Self.devices, count: 120, freshAddresses: false))
    #expect(fresh == repeated)
  }

  @Test("the cache holds one entry per device, whatever the addresses")
  func cacheIsBounded() {
    var cache = OriginCache()
    func lookUp(_ source: String, _ device: String?) -> OriginID? {
      var source = source
      return source.withUTF8 { source in
        guard var device else { return cache.find(source: source, device: nil) }
        return device.withUTF8 { cache.find(source: source, device: $0) }
      }
    }
    func remember(_ source: String, _ device: String?, _ id: UInt16) {
      var source = source
      source.withUTF8 { source in
        guard var device else {
          return cache.insert(source: source, device: nil, origin: OriginID(rawValue: id))
        }
        device.withUTF8 { cache.insert(source: source, device: $0, origin: OriginID(rawValue: id)) }
      }
    }
    var next: UInt16 = 0
    for index in 0..<10_000 {
      for (source, template) in Self.devices + [("Health", "")] {
        let device = template.isEmpty ? nil : Self.device(template, address: index)
        if lookUp(source, device) == nil {
          remember(source, device, next)
          next += 1
        }
      }
    }
    #expect(cache.count == 6)
    // Differing only in a later field (`creation date`) is another device.
    let other = Self.airPods.replacingOccurrences(of: "2020-06-01", with: "2021-06-01")
    #expect(lookUp("Ada’s iPhone", Self.device(other, address: 1)) == nil)
    // The same bytes without an address are yet another key.
    #expect(lookUp("Ada’s iPhone", "name:iPhone, manufacturer:Apple Inc.") == nil)
  }

  @Test(
    "the address is found in the escaped, decoded and numeric forms",
    arguments: [
      ("&lt;&lt;HKDevice: 0x282a45810&gt;, name:iPhone", "&lt;&lt;HKDevice: ", "&gt;, name:iPhone"),
      ("<<HKDevice: 0x6b879dfe0>, name:iPhone", "<<HKDevice: ", ">, name:iPhone"),
      ("&#60;&#60;HKDevice: 0xABCDEF0&#62;, name:iPhone", "&#60;&#60;HKDevice: ", "&#62;, name:iPhone"),
      ("name:iPhone, manufacturer:Apple", "name:iPhone, manufacturer:Apple", ""),
      ("&lt;&lt;HKDevice: 0x&gt;, name:iPhone", "&lt;&lt;HKDevice: 0x&gt;, name:iPhone", ""),
      // Sixteen bytes are looked at a time: an address ending in each of them, or running on past them.
      (
        "&lt;&lt;HKDevice: 0x9fAF09af@, name:Apple Watch, hw", "&lt;&lt;HKDevice: ", "@, name:Apple Watch, hw"
      ),
      ("&lt;&lt;HKDevice: 0x0123456789abcdefABCDEF/g, name:x", "&lt;&lt;HKDevice: ", "/g, name:x"),
      ("&lt;&lt;HKDevice: 0x0123456789abcdef`G:, name:Watch", "&lt;&lt;HKDevice: ", "`G:, name:Watch"),
      ("&lt;&lt;HKDevice: 0x1", "&lt;&lt;HKDevice: ", ""),
      ("&lt;&lt;HKDevice: 0x1234567890abcdef0123456789", "&lt;&lt;HKDevice: ", ""),
    ])
  func deviceKey(_ raw: String, _ head: String, _ tail: String) {
    var raw = raw
    raw.withUTF8 { bytes in
      let key = DeviceKey(bytes)
      #expect(String(decoding: key.head, as: UTF8.self) == head)
      #expect(String(decoding: key.tail, as: UTF8.self) == tail)
    }
  }
}
