import Foundation
import StepKitCore

/// What an export says about itself, and what reading it found.
///
/// ``ExportReader/read(_:into:progress:)`` returns one; the step and distance
/// samples themselves went into the ``SampleLog``.
public struct ExportInfo: Sendable, Hashable {
  /// The name used for the XML in locations: the file path, `<stdin>`, or
  /// `export.zip:apple_health_export/export.xml` for a zip entry.
  public var fileName: String
  /// The zip entry the XML was read from (`apple_health_export/export.xml`,
  /// `apple_health_export/导出.xml`), or `nil` for a plain XML file.
  public var xmlEntryName: String?
  /// Other entries of the zip archive that hold a Health export too, which
  /// were not read (``xmlEntryName`` was: the first under a known name).
  public var otherXMLEntryNames: [String] = []
  /// The `locale` attribute of `<HealthData>` (`en_GB`, `zh_CN`).
  public var locale: String?
  /// The export date exactly as written (`2016-04-15 07:27:26 +0100`).
  public var exportDate: String?
  /// The export date as an instant, when it parses.
  public var exportedAt: Date?
  /// The UTC offset the export date was written with, in seconds.
  public var exportUTCOffsetSeconds: Int?
  /// The export format version from the `<!-- HealthKit Export Version: N -->`
  /// comment, when present (3 in 2016, 12 in iOS 16, 14 in iOS 18).
  public var exportVersion: Int?
  /// The person's characteristics from the `<Me>` element.
  public var me: MeCharacteristics
  /// Every top-level `<Record>` seen, of any type (records repeated inside a
  /// `<Correlation>` are not counted again).
  public var recordCount: Int
  /// The top-level step and walking + running distance records decoded.
  public var stepAndDistanceRecords: Int
  /// Of those, how many were marked user-entered (`HKWasUserEntered`).
  public var userEnteredRecords: Int
  /// Step and distance records that were invalid (reported in the log's
  /// ``SampleLog/invalid`` with their line and column).
  public var invalidRecords: Int
  /// Control characters that XML does not allow (such as `\u{0B}`) that were
  /// tolerated in the file.
  public var skippedControlCharacters: Int
  /// Attributes of step and distance records whose names hold spaces
  /// (`Health Mate App Version="2.6.2"`): an iOS 8 bug wrote third-party
  /// metadata that way. They are skipped; the records are still counted.
  public var malformedAttributes: Int
  /// The size of the XML read, in bytes (uncompressed for a zip entry).
  public var xmlByteCount: Int64

  /// Creates an empty description for the XML named `fileName`.
  public init(fileName: String, xmlEntryName: String? = nil) {
    self.fileName = fileName
    self.xmlEntryName = xmlEntryName
    me = MeCharacteristics()
    recordCount = 0
    stepAndDistanceRecords = 0
    userEnteredRecords = 0
    invalidRecords = 0
    skippedControlCharacters = 0
    malformedAttributes = 0
    xmlByteCount = 0
  }
}

/// The characteristics in an export's `<Me>` element, as written.
///
/// Apple writes HealthKit's identifiers
/// (`HKBiologicalSexFemale`, `HKBloodTypeAPositive`,
/// `HKFitzpatrickSkinTypeNotSet`); an empty attribute is `nil` here.
public struct MeCharacteristics: Sendable, Hashable {
  /// `HKCharacteristicTypeIdentifierDateOfBirth`, `yyyy-MM-dd`.
  public var dateOfBirth: String?
  /// `HKCharacteristicTypeIdentifierBiologicalSex`.
  public var biologicalSex: String?
  /// `HKCharacteristicTypeIdentifierBloodType`.
  public var bloodType: String?
  /// `HKCharacteristicTypeIdentifierFitzpatrickSkinType`.
  public var fitzpatrickSkinType: String?
  /// `HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse` (export version 13 and later).
  public var cardioFitnessMedicationsUse: String?

  /// Creates characteristics; every one defaults to unknown.
  public init(
    dateOfBirth: String? = nil, biologicalSex: String? = nil, bloodType: String? = nil,
    fitzpatrickSkinType: String? = nil, cardioFitnessMedicationsUse: String? = nil
  ) {
    self.dateOfBirth = dateOfBirth
    self.biologicalSex = biologicalSex
    self.bloodType = bloodType
    self.fitzpatrickSkinType = fitzpatrickSkinType
    self.cardioFitnessMedicationsUse = cardioFitnessMedicationsUse
  }

  /// The date of birth as a calendar date, when it is set and valid.
  public var birthDate: LocalDate? { dateOfBirth.flatMap { LocalDate($0) } }
}

/// How far reading has got, reported at most about ten times a second.
public struct ExportProgress: Sendable, Hashable {
  /// Bytes of XML read so far (uncompressed for a zip entry).
  public var bytesRead: Int64
  /// The XML's total size, when known (not for standard input).
  public var totalBytes: Int64?

  /// Creates a progress report.
  public init(bytesRead: Int64, totalBytes: Int64?) {
    self.bytesRead = bytesRead
    self.totalBytes = totalBytes
  }

  /// The fraction done (0 to 1), when the total is known.
  public var fractionCompleted: Double? {
    guard let totalBytes, totalBytes > 0 else { return nil }
    return min(1, Double(bytesRead) / Double(totalBytes))
  }
}

/// One `<Record>` of an export, as ``ExportReader/forEachRecord(in:types:_:)``
/// yields it: its attributes and metadata as decoded strings.
public struct ExportRecord: Sendable, Hashable {
  /// One `<MetadataEntry key="…" value="…"/>` child.
  public struct MetadataEntry: Sendable, Hashable {
    /// The key (`HKWasUserEntered`, `HKTimeZone`, third-party keys with spaces).
    public var key: String
    /// The value as written.
    public var value: String

    // Written out as every public value type's memberwise initializer is (Swift makes none public):
    // alike in shape only with other types' of as many fields; each names its own fields.

    /// Creates an entry.
    public init(key: String, value: String) {
      self.key = key
      self.value = value
    }
  }

  /// Every attribute, entity references decoded, by name.
  public var attributes: [String: String]
  /// The metadata entries, in file order (keys may repeat or differ only by case).
  public var metadata: [MetadataEntry]
  /// Where the record's start tag is.
  public var location: SourceLocation

  /// Creates a record.
  public init(attributes: [String: String], metadata: [MetadataEntry] = [], location: SourceLocation) {
    self.attributes = attributes
    self.metadata = metadata
    self.location = location
  }

  /// The `type` attribute (`HKQuantityTypeIdentifierStepCount`, …).
  public var type: String { attributes["type"] ?? "" }
  /// The `sourceName` attribute, or in an iOS 8 or iOS 9 export, `source`.
  public var sourceName: String? { attributes["sourceName"] ?? attributes["source"] }
  /// The `sourceVersion` attribute.
  public var sourceVersion: String? { attributes["sourceVersion"] }
  /// The `device` attribute: an `HKDevice` description.
  public var deviceDescription: String? { attributes["device"] }
  /// The device, parsed from ``deviceDescription``.
  public var device: Device? { deviceDescription.flatMap { Device(hkDeviceDescription: $0) } }
  /// The `unit` attribute.
  public var unit: String? { attributes["unit"] }
  /// The `value` attribute, as written.
  public var value: String? { attributes["value"] }
  /// The `creationDate` attribute, as written.
  public var creationDate: String? { attributes["creationDate"] }
  /// The `startDate` attribute, as written.
  public var startDate: String? { attributes["startDate"] }
  /// The `endDate` attribute, as written.
  public var endDate: String? { attributes["endDate"] }
  /// The start as an instant, when it parses.
  public var start: Date? { startDate.flatMap(Self.instant) }
  /// The end as an instant, when it parses.
  public var end: Date? { endDate.flatMap(Self.instant) }
  /// Whether the metadata (or in an iOS 8 or iOS 9 export, the
  /// `HKWasUserEntered` attribute) marks the record as typed in by hand.
  public var isUserEntered: Bool {
    if let flag = attributes["HKWasUserEntered"], isUserEnteredMetadataValue(flag) { return true }
    return metadata.contains { $0.key == "HKWasUserEntered" && isUserEnteredMetadataValue($0.value) }
  }

  private static func instant(_ text: String) -> Date? {
    ExportDateParser.parse(text).map { Date(epochMilliseconds: $0.epochMilliseconds) }
  }
}
