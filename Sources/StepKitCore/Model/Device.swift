import Foundation

/// The hardware that recorded a sample, as HealthKit's `HKDevice` describes it.
///
/// In an Apple Health export the device is written as the description of an
/// `HKDevice` object, for example
/// `<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch2,4, software:4.3.1>`.
/// ``init(hkDeviceDescription:)`` parses that form.
public struct Device: Hashable, Sendable, Codable {
  /// The user-visible device name (`Apple Watch`, `iPhone`).
  public var name: String?
  /// The manufacturer (`Apple`, `Apple Inc.`).
  public var manufacturer: String?
  /// The model (`Watch`, `iPhone`): the most reliable device-class signal.
  public var model: String?
  /// The hardware identifier (`Watch6,1`, `iPhone16,2`).
  public var hardware: String?
  /// The software version running on the device.
  public var software: String?

  /// Creates a device description from its parts.
  public init(
    name: String? = nil, manufacturer: String? = nil, model: String? = nil,
    hardware: String? = nil, software: String? = nil
  ) {
    self.name = name
    self.manufacturer = manufacturer
    self.model = model
    self.hardware = hardware
    self.software = software
  }

  /// Parses the `HKDevice` description that Apple Health exports write in a
  /// record's `device` attribute (after XML entity decoding).
  ///
  /// Fields are separated by `", "` (comma and space), never by a bare comma:
  /// `hardware:Watch6,1` contains one. Unknown fields (such as
  /// `creation date:`) are ignored.
  ///
  /// - Parameter description: The decoded attribute value.
  /// - Returns: `nil` when the text holds none of the known fields.
  public init?(hkDeviceDescription description: String) {
    var text = Substring(description)
    if text.hasPrefix("<") { text = text.dropFirst() }
    if text.hasSuffix(">") { text = text.dropLast() }
    var device = Device()
    var found = false
    for field in String(text).components(separatedBy: ", ") where !field.isEmpty {
      guard let colon = field.firstIndex(of: ":") else { continue }
      let key = field[..<colon]
      let value = String(field[field.index(after: colon)...])
      switch key {
      case "name": device.name = value
      case "manufacturer": device.manufacturer = value
      case "model": device.model = value
      case "hardware": device.hardware = value
      case "software": device.software = value
      default: continue
      }
      found = true
    }
    guard found else { return nil }
    self = device
  }

  /// Whether this device is an Apple Watch (model `Watch`, or hardware `Watch…`).
  public var isAppleWatch: Bool {
    model == "Watch" || (hardware?.hasPrefix("Watch") ?? false)
  }

  /// Whether this device is an iPhone (model `iPhone`, or hardware `iPhone…`).
  public var isIPhone: Bool {
    model == "iPhone" || (hardware?.hasPrefix("iPhone") ?? false)
  }

  /// Whether the description carries model or hardware information at all.
  public var identifiesHardware: Bool { model != nil || hardware != nil }
}
