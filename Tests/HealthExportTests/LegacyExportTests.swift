import Foundation
import StepKitCore
import Testing

@testable import HealthExport

/// iOS 8 and iOS 9 exports (2014–2015) and records from wrong device clocks,
/// written from the format facts: `source=`, compact dates, the user-entered
/// flag as an attribute, fractional steps, `recordCount`, and metadata written
/// as attributes whose names hold spaces.
@Suite("iOS 8 and iOS 9 exports, clock glitches")
struct LegacyExportTests {
  typealias T = ExportTestSupport

  /// An iOS 8.3 export: no DTD, compact dates at one offset, every quirk once.
  static let iOS8 = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="20140114084347-0800"/>
     <Record type="HKQuantityTypeIdentifierStepCount" source="Ada’s iPhone" unit="count" startDate="20140104084300-0800" endDate="20140104085300-0800" value="2741.7" recordCount="191"/>
     <Record type="HKQuantityTypeIdentifierStepCount" source="Health" unit="count" startDate="20140105120000-0800" endDate="20140105130000-0800" value="1000" HKWasUserEntered="1"/>
     <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" source="Health Mate" unit="km" startDate="20140106070000-0800" endDate="20140106073000-0800" value="1.25" Health Mate App Version="2.6.2" Withings User Identifier="7985588"/>
     <Record type="HKQuantityTypeIdentifierStepCount" source='Health Mate' unit="count" startDate="20140106070000-0800" endDate="20140106073000-0800" value="1500" Health Mate App Version="2.6.2"/>
    </HealthData>

    """

  @Test(
    "Compact iOS 8 dates parse to the instant and offset",
    arguments: [
      ("20140104084300-0800", 1_388_853_780_000, -28_800),
      ("19700101000000+0000", 0, 0),
      ("20240229235959+0530", 1_709_231_399_000, 19_800),
    ] as [(String, Int64, Int)])
  func compactDates(text: String, milliseconds: Int64, offset: Int) {
    #expect(
      ExportDateParser.parse(text)
        == ExportDateParser.Parsed(epochMilliseconds: milliseconds, utcOffsetSeconds: offset))
  }

  @Test(
    "Malformed compact dates are rejected",
    arguments: [
      "20140104084300", "20140104084300-08000", "2014010408430a-0800", "20140230084300-0800",
      "20140104244300-0800", "20140104084300*0800", "20140104084300-0860",
    ])
  func malformedCompactDates(text: String) {
    #expect(ExportDateParser.parse(text) == nil)
  }

  @Test("An iOS 8 export is read: source=, compact dates, the flag attribute, fractional steps")
  func iOS8Export() throws {
    for chunkSize in [Int.max, 7] {
      let outcome = try T.read(Self.iOS8, bufferBytes: 256, chunkSize: chunkSize)
      #expect(outcome.invalid.isEmpty)
      #expect(outcome.info.invalidRecords == 0)
      #expect(outcome.info.stepAndDistanceRecords == 4)
      #expect(outcome.info.recordCount == 4)
      #expect(outcome.info.exportUTCOffsetSeconds == -28_800)
      #expect(outcome.info.exportedAt == Date(timeIntervalSince1970: 1_389_717_827))
      #expect(outcome.samples.map(\.source) == ["Ada’s iPhone", "Health", "Health Mate", "Health Mate"])
      #expect(outcome.samples.map(\.isUserEntered) == [false, true, false, false])
      #expect(outcome.samples.map(\.value) == [2741.7, 1000, 1250, 1500])
      #expect(outcome.samples[0].utcOffsetSeconds == -28_800)
      #expect(outcome.samples[0].start == Date(timeIntervalSince1970: 1_388_853_780))
      #expect(outcome.info.userEnteredRecords == 1)
      // Three attributes named with spaces: skipped and counted, their records kept.
      #expect(outcome.info.malformedAttributes == 3)
    }
  }

  @Test("forEachRecord reads the iOS 8 source and flag too")
  func iOS8Records() throws {
    var records: [ExportRecord] = []
    try ExportReader.forEachRecord(in: .data(Data(Self.iOS8.utf8), name: "export.xml"), types: nil) {
      records.append($0)
    }
    #expect(records.map(\.sourceName) == ["Ada’s iPhone", "Health", "Health Mate", "Health Mate"])
    #expect(records.map(\.isUserEntered) == [false, true, false, false])
    #expect(records.first?.start == Date(timeIntervalSince1970: 1_388_853_780))
  }

  @Test("A sample starting after the export date is invalid, with its line and column")
  func sampleAfterExportDate() throws {
    let xml = T.export(
      T.steps("100") + "\n"
        + T.steps("5000", start: "2030-06-01 08:00:00 +0800", end: "2030-06-01 08:10:00 +0800") + "\n"
        + T.steps("7", start: "2024-03-01 09:00:00 +0800", end: "2024-03-01 09:05:00 +0800"))
    let outcome = try T.read(xml)
    // The last one starts exactly at the export date: still valid.
    #expect(outcome.samples.map(\.value) == [100, 7])
    #expect(outcome.info.invalidRecords == 1)
    let example = try #require(outcome.invalid.examples.first)
    #expect(example.reason == .startsAfterExport)
    #expect(example.location?.line == 5)
    #expect(example.location?.column == 2)
  }

  @Test("A record with neither sourceName nor source is reported as missing sourceName")
  func missingSource() throws {
    let xml = T.export(
      " <Record type=\"HKQuantityTypeIdentifierStepCount\" unit=\"count\" startDate=\"20140104084300-0800\" endDate=\"20140104085300-0800\" value=\"3\"/>"
    )
    let outcome = try T.read(xml)
    #expect(outcome.invalid.examples.map(\.reason) == [.missingAttribute("sourceName")])
  }
}
