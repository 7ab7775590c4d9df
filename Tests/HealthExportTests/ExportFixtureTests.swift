import Foundation
import StepKitCore
import Testing

@testable import HealthExport

@Suite("Real export fixtures")
struct ExportFixtureTests {
  @Test("tdda v3 sample: 10 step records = 2,517 steps, 5 distance records = 19.43 m")
  func tddaSample() throws {
    let data = try ExportTestSupport.fixture("tdda-export6s3sample.xml")
    var log = SampleLog()
    let info = try ExportReader.read(.data(data, name: "export.xml"), into: &log)
    // 329+283+426+61+10+200+390+320+216+282 = 2517
    #expect(log.count == 15)
    #expect(ExportTestSupport.stepTotal(log.samples) == 2517)
    // (0.00288+0.00284+0.00142+0.00639+0.0059) km = 19.43 m
    #expect(abs(ExportTestSupport.distanceTotal(log.samples) - 19.43) < 1e-9)
    #expect(info.exportVersion == 3)
    #expect(info.locale == "en_GB")
    #expect(info.exportDate == "2016-04-15 07:27:26 +0100")
    #expect(info.exportedAt == Date(timeIntervalSince1970: 1_460_701_646))
    #expect(info.exportUTCOffsetSeconds == 3600)
    #expect(info.me.dateOfBirth == "1965-07-31")
    #expect(info.me.biologicalSex == "HKBiologicalSexMale")
    #expect(info.me.bloodType == "HKBloodTypeNotSet")
    #expect(info.me.fitzpatrickSkinType == "HKFitzpatrickSkinTypeNotSet")
    #expect(info.me.cardioFitnessMedicationsUse == nil)
    #expect(info.recordCount == 15)
    #expect(info.stepAndDistanceRecords == 15)
    #expect(info.invalidRecords == 0)
    #expect(info.xmlEntryName == nil)
    #expect(info.xmlByteCount == Int64(data.count))
    #expect(log.invalid.isEmpty)
    #expect(log.sourceNames == ["Health"])

    // The first record: 2014-09-13 10:27:54 +0100 = 09:27:54 UTC.
    let first = log.sample(at: 0)
    #expect(first.kind == .steps)
    #expect(first.value == 329)
    #expect(first.start == Date(timeIntervalSince1970: 1_410_600_474))
    #expect(first.end == Date(timeIntervalSince1970: 1_410_600_479))
    #expect(first.utcOffsetSeconds == 3600)
    #expect(first.device == nil)
    #expect(!first.isUserEntered)
  }

  @Test("healthkit-to-sqlite sample: no steps, Me and metadata read, other types skipped")
  func healthKitToSQLiteSample() throws {
    let data = try ExportTestSupport.fixture("hk2sqlite-export.xml")
    var log = SampleLog()
    let info = try ExportReader.read(.data(data, name: "export.xml"), into: &log)
    #expect(log.count == 0)
    #expect(info.recordCount == 2)
    #expect(info.stepAndDistanceRecords == 0)
    #expect(info.exportVersion == nil)
    #expect(info.locale == "en_US")
    #expect(info.me.dateOfBirth == "1990-02-02")
    #expect(info.me.birthDate == LocalDate(year: 1990, month: 2, day: 2))
    #expect(info.exportUTCOffsetSeconds == -7 * 3600)
  }

  @Test("forEachRecord yields the heart-rate record with its decoded device and metadata")
  func forEachRecordOnFixture() throws {
    let data = try ExportTestSupport.fixture("hk2sqlite-export.xml")
    var records: [ExportRecord] = []
    try ExportReader.forEachRecord(in: .data(data, name: "export.xml"), types: ["HKQuantityTypeIdentifierHeartRate"]) {
      records.append($0)
    }
    #expect(records.count == 1)
    let record = try #require(records.first)
    // The real file writes a no-break space (U+00A0) in this source name.
    #expect(record.sourceName == "Apple\u{00A0}Watch")
    #expect(
      record.deviceDescription
        == "<<HKDevice: 0x282a45810>, name:Apple Watch, manufacturer:Apple, model:Watch, hardware:Watch2,4, software:4.3.1>")
    #expect(record.device?.hardware == "Watch2,4")
    #expect(record.metadata == [ExportRecord.MetadataEntry(key: "HKMetadataKeyHeartRateMotionContext", value: "0")])
    #expect(record.location.line == 11)
    #expect(record.location.column == 5)

    var all: [String] = []
    try ExportReader.forEachRecord(in: .data(data, name: "export.xml"), types: nil) { all.append($0.type) }
    #expect(all == ["HKQuantityTypeIdentifierBodyMassIndex", "HKQuantityTypeIdentifierHeartRate"])
    var withingsLink: String?
    try ExportReader.forEachRecord(in: .data(data, name: "export.xml"), types: ["HKQuantityTypeIdentifierBodyMassIndex"]) {
      withingsLink = $0.metadata.first { $0.key == "Withings Link" }?.value
      #expect(!$0.isUserEntered)
    }
    #expect(withingsLink == "withings-bd2://timeline/measure?userid=12345&date=482685932&type=1")
  }

  @Test("A zip archive is recognised by content, whatever its name, and its entry named")
  func zipByContent() throws {
    let xml = try ExportTestSupport.fixture("tdda-export6s3sample.xml")
    var writer = ZipTestWriter()
    writer.add("apple_health_export/export_cda.xml", "<ClinicalDocument/>")
    writer.add("apple_health_export/导出.xml", Array(xml))
    let zip = Data(writer.finished())
    var log = SampleLog()
    let info = try ExportReader.read(.data(zip, name: "download.bin"), into: &log)
    #expect(info.xmlEntryName == "apple_health_export/导出.xml")
    #expect(info.fileName == "download.bin:apple_health_export/导出.xml")
    #expect(ExportTestSupport.stepTotal(log.samples) == 2517)

    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let zipPath = directory.appendingPathComponent("health-export").path
    try zip.write(to: URL(fileURLWithPath: zipPath))
    var fromFile = SampleLog()
    let fileInfo = try ExportReader.read(.path(zipPath), into: &fromFile)
    #expect(fileInfo.xmlEntryName == "apple_health_export/导出.xml")
    #expect(fromFile.count == 15)

    let xmlPath = directory.appendingPathComponent("export.zip").path
    try xml.write(to: URL(fileURLWithPath: xmlPath))
    var fromXML = SampleLog()
    let xmlInfo = try ExportReader.read(.path(xmlPath), into: &fromXML)
    #expect(xmlInfo.xmlEntryName == nil)
    #expect(fromXML.count == 15)

    let garbagePath = directory.appendingPathComponent("broken.zip").path
    try Data("not an archive".utf8).write(to: URL(fileURLWithPath: garbagePath))
    var nothing = SampleLog()
    #expect(throws: HealthExportError.notAZip(path: garbagePath)) {
      try ExportReader.read(.path(garbagePath), into: &nothing)
    }
    #expect(throws: HealthExportError.notAHealthExport(file: "notes.txt")) {
      try ExportReader.read(.data(Data("hello".utf8), name: "notes.txt"), into: &nothing)
    }
  }

  @Test("Progress is reported, ending at the full size")
  func progress() throws {
    let data = try ExportTestSupport.fixture("tdda-export6s3sample.xml")
    let reports = ReportCollector()
    var log = SampleLog()
    _ = try ExportReader.read(.data(data, name: "export.xml"), into: &log) { reports.add($0) }
    let last = try #require(reports.all.last)
    #expect(last.bytesRead == Int64(data.count))
    #expect(last.totalBytes == Int64(data.count))
    #expect(last.fractionCompleted == 1)
  }
}

/// Collects progress reports from a `@Sendable` callback.
final class ReportCollector: @unchecked Sendable {
  private let lock = NSLock()
  private var reports: [ExportProgress] = []
  func add(_ report: ExportProgress) {
    lock.lock()
    reports.append(report)
    lock.unlock()
  }
  var all: [ExportProgress] {
    lock.lock()
    defer { lock.unlock() }
    return reports
  }
}
