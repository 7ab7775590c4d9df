import Foundation
import StepKitCore
import Testing

@testable import HealthExport

@Suite("Quirks of real exports")
struct XMLQuirkTests {
  typealias T = ExportTestSupport

  @Test("The broken iOS 16 DTD (ATTLIST without '>') is skipped, entities never expanded")
  func brokenVersion12DTD() throws {
    let xml = T.export(T.steps("812"), header: T.brokenVersion12DTD)
    let outcome = try T.read(xml)
    #expect(outcome.info.exportVersion == 12)
    #expect(T.stepTotal(outcome.samples) == 812)
  }

  @Test("A byte-order mark and an XML declaration are accepted")
  func byteOrderMark() throws {
    let outcome = try T.read("\u{FEFF}" + T.export(T.steps("5")))
    #expect(T.stepTotal(outcome.samples) == 5)
  }

  @Test("Vertical tabs and other stray control characters are tolerated and counted")
  func controlCharacters() throws {
    let body = " text\u{0B}here\n" + T.steps("7", source: "Tab\u{0B}Source") + "\u{01}\n"
    let outcome = try T.read(T.export(body))
    #expect(outcome.info.skippedControlCharacters == 3)
    #expect(outcome.samples.map(\.source) == ["Tab\u{0B}Source"])
    #expect(T.stepTotal(outcome.samples) == 7)
  }

  @Test("Names that start like a recent tag's name are read whole")
  func namesSharingAPrefix() throws {
    // `Me` before `MetadataEntry`, `Record` before `Records`, a name longer than a remembered one
    // (16 bytes), white space before an end tag's `>`.
    let body = """
       <Me HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" \
      startDate="2024-02-28 10:00:00 +0100" endDate="2024-02-28 10:05:00 +0100" value="40">
        <MetadataEntry key="k" value="v"/>
        <MetadataEntryWithALongerName key="k" value="v"></MetadataEntryWithALongerName >
        <Me/>
       </Record >
       <Records><Record type="HKQuantityTypeIdentifierStepCount"/></Records>
       <Recordsss/>
      \(T.steps("2"))
      """
    let outcome = try T.read(T.export(body))
    #expect(outcome.info.me.biologicalSex == "HKBiologicalSexFemale")
    #expect(outcome.info.recordCount == 2)
    #expect(T.stepTotal(outcome.samples) == 42)
  }

  @Test("A <Record inside a comment is not a record")
  func recordInComment() throws {
    let body = " <!-- " + T.steps("1000") + " -- still comment -> -->\n" + T.steps("3")
    let outcome = try T.read(T.export(body))
    #expect(T.stepTotal(outcome.samples) == 3)
    #expect(outcome.info.recordCount == 1)
  }

  @Test("CDATA sections are skipped whole")
  func cdata() throws {
    let body =
      " <Workout sourceName=\"W\"><![CDATA[ " + T.steps("1000") + " ]] ] ]]></Workout>\n" + T.steps("4")
    let outcome = try T.read(T.export(body))
    #expect(T.stepTotal(outcome.samples) == 4)
  }

  @Test("Processing instructions are skipped")
  func processingInstruction() throws {
    let body = " <?stepkit note=\"<Record>\" ?>\n" + T.steps("6")
    let outcome = try T.read(T.export(body))
    #expect(T.stepTotal(outcome.samples) == 6)
  }

  @Test("Single quotes, any attribute order and newlines inside tags")
  func quotesOrderAndNewlines() throws {
    let body = """
       <Record
          value='250'   endDate='2024-02-29 09:00:00 +0800'
          startDate = "2024-02-29 08:50:00 +0800"	unit='count'
          sourceName='Lin&apos;s "Phone"'
          type='HKQuantityTypeIdentifierStepCount'
        />
       <Record sourceName="Dad's iPhone" type="HKQuantityTypeIdentifierStepCount" startDate="2024-02-29 10:00:00 +0800" endDate="2024-02-29 10:05:00 +0800" value="50"
       ></Record>
      """
    let outcome = try T.read(T.export(body))
    #expect(outcome.samples.map(\.value) == [250, 50])
    #expect(outcome.samples.map(\.source) == ["Lin's \"Phone\"", "Dad's iPhone"])
    let first = try #require(outcome.samples.first)
    // 2024-02-29 08:50 +0800 = 00:50 UTC
    #expect(first.start == Date(timeIntervalSince1970: 1_709_167_800))
    #expect(first.end.timeIntervalSince(first.start) == 600)
  }

  @Test("Predefined entities and numeric character references are decoded; devices parsed once")
  func entities() throws {
    let device =
      "&lt;&lt;HKDevice: 0x6b879dfe0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.0&gt;"
    let body = [
      T.steps("1", source: "Lin&#x2019;s Apple&#32;Watch &amp; co", device: device),
      T.steps("2", source: "Lin&#8217;s Apple Watch &amp; co", device: device),
      T.steps("3", source: "Lin’s Apple Watch &#38; co", device: device),
    ].joined(separator: "\n")
    var log = SampleLog()
    _ = try ExportReader.read(
      source: ChunkedSource(Array(T.export(body).utf8), chunkSize: 1 << 20), into: &log)
    #expect(log.count == 3)
    #expect(log.sourceNames == ["Lin’s Apple Watch & co"])
    #expect(log.origins.count == 1)
    let sample = log.sample(at: 0)
    #expect(sample.device?.hardware == "Watch6,1")
    #expect(sample.device?.manufacturer == "Apple Inc.")
    #expect(sample.device?.isAppleWatch == true)
  }

  @Test("Records inside a Correlation are not counted again")
  func correlationChildren() throws {
    let body = """
       <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="App" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:00:00 +0800">
        <MetadataEntry key="HKWasUserEntered" value="1"/>
      \(T.steps("9999"))
       </Correlation>
      \(T.steps("11"))
      """
    let outcome = try T.read(T.export(body))
    #expect(T.stepTotal(outcome.samples) == 11)
    #expect(outcome.info.recordCount == 1)
    #expect(outcome.info.stepAndDistanceRecords == 1)
  }

  @Test(
    "HKWasUserEntered metadata marks a record user-entered",
    arguments: [
      ("1", true), ("0", false), ("YES", true), ("true", true), ("no", false),
    ])
  func userEntered(value: String, expected: Bool) throws {
    let body = """
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Health" unit="count" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:00:00 +0800" value="500">
        <MetadataEntry key="HKMetadataKeySyncVersion" value="1"/>
        <MetadataEntry key="HKWasUserEntered" value="\(value)"/>
       </Record>
      """
    let outcome = try T.read(T.export(body))
    #expect(outcome.samples.map(\.isUserEntered) == [expected])
    #expect(outcome.info.userEnteredRecords == (expected ? 1 : 0))
  }

  @Test(
    "Distance units are converted to metres",
    arguments: [
      ("km", 2.5, 2500.0), ("m", 2.5, 2.5), ("mi", 2.0, 3218.688), ("ft", 10.0, 3.048), ("yd", 1.0, 0.9144),
      ("cm", 250.0, 2.5),
    ])
  func distanceUnits(unit: String, value: Double, metres: Double) throws {
    let body =
      " <Record type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sourceName=\"iPhone\" unit=\"\(unit)\" startDate=\"2024-02-29 08:00:00 +0800\" endDate=\"2024-02-29 08:10:00 +0800\" value=\"\(value)\"/>"
    let outcome = try T.read(T.export(body))
    #expect(outcome.samples.count == 1)
    #expect(abs(T.distanceTotal(outcome.samples) - metres) < 1e-9)
  }

  @Test("Invalid records are counted with their line and column; reading goes on")
  func invalidRecords() throws {
    let xml = """
      <HealthData locale="en_US">
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2024-02-30 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="1"/>
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="lots"/>
        <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="A" unit="kcal" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="1"/>
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2024-02-29 08:10:00 +0800" endDate="2024-02-29 08:00:00 +0800" value="1">
        <MetadataEntry key="HKWasUserEntered" value="0"/>
       </Record>
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="-4"/>
       <Record type="HKQuantityTypeIdentifierStepCount" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="4"/>
       <Record type="HKQuantityTypeIdentifierStepCount" sourceName="A" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="40"/>
      </HealthData>
      """
    let outcome = try T.read(xml)
    #expect(outcome.samples.map(\.value) == [40])
    #expect(outcome.invalid.count == 6)
    #expect(outcome.info.invalidRecords == 6)
    let found = outcome.invalid.examples.map {
      "\($0.location?.line ?? 0):\($0.location?.column ?? 0) \($0.reason)"
    }
    #expect(
      found == [
        "2:2 unreadable date '2024-02-30 08:00:00 +0800'",
        "3:2 unreadable value 'lots'",
        "4:3 unit 'kcal' is not a length",
        "5:2 end date before start date",
        "8:2 negative value",
        "9:2 missing attribute 'sourceName'",
      ])
    #expect(outcome.invalid.examples.first?.location?.file == "export.xml")
    #expect(outcome.invalid.examples.first?.location?.description == "export.xml:2:2")
  }

  @Test("A 200,000-deep nest is read without recursion")
  func deepNesting() throws {
    let depth = 200_000
    var xml = "<HealthData locale=\"en\">"
    xml += String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
    xml += T.steps("8") + "</HealthData>"
    let outcome = try T.read(xml)
    #expect(T.stepTotal(outcome.samples) == 8)
  }

  @Test("A large attribute in a skipped record is read; one beyond the limit is an error")
  func largeAttribute() throws {
    let big = String(repeating: "x", count: 3 << 20)
    let body =
      " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"\(big)\" value=\"1\"/>\n"
      + T.steps("2")
    let outcome = try T.read(T.export(body), bufferBytes: 4096)
    #expect(T.stepTotal(outcome.samples) == 2)
    #expect(throws: HealthExportError.tokenTooLarge(file: "export.xml", line: 4, column: 2, limit: 1 << 20)) {
      _ = try T.read(T.export(body), bufferBytes: 4096, maximumTokenBytes: 1 << 20)
    }
  }

  @Test("A 100 MB attribute stops at the 64 MiB limit with a clear error")
  func hundredMegabyteAttribute() throws {
    var bytes = Array(
      "<HealthData locale=\"en\">\n <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"".utf8)
    bytes += [UInt8](repeating: 0x61, count: 100_000_000)
    bytes += Array("\"/></HealthData>".utf8)
    #expect(throws: HealthExportError.tokenTooLarge(file: "export.xml", line: 2, column: 2, limit: 64 << 20))
    {
      _ = try T.read(bytes: bytes, bufferBytes: 4 << 20)
    }
  }
}
