import Foundation
import Testing

@testable import HealthExport

/// The seed corpus of the zip fuzzer (Fuzz/corpus/zip), built with the test
/// writer. Run with `STEPKIT_WRITE_FUZZ_CORPUS=Fuzz/corpus/zip` to rewrite it.
@Suite("Zip fuzzer seeds")
struct ZipFuzzCorpusTests {
  static func seeds() -> [(name: String, bytes: [UInt8])] {
    let xml = Array(ZipTestSupport.healthXML.utf8)
    var seeds: [(String, [UInt8])] = []

    var stored = ZipTestWriter()
    stored.add("apple_health_export/export.xml", xml, .init(method: .stored))
    seeds.append(("stored.zip", stored.finished()))

    var descriptor = ZipTestWriter()
    descriptor.add("apple_health_export/", [])
    descriptor.add("apple_health_export/export.xml", xml, .init(dataDescriptor: true))
    descriptor.add("apple_health_export/export_cda.xml", "<ClinicalDocument/>\n<component/>\n")
    seeds.append(("descriptor.zip", descriptor.finished()))

    var zip64 = ZipTestWriter()
    zip64.add("apple_health_export/export.xml", xml, .init(dataDescriptor: true, zip64: true))
    seeds.append(("zip64.zip", zip64.finished(zip64End: true)))

    var legacy = ZipTestWriter()
    legacy.add("apple_health_export/export_cda.xml", "<ClinicalDocument/>")
    legacy.add("apple_health_export/导出.xml", xml, .init(utf8Flag: false))
    seeds.append(("legacy-name.zip", legacy.finished(comment: Array("Health".utf8))))

    var cp437 = ZipTestWriter()
    cp437.add("ignored", xml, .init(utf8Flag: false, rawName: [0x81, 0x62, 0x65, 0x72, 0x2E, 0x78, 0x6D, 0x6C], localExtraPadding: 12))
    seeds.append(("cp437-padded.zip", cp437.finished()))

    seeds.append(("empty.zip", ZipTestWriter().finished()))

    var badCRC = ZipTestWriter()
    badCRC.add("apple_health_export/export.xml", xml, .init(crcOverride: 0xDEAD_BEEF))
    seeds.append(("bad-crc.zip", badCRC.finished()))

    var truncated = ZipTestWriter()
    let long = ZipTestSupport.sampleText(lines: 20)
    truncated.add("apple_health_export/export.xml", long, .init(truncateCompressedTo: 60))
    seeds.append(("truncated-deflate.zip", truncated.finished()))
    return seeds
  }

  @Test("Seeds are small and behave as intended")
  func seedsBehave() throws {
    let seeds = Self.seeds()
    for (name, bytes) in seeds {
      #expect(bytes.count < 4096, "\(name) is too large for a seed")
      let archive = try ExportArchive(data: Data(bytes), name: name)
      switch name {
      case "empty.zip":
        #expect(throws: HealthExportError.self) { try archive.healthExportEntry() }
      case "bad-crc.zip":
        let entry = try archive.healthExportEntry()
        #expect(throws: HealthExportError.checksumMismatch(entry: "bad-crc.zip:apple_health_export/export.xml")) {
          try archive.forEachChunk(of: entry) { _ in true }
        }
      case "truncated-deflate.zip":
        // Even the first bytes cannot be checked, so the entry is not recognised.
        #expect(throws: HealthExportError.self) { try archive.healthExportEntry() }
        let entry = try #require(archive.entries.first)
        #expect(throws: HealthExportError.self) { try archive.forEachChunk(of: entry) { _ in true } }
      default:
        let entry = try archive.healthExportEntry()
        #expect(try archive.forEachChunk(of: entry) { _ in true } == Int64(ZipTestSupport.healthXML.utf8.count))
      }
    }
    if let folder = ProcessInfo.processInfo.environment["STEPKIT_WRITE_FUZZ_CORPUS"] {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      for (name, bytes) in seeds {
        try Data(bytes).write(to: URL(fileURLWithPath: folder).appendingPathComponent(name))
      }
    }
  }
}
