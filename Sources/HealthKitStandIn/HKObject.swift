import Foundation

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The metadata key marking a sample a person typed in (`HKMetadataKeyWasUserEntered`).
public let HKMetadataKeyWasUserEntered: String = "HKWasUserEntered"

/// An app or device that writes samples (`HKSource`).
public class HKSource: NSObject {
  /// The app's or device's name.
  public let name: String
  /// The bundle identifier (`com.apple.health.<UUID>` for Apple's devices).
  public let bundleIdentifier: String

  init(name: String, bundleIdentifier: String) {
    self.name = name
    self.bundleIdentifier = bundleIdentifier
  }

  public override func isEqual(_ object: Any?) -> Bool {
    guard let other = object as? HKSource else { return false }
    return other.bundleIdentifier == bundleIdentifier
  }

  public override var hash: Int { bundleIdentifier.hashValue }

  static var thisApp: HKSource { HKSource(name: "This App", bundleIdentifier: "com.example.this-app") }
}

/// A source at a version (`HKSourceRevision`).
public class HKSourceRevision: NSObject {
  /// The source.
  public let source: HKSource
  /// The version, when known.
  public let version: String?

  init(source: HKSource, version: String?) {
    self.source = source
    self.version = version
  }
}

/// The hardware that recorded a sample (`HKDevice`).
public class HKDevice: NSObject {
  /// The device's name.
  public let name: String?
  /// Its manufacturer.
  public let manufacturer: String?
  /// Its model (`iPhone`, `Watch`).
  public let model: String?
  /// Its hardware version (`Watch6,1`).
  public let hardwareVersion: String?
  /// Its firmware version.
  public let firmwareVersion: String?
  /// Its software version.
  public let softwareVersion: String?
  /// An identifier valid on this hardware only.
  public let localIdentifier: String?
  /// The UDI device identifier.
  public let udiDeviceIdentifier: String?

  /// Creates a device.
  public init(
    name: String?, manufacturer: String?, model: String?, hardwareVersion: String?, firmwareVersion: String?,
    softwareVersion: String?, localIdentifier: String?, udiDeviceIdentifier UDIDeviceIdentifier: String?
  ) {
    self.name = name
    self.manufacturer = manufacturer
    self.model = model
    self.hardwareVersion = hardwareVersion
    self.firmwareVersion = firmwareVersion
    self.softwareVersion = softwareVersion
    self.localIdentifier = localIdentifier
    self.udiDeviceIdentifier = UDIDeviceIdentifier
  }
}

/// Any stored HealthKit object (`HKObject`).
public class HKObject: NSObject {
  /// The object's identifier.
  public let uuid: UUID
  /// Who wrote it.
  public internal(set) var sourceRevision: HKSourceRevision
  /// The recording device, when known.
  public let device: HKDevice?
  /// Its metadata.
  public let metadata: [String: Any]?

  init(source: HKSource, device: HKDevice?, metadata: [String: Any]?) {
    uuid = UUID()
    sourceRevision = HKSourceRevision(source: source, version: nil)
    self.device = device
    self.metadata = metadata
  }
}

/// A sample over a time interval (`HKSample`).
public class HKSample: HKObject {
  /// The sample's type.
  public let sampleType: HKSampleType
  /// Its start.
  public let startDate: Date
  /// Its end.
  public let endDate: Date

  init(
    sampleType: HKSampleType, startDate: Date, endDate: Date, source: HKSource, device: HKDevice?,
    metadata: [String: Any]?
  ) {
    self.sampleType = sampleType
    self.startDate = startDate
    self.endDate = endDate
    super.init(source: source, device: device, metadata: metadata)
  }
}

/// A quantity over an interval (`HKQuantitySample`).
public class HKQuantitySample: HKSample {
  /// The quantity's type.
  public let quantityType: HKQuantityType
  /// The amount.
  public let quantity: HKQuantity
  /// How many values make up the quantity.
  public var count: Int { 1 }
  /// The `NSInvalidArgumentException` HealthKit raises when such a sample is
  /// created (end before start, a value that is not finite), or `nil`. On a
  /// device the app stops there; the stand-in keeps the object so that a test
  /// can see the violation: saving it records the exception in the
  /// simulation (``HealthStoreSimulation/raisedExceptions``) and fails.
  let raisedException: String?

  init(
    type quantityType: HKQuantityType, quantity: HKQuantity, start: Date, end: Date, source: HKSource,
    device: HKDevice?, metadata: [String: Any]?
  ) {
    precondition(
      quantityType.accepts(quantity.unit),
      "HKQuantitySample: \(quantity.unit.unitString) does not fit \(quantityType.identifier)")
    self.quantityType = quantityType
    self.quantity = quantity
    raisedException = Self.exception(quantity: quantity, start: start, end: end)
    super.init(
      sampleType: quantityType, startDate: start, endDate: end, source: source, device: device,
      metadata: metadata)
  }

  /// Creates a sample written by this app.
  public convenience init(
    type quantityType: HKQuantityType, quantity: HKQuantity, start startDate: Date, end endDate: Date
  ) {
    self.init(
      type: quantityType, quantity: quantity, start: startDate, end: endDate, source: HKSource.thisApp,
      device: nil,
      metadata: nil)
  }

  /// What HealthKit's initialiser objects to, in its own words, or `nil`.
  static func exception(quantity: HKQuantity, start: Date, end: Date) -> String? {
    let value = quantity.doubleValue(for: quantity.unit)
    if !value.isFinite {
      return "NSInvalidArgumentException: HKQuantity value \(value) is not finite"
    }
    if !start.timeIntervalSinceReferenceDate.isFinite || !end.timeIntervalSinceReferenceDate.isFinite {
      return "NSInvalidArgumentException: HKQuantitySample dates must be finite"
    }
    if end < start {
      return "NSInvalidArgumentException: HKQuantitySample \(start) must be on or before \(end)"
    }
    return nil
  }
}

/// A deleted object (`HKDeletedObject`).
public class HKDeletedObject: NSObject {
  /// The deleted object's identifier.
  public let uuid: UUID
  init(uuid: UUID) { self.uuid = uuid }
}

/// Where an anchored query left off (`HKQueryAnchor`).
public class HKQueryAnchor: NSObject {
  let value: Int
  init(value: Int) { self.value = value }
}
