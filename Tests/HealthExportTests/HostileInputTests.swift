import Foundation
import StepKitCore
import Testing

@testable import HealthExport

/// Crafted inputs an attacker would try: each ends with a clear error or a
/// right answer, never a crash or memory without bound.
@Suite("Hostile inputs")
struct HostileInputTests {
  /// A small export with one step record of 120 steps.
  static let smallExport = ExportTestSupport.export(ExportTestSupport.steps("120"))

  /// Reads `bytes` as an export.zip through the public entry point, on `threads` threads.
  static func readZip(_ bytes: [UInt8], threads: Int = 1) throws -> (ExportInfo, SampleLog) {
    var log = SampleLog()
    let info = try ExportReader.read(.data(Data(bytes), name: "export.zip"), into: &log, threads: threads)
    return (info, log)
  }

  // MARK: 1. A declared size is a claim

  @Test(
    "a zip64 entry declaring 2^63−1, 2^48 or 2^40 bytes is a corrupt zip naming the entry, not a crash",
    arguments: [UInt64(Int64.max), 1 << 48, 1 << 40])
  func lyingUncompressedSize(declared: UInt64) throws {
    // 3,000 records: past the reader's first buffer, where the claim once overflowed or sized a reservation.
    let records = String(repeating: ExportTestSupport.steps("120") + "\n", count: 3000)
    var writer = ZipTestWriter()
    writer.add(
      "apple_health_export/export.xml", ExportTestSupport.export(records),
      .init(zip64: true, declaredUncompressedSize: declared))
    let bytes = writer.finished(zip64End: true)
    for threads in [1, 2] {
      #expect {
        _ = try Self.readZip(bytes, threads: threads)
      } throws: { error in
        guard case .corruptZip(_, let detail, _) = error as? HealthExportError else { return false }
        return detail.contains("export.xml declares \(declared) bytes uncompressed")
      }
    }
  }

  @Test("a declared size deflate can make but the data does not is reported after the data, with both sizes")
  func plausibleButWrongSize() throws {
    var writer = ZipTestWriter()
    let declared = UInt64(Self.smallExport.utf8.count + 1000)
    writer.add("export.xml", Self.smallExport, .init(zip64: true, declaredUncompressedSize: declared))
    #expect {
      _ = try Self.readZip(writer.finished(zip64End: true))
    } throws: { error in
      guard case .corruptCompressedData(_, let detail) = error as? HealthExportError else { return false }
      return detail.contains("but the directory declares \(declared)")
    }
  }

  @Test("reservations stop at a fixed size whatever the claim")
  func reservationIsBounded() {
    #expect(ExportDecoder.reservedSamples(forBytes: .max) == ExportDecoder.reservedSamples(forBytes: 4 << 30))
    #expect(ExportDecoder.reservedSamples(forBytes: -5) == 0)
    #expect(ZipEntryReader.mostInflatedBytes(fromCompressed: .max) == .max)
    #expect(ZipEntryReader.mostInflatedBytes(fromCompressed: 10) == 10 * 1032 + 1032)
  }

  @Test("a scanner over a source claiming 2^63−1 bytes keeps its default buffer")
  func scannerClampsClaim() throws {
    struct Claiming: ByteChunkSource {
      var inner: ChunkedSource
      var displayName: String { inner.displayName }
      var expectedByteCount: Int64? { .max }
      mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try inner.read(into: buffer)
      }
    }
    var log = SampleLog()
    let source = Claiming(inner: ChunkedSource(Array(Self.smallExport.utf8), chunkSize: .max))
    _ = try ExportReader.read(source: source, into: &log)
    #expect(log.count == 1)
  }

  // MARK: 2, 4. Values and dates no device makes

  /// Reads `body` in an export both ways: every tag lexed, and records read straight from their bytes.
  static func readBothWays(_ body: String) throws -> [ReadOutcome] {
    let xml = ExportTestSupport.export(body)
    // Enough line feeds after the records that each is read from its bytes (the 4 KiB window).
    let padded = xml + String(repeating: "\n", count: 5000)
    return [
      try ExportTestSupport.read(xml, bufferBytes: 64), try ExportTestSupport.read(padded),
    ]
  }

  @Test(
    "values of 2^63, 10^7 a minute and 10^6 in an instant and more are invalid with their place; 10^6 a minute is not",
    arguments: [
      ("9223372036854775808", false), ("1e300", false), ("10000000", false), ("1000001", false),
      ("1000000", true), ("999999.5", true),
    ])
  func implausibleValue(value: String, valid: Bool) throws {
    // A one-minute record, and an instant of the same value.
    let body =
      ExportTestSupport.steps(value, start: "2024-02-29 08:00:00 +0800", end: "2024-02-29 08:01:00 +0800")
      + "\n"
      + ExportTestSupport.steps(value, start: "2024-02-29 09:00:00 +0800", end: "2024-02-29 09:00:00 +0800")
    for outcome in try Self.readBothWays(body) {
      #expect(outcome.samples.count == (valid ? 2 : 0))
      #expect(outcome.invalid.count == (valid ? 0 : 2))
      if !valid {
        #expect(
          outcome.invalid.examples.map(\.description) == [
            "export.xml:4:2: more than 1,000,000 a minute, not a walk",
            "export.xml:5:2: more than 1,000,000 a minute, not a walk",
          ])
      }
    }
  }

  @Test("a long sample may hold 10^6 a minute of its length: 10^9 over a day is plausible")
  func longSampleScales() throws {
    let body = ExportTestSupport.steps(
      "1000000000", start: "2024-02-28 08:00:00 +0800", end: "2024-02-29 08:00:00 +0800")
    for outcome in try Self.readBothWays(body) { #expect(outcome.samples.count == 1) }
  }

  @Test(
    "a sample starting before 2000-01-01 00:00 UTC is invalid (a reset clock); one at that instant is read",
    arguments: [
      ("0001-01-01 08:00:00 +0000", false), ("1970-01-01 00:00:00 +0000", false),
      ("1999-12-31 23:59:59 +0000", false), ("2000-01-01 07:59:59 +0800", false),
      ("2000-01-01 00:00:00 +0000", true), ("2014-09-17 10:00:00 -0700", true),
    ])
  func beforeHealthKit(start: String, valid: Bool) throws {
    let body = ExportTestSupport.steps("12", start: start, end: "2024-02-29 08:00:00 +0800")
    for outcome in try Self.readBothWays(body) {
      #expect(outcome.samples.count == (valid ? 1 : 0))
      if !valid {
        #expect(
          outcome.invalid.examples.map(\.description) == [
            "export.xml:4:2: starts before 2000, years before HealthKit, a wrong device clock"
          ])
      }
    }
  }

  @Test("a step record in km (or any unit but count) is invalid, naming the unit")
  func stepsInKilometres() throws {
    let body = ExportTestSupport.steps("12").replacingOccurrences(of: "unit=\"count\"", with: "unit=\"km\"")
    for outcome in try Self.readBothWays(body) {
      #expect(outcome.samples.isEmpty)
      #expect(
        outcome.invalid.examples.map(\.description) == ["export.xml:4:2: unit 'km' is not a step count"])
    }
  }

  // MARK: 6. Duplicate attributes

  @Test(
    "a duplicated attribute in a step record, its metadata or the export date is malformed XML at the second one",
    arguments: [
      (ExportTestSupport.steps("100", extra: " value=\"999999\""), 4, "value"),
      (
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\""
          + " sourceName=\"iPhone\" unit=\"count\" startDate=\"2024-02-29 08:00:00 +0800\""
          + " endDate=\"2024-02-29 08:10:00 +0800\" value=\"5\"/>", 4, "type"
      ),
      (
        ExportTestSupport.steps("100").replacingOccurrences(of: "/>", with: ">")
          + "\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"0\" value=\"1\"/>\n </Record>", 5, "value"
      ),
    ])
  func duplicateAttribute(body: String, line: Int, name: String) throws {
    for buffer in [64, 1 << 16] {
      let error = ExportTestSupport.error(ExportTestSupport.export(body), bufferBytes: buffer)
      guard case .malformedXML(_, let errorLine, _, let detail) = error else {
        Issue.record("expected malformed XML, got \(String(describing: error))")
        continue
      }
      #expect(errorLine == line)
      #expect(detail == "attribute '\(name)' appears twice in one tag (XML allows each name once)")
    }
  }

  @Test("a duplicated ExportDate value is malformed XML")
  func duplicateExportDate() {
    let xml = """
      <?xml version="1.0" encoding="UTF-8"?>
      <HealthData locale="en_US">
       <ExportDate value="2024-03-01 09:00:00 +0800" value="2099-01-01 00:00:00 +0000"/>
      </HealthData>
      """
    guard case .malformedXML(_, 3, 48, _) = ExportTestSupport.error(xml) else {
      Issue.record("expected malformed XML at 3:48, got \(String(describing: ExportTestSupport.error(xml)))")
      return
    }
  }

  /// An active-energy record whose `value` is given twice (at line 4).
  static let energyTwice =
    " <Record type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" sourceName=\"Watch\" unit=\"kcal\""
    + " startDate=\"2024-02-29 08:00:00 +0800\" endDate=\"2024-02-29 08:10:00 +0800\" value=\"5\" value=\"9999\"/>"

  /// Whether `error` is malformed XML at `line` naming `name` as given twice.
  static func isDuplicate(_ error: any Error, line: Int, name: String) -> Bool {
    guard
      case .malformedXML(_, let errorLine, _, let detail) = HealthExportError(
        wrapping: error, path: "export.xml")
    else { return false }
    return errorLine == line
      && detail == "attribute '\(name)' appears twice in one tag (XML allows each name once)"
  }

  @Test("a duplicated attribute in a record of the counted type is malformed; passed over, it is not read")
  func duplicateInCountedType() throws {
    let xml = Array(ExportTestSupport.export(Self.energyTwice + "\n" + ExportTestSupport.steps("100")).utf8)
    for fast in [true, false] {
      for chunk in [Int.max, 7] {
        var counted = SampleLog()
        counted.countedType = .activeEnergyBurned
        #expect {
          _ = try ExportReader.read(
            source: ChunkedSource(xml, chunkSize: chunk), into: &counted, fastRecords: fast)
        } throws: { Self.isDuplicate($0, line: 4, name: "value") }
        // Counting steps, the energy record is passed over on its type, its other attributes unread.
        var steps = SampleLog()
        _ = try ExportReader.read(
          source: ChunkedSource(xml, chunkSize: chunk), into: &steps, fastRecords: fast)
        #expect(steps.samples.map(\.value) == [100])
      }
    }
  }

  @Test(
    "every record, metadata entry, <Me> and root read whole (forEachRecord, totals --list) rejects a name given twice",
    arguments: [
      (ExportTestSupport.export(Self.energyTwice), 4, "value"),
      (
        ExportTestSupport.export(
          ExportTestSupport.steps("100").replacingOccurrences(of: "/>", with: ">")
            + "\n  <MetadataEntry key=\"HKWasUserEntered\" key=\"HKTimeZone\" value=\"1\"/>\n </Record>"), 5,
        "key"
      ),
      (
        ExportTestSupport.export(
          " <Me HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexFemale\""
            + " HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexMale\"/>"), 4,
        "HKCharacteristicTypeIdentifierBiologicalSex"
      ),
      (
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\" locale=\"zh_CN\">\n</HealthData>",
        2, "locale"
      ),
    ])
  func duplicateWhereDecoded(xml: String, line: Int, name: String) {
    #expect {
      try ExportReader.forEachRecord(in: .data(Data(xml.utf8), name: "export.xml"), types: nil) { _ in }
    } throws: { Self.isDuplicate($0, line: line, name: name) }
    // A record filtered out on its type is not decoded; a step record's metadata, `<Me>` and the
    // root always are.
    if line == 4 && name == "value" {
      #expect(throws: Never.self) {
        try ExportReader.forEachRecord(
          in: .data(Data(xml.utf8), name: "export.xml"), types: ["HKQuantityTypeIdentifierStepCount"]
        ) { _ in }
      }
    } else {
      #expect { _ = try ExportTestSupport.read(xml) } throws: { Self.isDuplicate($0, line: line, name: name) }
    }
  }

  // MARK: 7. A NUL inside a value

  @Test(
    "a NUL inside a value makes it unreadable, as any other control character does",
    arguments: ["\u{0}", "\u{1}"])
  func controlCharacterInValue(character: String) throws {
    let body = ExportTestSupport.steps("10" + character + "0") + "\n" + ExportTestSupport.steps("7")
    for outcome in try Self.readBothWays(body) {
      #expect(outcome.samples.map(\.value) == [7])
      #expect(outcome.invalid.count == 1)
      #expect(outcome.invalid.examples.first?.location?.line == 4)
    }
  }

  // MARK: Clear messages

  @Test(
    "a UTF-16 or UTF-32 export names its encoding and how to convert it",
    arguments: [
      (String.Encoding.utf16LittleEndian, "UTF-16LE"), (.utf16BigEndian, "UTF-16BE"),
      (.utf32LittleEndian, "UTF-32LE"), (.utf32BigEndian, "UTF-32BE"), (.utf16, "UTF-16"),
    ])
  func wideEncodings(encoding: String.Encoding, name: String) throws {
    let bytes = try #require(Self.smallExport.data(using: encoding))
    #expect {
      _ = try ExportTestSupport.read(bytes: Array(bytes))
    } throws: { error in
      guard case .malformedXML(_, 1, 1, let detail) = error as? HealthExportError else { return false }
      return detail.contains("is \(name)") && detail.contains("iconv -f \(name)")
    }
  }

  @Test("an export declaring ISO-8859-1 is refused at the declaration, not read with é turned into U+FFFD")
  func latin1() {
    let xml = Self.smallExport.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"ISO-8859-1\"")
    guard case .malformedXML(_, 1, 31, let detail) = ExportTestSupport.error(xml) else {
      Issue.record("expected malformed XML at 1:31, got \(String(describing: ExportTestSupport.error(xml)))")
      return
    }
    #expect(detail.contains("declares encoding ISO-8859-1"))
    // UTF-8 and ASCII, in any case, are read.
    for name in ["utf-8", "UTF8", "US-ASCII"] {
      let declared = Self.smallExport.replacingOccurrences(of: "UTF-8", with: name)
      #expect(ExportTestSupport.error(declared) == nil)
    }
  }

  @Test("an empty archive says it is empty, in every language")
  func emptyArchive() {
    let error = HealthExportError.noHealthExportXML(path: "export.zip", entries: [])
    #expect(
      error.description(in: .english)
        == "export.zip is an empty zip archive: it holds no files, so no Health export XML (<HealthData>).")
    #expect(error.description(in: .simplifiedChinese).contains("空的 zip 压缩包"))
    #expect(error.description(in: .traditionalChinese).contains("空的 zip 壓縮檔"))
    #expect {
      _ = try Self.readZip(ZipTestWriter().finished())
    } throws: { error in
      (error as? HealthExportError).map { $0.description(in: .english).contains("empty zip archive") }
        ?? false
    }
  }

  @Test("the 65,537th source is reported as one source too many, not a date out of range")
  func tooManySources() throws {
    let count = SampleLog.maximumOrigins + 1
    var body = ""
    for index in 0..<count { body += ExportTestSupport.steps("1", source: "S\(index)") + "\n" }
    let outcome = try ExportTestSupport.read(ExportTestSupport.export(body))
    #expect(outcome.samples.count == count - 1)
    #expect(
      outcome.invalid.examples.map(\.description) == [
        "export.xml:\(count + 3):2: one source or device more than the 65,536 an export may hold"
      ])
  }

  @Test("a self-extracting archive (a program, then the zip) is read as the zip it holds")
  func selfExtracting() throws {
    let stub =
      Array("#!/bin/sh\necho this is an installer\nexit 0\n".utf8) + [UInt8](repeating: 0x90, count: 3000)
    var writer = ZipTestWriter(prefix: stub)
    writer.add("apple_health_export/export.xml", Self.smallExport)
    let (info, log) = try Self.readZip(writer.finished())
    #expect(info.xmlEntryName == "apple_health_export/export.xml")
    #expect(log.count == 1)
    // A file with neither a zip nor XML in it is still "not a zip archive".
    #expect {
      _ = try Self.readZip(stub)
    } throws: { error in
      if case .notAZip = error as? HealthExportError { return true }
      return false
    }
  }

  @Test("of two Health exports in one archive, the info names the one read and the other")
  func twoExports() throws {
    var writer = ZipTestWriter()
    writer.add("apple_health_export/export.xml", Self.smallExport)
    writer.add("backup/export.xml", ExportTestSupport.export(ExportTestSupport.steps("999")))
    writer.add("apple_health_export/export_cda.xml", "<ClinicalDocument/>")
    let (info, log) = try Self.readZip(writer.finished())
    #expect(info.xmlEntryName == "apple_health_export/export.xml")
    #expect(info.otherXMLEntryNames == ["backup/export.xml"])
    #expect(log.samples.map(\.value) == [120])
  }
}
