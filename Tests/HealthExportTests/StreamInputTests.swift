import Foundation
import Testing

@testable import HealthExport
@testable import StepKitCore

@Suite("Exports arriving through a pipe", .hangLimit())
struct StreamInputTests {
  /// Writes `bytes` into a new FIFO from a background thread and returns its path.
  private static func fifo(feeding bytes: [UInt8]) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepkit-fifo-\(getpid())-\(UUID().uuidString)"
    ).path
    guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
    let payload = Data(bytes)
    Thread.detachNewThread {
      guard let handle = FileHandle(forWritingAtPath: path) else { return }
      handle.write(payload)
      try? handle.close()
    }
    return path
  }

  static let xml = ExportTestSupport.export(
    ExportTestSupport.steps("120") + "\n"
      + ExportTestSupport.steps("80", start: "2024-02-29 09:00:00 +0800", end: "2024-02-29 09:10:00 +0800"))

  @Test("A zip piped in is copied aside and read like a file")
  func zipThroughAPipe() throws {
    var writer = ZipTestWriter()
    writer.add("apple_health_export/export.xml", Self.xml)
    let path = try Self.fifo(feeding: writer.finished())
    defer { unlink(path) }
    var log = SampleLog()
    let info = try ExportReader.read(.path(path), into: &log)
    #expect(info.xmlEntryName == "apple_health_export/export.xml")
    #expect(log.count == 2)
    #expect(ExportTestSupport.stepTotal(log.samples) == 200)
  }

  @Test("XML piped in is scanned as it arrives, its first bytes included")
  func xmlThroughAPipe() throws {
    let path = try Self.fifo(feeding: Array(Self.xml.utf8))
    defer { unlink(path) }
    var log = SampleLog()
    let info = try ExportReader.read(.path(path), into: &log)
    #expect(info.xmlEntryName == nil)
    #expect(ExportTestSupport.stepTotal(log.samples) == 200)
  }

  @Test("A regular file is read through one descriptor, in any read size")
  func regularFile() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepkit-regular-\(getpid())-\(UUID().uuidString).xml"
    ).path
    try Data(Self.xml.utf8).write(to: URL(fileURLWithPath: path))
    defer { unlink(path) }
    var log = SampleLog()
    let info = try ExportReader.read(.path(path), into: &log)
    #expect(info.xmlByteCount == Int64(Self.xml.utf8.count))
    #expect(ExportTestSupport.stepTotal(log.samples) == 200)
  }

  @Test("A path of \"-\" names a file; standard input is its own case")
  func dashIsAPath() throws {
    var log = SampleLog()
    let error = #expect(throws: HealthExportError.self) {
      try ExportReader.read(.path("-"), into: &log)
    }
    guard case .cannotOpen(let path, _) = error else {
      Issue.record("expected cannotOpen, got \(String(describing: error))")
      return
    }
    #expect(path == "-")
  }

  @Test("A prefixed source hands out the peeked bytes, then the rest, at any read size")
  func prefixedSource() throws {
    let path = try Self.fifo(feeding: Array("0123456789".utf8))
    defer { unlink(path) }
    let stream = try FileChunkSource(path: path)
    let head = try StreamSpooling.head(of: stream, count: 4)
    #expect(head == Array("0123".utf8))
    var source: any ByteChunkSource = PrefixedChunkSource(prefix: head, rest: stream)
    #expect(try ZipTestSupport.drain(&source, readSize: 3) == Array("0123456789".utf8))
  }
}
