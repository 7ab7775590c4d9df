import Foundation
import StepKitCore
import Testing

@testable import ExportGenerator
@_spi(Testing) @testable import HealthExport

/// Everything one read produced, errors included, in a form tests can compare.
struct FullOutcome: Equatable, CustomStringConvertible {
  var info: ExportInfo?
  var error: HealthExportError?
  var samples: [Sample]
  var sampleOrigins: [OriginID]
  var origins: [Origin]
  var invalid: InvalidSampleReport

  var description: String {
    if let error { return "error \(error) after \(samples.count) samples" }
    return
      "\(samples.count) samples, \(origins.count) origins, \(invalid.count) invalid, \(String(describing: info))"
  }
}

enum ParallelTestSupport {
  /// The bytes of an export the generator writes for `days` days of `shape`
  /// (`watch` or `dense`), through a temporary file that is removed again.
  static func generatedExport(shape: String, days: Int) throws -> Data {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-generated-\(getpid())-\(shape)-\(days).xml").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    _ = try generateExport(arguments: ["--days", "\(days)", "--shape", shape, "-o", path])
    return try Data(contentsOf: URL(fileURLWithPath: path))
  }

  /// Reads `data` front to back, as ``ExportReader/read(_:into:progress:)`` does with one thread.
  static func sequential(_ data: Data, name: String = "export.xml", into start: SampleLog = SampleLog())
    -> FullOutcome
  {
    var log = start
    do {
      let info = try ExportReader.read(.data(data, name: name), into: &log, threads: 1)
      return outcome(info: info, error: nil, log: log)
    } catch {
      return outcome(info: nil, error: HealthExportError(wrapping: error, path: name), log: log)
    }
  }

  /// Reads `data` with the parallel reader, cut into stretches of about `chunkBytes`.
  static func parallel(
    _ data: Data, name: String = "export.xml", chunkBytes: Int, headerBytes: Int? = nil, threads: Int = 2,
    bufferBytes: Int = 1 << 16, into start: SampleLog = SampleLog()
  ) -> FullOutcome {
    var run = ParallelExportReader.Run()
    return parallel(
      data, name: name, chunkBytes: chunkBytes, headerBytes: headerBytes, threads: threads,
      bufferBytes: bufferBytes, into: start, run: &run)
  }

  /// ``parallel(_:name:chunkBytes:headerBytes:threads:bufferBytes:into:)``, telling how the read went.
  static func parallel(
    _ data: Data, name: String = "export.xml", chunkBytes: Int, headerBytes: Int? = nil, threads: Int = 2,
    bufferBytes: Int = 1 << 16, into start: SampleLog = SampleLog(), run: inout ParallelExportReader.Run
  ) -> FullOutcome {
    var log = start
    let settings = ParallelExportReader.Settings(
      threads: threads, chunkBytes: chunkBytes, headerBytes: headerBytes ?? chunkBytes, minimumBytes: 0,
      bufferBytes: bufferBytes)
    do {
      let info = try ParallelExportReader.read(
        MemoryByteSource(data, displayName: name), into: &log, settings: settings, run: &run)
      return outcome(info: info, error: nil, log: log)
    } catch {
      return outcome(info: nil, error: HealthExportError(wrapping: error, path: name), log: log)
    }
  }

  /// The samples found before an error are not compared: the sequential
  /// reader stops part way, the parallel one may have merged other stretches
  /// first; the error and its place are what a caller sees.
  static func outcome(info: ExportInfo?, error: HealthExportError?, log: SampleLog) -> FullOutcome {
    if let error {
      return FullOutcome(
        info: nil, error: error, samples: [], sampleOrigins: [], origins: [], invalid: InvalidSampleReport())
    }
    return FullOutcome(
      info: info, error: nil, samples: log.samples,
      sampleOrigins: (0..<log.count).map(log.originOfSample(at:)),
      origins: log.origins, invalid: log.invalid)
  }

  /// Chunk sizes that put seams at every record line, every few, and rarely.
  static let chunkSizes = [1, 3, 64, 1000]

  /// Checks the parallel reader against the sequential one on `data` at every chunk size.
  /// - Returns: How each read went, by chunk size (the header stretch as long as a chunk).
  @discardableResult
  static func expectSameResults(
    _ data: Data, name: String = "export.xml", chunkSizes: [Int] = chunkSizes,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> [Int: ParallelExportReader.Run] {
    let expected = sequential(data, name: name)
    var runs: [Int: ParallelExportReader.Run] = [:]
    for chunk in chunkSizes {
      for header in Set([1, chunk]) {
        var run = ParallelExportReader.Run()
        let got = parallel(data, name: name, chunkBytes: chunk, headerBytes: header, run: &run)
        #expect(got == expected, "chunk \(chunk), header \(header)", sourceLocation: sourceLocation)
        if header == chunk { runs[chunk] = run }
      }
    }
    return runs
  }

  /// The repository's root folder.
  static var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }

  /// Every `.xml` file under `folder` of the repository.
  static func xmlFiles(under folder: String) -> [URL] {
    let root = repositoryRoot.appendingPathComponent(folder)
    guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
      return []
    }
    return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "xml" }
      .sorted { $0.path < $1.path }
  }

  /// Every export fixture of the tests, from both fixture folders.
  static var exportFixtures: [URL] {
    xmlFiles(under: "Tests/HealthExportTests/Fixtures") + xmlFiles(under: "Tests/stepkitTests/Fixtures")
  }

  /// A minimal export with a header and `body` (records one per line).
  static func export(_ body: String, exportDate: String = "2024-06-30 10:00:00 +0000") -> Data {
    Data(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <!DOCTYPE HealthData [
      <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation)*)>
      ]>
      <HealthData locale="en_GB">
       <ExportDate value="\(exportDate)"/>
       <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-01-01"/>
      \(body)
      </HealthData>

      """.utf8)
  }

  /// A step record line.
  static func steps(
    _ value: String, day: Int = 1, hour: Int = 8, source: String = "iPhone", device: String? = nil,
    selfClosing: Bool = true
  ) -> String {
    let date = String(format: "2024-06-%02d %02d:00:00 +0000", day, hour)
    let end = String(format: "2024-06-%02d %02d:10:00 +0000", day, hour)
    let deviceAttribute = device.map { " device=\"\($0)\"" } ?? ""
    let head =
      " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"\(source)\" sourceVersion=\"17.0\""
      + "\(deviceAttribute) unit=\"count\" creationDate=\"\(end)\" startDate=\"\(date)\" endDate=\"\(end)\""
      + " value=\"\(value)\""
    return selfClosing ? head + "/>" : head + ">"
  }
}

@Suite("Parallel reading")
struct ParallelReadingTests {
  @Test("Same results as one thread on every export fixture in the tests, at every chunk size")
  func fixtures() throws {
    let files = ParallelTestSupport.exportFixtures
    #expect(files.count >= 12)
    var mergedStretches = 0
    for file in files {
      let data = try Data(contentsOf: file)
      let runs = ParallelTestSupport.expectSameResults(data, name: file.lastPathComponent)
      mergedStretches += runs.values.map(\.merged).reduce(0, +)
    }
    // The stretches are really read in parallel, not all front to back.
    #expect(mergedStretches > 1000)
  }

  @Test("Same results as one thread on the fuzzing seed corpus")
  func fuzzCorpus() throws {
    let files = ParallelTestSupport.xmlFiles(under: "Fuzz/corpus/xml")
    #expect(files.count >= 10)
    for file in files {
      let data = try Data(contentsOf: file)
      ParallelTestSupport.expectSameResults(
        data, name: file.lastPathComponent, chunkSizes: [1, 2, 7, 50, 200])
    }
  }

  @Test(
    "Same results on the generator's output of both shapes, with seams everywhere",
    arguments: ["watch", "dense"])
  func generated(shape: String) throws {
    let data = try ParallelTestSupport.generatedExport(shape: shape, days: 3)
    let expected = ParallelTestSupport.sequential(data)
    #expect(expected.error == nil)
    #expect(expected.samples.count > 100)
    for chunk in [97, 2000, 50_000] {
      for threads in [2, 3] {
        var run = ParallelExportReader.Run()
        let got = ParallelTestSupport.parallel(
          data, chunkBytes: chunk, headerBytes: 500, threads: threads, run: &run)
        #expect(got == expected, "chunk \(chunk), \(threads) threads")
        // Seams inside a correlation are repaired; the rest is read in parallel.
        #expect(run.merged + run.repairedStretches == run.stretches)
        #expect(run.merged > run.stretches * 9 / 10)
        #expect(run.stretches > data.count / (chunk + 2000))
      }
    }
  }

  @Test("A file read through the public API on two threads gives the one-thread results")
  func publicPath() throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-parallel-public-\(getpid()).xml").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    // Large enough that the reader cuts it (4 MiB and more).
    _ = try generateExport(arguments: ["--days", "60", "--shape", "dense", "-o", path])
    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    #expect(size > 4 << 20)
    var one = SampleLog()
    var two = SampleLog()
    let first = try ExportReader.read(.path(path), into: &one, threads: 1)
    let second = try ExportReader.read(.path(path), into: &two, threads: 2)
    #expect(first == second)
    #expect(one.samples == two.samples)
    #expect(one.origins == two.origins)
    #expect(one.invalid == two.invalid)
    let settings = ParallelExportReader.Settings.automatic(threads: 2, byteCount: Int64(size))
    let seams = try SeamFinder.seams(
      in: FileByteSource(path: path), headerBytes: settings.headerBytes, chunkBytes: settings.chunkBytes)
    #expect(seams.count >= 4)
  }

  @Test(
    "Origins first met in later stretches, in other orders in each, are numbered as one thread numbers them")
  func originsNewInStretches() throws {
    // Stretches of about 150 records: the first knows one device, each later
    // one meets new ones (fresh addresses each record) in an order of its own.
    let devices = ["iPhone", "Watch", "Ring", "Scale", "Band"]
    var body: [String] = []
    for index in 0..<3000 {
      let stretch = index / 150
      let pick = stretch == 0 ? 0 : (index * 7 + stretch * 3) % min(devices.count, 1 + stretch / 2)
      let name = devices[(pick + stretch) % devices.count]
      let device = "&lt;&lt;HKDevice: 0x\(String(index, radix: 16))&gt;, name:\(name), model:\(name)&gt;"
      body.append(
        ParallelTestSupport.steps(
          "\(index % 500)", day: 1 + index / 200, hour: index % 24, source: name, device: device))
    }
    let data = ParallelTestSupport.export(body.joined(separator: "\n"))
    let expected = ParallelTestSupport.sequential(data)
    #expect(expected.error == nil)
    #expect(expected.origins.count == devices.count)
    for chunk in [3, 4000, 40_000] {
      var run = ParallelExportReader.Run()
      let got = ParallelTestSupport.parallel(data, chunkBytes: chunk, headerBytes: 2000, run: &run)
      #expect(got == expected, "chunk \(chunk)")
      #expect(run.repairs == 0)
    }
  }

  @Test("Samples appended to a log that already holds some, as one thread appends them")
  func nonEmptyLog() throws {
    var start = SampleLog()
    start.append(
      Sample(
        kind: .steps, start: Date(timeIntervalSince1970: 1_700_000_000),
        end: Date(timeIntervalSince1970: 1_700_000_600), value: 10, source: "Earlier"))
    start.append(
      Sample(
        kind: .steps, start: Date(timeIntervalSince1970: 1_700_000_000),
        end: Date(timeIntervalSince1970: 1_700_000_600), value: 10, source: "iPhone"))
    let body = (0..<30).map {
      ParallelTestSupport.steps("\($0 * 10)", hour: $0 % 20, source: $0 % 3 == 0 ? "iPhone" : "Watch")
    }
    let data = ParallelTestSupport.export(body.joined(separator: "\n"))
    let expected = ParallelTestSupport.sequential(data, into: start)
    for chunk in [1, 100, 700] {
      #expect(ParallelTestSupport.parallel(data, chunkBytes: chunk, into: start) == expected)
    }
  }

  @Test(
    "Candidate seams inside a comment, CDATA, an attribute value or the DTD fall back, with the same results",
    arguments: [
      // A comment holding record lines.
      (
        " <!-- old data\n <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"X\" value=\"5\"/>\n"
          + " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"X\" value=\"6\"/>\n -->", true
      ),
      // CDATA inside a record.
      (
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"count\""
          + " startDate=\"2024-06-02 08:00:00 +0000\" endDate=\"2024-06-02 08:10:00 +0000\" value=\"7\">"
          + "<![CDATA[\n <Record type=\"HKQuantityTypeIdentifierStepCount\" value=\"9\"/>\n"
          + " <Record  type=\"x\"/>\n]]></Record>", true
      ),
      // An attribute value that holds a newline and "<Record " (malformed: '<' in a value).
      (" <Workout note=\"a\n  <Record type=&quot;x&quot;/>\n  <Record \"/>", false),
      // A metadata entry whose value spans lines.
      (
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"count\""
          + " startDate=\"2024-06-02 09:00:00 +0000\" endDate=\"2024-06-02 09:10:00 +0000\" value=\"8\">\n"
          + "  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n"
          + "  <MetadataEntry key=\"note\" value=\"x\n <Record y\n <Record \"/>\n </Record>", false
      ),
      // A processing instruction holding record lines.
      (" <?note\n <Record type=\"HKQuantityTypeIdentifierStepCount\"/>\n ?>", true),
      // A metadata entry whose value spans lines, the record line escaped.
      (
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" unit=\"count\""
          + " startDate=\"2024-06-02 10:00:00 +0000\" endDate=\"2024-06-02 10:10:00 +0000\" value=\"8\">\n"
          + "  <MetadataEntry key=\"note\" value=\"x\n &lt;Record y\n\"/>\n </Record>", true
      ),
    ] as [(String, Bool)])
  func doubtfulSeams(inner: String, wellFormed: Bool) throws {
    let before = (0..<6).map { ParallelTestSupport.steps("\($0 + 1)", hour: $0) }
    let after = (0..<6).map { ParallelTestSupport.steps("\($0 + 100)", day: 3, hour: $0) }
    let data = ParallelTestSupport.export((before + [inner] + after).joined(separator: "\n"))
    let expected = ParallelTestSupport.sequential(data)
    #expect((expected.error == nil) == wellFormed)
    let runs = ParallelTestSupport.expectSameResults(data)
    // With a seam at every candidate, one lands inside the doubtful part and
    // is caught (in malformed XML, the error is thrown from the repair).
    if wellFormed, inner.contains("\n <Record ") {
      #expect(runs[1].map { $0.repairs > 0 } == true)
    }
  }

  @Test("Record lines inside the DTD are not seams")
  func seamsInDTD() throws {
    var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<!DOCTYPE HealthData ["]
    for _ in 0..<5 { lines.append(" <Record type=\"fake\"/>") }
    lines.append(" <!ATTLIST Record type CDATA #REQUIRED>")
    lines.append("]>")
    lines.append("<HealthData locale=\"en_GB\">")
    lines.append(" <ExportDate value=\"2024-06-30 10:00:00 +0000\"/>")
    for hour in 0..<10 { lines.append(ParallelTestSupport.steps("\(hour + 1)", hour: hour)) }
    lines.append("</HealthData>")
    let data = Data((lines.joined(separator: "\n") + "\n").utf8)
    #expect(ParallelTestSupport.sequential(data).error == nil)
    ParallelTestSupport.expectSameResults(data)
  }

  @Test(
    "The first error in file order is reported at its line and column",
    arguments: [
      // In the first stretch, in a later one, and both (the first wins).
      ("bad-early", 1, Int?.none),
      ("bad-late", Int?.none, 25),
      ("bad-both", 3, 20),
    ] as [(String, Int?, Int?)])
  func errors(label: String, early: Int?, late: Int?) throws {
    var body = (0..<30).map { ParallelTestSupport.steps("\($0 + 1)", hour: $0 % 20) }
    if let early { body[early] = " <Record type=\"HKQuantityTypeIdentifierStepCount\" value=\"1\"/ >" }
    if let late { body[late] = " <Record type=\"a\"></Recrod>" }
    let data = ParallelTestSupport.export(body.joined(separator: "\n"))
    let expected = ParallelTestSupport.sequential(data)
    let error = try #require(expected.error, "\(label)")
    guard case .malformedXML(_, let line, _, _) = error else {
      Issue.record("\(label): \(error)")
      return
    }
    #expect(line == 8 + (early ?? late ?? 0))
    ParallelTestSupport.expectSameResults(data)
  }

  @Test("A truncated file and text after the root are reported as one thread reports them")
  func endOfInput() throws {
    let body = (0..<20).map { ParallelTestSupport.steps("\($0 + 1)", hour: $0) }.joined(separator: "\n")
    let whole = ParallelTestSupport.export(body)
    let truncated = whole.prefix(whole.count - 40)
    #expect(ParallelTestSupport.sequential(Data(truncated)).error != nil)
    ParallelTestSupport.expectSameResults(Data(truncated))
    let trailing = whole + Data("oops\n".utf8)
    #expect(ParallelTestSupport.sequential(trailing).error != nil)
    ParallelTestSupport.expectSameResults(trailing)
    let unclosed = Data(
      String(decoding: whole, as: UTF8.self).replacingOccurrences(of: "</HealthData>", with: "").utf8)
    #expect(ParallelTestSupport.sequential(unclosed).error != nil)
    ParallelTestSupport.expectSameResults(unclosed)
  }

  @Test("Invalid records in every stretch: the same count, examples and places, beyond the kept examples")
  func invalidRecords() throws {
    var body: [String] = []
    for index in 0..<60 {
      switch index % 4 {
      case 0: body.append(ParallelTestSupport.steps("-\(index + 1)", hour: index % 20))
      case 1: body.append(ParallelTestSupport.steps("x\(index)", hour: index % 20))
      case 2:
        // Starts after the export date: the header's date applies in every stretch.
        body.append(ParallelTestSupport.steps("\(index)", day: 30, hour: 20))
      default: body.append(ParallelTestSupport.steps("\(index)", hour: index % 20))
      }
    }
    let data = ParallelTestSupport.export(body.joined(separator: "\n"))
    let expected = ParallelTestSupport.sequential(data)
    #expect(expected.invalid.count == 45)
    #expect(expected.invalid.examples.count == InvalidSampleReport.keptExamples)
    #expect(expected.invalid.examples.contains { $0.reason == .startsAfterExport })
    ParallelTestSupport.expectSameResults(data)
  }

  @Test("Metadata children, user-entered flags, control characters and iOS 8 attributes are counted alike")
  func counters() throws {
    var body: [String] = []
    for index in 0..<24 {
      if index % 3 == 0 {
        body.append(ParallelTestSupport.steps("\(index)", hour: index % 20, selfClosing: false))
        body.append("  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>")
        body.append(" </Record>")
      } else if index % 3 == 1 {
        body.append(
          ParallelTestSupport.steps("\(index)", hour: index % 20, source: "Old\u{0B}App")
            .replacingOccurrences(
              of: "/>", with: " Health Mate App Version=\"2.6.2\"/>"))
      } else {
        body.append(
          ParallelTestSupport.steps(
            "\(index)", hour: index % 20,
            device: "&lt;&lt;HKDevice: 0x28\(index)&gt;, name:Watch, model:Watch&gt;"))
      }
    }
    let data = ParallelTestSupport.export(body.joined(separator: "\n"))
    let expected = ParallelTestSupport.sequential(data)
    let info = try #require(expected.info)
    #expect(info.userEnteredRecords == 8)
    #expect(info.malformedAttributes == 8)
    #expect(info.skippedControlCharacters == 8)
    ParallelTestSupport.expectSameResults(data)
  }

  @Test("An export date or Me after the first records is read front to back from there")
  func lateHeader() throws {
    let first = (0..<5).map { ParallelTestSupport.steps("\($0 + 1)", day: 20, hour: $0) }
    let rest = (0..<5).map { ParallelTestSupport.steps("\($0 + 10)", day: 20, hour: $0 + 10) }
    let body = first + [" <ExportDate value=\"2024-06-20 06:00:00 +0000\"/>", " <Me/>"] + rest
    let data = Data(
      ("<?xml version=\"1.0\"?>\n<HealthData>\n" + body.joined(separator: "\n") + "\n</HealthData>\n").utf8)
    let expected = ParallelTestSupport.sequential(data)
    #expect(expected.invalid.count == 5)
    ParallelTestSupport.expectSameResults(data)
    // No export date at all: nothing is after it.
    let dateless = Data(
      ("<?xml version=\"1.0\"?>\n<HealthData>\n" + (first + rest).joined(separator: "\n")
        + "\n</HealthData>\n").utf8)
    #expect(ParallelTestSupport.sequential(dateless).invalid.count == 0)
    ParallelTestSupport.expectSameResults(dateless)
  }

  @Test(
    "A malformed attribute in a record of another type: the same error however buffers and stretches fall")
  func malformedAttributeAcrossBuffers() throws {
    // Found by the differential fuzzer: a tag cut by a buffer's end was judged
    // by the careful path, which checks every attribute, and a whole one by the
    // fast path, which leaves attributes of uncounted types unchecked.
    let xml =
      "<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n"
      + " <ExportDate value=\"2024-03-01 09:00:00 +0800\"/>\n text\u{0B}here\n"
      + " <Record type=\"HKSuantityTypeIdentifierStepCount\" sourceName=\"Tab\u{0B}Source\" unit=\u{01}\u{0}\u{0}\u{03}\"count\""
      + " sDate=\"2024-02-29 08:10:00 +0800lav\"u e=\"8\"/>\n</HealthData>\n"
    let data = Data(xml.utf8)
    var outcomes: [FullOutcome] = []
    for bufferBytes in [16, 100, 128, 150, 1 << 16] {
      var log = SampleLog()
      do {
        let info = try ExportReader.readXML(
          data, name: "export.xml", into: &log, threads: 1, chunkBytes: 0, bufferBytes: bufferBytes)
        outcomes.append(
          FullOutcome(
            info: info, error: nil, samples: log.samples, sampleOrigins: [], origins: log.origins,
            invalid: log.invalid))
      } catch {
        outcomes.append(
          FullOutcome(
            info: nil, error: HealthExportError(wrapping: error, path: "export.xml"), samples: [],
            sampleOrigins: [], origins: [], invalid: InvalidSampleReport()))
      }
    }
    #expect(Set(outcomes.map(\.description)).count == 1, "\(outcomes)")
    ParallelTestSupport.expectSameResults(data, chunkSizes: [1, 20, 100])
    for bufferBytes in [16, 128] {
      var one = SampleLog()
      var two = SampleLog()
      let sequential = Result {
        try ExportReader.readXML(
          data, name: "x", into: &one, threads: 1, chunkBytes: 0, bufferBytes: bufferBytes)
      }
      let parallel = Result {
        try ExportReader.readXML(
          data, name: "x", into: &two, threads: 2, chunkBytes: 20, bufferBytes: bufferBytes)
      }
      #expect(String(describing: sequential) == String(describing: parallel))
    }
  }

  @Test("Seams are found after a newline, before optional spaces and <Record ")
  func seamFinding() throws {
    let text = "<a>\n<Recordx/>\n   <Record a=\"1\"/>\n\t<Record b/>\n<Record"
    let source = MemoryByteSource(Data(text.utf8), displayName: "t")
    let firstLine = text.utf8.count - "   <Record a=\"1\"/>\n\t<Record b/>\n<Record".utf8.count
    #expect(try SeamFinder.firstSeam(in: source, from: 1, before: Int64(text.utf8.count)) == Int64(firstLine))
    let second = firstLine + "   <Record a=\"1\"/>\n".utf8.count
    #expect(try SeamFinder.firstSeam(in: source, from: Int64(firstLine + 1), before: 1000) == Int64(second))
    // `<Record` with nothing after it is no candidate.
    #expect(try SeamFinder.firstSeam(in: source, from: Int64(second + 1), before: 1000) == nil)
    #expect(
      try SeamFinder.seams(in: source, headerBytes: 1, chunkBytes: 1) == [Int64(firstLine), Int64(second)])
  }

  @Test(
    "A seam is found past the first read and the windows that grow after it, or split across two",
    arguments: [1, 100, 4095, 4096, 4097, 12_280, 12_290, 70_000, 200_000])
  func seamPastFirstWindows(lead: Int) throws {
    // A long line (a comment, say) before the first record line; `<Record ` may straddle a window's end.
    let text = "<a>\n<!--" + String(repeating: "x", count: lead) + "-->\n  <Record t=\"1\"/>\n<Record u/>\n"
    let source = MemoryByteSource(Data(text.utf8), displayName: "t")
    let expected = Int64(4 + 4 + lead + 4)
    let size = Int64(text.utf8.count)
    #expect(try SeamFinder.firstSeam(in: source, from: 1, before: size) == expected)
    #expect(try SeamFinder.firstSeam(in: source, from: 1, before: expected - 1) == nil)
    #expect(try SeamFinder.firstSeam(in: source, from: expected, before: size) == expected)
  }

  @Test("Stretches shrink towards the end of the file, within their bounds, and read as one thread")
  func taperingStretches() throws {
    let body = (0..<4000).map {
      ParallelTestSupport.steps(
        "\($0 % 700)", day: 1 + $0 / 200, hour: $0 % 24, source: $0 % 5 == 0 ? "Watch" : "iPhone")
    }
    let data = ParallelTestSupport.export(body.joined(separator: "\n"))
    let source = MemoryByteSource(data, displayName: "export.xml")
    let (largest, smallest) = (40_000, 3000)
    let seams = try SeamFinder.seams(
      in: source, headerBytes: 1000, chunkBytes: largest, smallestChunkBytes: smallest, threads: 2)
    let gaps = zip(seams, seams.dropFirst()).map { $1 - $0 }
    // A gap ends at the first record line at or after its size: at most one line longer.
    let line = Int64(body[0].utf8.count + 1)
    #expect(gaps.allSatisfy { $0 >= Int64(smallest) && $0 <= Int64(largest) + line })
    #expect(zip(gaps, gaps.dropFirst()).allSatisfy { $1 <= $0 + line })
    #expect(gaps.first! >= Int64(largest))
    #expect(gaps.last! < Int64(2 * smallest) + line)
    let fixed = try SeamFinder.seams(in: source, headerBytes: 1000, chunkBytes: largest)
    #expect(seams.count > fixed.count)

    let expected = ParallelTestSupport.sequential(data)
    #expect(expected.error == nil)
    for threads in [2, 3] {
      var log = SampleLog()
      var run = ParallelExportReader.Run()
      var settings = ParallelExportReader.Settings(
        threads: threads, chunkBytes: largest, headerBytes: 1000, minimumBytes: 0, bufferBytes: 1 << 12)
      settings.smallestChunkBytes = smallest
      let info = try ParallelExportReader.read(source, into: &log, settings: settings, run: &run)
      #expect(info == expected.info)
      #expect(log.samples == expected.samples)
      #expect(log.origins == expected.origins)
      #expect(log.invalid == expected.invalid)
      #expect(run.repairs == 0)
      let cut = try SeamFinder.seams(
        in: source, headerBytes: 1000, chunkBytes: largest, smallestChunkBytes: smallest, threads: threads)
      #expect(run.stretches == cut.count + 1)
    }
  }
}
