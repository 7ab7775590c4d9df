import Foundation
import Testing

@testable import HealthExport

@Suite("Zip archive")
struct ZipArchiveTests {
  struct Variant: CustomTestStringConvertible, Sendable {
    var method: ZipTestWriter.Method
    var dataDescriptor: Bool
    var zip64: Bool
    var zip64End: Bool
    var testDescription: String {
      "\(method)\(dataDescriptor ? "+descriptor" : "")\(zip64 ? "+zip64" : "")\(zip64End ? "+zip64end" : "")"
    }
  }

  static let variants: [Variant] = [ZipTestWriter.Method.stored, .deflated].flatMap { method in
    [false, true].flatMap { descriptor in
      [false, true].flatMap { zip64 in
        [false, true].map { Variant(method: method, dataDescriptor: descriptor, zip64: zip64, zip64End: $0) }
      }
    }
  }

  @Test("Entries read back identically", arguments: variants)
  func roundTrip(variant: Variant) throws {
    let big = ZipTestSupport.sampleText(lines: 3000)
    var writer = ZipTestWriter()
    let options = ZipTestWriter.EntryOptions(
      method: variant.method, dataDescriptor: variant.dataDescriptor, zip64: variant.zip64)
    writer.add("apple_health_export/", [], options)
    writer.add("apple_health_export/export.xml", big, options)
    writer.add("apple_health_export/empty.txt", [], options)
    writer.add("apple_health_export/export_cda.xml", "<ClinicalDocument/>", options)
    let archive = try ZipTestSupport.archive(writer.finished(zip64End: variant.zip64End))

    #expect(
      archive.entries.map(\.name) == [
        "apple_health_export/", "apple_health_export/export.xml", "apple_health_export/empty.txt",
        "apple_health_export/export_cda.xml",
      ])
    #expect(archive.entries[0].isDirectory)
    let xml = archive.entries[1]
    #expect(xml.uncompressedSize == Int64(big.count))
    #expect(xml.method == (variant.method == .stored ? 0 : 8))
    #expect(try ZipTestSupport.readSynchronously(xml, of: archive) == big)
    #expect(try ZipTestSupport.readPipelined(xml, of: archive) == big)
    #expect(try ZipTestSupport.readSynchronously(archive.entries[2], of: archive) == [])
    #expect(try ZipTestSupport.readPipelined(archive.entries[2], of: archive) == [])
    #expect(
      try ZipTestSupport.readPipelined(archive.entries[3], of: archive) == Array("<ClinicalDocument/>".utf8))
  }

  @Test("The end record is found behind a comment, even one holding a fake end signature")
  func comment() throws {
    var writer = ZipTestWriter()
    writer.add("a.txt", "hello")
    let fakeEnd: [UInt8] = [0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 7, count: 30)
    for comment in [Array("exported by Health".utf8), fakeEnd, [UInt8](repeating: 0x41, count: 65535)] {
      let archive = try ZipTestSupport.archive(writer.finished(comment: comment))
      #expect(archive.entries.map(\.name) == ["a.txt"])
      #expect(try ZipTestSupport.readSynchronously(archive.entries[0], of: archive) == Array("hello".utf8))
    }
  }

  @Test("Junk after the end record is tolerated")
  func trailingJunk() throws {
    var writer = ZipTestWriter()
    writer.add("a.txt", "hello")
    let archive = try ZipTestSupport.archive(writer.finished(trailing: [0, 0, 0, 0, 0]))
    #expect(try ZipTestSupport.readPipelined(archive.entries[0], of: archive) == Array("hello".utf8))
  }

  @Test("Bytes in front of the archive shift every offset")
  func prefixedArchive() throws {
    var writer = ZipTestWriter(prefix: Array("#!/bin/sh\nexit 0\n".utf8))
    writer.add("a.txt", "shifted", .init(method: .stored))
    writer.add("b.txt", "also shifted")
    // Offsets are written relative to the archive start, as self-extractors do.
    var bytes = writer.finished()
    let prefixLength = 17
    bytes = Array(bytes[..<prefixLength]) + Self.rebase(Array(bytes[prefixLength...]), by: prefixLength)
    let archive = try ZipTestSupport.archive(bytes)
    #expect(try ZipTestSupport.readSynchronously(archive.entries[0], of: archive) == Array("shifted".utf8))
    #expect(
      try ZipTestSupport.readSynchronously(archive.entries[1], of: archive) == Array("also shifted".utf8))
  }

  /// Rewrites the directory offsets of a prefixed archive as if the prefix were not there.
  private static func rebase(_ archive: [UInt8], by shift: Int) -> [UInt8] {
    var bytes = archive
    func u32(_ at: Int) -> Int {
      Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
    }
    func set32(_ at: Int, _ value: Int) {
      for index in 0..<4 { bytes[at + index] = UInt8((value >> (8 * index)) & 0xFF) }
    }
    let end = bytes.count - 22
    let directory = u32(end + 16) - shift
    set32(end + 16, directory)
    var position = directory
    while u32(position) == 0x0201_4b50 {
      set32(position + 42, u32(position + 42) - shift)
      let nameLength = Int(bytes[position + 28]) | Int(bytes[position + 29]) << 8
      position += 46 + nameLength
    }
    return bytes
  }

  @Test("A local header's own name and extra lengths locate the data")
  func localExtraDiffers() throws {
    var writer = ZipTestWriter()
    writer.add("a.xml", "padded", .init(localExtraPadding: 28))
    let archive = try ZipTestSupport.archive(writer.finished())
    #expect(try ZipTestSupport.readPipelined(archive.entries[0], of: archive) == Array("padded".utf8))
  }

  @Test(
    "Names: UTF-8 with and without the flag, code page 437 without it",
    arguments: [
      (Array("apple_health_export/导出.xml".utf8), true, "apple_health_export/导出.xml"),
      (Array("apple_health_export/导出.xml".utf8), false, "apple_health_export/导出.xml"),
      (Array("apple_health_export/輸出.xml".utf8), false, "apple_health_export/輸出.xml"),
      ([0x81, 0x62, 0x65, 0x72, 0x2E, 0x78, 0x6D, 0x6C], false, "über.xml"),
      ([0x45, 0x78, 0x70, 0x6F, 0x72, 0x74, 0xE1, 0x2E, 0x78, 0x6D, 0x6C], false, "Exportß.xml"),
    ])
  func names(raw: [UInt8], utf8Flag: Bool, expected: String) throws {
    var writer = ZipTestWriter()
    writer.add("ignored", "x", .init(utf8Flag: utf8Flag, rawName: raw))
    let archive = try ZipTestSupport.archive(writer.finished())
    #expect(archive.entries[0].name == expected)
    #expect(archive.entries[0].rawName == raw)
    #expect(archive.entries[0].hasUTF8Flag == utf8Flag)
  }

  @Test("An Info-ZIP Unicode path field names the entry; junk extra fields are ignored")
  func unicodePathField() throws {
    let unicode = Array("apple_health_export/导出.xml".utf8)
    var field: [UInt8] = [0x75, 0x70]
    field += [UInt8((unicode.count + 5) & 0xFF), UInt8((unicode.count + 5) >> 8), 1, 0, 0, 0, 0]
    field += unicode
    var writer = ZipTestWriter()
    writer.add(
      "ignored", ZipTestSupport.healthXML,
      .init(utf8Flag: false, rawName: Array("apple_health_export/?.xml".utf8), centralExtra: field))
    writer.add("b.txt", "x", .init(centralExtra: [0xFE, 0xCA, 0xFF, 0x00, 1]))
    let archive = try ZipTestSupport.archive(writer.finished())
    #expect(archive.entries.map(\.name) == ["apple_health_export/导出.xml", "b.txt"])
    #expect(try HealthXMLLocator.healthExportEntry(in: archive).name == "apple_health_export/导出.xml")
  }

  @Test("Not a zip", arguments: [[], Array("<HealthData/>".utf8), [UInt8](repeating: 0x50, count: 100)])
  func notAZip(bytes: [UInt8]) {
    #expect(throws: HealthExportError.notAZip(path: "export.zip")) {
      try ZipTestSupport.archive(bytes)
    }
  }

  @Test("An empty archive has no entries and no Health XML")
  func emptyArchive() throws {
    let archive = try ZipTestSupport.archive(ZipTestWriter().finished())
    #expect(archive.entries.isEmpty)
    #expect(throws: HealthExportError.noHealthExportXML(path: "export.zip", entries: [])) {
      try HealthXMLLocator.healthExportEntry(in: archive)
    }
  }

  @Test("A central directory pointing past the file is corrupt, with the offset")
  func directoryOutside() throws {
    var writer = ZipTestWriter()
    writer.add("a.txt", "hello")
    var bytes = writer.finished()
    let end = bytes.count - 22
    bytes[end + 16] = 0xF0
    bytes[end + 17] = 0xFF
    let error = #expect(throws: HealthExportError.self) { try ZipTestSupport.archive(bytes) }
    guard case .corruptZip(let path, _, let offset) = error else {
      Issue.record("expected corruptZip, got \(String(describing: error))")
      return
    }
    #expect(path == "export.zip")
    #expect(offset == Int64(end))
  }

  @Test("Unsupported methods and encryption are named errors")
  func unsupported() throws {
    var writer = ZipTestWriter()
    writer.add("bzip.xml", "x", .init(method: .stored, methodNumberOverride: 12))
    writer.add("secret.xml", "x", .init(extraFlags: 0x0001))
    let archive = try ZipTestSupport.archive(writer.finished())
    #expect(throws: HealthExportError.unsupportedCompression(entry: "export.zip:bzip.xml", method: 12)) {
      try ZipTestSupport.readSynchronously(archive.entries[0], of: archive)
    }
    #expect(throws: HealthExportError.encryptedEntry(entry: "export.zip:secret.xml")) {
      try ZipTestSupport.readPipelined(archive.entries[1], of: archive)
    }
  }

  @Test(
    "Every truncation of an archive fails with a zip error or reads correctly",
    .hangLimit())
  func truncations() throws {
    var writer = ZipTestWriter()
    let text = ZipTestSupport.sampleText(lines: 40)
    writer.add("apple_health_export/export.xml", text, .init(dataDescriptor: true))
    writer.add("apple_health_export/b.txt", "stored", .init(method: .stored, zip64: true))
    let full = writer.finished(comment: Array("c".utf8), zip64End: true)
    let contents = [
      ("apple_health_export/export.xml", text), ("apple_health_export/b.txt", Array("stored".utf8)),
    ]
    let readers: [(String, (ZipEntry, ZipArchive) throws -> [UInt8])] = [
      ("synchronous", { try ZipTestSupport.readSynchronously($0, of: $1) }),
      ("pipelined", { try ZipTestSupport.readPipelined($0, of: $1) }),
    ]
    var complete = 0
    for length in 0...full.count {
      let bytes = Array(full[..<length])
      let archive: ZipArchive
      do {
        archive = try ZipTestSupport.archive(bytes)
      } catch {
        // Cut short, the archive has lost its directory (or part of it).
        Self.expectZipError(error, length: length)
        switch error as? HealthExportError {
        case .notAZip?, .corruptZip?, .incompleteZip?: break
        default: Issue.record("the first \(length) bytes: opening gave \(error)")
        }
        continue
      }
      #expect(archive.entries.map(\.name) == contents.map(\.0), "the first \(length) bytes")
      var readAll = true
      for (entry, (_, expected)) in zip(archive.entries, contents) {
        for (reader, read) in readers {
          do {
            #expect(
              try read(entry, archive) == expected,
              "\(entry.name) of the first \(length) bytes, \(reader) reader")
          } catch {
            Self.expectZipError(error, length: length)
            readAll = false
          }
        }
      }
      if readAll { complete += 1 }
    }
    // The whole archive, at least, reads back completely.
    #expect(complete >= 1)
  }

  /// An error from a damaged archive is a ``HealthExportError`` naming the archive.
  private static func expectZipError(_ error: any Error, length: Int) {
    guard let error = error as? HealthExportError else {
      Issue.record("the first \(length) bytes: \(error) is not a HealthExportError")
      return
    }
    #expect(
      error.errorDescription?.contains("export.zip") == true,
      "the first \(length) bytes: \(error) does not name the archive")
  }

  @Test("Flipped bytes anywhere never crash or hang", .hangLimit())
  func corruptions() throws {
    var writer = ZipTestWriter()
    let text = ZipTestSupport.sampleText(lines: 30)
    writer.add("apple_health_export/export.xml", text, .init(dataDescriptor: true))
    writer.add(
      "apple_health_export/导出.xml", Array(ZipTestSupport.healthXML.utf8), .init(zip64: true, utf8Flag: false))
    let full = writer.finished(zip64End: true)
    // Each pipelined read starts a thread, which ThreadSanitizer makes slow: under `.ci/run
    // tsan` the whole test took 16 minutes and held up the async tests queued behind it. That
    // stage looks for races, so it flips every 13th byte (a prime, so every record's fields are
    // still hit); the test and asan stages flip every byte.
    let stride = SanitizerRun.step(thread: 13, address: 1)
    for position in Swift.stride(from: 0, to: full.count, by: stride) {
      for value: UInt8 in [0x00, 0xFF, full[position] ^ 0x5A] {
        var bytes = full
        bytes[position] = value
        Self.exercise(bytes)
      }
    }
  }

  /// Opens, locates and reads everything; errors are fine, crashes and hangs are not.
  static func exercise(_ bytes: [UInt8]) {
    guard let archive = try? ZipTestSupport.archive(bytes) else { return }
    _ = try? HealthXMLLocator.healthExportEntry(in: archive)
    for entry in archive.entries {
      _ = try? ZipTestSupport.readSynchronously(entry, of: archive)
      _ = try? ZipTestSupport.readPipelined(entry, of: archive)
    }
  }
}
