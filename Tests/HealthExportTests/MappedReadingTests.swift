import Foundation
import StepKitCore
import Testing

@testable import ExportGenerator
@_spi(Testing) @testable import HealthExport

enum MappedTestSupport {
  /// Writes `data` to a temporary file named `name` and passes its path to `body`.
  static func withFile<T>(_ data: Data, name: String, _ body: (String) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-mapped-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent(name)
    try data.write(to: url)
    return try body(url.path)
  }

  /// Reads the file at `path` as export XML, shown in errors as `name`: front
  /// to back when `threads` is 1, otherwise cut into stretches of `chunkBytes`.
  static func read(
    _ path: String, name: String, reading: FileReading, threads: Int = 1, chunkBytes: Int = 1000,
    bufferBytes: Int = 1 << 16, maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes
  ) -> FullOutcome {
    var log = SampleLog()
    do {
      let file = try FileByteSource(path: path, displayName: name, reading: reading)
      let info: ExportInfo
      if threads == 1 {
        info = try ExportReader.read(
          source: file.range(from: 0, to: nil), into: &log, bufferBytes: bufferBytes,
          maximumTokenBytes: maximumTokenBytes)
      } else {
        let settings = ParallelExportReader.Settings(
          threads: threads, chunkBytes: chunkBytes, headerBytes: chunkBytes, minimumBytes: 0,
          bufferBytes: bufferBytes)
        info = try ParallelExportReader.read(file, into: &log, settings: settings)
      }
      return FullOutcome(
        info: info, error: nil, samples: log.samples,
        sampleOrigins: (0..<log.count).map(log.originOfSample(at:)),
        origins: log.origins, invalid: log.invalid)
    } catch {
      // As in the parallel tests: what a caller sees of a failed read is its error.
      return FullOutcome(
        info: nil, error: HealthExportError(wrapping: error, path: name), samples: [], sampleOrigins: [],
        origins: [], invalid: InvalidSampleReport())
    }
  }

  /// Window sizes from one byte (every tag straddles) to larger than a tag.
  static let windows = [1, 7, 64, 1000, 4096 + 3]

  /// Checks that `data`, read from a file through mappings of every window
  /// size, on one thread and on two, gives what reading it copied gives, and
  /// that the copy gives what reading the bytes in memory gives.
  /// - Returns: The outcome.
  @discardableResult
  static func expectSameResults(
    _ data: Data, name: String = "export.xml", windows: [Int] = windows, chunkSizes: [Int] = [64, 1000],
    maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) throws -> FullOutcome {
    try withFile(data, name: name) { path in
      let copied = read(path, name: name, reading: .copied, maximumTokenBytes: maximumTokenBytes)
      if maximumTokenBytes == XMLScanner.defaultMaximumTokenBytes {
        #expect(copied == ParallelTestSupport.sequential(data, name: name), sourceLocation: sourceLocation)
      }
      for window in windows {
        let mapped = read(
          path, name: name, reading: .mapped(windowBytes: window), maximumTokenBytes: maximumTokenBytes)
        #expect(mapped == copied, "window \(window), one thread", sourceLocation: sourceLocation)
      }
      guard maximumTokenBytes == XMLScanner.defaultMaximumTokenBytes else { return copied }
      // Under ThreadSanitizer the two-thread reads take the largest chunk and window only: the
      // small ones test edges, which the other runs cover, at many times the cost there (a
      // mapping and a hand-over every few bytes: 83 s of the tsan stage for this suite).
      let thread = SanitizerRun.name == "thread"
      let twoThreadChunks = thread ? Array(chunkSizes.sorted().suffix(1)) : chunkSizes
      let twoThreadWindows = thread ? [1000] : [7, 1000]
      for chunk in twoThreadChunks {
        let twoCopied = read(path, name: name, reading: .copied, threads: 2, chunkBytes: chunk)
        #expect(twoCopied == copied, "chunk \(chunk), copied", sourceLocation: sourceLocation)
        for window in twoThreadWindows {
          let twoMapped = read(
            path, name: name, reading: .mapped(windowBytes: window), threads: 2, chunkBytes: chunk)
          #expect(twoMapped == copied, "chunk \(chunk), window \(window)", sourceLocation: sourceLocation)
        }
      }
      return copied
    }
  }
}

@Suite("Reading a file in place from mappings")
struct MappedReadingTests {
  typealias M = MappedTestSupport

  @Test("Every export fixture in the tests reads the same mapped as copied, on one thread and two")
  func fixtures() throws {
    let files = ParallelTestSupport.exportFixtures
    #expect(files.count >= 12)
    var samples = 0
    for file in files {
      let outcome = try M.expectSameResults(
        Data(contentsOf: file), name: file.lastPathComponent, windows: [3, 97, 4099], chunkSizes: [300])
      samples += outcome.samples.count
    }
    #expect(samples > 400)
  }

  @Test("The fuzzing seed corpus reads the same mapped as copied")
  func fuzzCorpus() throws {
    let files = ParallelTestSupport.xmlFiles(under: "Fuzz/corpus/xml")
    #expect(files.count >= 10)
    for file in files {
      try M.expectSameResults(Data(contentsOf: file), name: file.lastPathComponent, windows: [1, 5, 300])
    }
  }

  @Test(
    "The generator's output of both shapes reads the same mapped as copied", arguments: ["watch", "dense"])
  func generated(shape: String) throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-mapped-\(getpid())-\(shape).xml").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try generateExport(arguments: ["--days", "3", "--shape", shape, "-o", path])
    // Under ThreadSanitizer the large window alone: the small one tests window edges, which
    // the other runs (AddressSanitizer's included) cover, at many times the cost.
    let windows = SanitizerRun.name == "thread" ? [1 << 20] : [997, 1 << 20]
    let outcome = try M.expectSameResults(
      Data(contentsOf: URL(fileURLWithPath: path)), windows: windows, chunkSizes: [2000, 50_000])
    #expect(outcome.error == nil)
    #expect(outcome.samples.count > 100)
  }

  @Test("Tokens longer than the headroom, straddling windows, read the same in place")
  func longTokens() throws {
    // A comment and attribute values longer than the 64 KiB in front of each
    // window: the carrier gathers them in its own buffer, then goes back in place.
    let long = String(repeating: "x", count: 150_000)
    var body = " <!-- \(long) -->\n <Workout sourceName=\"\(long)\" note=\"\(long.prefix(70_000))\"/>\n"
    for index in 0..<2000 {
      body += ParallelTestSupport.steps("\(index % 50)", hour: index % 20) + "\n"
      if index % 700 == 3 { body += ParallelTestSupport.steps("x") + "\n" }
    }
    let data = ParallelTestSupport.export(body)
    let outcome = try M.expectSameResults(data, windows: [1000, 40_000, 70_001, 1 << 20])
    #expect(outcome.samples.count == 2000)
    #expect(outcome.invalid.count == 3)
    // And over the token limit, refused at the same place.
    let refused = try M.expectSameResults(data, windows: [1000, 70_001], maximumTokenBytes: 100_000)
    guard case .tokenTooLarge? = refused.error else {
      Issue.record("expected tokenTooLarge, got \(refused)")
      return
    }
  }

  @Test("Errors carry the same line and column mapped", arguments: MalformedXMLTests.cases.map(\.1))
  func sameErrors(xml: String) throws {
    let outcome = try M.expectSameResults(Data(xml.utf8), windows: [1, 3, 64], chunkSizes: [1, 64])
    #expect(outcome.error != nil)
  }

  @Test("A file cut at every length, empty and mid-tag included, ends the same mapped")
  func everyLength() throws {
    let body = (0..<6).map { ParallelTestSupport.steps("\($0)", hour: $0) }.joined(separator: "\n")
    let data = ParallelTestSupport.export(body)
    var errors = Set<String>()
    for length in Array(0..<40) + Array(stride(from: 40, through: data.count, by: 9)) + [data.count] {
      let cut = data.prefix(length)
      if let error = try M.expectSameResults(cut, windows: [1, 16, 17, 100], chunkSizes: [64]).error {
        errors.insert("\(error)")
      }
    }
    // Not vacuous: empty, truncated and complete files all came by.
    #expect(errors.count > 5)
    #expect(try M.expectSameResults(data).error == nil)
    let empty = try M.expectSameResults(Data())
    #expect(empty.error != nil)
  }

  @Test("Windows hold the file's bytes in order, with the bytes before them in front, read-only")
  func lenderWindows() throws {
    let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) }
    try M.withFile(Data(bytes), name: "bytes") { path in
      let file = try FileByteSource(path: path, reading: .mapped(windowBytes: 20_000))
      for (start, end) in [(0, nil), (5, Int64(70_001)), (150_000, Int64(bytes.count))] as [(Int64, Int64?)] {
        let source = try #require(file.range(from: start, to: end) as? MappedFileChunks)
        var delivered: [UInt8] = []
        var inPlace = 0
        while let chunk = try source.borrowChunk() {
          let position = Int(start) + delivered.count
          if chunk.isInPlace {
            inPlace += 1
            let front = min(source.headroom, delivered.count)
            #expect(
              Array(UnsafeBufferPointer(start: chunk.bytes - front, count: front))
                == Array(bytes[(position - front)..<position]))
          }
          delivered += UnsafeBufferPointer(start: chunk.bytes, count: chunk.count)
          #expect(chunk.count <= 20_000)
          source.giveBack(chunk)
        }
        let stop = Int(end ?? Int64(bytes.count))
        #expect(delivered == Array(bytes[Int(start)..<stop]))
        #expect(inPlace >= (stop - Int(start)) / 20_000)
      }
    }
  }

  @Test(
    "Large windows end at multiples of their size and hold the bytes before them, from any start",
    arguments: [2 << 20, 4 << 20])
  func largeWindows(windowBytes: Int) throws {
    let bytes = (0..<(9 << 20 | 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 11) }
    try M.withFile(Data(bytes), name: "bytes") { path in
      let file = try FileByteSource(path: path, reading: .mapped(windowBytes: windowBytes))
      let starts: [(Int64, Int64?)] = [(0, nil), (70_001, Int64(5 << 20 | 3)), ((2 << 20) - 5, nil)]
      for (start, end) in starts {
        let source = try #require(file.range(from: start, to: end) as? MappedFileChunks)
        var delivered: [UInt8] = []
        var inPlace = 0
        while let chunk = try source.borrowChunk() {
          let position = Int(start) + delivered.count
          let stop = position + chunk.count
          if chunk.isInPlace {
            inPlace += 1
            let front = min(source.headroom, position)
            #expect(
              Array(UnsafeBufferPointer(start: chunk.bytes - front, count: front))
                == Array(bytes[(position - front)..<position]))
            // Cut where the file is cut into windows, but at the end of the range or of what maps.
            #expect(stop % windowBytes == 0 || stop == Int(end ?? 0) || stop > bytes.count - windowBytes)
          }
          delivered += UnsafeBufferPointer(start: chunk.bytes, count: chunk.count)
          #expect(chunk.count <= windowBytes)
          source.giveBack(chunk)
        }
        #expect(delivered == Array(bytes[Int(start)..<Int(end ?? Int64(bytes.count))]))
        #expect(inPlace >= 2)
      }
    }
  }

  @Test("A file shortened between windows ends where it now ends, with no signal")
  func shortenedBetweenWindows() throws {
    let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 100_000)
    try M.withFile(Data(bytes), name: "shrinking") { path in
      let file = try FileByteSource(path: path, reading: .mapped(windowBytes: 30_000))
      let source = try #require(file.range(from: 0, to: nil) as? MappedFileChunks)
      let first = try #require(try source.borrowChunk())
      #expect(first.count == 30_000 && first.isInPlace)
      source.giveBack(first)
      #expect(truncate(path, 45_000) == 0)
      var total = first.count
      while let chunk = try source.borrowChunk() {
        // Touching a byte past the new end, slack included, would raise SIGBUS.
        let window = UnsafeBufferPointer(start: chunk.bytes, count: chunk.count + XMLScanner.slack)
        #expect(window.prefix(chunk.count).allSatisfy { $0 == UInt8(ascii: "a") })
        #expect(window.suffix(XMLScanner.slack).allSatisfy { $0 == UInt8(ascii: "a") || $0 == 0 })
        total += chunk.count
        source.giveBack(chunk)
      }
      #expect(total == 45_000)
    }
  }

  #if os(Linux)
    @Test("A file whose size says nothing (in /proc) is read by copying, as with pread")
    func sizeSaysNothing() throws {
      let path = "/proc/self/mountinfo"
      let copied = M.read(path, name: "mountinfo", reading: .copied)
      let mapped = M.read(path, name: "mountinfo", reading: .mapped(windowBytes: 1 << 20))
      #expect(mapped.error == copied.error)
      let file = try FileByteSource(path: path, reading: .mapped(windowBytes: 1 << 20))
      #expect(file.byteCount == 0)
      let source = try #require(file.range(from: 0, to: nil) as? MappedFileChunks)
      let chunk = try #require(try source.borrowChunk())
      #expect(!chunk.isInPlace && chunk.count > 0)
      source.giveBack(chunk)
    }
  #endif

  @Test("A file read through the public API is scanned in place")
  func publicPathMaps() throws {
    try M.withFile(ParallelTestSupport.export(ParallelTestSupport.steps("12")), name: "export.xml") { path in
      let file = try FileByteSource(path: path)
      #expect(file.reading == .standard)
      #expect(file.range(from: 0, to: nil) is MappedFileChunks)
      #expect(try FileByteSource(path: path, reading: .copied).range(from: 0, to: nil) is RangeChunkSource)
      var log = SampleLog()
      _ = try ExportReader.read(.path(path), into: &log, threads: 1)
      #expect(log.samples.map(\.value) == [12])
    }
  }
}
