import CZlib
import Foundation
import Testing

@testable import HealthExport

/// Every deflate engine built in gives the same bytes, and the same verdict on
/// damaged archives, as zlib (ISA-L joins with `swift test --traits ISAL`).
@Suite("Inflate engines")
struct InflateEngineTests {
  /// Archives holding every fixture, the generator's output and synthetic text,
  /// at every deflate level and stored.
  static func archives() throws -> [(name: String, bytes: [UInt8], contents: [UInt8])] {
    var texts: [(String, [UInt8])] = [
      ("sample", ZipTestSupport.sampleText(lines: 30_000)),
      ("empty", []),
      ("one byte", [0x3C]),
      ("health", Array(ZipTestSupport.healthXML.utf8)),
    ]
    for name in ["hk2sqlite-export.xml", "hk2sqlite-zip-export.xml", "tdda-export6s3sample.xml"] {
      texts.append((name, Array(try ExportTestSupport.fixture(name))))
    }
    // Incompressible bytes make deflate choose stored blocks.
    var state: UInt64 = 7
    texts.append(
      (
        "noise",
        (0..<300_000).map { _ in
          state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
          return UInt8(truncatingIfNeeded: state >> 56)
        }
      ))
    var archives: [(String, [UInt8], [UInt8])] = []
    for (name, text) in texts {
      for level: Int32 in [0, 1, 6, 9] {
        var writer = ZipTestWriter()
        writer.add("apple_health_export/export.xml", text, .init(level: level))
        archives.append(("\(name) at level \(level)", writer.finished(), text))
      }
      var stored = ZipTestWriter()
      stored.add("apple_health_export/export.xml", text, .init(method: .stored))
      archives.append(("\(name) stored", stored.finished(), text))
    }
    return archives
  }

  /// What reading an entry gives: its bytes, or the kind of error.
  enum Outcome: Equatable {
    case bytes([UInt8])
    case failed(String)
  }

  static func outcome(_ entry: ZipEntry, of archive: ZipArchive, engine: InflateEngine, pipelined: Bool)
    -> Outcome
  {
    do {
      if pipelined {
        var source: any ByteChunkSource = try ZipEntryChunkSource(
          archive: archive, entry: entry, bufferSize: 4096, bufferCount: 3, engine: engine)
        return .bytes(try ZipTestSupport.drain(&source, readSize: 3000))
      }
      let reader = try ZipEntryReader(archive: archive, entry: entry, inputChunkSize: 777, engine: engine)
      var output: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 5000)
      while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { return .bytes(output) }
        output += buffer[..<count]
      }
    } catch let error as HealthExportError {
      // The detail text is each library's own; the kind of failure must agree.
      switch error {
      case .corruptCompressedData(let entry, _): return .failed("corrupt data in \(entry)")
      default: return .failed("\(error)")
      }
    } catch {
      return .failed("\(error)")
    }
  }

  @Test("Each engine inflates every archive to its exact contents", arguments: InflateEngine.allCases)
  func exactContents(engine: InflateEngine) throws {
    for (name, bytes, contents) in try Self.archives() {
      let archive = try ZipTestSupport.archive(bytes)
      for pipelined in [false, true] {
        let outcome = Self.outcome(archive.entries[0], of: archive, engine: engine, pipelined: pipelined)
        #expect(outcome == .bytes(contents), "\(name), pipelined: \(pipelined)")
      }
    }
  }

  /// zlib's own CRC-32, the reference.
  static func zlibCRC(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress else { return 0 }
    return UInt32(crc32(0, base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
  }

  @Test(
    "Each engine's CRC-32 matches zlib's for every length and alignment", arguments: InflateEngine.allCases)
  func checksums(engine: InflateEngine) {
    let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    bytes.withUnsafeBytes { raw in
      for start in [0, 1, 3, 8, 13] {
        for count in [0, 1, 2, 7, 15, 16, 17, 31, 63, 64, 65, 127, 255, 256, 1000, 4096, 4987 - start] {
          let piece = UnsafeRawBufferPointer(rebasing: raw[start..<(start + count)])
          #expect(engine.crc32(0, piece) == Self.zlibCRC(piece), "start \(start), count \(count)")
          // Continued in two parts, as the reader does buffer by buffer.
          let half = count / 2
          let first = engine.crc32(0, UnsafeRawBufferPointer(rebasing: piece[..<half]))
          #expect(
            engine.crc32(first, UnsafeRawBufferPointer(rebasing: piece[half...])) == crc32Update(0, piece))
        }
      }
    }
    // The check value of the CRC-32 used by zip and gzip.
    Array("123456789".utf8).withUnsafeBytes { #expect(engine.crc32(0, $0) == 0xCBF4_3926) }
  }

  @Test("Engines agree on the fuzz seeds and on thousands of damaged copies of them")
  func damagedArchives() throws {
    let engines = InflateEngine.allCases
    var seeds = ZipFuzzCorpusTests.seeds().map(\.bytes)
    let sample = ZipTestSupport.sampleText(lines: 400)
    for level: Int32 in [1, 9] {
      var writer = ZipTestWriter()
      writer.add("apple_health_export/export.xml", sample, .init(level: level))
      seeds.append(writer.finished())
    }
    var state: UInt64 = 11
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(state >> 33) % bound
    }
    var compared = 0
    for seed in seeds {
      for round in 0..<300 {
        var bytes = seed
        if round > 0 {
          // Damage only the data (the first local header's 30 bytes and name stay).
          for _ in 0..<(1 + random(3)) where bytes.count > 80 {
            let at = 60 + random(bytes.count - 80)
            bytes[at] ^= UInt8(1 << random(8))
          }
        }
        guard let archive = try? ZipTestSupport.archive(bytes) else { continue }
        for entry in archive.entries.prefix(4) {
          let reference = Self.outcome(entry, of: archive, engine: .zlib, pipelined: false)
          for engine in engines {
            let outcome = Self.outcome(entry, of: archive, engine: engine, pipelined: true)
            switch (reference, outcome) {
            case (.bytes(let expected), .bytes(let got)):
              #expect(got == expected, "\(engine) differs from zlib")
            case (.failed, .failed):
              break
            default:
              Issue.record("\(engine) gives \(outcome), zlib \(reference)")
            }
            compared += 1
          }
        }
      }
    }
    #expect(compared > 1000)
  }
}

@Suite("Where the CRC-32 is computed")
struct ChecksumSideTests {
  static let sides: [ZipEntryChunkSource.ChecksumSide] = [.whicheverIsIdle, .producer, .consumer]

  static func read(_ bytes: [UInt8], side: ZipEntryChunkSource.ChecksumSide) throws -> [UInt8] {
    let archive = try ZipTestSupport.archive(bytes)
    var source: any ByteChunkSource = try ZipEntryChunkSource(
      archive: archive, entry: archive.entries[0], bufferSize: 4096, bufferCount: 3, checksumSide: side)
    return try ZipTestSupport.drain(&source, readSize: 5000)
  }

  @Test("Either thread's checksum, or a mix, verifies the entry", arguments: sides)
  func verifies(side: ZipEntryChunkSource.ChecksumSide) throws {
    let text = ZipTestSupport.sampleText(lines: 5000)
    for method in [ZipTestWriter.Method.stored, .deflated] {
      var writer = ZipTestWriter()
      writer.add("apple_health_export/export.xml", text, .init(method: method))
      #expect(try Self.read(writer.finished(), side: side) == text)
      var wrong = ZipTestWriter()
      wrong.add("apple_health_export/export.xml", text, .init(method: method, crcOverride: 0x0BAD_F00D))
      #expect(throws: HealthExportError.checksumMismatch(entry: "export.zip:apple_health_export/export.xml"))
      {
        try Self.read(wrong.finished(), side: side)
      }
    }
  }

  @Test("Combining the buffers' checksums gives the whole entry's")
  func combining() {
    let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
    bytes.withUnsafeBytes { raw in
      for cut in [0, 1, 4096, 9999, 10_000] {
        let first = crc32Update(0, UnsafeRawBufferPointer(rebasing: raw[..<cut]))
        let second = crc32Update(0, UnsafeRawBufferPointer(rebasing: raw[cut...]))
        #expect(crc32Combine(first, second, count: 10_000 - cut) == InflateEngineTests.zlibCRC(raw))
      }
    }
  }
}
