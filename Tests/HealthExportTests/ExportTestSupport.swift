import Foundation
import StepKitCore
import Testing

@testable import HealthExport

/// Delivers bytes in pieces of at most `chunkSize`, to cross every boundary.
struct ChunkedSource: ByteChunkSource {
  let bytes: [UInt8]
  let chunkSize: Int
  var displayName: String
  var position = 0
  var expectedByteCount: Int64? { Int64(bytes.count) }

  init(_ bytes: [UInt8], chunkSize: Int, name: String = "export.xml") {
    self.bytes = bytes
    self.chunkSize = chunkSize
    self.displayName = name
  }

  mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = min(buffer.count, chunkSize, bytes.count - position)
    guard count > 0 else { return 0 }
    bytes.withUnsafeBytes { raw in
      buffer.baseAddress!.copyMemory(from: raw.baseAddress! + position, byteCount: count)
    }
    position += count
    return count
  }
}

/// What one read produced, in a form tests can compare.
struct ReadOutcome: Equatable {
  var info: ExportInfo
  var samples: [Sample]
  var invalid: InvalidSampleReport
}

enum ExportTestSupport {
  /// Reads `xml` with the given buffer and chunk sizes.
  static func read(
    _ xml: String, bufferBytes: Int = 1 << 16, chunkSize: Int = Int.max,
    maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes
  ) throws -> ReadOutcome {
    try read(
      bytes: Array(xml.utf8), bufferBytes: bufferBytes, chunkSize: chunkSize,
      maximumTokenBytes: maximumTokenBytes)
  }

  static func read(
    bytes: [UInt8], bufferBytes: Int = 1 << 16, chunkSize: Int = Int.max,
    maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes
  ) throws -> ReadOutcome {
    var log = SampleLog()
    let info = try ExportReader.read(
      source: ChunkedSource(bytes, chunkSize: chunkSize), into: &log, bufferBytes: bufferBytes,
      maximumTokenBytes: maximumTokenBytes)
    return ReadOutcome(info: info, samples: log.samples, invalid: log.invalid)
  }

  /// The error reading `xml` throws, or `nil`.
  static func error(_ xml: String, bufferBytes: Int = 1 << 16, chunkSize: Int = Int.max) -> HealthExportError?
  {
    do {
      _ = try read(xml, bufferBytes: bufferBytes, chunkSize: chunkSize)
      return nil
    } catch {
      return HealthExportError(wrapping: error, path: "export.xml")
    }
  }

  /// The bytes of a fixture file.
  static func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
    return try Data(contentsOf: url)
  }

  /// A minimal export around `body`.
  static func export(_ body: String, header: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    \(header)<HealthData locale="en_US">
     <ExportDate value="2024-03-01 09:00:00 +0800"/>
    \(body)
    </HealthData>

    """
  }

  /// A step record line.
  static func steps(
    _ value: String, start: String = "2024-02-29 08:00:00 +0800", end: String = "2024-02-29 08:10:00 +0800",
    source: String = "iPhone", device: String? = nil, extra: String = ""
  ) -> String {
    let deviceAttribute = device.map { " device=\"\($0)\"" } ?? ""
    return
      " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" sourceVersion=\"17.0\"\(deviceAttribute) unit=\"count\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\"\(extra)/>"
  }

  static func stepTotal(_ samples: [Sample]) -> Double {
    samples.filter { $0.kind == .steps }.reduce(0) { $0 + $1.value }
  }

  static func distanceTotal(_ samples: [Sample]) -> Double {
    samples.filter { $0.kind == .distance }.reduce(0) { $0 + $1.value }
  }

  /// The iOS 16 (export version 12) internal subset: the ATTLIST of
  /// VisionPrescription lacks its closing `>`.
  ///
  /// Not the generator's `ExportDTD.text(broken: true)`: a trimmed subset with traps
  /// Apple's text lacks (entity declarations, `]>` inside a quoted default value).
  static let brokenVersion12DTD = """
    <!DOCTYPE HealthData [
    <!-- HealthKit Export Version: 12 -->
    <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)>
    <!ATTLIST HealthData
      locale CDATA #REQUIRED
    >
    <!ENTITY lol "lol">
    <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
    <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
    <!ATTLIST Record
      type          CDATA #REQUIRED
      unit          CDATA #IMPLIED
      value         CDATA #IMPLIED
      sourceName    CDATA #REQUIRED
    >
    <!-- Note: Any Records that appear as children of a correlation also appear as top-level records in this document. -->
    <!ELEMENT VisionPrescription ((RightEye|LeftEye|Attachment|MetadataEntry)*)>
    <!ATTLIST VisionPrescription
      type               CDATA #REQUIRED
      dateIssued         CDATA #REQUIRED
      expirationDate     CDATA #IMPLIED
      brand              CDATA #IMPLIED
    <!ELEMENT RightEye EMPTY>
    <!ATTLIST RightEye
      sphere CDATA #IMPLIED
      note   CDATA "it's ]> not the end"
    >
    ]>

    """
}
