import Foundation
import StepKitCore
import Testing

@testable import HealthExport

private typealias T = ExportTestSupport

/// The fast read of a `<Record>`'s attributes straight from its quotes
/// (``XMLScanner/readAttributes(expecting:first:)``) against the general one:
/// whatever a tag looks like, both must give the same attributes or the same error.
@Suite("Record attributes read from their quotes")
struct ExpectedAttributesTests {
  /// One `<Record>` start tag as a scanner read it.
  struct TagReading: Equatable {
    /// Name, raw value, and whether the name holds spaces, per attribute.
    var attributes: [String]
    /// Which expected names the fast read found (`nil`: it left the tag to the general path).
    var present: UInt32?
  }

  /// What reading every `<Record>` of `xml` gave: the tags, then the error
  /// that stopped the scan, if any.
  struct ScanReading: Equatable {
    var tags: [TagReading] = []
    var error: HealthExportError?
  }

  /// Scans `xml`, reading each `<Record>`'s attributes as the decoder does
  /// (`fast`) or with ``XMLScanner/readAttributes()`` only.
  static func scan(_ xml: String, fast: Bool, bufferBytes: Int = 1 << 16) -> ScanReading {
    var reading = ScanReading()
    var expected = ExpectedAttributes(ExportDecoder.recordAttributeNames)
    var scanner = XMLScanner(source: ChunkedSource(Array(xml.utf8), chunkSize: 7), bufferBytes: bufferBytes)
    do {
      while true {
        switch try scanner.next() {
        case .startTag where scanner.nameIs("Record"):
          var present: UInt32?
          if fast {
            var cursor = scanner.nameEnd
            let first = scanner.expectedAttribute(" type=\"", at: &cursor)
            present = try scanner.readAttributes(expecting: &expected, first: first)
          } else {
            try scanner.readAttributes()
          }
          let attributes = (0..<scanner.attributeCount).map { index in
            let attribute = scanner.attribute(index)
            let name = scanner.text(attribute.nameStart, attribute.nameEnd)
            let value = String(decoding: scanner.rawValue(attribute), as: UTF8.self)
            return "\(name)=\(value)\(attribute.nameHasSpaces ? " (spaces)" : "")"
          }
          reading.tags.append(TagReading(attributes: attributes, present: present))
        case .endOfInput, .endOfRange:
          return reading
        default:
          continue
        }
      }
    } catch {
      reading.error = HealthExportError(wrapping: error, path: "export.xml")
      return reading
    }
  }

  /// Checks that the fast read of `xml` gives what the general one gives and
  /// returns which names it found per tag.
  static func compare(_ xml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> ScanReading
  {
    let fast = scan(xml, fast: true)
    let general = scan(xml, fast: false)
    #expect(fast.tags.map(\.attributes) == general.tags.map(\.attributes), sourceLocation: sourceLocation)
    #expect(fast.error == general.error, sourceLocation: sourceLocation)
    return fast
  }

  static let device =
    "&lt;&lt;HKDevice: 0x28bdf9180&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:7.3&gt;"

  /// A record as Apple writes it, `attributes` replacing its attribute text when given.
  static func record(_ attributes: String? = nil, value: String = "76") -> String {
    let text =
      attributes
      ?? #" type="HKQuantityTypeIdentifierStepCount" sourceName="Lena’s Apple Watch" sourceVersion="7.3" device="\#(device)" unit="count" creationDate="2021-01-04 06:54:09 +0100" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="\#(value)""#
    return " <Record\(text)/>"
  }

  @Test("Records as Apple writes them take the fast read, with a device or without")
  func appleLayouts() {
    let body = [
      Self.record(),
      Self.record(value: "1234"),
      // No device (the Health app's own records), no source version or device (older ones).
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Health" sourceVersion="14.4" unit="count" creationDate="2021-01-04 06:54:09 +0100" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="500"/>"#,
      #" <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="Phone" unit="km" creationDate="2016-04-15 07:27:26 +0100" startDate="2016-04-15 07:20:00 +0100" endDate="2016-04-15 07:25:00 +0100" value="0.25974">"#,
      "  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>",
      " </Record>",
      // Entities stay in the raw values, decoded later as on the general path.
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A &amp; B&#x2019;s" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="&#55;6"/>"#,
      // An empty value.
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="" startDate="" endDate="" value=""/>"#,
    ].joined(separator: "\n")
    let reading = Self.compare(T.export(body))
    let present: [UInt32?] = [
      0b1_1111_1111, 0b1_1111_1111, 0b1_1111_0111, 0b1_1111_0011, 0b1_1100_0011, 0b1_1100_0011,
    ]
    #expect(reading.tags.map(\.present) == present)
    #expect(reading.tags.first?.attributes.count == 9)
    #expect(reading.tags[4].attributes[1] == "sourceName=A &amp; B&#x2019;s")
  }

  @Test(
    "Any other tag is left to the general read, which gives the same attributes",
    arguments: [
      // Another order.
      #" unit="count" type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" endDate="2021-01-04 06:51:06 +0100" startDate="2021-01-04 06:49:32 +0100" value="3""#,
      // An extra attribute, at the end or between.
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3" HKWasUserEntered="1""#,
      #" type="HKQuantityTypeIdentifierStepCount" source="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" Health Mate App Version="2.6.2" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      // A name given twice (the last one counts on the general path).
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3" value="4""#,
      // A name that only starts like an expected one.
      #" type="HKQuantityTypeIdentifierStepCount" sourceNames="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      // Single quotes, around a value or inside one.
      #" type="HKQuantityTypeIdentifierStepCount" sourceName='A' startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="Dad's iPhone" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName='Lin "Phone"' startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      // White space of other kinds: two spaces, a tab, a line break, around `=`, before `/>`.
      #" type="HKQuantityTypeIdentifierStepCount"  sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      " type=\"HKQuantityTypeIdentifierStepCount\"\tsourceName=\"A\" startDate=\"2021-01-04 06:49:32 +0100\" endDate=\"2021-01-04 06:51:06 +0100\" value=\"3\"",
      "\n  type=\"HKQuantityTypeIdentifierStepCount\"\n  sourceName=\"A\"\r\n  startDate=\"2021-01-04 06:49:32 +0100\" endDate=\"2021-01-04 06:51:06 +0100\" value=\"3\"",
      #" type="HKQuantityTypeIdentifierStepCount" sourceName = "A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3" "#,
    ])
  func fallbacks(attributes: String) {
    let body = [Self.record(), Self.record(attributes), Self.record()].joined(separator: "\n")
    let reading = Self.compare(T.export(body))
    #expect(reading.error == nil)
    #expect(reading.tags.map { $0.present != nil } == [true, false, true])
  }

  @Test(
    "A malformed tag gives the general read's error, at the same line and column",
    arguments: [
      // No white space between attributes.
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A"startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      // A value not quoted, a name with no value.
      #" type="HKQuantityTypeIdentifierStepCount" sourceName=A startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value"#,
      // An unclosed quote, a stray quote, a '<' inside a value.
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3"""#,
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A<B" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#,
      // A '/' that does not end the tag.
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3"/ "#,
    ])
  func malformedTags(attributes: String) {
    let body = [Self.record(), Self.record(attributes), Self.record()].joined(separator: "\n")
    let reading = Self.compare(T.export(body))
    #expect(reading.error != nil)
  }

  @Test("A remembered value length that lands on a later quote is caught, and the tag read again")
  func wrongGuesses() {
    let long = String(repeating: "x", count: 20)
    // A device of 20 bytes twice (both remembered lengths 20), then one of a single byte whose
    // 20th byte on is the closing quote of the unit after it: `Y" unit="abcdefghijk"`.
    let guessed =
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" device="Y" unit="abcdefghijk" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#
    let remembered =
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" device="\#(long)" unit="count" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#
    // A guess landing on the next attribute's opening quote: `Y" unit="`, 9 bytes.
    let opening =
      #" type="HKQuantityTypeIdentifierStepCount" sourceName="A" device="123456789" unit="count" startDate="2021-01-04 06:49:32 +0100" endDate="2021-01-04 06:51:06 +0100" value="3""#
    let body = [
      Self.record(remembered), Self.record(remembered), Self.record(guessed), Self.record(guessed),
      Self.record(opening), Self.record(opening), Self.record(guessed),
    ].joined(separator: "\n")
    let reading = Self.compare(T.export(body))
    #expect(reading.error == nil)
    #expect(reading.tags.count == 7)
    #expect(reading.tags[2].attributes[2] == "device=Y")
    // Every tag is read right; the first wrong guess sends its tag down the general path.
    #expect(reading.tags[2].present == nil)
  }

  @Test("Tags crossing the buffer's end and tiny buffers read the same")
  func bufferBoundaries() {
    let body = (0..<40).map { Self.record(value: String($0 * 37)) }.joined(separator: "\n")
    let xml = T.export(body)
    for bufferBytes in [64, 300, 501, 4096] {
      let fast = Self.scan(xml, fast: true, bufferBytes: bufferBytes)
      let general = Self.scan(xml, fast: false, bufferBytes: bufferBytes)
      #expect(fast == ScanReading(tags: fast.tags, error: nil))
      #expect(fast.tags.map(\.attributes) == general.tags.map(\.attributes))
      #expect(fast.tags.count == 40)
    }
  }

  // MARK: - Through the decoder

  @Test("Samples, invalid records and their locations are the same however a record is written")
  func decodedRecords() throws {
    // The same record written as Apple writes it, and in ways only the general path reads.
    let written = [
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Lin &amp; Co" sourceVersion="7.3" device="\#(Self.device)" unit="count" creationDate="2024-02-29 08:10:00 +0800" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="250"/>"#,
      #" <Record unit="count" sourceName="Lin &amp; Co" type="HKQuantityTypeIdentifierStepCount" device="\#(Self.device)" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="250"/>"#,
      " <Record type='HKQuantityTypeIdentifierStepCount' sourceName='Lin &amp; Co' device='\(Self.device)'\tunit=\"count\"\n   startDate=\"2024-02-29 08:00:00 +0800\" endDate = \"2024-02-29 08:10:00 +0800\" value=\"250\" />",
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Lin &amp; Co" device="\#(Self.device)" unit="count" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="250" creationDate="2024-02-29 08:10:00 +0800"/>"#,
    ]
    var outcomes: [ReadOutcome] = []
    for record in written {
      // Twice: the second record is read with the lengths the first left.
      outcomes.append(try T.read(T.export([record, record].joined(separator: "\n"))))
    }
    let first = try #require(outcomes.first)
    #expect(first.samples.count == 2)
    #expect(first.samples.first?.source == "Lin & Co")
    #expect(first.samples.first?.device?.hardware == "Watch6,1")
    #expect(first.samples.first?.value == 250)
    for outcome in outcomes.dropFirst() {
      #expect(outcome.samples == first.samples)
      #expect(outcome.invalid == first.invalid)
    }
  }

  @Test("Invalid records read the fast way are reported at their line and column")
  func invalidRecords() throws {
    let body = [
      // Missing startDate; an unreadable value; an unknown entity in a source name; a later start.
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" sourceVersion="1" unit="count" endDate="2024-02-29 08:10:00 +0800" value="1"/>"#,
      #"  <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="1&#x2C;5"/>"#,
      #" <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="A" unit="kcal" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="1"/>"#,
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="2024-03-02 08:00:00 +0800" endDate="2024-03-02 08:10:00 +0800" value="1"/>"#,
      #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" unit="count" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="7"/>"#,
    ].joined(separator: "\n")
    let outcome = try T.read(T.export(body))
    #expect(outcome.samples.map(\.value) == [7])
    let found = outcome.invalid.examples.map {
      "\($0.location?.line ?? 0):\($0.location?.column ?? 0) \($0.reason)"
    }
    #expect(
      found == [
        "4:2 missing attribute 'startDate'",
        "5:3 unreadable value '1,5'",
        "6:2 unit 'kcal' is not a length",
        "7:2 starts after the export date, a wrong device clock",
      ])
    let error = T.error(
      T.export(
        #" <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A &bogus; B" unit="count" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="1"/>"#
      ))
    #expect(
      error
        == .malformedXML(
          file: "export.xml", line: 4, column: 65,
          detail: "unknown entity '&bogus;' (only the five predefined ones are read)"))
  }
}

/// The `<Record>` slots are named once (``RecordAttribute``): the order Apple's
/// exports write (EXPORT-FORMAT: a real iOS 17 record line), each slot's bit and
/// value bounds, and what a sample must have.
@Suite("Record attribute slots")
struct RecordAttributeTests {
  @Test("the slots are a record's attributes in the order Apple writes them")
  func appleOrder() {
    // From a real export: <Record type="…" sourceName="…" sourceVersion="…" device="…" unit="count"
    // creationDate="…" startDate="…" endDate="…" value="…">
    let written = [
      "type", "sourceName", "sourceVersion", "device", "unit", "creationDate", "startDate", "endDate",
      "value",
    ]
    #expect(RecordAttribute.allCases.map { "\($0.name)" } == written)
    #expect(ExportDecoder.recordAttributeNames.map { "\($0)" } == written)
    #expect(RecordAttribute.allCases.count <= ExpectedAttributes.maximumCount)
  }

  @Test("bits, bounds and the required set agree with the slots")
  func layout() {
    for attribute in RecordAttribute.allCases {
      #expect(attribute.bit == UInt32(1) << UInt32(attribute.rawValue))
      #expect(attribute.boundsIndex == 2 * attribute.rawValue)
    }
    #expect(RecordAttribute.requiredForSample == 0b1_1100_0011)
    let optional: [RecordAttribute] = [.sourceVersion, .device, .unit, .creationDate]
    var bounds: [Int] = []
    for attribute in optional { bounds += [attribute.boundsIndex, attribute.boundsIndex + 1] }
    #expect(Array(RecordAttribute.optionalBounds) == bounds)
  }
}
