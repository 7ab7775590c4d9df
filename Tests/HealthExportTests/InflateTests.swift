import Foundation
import Testing

@testable import HealthExport

@Suite("Inflate and the pipelined entry source")
struct InflateTests {
  @Test("A CRC mismatch is reported by both readers", arguments: [ZipTestWriter.Method.stored, .deflated])
  func checksumMismatch(method: ZipTestWriter.Method) throws {
    var writer = ZipTestWriter()
    writer.add(
      "apple_health_export/export.xml", ZipTestSupport.sampleText(lines: 500),
      .init(method: method, crcOverride: 0x1234_5678))
    let archive = try ZipTestSupport.archive(writer.finished())
    let expected = HealthExportError.checksumMismatch(entry: "export.zip:apple_health_export/export.xml")
    #expect(throws: expected) { try ZipTestSupport.readSynchronously(archive.entries[0], of: archive) }
    #expect(throws: expected) { try ZipTestSupport.readPipelined(archive.entries[0], of: archive) }
  }

  @Test("A truncated deflate stream is an error, not a short read", arguments: [false, true])
  func truncatedStream(pipelined: Bool) throws {
    let text = ZipTestSupport.sampleText(lines: 2000)
    let compressedCount = ZipTestWriter.deflate(text).count
    var writer = ZipTestWriter()
    writer.add("a.xml", text, .init(truncateCompressedTo: compressedCount / 2))
    let archive = try ZipTestSupport.archive(writer.finished())
    let error = #expect(throws: HealthExportError.self) {
      if pipelined {
        _ = try ZipTestSupport.readPipelined(archive.entries[0], of: archive)
      } else {
        _ = try ZipTestSupport.readSynchronously(archive.entries[0], of: archive)
      }
    }
    guard case .corruptCompressedData(let entry, let detail) = error else {
      Issue.record("expected corruptCompressedData, got \(String(describing: error))")
      return
    }
    #expect(entry == "export.zip:a.xml")
    #expect(detail.contains("truncated"))
  }

  @Test("Invalid deflate data reaches the consumer after the bytes before it")
  func invalidDataPropagates() throws {
    let text = ZipTestSupport.sampleText(lines: 4000)
    var writer = ZipTestWriter()
    writer.add("a.xml", text, .init(method: .stored))
    var bytes = writer.finished()
    // Make the entry "deflated" over stored bytes: a stored-block header is
    // needed for valid deflate, so the raw text is invalid from the first byte.
    bytes[8] = 8
    let centralMethod = bytes.count - 22 - 46 - 5 + 10
    bytes[centralMethod] = 8
    let archive = try ZipTestSupport.archive(bytes)
    #expect(archive.entries[0].method == 8)
    let error = #expect(throws: HealthExportError.self) {
      try ZipTestSupport.readPipelined(archive.entries[0], of: archive)
    }
    guard case .corruptCompressedData(let entry, _) = error else {
      Issue.record("expected corruptCompressedData, got \(String(describing: error))")
      return
    }
    #expect(entry == "export.zip:a.xml")
  }

  @Test(
    "Ring sizes and read sizes do not change the bytes",
    arguments: [(4096, 2, 1), (4096, 2, 1500), (4096, 4, 10_000), (1 << 20, 3, 65536), (5000, 7, 4999)])
  func ringShapes(bufferSize: Int, bufferCount: Int, readSize: Int) throws {
    let text = ZipTestSupport.sampleText(lines: readSize == 1 ? 300 : 20_000)
    let archive = try ZipTestSupport.archive(holding: "a.xml", text)
    let read = try ZipTestSupport.readPipelined(
      archive.entries[0], of: archive, bufferSize: bufferSize, bufferCount: bufferCount, readSize: readSize)
    #expect(read == text)
  }

  @Test("nextChunk hands out the ring's buffers in order")
  func chunks() throws {
    let text = ZipTestSupport.sampleText(lines: 20_000)
    let archive = try ZipTestSupport.archive(holding: "a.xml", text)
    let source = try ZipEntryChunkSource(
      archive: archive, entry: archive.entries[0], bufferSize: 8192, bufferCount: 3)
    #expect(source.expectedByteCount == Int64(text.count))
    #expect(source.displayName == "export.zip:a.xml")
    var collected: [UInt8] = []
    var chunkCount = 0
    while let chunk = try source.nextChunk() {
      collected += chunk
      chunkCount += 1
    }
    #expect(collected == text)
    #expect(chunkCount == (text.count + 8191) / 8192)
    #expect(try source.nextChunk() == nil)
  }

  @Test("Stopping early ends the inflating thread before returning, freeing the ring")
  func earlyStop() throws {
    // Regression: the zip fuzzer's leak check once caught the producer still
    // holding the archive after the consumer had let go; stopping now joins it.
    let text = ZipTestSupport.sampleText(lines: 50_000)
    let archive = try ZipTestSupport.archive(holding: "a.xml", text)
    for explicitCancel in [false, true] {
      weak var pipeline: InflatePipeline?
      do {
        let source = try ZipEntryChunkSource(
          archive: archive, entry: archive.entries[0], bufferSize: 4096, bufferCount: 2)
        pipeline = source.pipeline
        let first = try source.nextChunk()
        #expect(first?.count == 4096)
        if explicitCancel {
          source.cancel()
          #expect(try source.nextChunk() == nil)
        }
      }
      #expect(pipeline == nil, "the inflating thread still holds the ring")
    }
  }

  @Test("The public streaming call stops when the body says so")
  func publicEarlyStop() throws {
    let text = ZipTestSupport.sampleText(lines: 50_000)
    var writer = ZipTestWriter()
    writer.add("apple_health_export/export.xml", text)
    let archive = try ExportArchive(data: Data(writer.finished()))
    let entry = try archive.healthExportEntry()
    var calls = 0
    let delivered = try archive.forEachChunk(of: entry) { _ in
      calls += 1
      return calls < 2
    }
    #expect(calls == 2)
    #expect(delivered == 2 << 20 || delivered == Int64(text.count))
    var all: [UInt8] = []
    let total = try archive.forEachChunk(of: entry) { chunk in
      all += chunk
      return true
    }
    #expect(total == Int64(text.count))
    #expect(all == text)
  }
}
