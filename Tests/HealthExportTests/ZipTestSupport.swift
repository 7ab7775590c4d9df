import Foundation

@testable import HealthExport

/// Helpers shared by the zip, inflate and locator tests.
enum ZipTestSupport {
  static func archive(_ bytes: [UInt8], name: String = "export.zip") throws -> ZipArchive {
    try ZipArchive(source: MemoryByteSource(Data(bytes), displayName: name))
  }

  /// An in-memory `export.zip` holding one deflated entry.
  static func archive(holding entryName: String, _ contents: [UInt8]) throws -> ZipArchive {
    var writer = ZipTestWriter()
    writer.add(entryName, contents)
    return try archive(writer.finished())
  }

  /// Reads an entry on the calling thread with the synchronous reader.
  static func readSynchronously(
    _ entry: ZipEntry, of archive: ZipArchive, bufferSize: Int = 1000
  ) throws -> [UInt8] {
    let reader = try ZipEntryReader(archive: archive, entry: entry, inputChunkSize: 777)
    return try readAll(bufferSize: bufferSize) { try reader.read(into: $0) }
  }

  /// Reads an entry through the pipelined source with `read(into:)`.
  static func readPipelined(
    _ entry: ZipEntry, of archive: ZipArchive, bufferSize: Int = 4096, bufferCount: Int = 2,
    readSize: Int = 1500
  ) throws -> [UInt8] {
    var source: any ByteChunkSource = try ZipEntryChunkSource(
      archive: archive, entry: entry, bufferSize: bufferSize, bufferCount: bufferCount)
    return try drain(&source, readSize: readSize)
  }

  static func drain(_ source: inout any ByteChunkSource, readSize: Int = 1500) throws
    -> [UInt8]
  {
    try readAll(bufferSize: readSize) { try source.read(into: $0) }
  }

  /// Everything `read` gives, asking for `bufferSize` bytes at a time until it gives none.
  static func readAll(bufferSize: Int, _ read: (UnsafeMutableRawBufferPointer) throws -> Int) throws
    -> [UInt8]
  {
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: bufferSize)
    while true {
      let count = try buffer.withUnsafeMutableBytes { try read($0) }
      if count == 0 { return output }
      output += buffer[..<count]
    }
  }

  /// Deterministic text that compresses like XML does.
  static func sampleText(lines: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<HealthData locale=\"en_US\">\n"
    for index in 0..<lines {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      text +=
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" value=\"\(state >> 50)\" n=\"\(index)\"/>\n"
    }
    text += "</HealthData>\n"
    return Array(text.utf8)
  }

  static let healthXML = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE HealthData [
    <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
    ]>
    <HealthData locale="zh_CN">
     <ExportDate value="2026-11-29 08:00:00 +0800"/>
    </HealthData>

    """
}
