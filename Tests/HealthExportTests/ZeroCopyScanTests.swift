import Foundation
import StepKitCore
import Testing

@testable import HealthExport

/// The scanner reads a zip entry's inflated buffers in place (``ChunkCarrier``):
/// whatever the ring's shape, results, errors and locations equal scanning a copy.
@Suite("Scanning inflated buffers in place")
struct ZeroCopyScanTests {
  typealias T = ExportTestSupport
  static let entryName = "apple_health_export/export.xml"
  static let displayName = "export.zip:apple_health_export/export.xml"

  /// (buffer size, buffer count, headroom): headroom 0 gathers every straddling
  /// token in the scanner's own buffer; small rings hand over constantly.
  static let shapes = [
    (4096, 2, 0), (4096, 2, 64), (4096, 3, 4096), (5000, 4, 100), (1 << 16, 2, 1 << 16),
    (1 << 20, 4, 64 << 10),
  ]

  /// A document with tokens of every length: a long comment, a DTD, and
  /// attribute values far longer than the ring's buffers.
  static let document: String = {
    let long = String(repeating: "x", count: 20_000)
    var body = " <!-- \(long) -->\n"
    body += " <Workout sourceName=\"\(long)\" note=\"\(long)\"/>\n"
    for index in 0..<3000 {
      body += T.steps(
        "\(index % 97)", source: index % 7 == 0 ? "S\(String(repeating: "é", count: index % 300))" : "P")
      body += "\n"
      if index % 1000 == 500 { body += T.steps("x") + "\n" }
    }
    return T.export(body, header: T.brokenVersion12DTD)
  }()

  static func zipSource(
    _ bytes: [UInt8], bufferSize: Int, bufferCount: Int, headroom: Int
  ) throws -> ZipEntryChunkSource {
    let archive = try ZipTestSupport.archive(holding: entryName, bytes)
    return try ZipEntryChunkSource(
      archive: archive, entry: archive.entries[0], bufferSize: bufferSize, bufferCount: bufferCount,
      headroom: headroom)
  }

  static func read(_ source: any ByteChunkSource, maximumTokenBytes: Int) -> Result<
    ReadOutcome, HealthExportError
  > {
    var log = SampleLog()
    do {
      let info = try ExportReader.read(
        source: source, entryName: entryName, into: &log, maximumTokenBytes: maximumTokenBytes)
      return .success(ReadOutcome(info: info, samples: log.samples, invalid: log.invalid))
    } catch {
      return .failure(HealthExportError(wrapping: error, path: displayName))
    }
  }

  /// Reads `bytes` from a copy and in place over every ring shape, expecting one outcome.
  static func expectSameOutcome(
    _ bytes: [UInt8], maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes,
    shapes: [(Int, Int, Int)] = shapes, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) throws {
    var log = SampleLog()
    let reference: Result<ReadOutcome, HealthExportError>
    do {
      // Buffers that start small and grow to the token limit, as the ring's straddling tokens do.
      let info = try ExportReader.read(
        source: ChunkedSource(bytes, chunkSize: 3000, name: displayName), entryName: entryName, into: &log,
        bufferBytes: min(4096, maximumTokenBytes), maximumTokenBytes: maximumTokenBytes)
      reference = .success(ReadOutcome(info: info, samples: log.samples, invalid: log.invalid))
    } catch {
      reference = .failure(HealthExportError(wrapping: error, path: displayName))
    }
    for (size, count, headroom) in shapes {
      let source = try zipSource(bytes, bufferSize: size, bufferCount: count, headroom: headroom)
      let inPlace = read(source, maximumTokenBytes: maximumTokenBytes)
      #expect(
        inPlace == reference, "ring \(size) × \(count), headroom \(headroom)", sourceLocation: sourceLocation)
    }
  }

  @Test("Samples, invalid records and export info equal a copied read, for every ring shape")
  func sameResults() throws {
    try Self.expectSameOutcome(Array(Self.document.utf8))
    let result = Self.read(
      ChunkedSource(Array(Self.document.utf8), chunkSize: 1 << 20, name: Self.displayName),
      maximumTokenBytes: XMLScanner.defaultMaximumTokenBytes)
    // Not vacuous: the document has records, invalid ones and tokens longer than a buffer.
    let outcome = try result.get()
    #expect(outcome.samples.count == 3000)
    #expect(outcome.invalid.count == 3)
  }

  @Test("Real export fixtures read the same in place")
  func fixtures() throws {
    for name in ["hk2sqlite-export.xml", "hk2sqlite-zip-export.xml", "tdda-export6s3sample.xml"] {
      try Self.expectSameOutcome(Array(try T.fixture(name)))
    }
  }

  @Test("Errors carry the same line and column in place", arguments: MalformedXMLTests.cases.map(\.1))
  func sameErrors(xml: String) throws {
    try Self.expectSameOutcome(Array(xml.utf8))
  }

  @Test("Truncation is found at the same place in place")
  func truncation() throws {
    let bytes = Array(Self.document.utf8)
    for cut in [1, 100, 20_100, 40_500, 300_001, bytes.count - 2] {
      try Self.expectSameOutcome(Array(bytes[..<cut]), shapes: [(4096, 2, 0), (5000, 4, 100)])
    }
  }

  @Test("A token over the limit is refused at its start, in place as in a copy")
  func tokenLimit() throws {
    // 20,000-byte attribute values and comment against a 16 KiB limit. (A token
    // inside one large buffer is read whole: the limit bounds growth, as in a copied read.)
    try Self.expectSameOutcome(
      Array(Self.document.utf8), maximumTokenBytes: 16 << 10,
      shapes: [(4096, 2, 0), (4096, 2, 64), (5000, 4, 100)])
    let refused = Self.read(
      try Self.zipSource(Array(Self.document.utf8), bufferSize: 4096, bufferCount: 2, headroom: 64),
      maximumTokenBytes: 16 << 10)
    guard case .failure(.tokenTooLarge(_, _, _, let limit)) = refused else {
      Issue.record("expected tokenTooLarge, got \(refused)")
      return
    }
    #expect(limit == 16 << 10)
  }

  @Test("Lent buffers leave the scanner's word-wide searches room to read past their end")
  func slack() {
    #expect(InflatePipeline.trailingSlack >= XMLScanner.slack)
  }

  @Test("Dropping the scanner early lets the inflating thread and its ring go")
  func earlyDrop() throws {
    let text = ZipTestSupport.sampleText(lines: 50_000)
    weak var pipeline: InflatePipeline?
    do {
      let source = try Self.zipSource(text, bufferSize: 4096, bufferCount: 2, headroom: 256)
      pipeline = source.pipeline
      var scanner = XMLScanner(source: source)
      for _ in 0..<500 { _ = try scanner.next() }
      #expect(scanner.bytesRead > 8192)
    }
    #expect(pipeline == nil, "the inflating thread still holds the ring")
  }
}

/// ``ChunkCarrier`` over a scripted lender: where the window lands and what it holds.
@Suite("Chunk carrier")
struct ChunkCarrierTests {
  /// Lends fixed chunks, checking that at most two are out at once.
  final class ScriptedLender: ChunkLender {
    let headroom: Int
    let displayName = "scripted"
    var expectedByteCount: Int64? { nil }
    private var storage: [UnsafeMutablePointer<UInt8>] = []
    private var chunks: [[UInt8]]
    private var next = 0
    private(set) var out: Set<Int> = []
    private(set) var mostOut = 0

    init(_ chunks: [[UInt8]], headroom: Int) {
      self.chunks = chunks
      self.headroom = headroom
    }

    deinit {
      for pointer in storage { (pointer - headroom).deallocate() }
    }

    /// Where chunk `index`'s data starts.
    func start(of index: Int) -> UnsafeMutablePointer<UInt8> { storage[index] }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { 0 }

    func borrowChunk() throws -> LentChunk? {
      guard next < chunks.count else { return nil }
      let bytes = chunks[next]
      let base = UnsafeMutablePointer<UInt8>.allocate(capacity: headroom + bytes.count) + headroom
      base.initialize(from: bytes, count: bytes.count)
      storage.append(base)
      out.insert(next)
      mostOut = max(mostOut, out.count)
      next += 1
      return LentChunk(index: next - 1, bytes: base, count: bytes.count)
    }

    func giveBack(_ chunk: LentChunk) {
      out.remove(chunk.index)
      // Scribble over it, as the producer would refill it.
      chunk.bytes.update(repeating: 0xEE, count: chunk.count)
    }
  }

  static func window(_ refill: ChunkCarrier.Refill) -> (base: UnsafeMutablePointer<UInt8>, end: Int)? {
    guard case .window(let base, let end) = refill else { return nil }
    return (base, end)
  }

  @Test("A short tail moves into the next chunk's headroom; the chunk itself is read in place")
  func shortTail() throws {
    let lender = ScriptedLender([Array("abcdefgh".utf8), Array("ijklmnop".utf8)], headroom: 4)
    let carrier = try #require(ChunkCarrier(source: lender))
    let first = try #require(
      Self.window(try carrier.refill(window: carrier.initialWindow, keep: 0, end: 0, maximumTokenBytes: 100)))
    #expect(first.base == lender.start(of: 0))
    #expect(first.end == 8)
    // Keep "fgh" (3 bytes, fits in the headroom of 4).
    let second = try #require(
      Self.window(try carrier.refill(window: first.base, keep: 5, end: 8, maximumTokenBytes: 100)))
    #expect(second.base == lender.start(of: 1) - 3)
    #expect(Array(UnsafeBufferPointer(start: second.base, count: second.end)) == Array("fghijklmnop".utf8))
    #expect(lender.out == [1])
    guard
      case .endOfSource = try carrier.refill(window: second.base, keep: 11, end: 11, maximumTokenBytes: 100)
    else {
      Issue.record("expected the end")
      return
    }
    #expect(lender.mostOut == 2)
  }

  @Test("A long tail is gathered in the carrier's buffer, then the window returns to the chunk")
  func longTail() throws {
    let chunks = (0..<4).map { index in [UInt8](repeating: UInt8(65 + index), count: 6000) }
    let lender = ScriptedLender(chunks, headroom: 16)
    let carrier = try #require(ChunkCarrier(source: lender))
    var window = try #require(
      Self.window(
        try carrier.refill(window: carrier.initialWindow, keep: 0, end: 0, maximumTokenBytes: 1 << 20)))
    // A token starting 100 bytes before the end of chunk 0 and running 10,000 bytes on.
    var kept = Array(UnsafeBufferPointer(start: window.base + 5900, count: 100))
    window = try #require(
      Self.window(try carrier.refill(window: window.base, keep: 5900, end: 6000, maximumTokenBytes: 1 << 20)))
    kept += chunks[1]
    // Gathered: the window is the carrier's own buffer (the chunk cannot hold the tail in front).
    #expect(window.base != lender.start(of: 1) - 100)
    while window.end < 6100 {
      window = try #require(
        Self.window(
          try carrier.refill(window: window.base, keep: 0, end: window.end, maximumTokenBytes: 1 << 20)))
    }
    #expect(Array(UnsafeBufferPointer(start: window.base, count: 6100)) == kept)
    // The token ends; keep 10 bytes of chunk 2 and continue in place in it.
    window = try #require(
      Self.window(
        try carrier.refill(
          window: window.base, keep: window.end - 10, end: window.end, maximumTokenBytes: 1 << 20)))
    #expect(
      window.base >= lender.start(of: 1) - 16 && window.base < lender.start(of: 1) + 6000
        || window.base >= lender.start(of: 2) - 16)
    #expect(Array(UnsafeBufferPointer(start: window.base, count: 10)).allSatisfy { $0 == 66 || $0 == 67 })
    #expect(lender.mostOut <= 2)
  }

  @Test("Keeping the whole token limit is refused")
  func limit() throws {
    let lender = ScriptedLender([[UInt8](repeating: 1, count: 64)], headroom: 0)
    let carrier = try #require(ChunkCarrier(source: lender))
    let window = try #require(
      Self.window(try carrier.refill(window: carrier.initialWindow, keep: 0, end: 0, maximumTokenBytes: 64)))
    guard
      case .tokenTooLarge = try carrier.refill(window: window.base, keep: 0, end: 64, maximumTokenBytes: 64)
    else {
      Issue.record("expected tokenTooLarge")
      return
    }
  }
}
