import Foundation
import Testing

@testable import HealthExport

@Suite("Byte sources")
struct ZipByteSourceTests {
  private static func temporaryFile(_ bytes: [UInt8], name: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stepkit-zip-tests-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
  }

  @Test("A zip file opens as its Health XML, an XML file as itself")
  func openByContent() throws {
    var writer = ZipTestWriter()
    writer.add("apple_health_export/导出.xml", ZipTestSupport.healthXML)
    let zipPath = try Self.temporaryFile(writer.finished(), name: "export.zip")
    var zipSource = try ExportSources.open(path: zipPath)
    #expect(zipSource.displayName == "\(zipPath):apple_health_export/导出.xml")
    #expect(zipSource.expectedByteCount == Int64(ZipTestSupport.healthXML.utf8.count))
    #expect(try ZipTestSupport.drain(&zipSource) == Array(ZipTestSupport.healthXML.utf8))

    let xmlPath = try Self.temporaryFile(Array(ZipTestSupport.healthXML.utf8), name: "export.xml")
    var xmlSource = try ExportSources.open(path: xmlPath)
    #expect(xmlSource is FileChunkSource)
    #expect(xmlSource.expectedByteCount == Int64(ZipTestSupport.healthXML.utf8.count))
    #expect(try ZipTestSupport.drain(&xmlSource, readSize: 7) == Array(ZipTestSupport.healthXML.utf8))

    var memory = try ExportSources.open(data: Data(writer.finished()), name: "upload.zip")
    #expect(memory.displayName == "upload.zip:apple_health_export/导出.xml")
    #expect(try ZipTestSupport.drain(&memory) == Array(ZipTestSupport.healthXML.utf8))
    var memoryXML = try ExportSources.open(data: Data(ZipTestSupport.healthXML.utf8), name: "export.xml")
    #expect(try ZipTestSupport.drain(&memoryXML, readSize: 3) == Array(ZipTestSupport.healthXML.utf8))
  }

  @Test("A .zip name that is not a zip says so")
  func fakeZip() throws {
    let path = try Self.temporaryFile(Array("hello".utf8) + [UInt8](repeating: 0, count: 40), name: "fake.zip")
    #expect(throws: HealthExportError.notAZip(path: path)) { try ExportSources.open(path: path) }
  }

  @Test("Missing files and directories cannot be opened")
  func cannotOpen() throws {
    let missing = "/nonexistent/stepkit/export.zip"
    let error = #expect(throws: HealthExportError.self) { try ExportSources.open(path: missing) }
    guard case .cannotOpen(let path, _) = error else {
      Issue.record("expected cannotOpen, got \(String(describing: error))")
      return
    }
    #expect(path == missing)
    let directory = FileManager.default.temporaryDirectory.path
    #expect(throws: HealthExportError.self) { try FileChunkSource(path: directory) }
    #expect(throws: HealthExportError.self) { try FileByteSource(path: directory) }
  }

  @Test("Random access reads stop at the end")
  func randomAccess() throws {
    let bytes = Array(0..<200).map { UInt8($0) }
    let path = try Self.temporaryFile(bytes, name: "bytes.bin")
    let sources: [any RandomAccessByteSource] = [
      try FileByteSource(path: path), MemoryByteSource(Data(bytes), displayName: "memory"),
    ]
    for source in sources {
      #expect(source.byteCount == 200)
      #expect(try source.readBytes(at: 190, count: 10, what: "tail") == Array(bytes[190...]))
      #expect(throws: HealthExportError.self) { try source.readBytes(at: 195, count: 10, what: "tail") }
      var buffer = [UInt8](repeating: 0, count: 50)
      let count = try buffer.withUnsafeMutableBytes { try source.read(at: 180, into: $0) }
      #expect(count == 20)
      let none = try buffer.withUnsafeMutableBytes { try source.read(at: 200, into: $0) }
      #expect(none == 0)
    }
  }

  @Test("Errors read in English and Simplified Chinese")
  func descriptions() {
    let error = HealthExportError.corruptZip(path: "export.zip", detail: "no local header", byteOffset: 42)
    #expect(error.errorDescription == error.description(in: .english))
    #expect(error.description(in: .english).contains("byte 42"))
    #expect(error.chineseDescription.contains("第 42 字节"))
  }
}
