import Foundation
import StepKitCore
import Testing

@testable import ExportGenerator
@_spi(Testing) @testable import HealthExport

/// Reading a zip entry cut into stretches as it inflates, with the inflating
/// thread scanning some of them (``InflatedStretches``), gives what scanning
/// the entry front to back gives: samples, counts, invalid-record reports,
/// errors with their places, checksum and inflation errors. Every engine
/// built in is tried (ISA-L with `swift test --traits ISAL`).
@Suite("Zip entries read in stretches as they inflate")
struct InflatedStretchTests {
  static let entryName = "apple_health_export/export.xml"

  /// (stretch bytes, stretches in the ring): seams every record or two and rarely, rings full at once or not.
  static let shapes = [(300, 2), (1000, 3), (5000, 2), (64 << 10, 8)]

  static let helpings: [InflatedStretches.Helping] = [.always, .whenIdle, .never]

  /// How one stretched read went.
  struct Read {
    var outcome: FullOutcome
    var run = ParallelExportReader.Run()
    var scannedByInflater = 0
  }

  static func zip(_ xml: [UInt8], _ options: ZipTestWriter.EntryOptions = .init()) -> [UInt8] {
    var writer = ZipTestWriter()
    writer.add(entryName, xml, options)
    return writer.finished()
  }

  /// Reads `zip` front to back on one thread, as ``ExportReader/read(_:into:threads:progress:)`` does with one.
  static func sequential(_ zip: [UInt8]) -> FullOutcome {
    var log = SampleLog()
    do {
      let info = try ExportReader.read(.data(Data(zip), name: "export.zip"), into: &log, threads: 1)
      return outcome(info: info, error: nil, log: log)
    } catch {
      return outcome(info: nil, error: HealthExportError(wrapping: error, path: "export.zip"), log: log)
    }
  }

  /// Reads `zip` in stretches of `stretchBytes` as it inflates.
  static func stretched(
    _ zip: [UInt8], stretchBytes: Int, stretchCount: Int, engine: InflateEngine,
    helping: InflatedStretches.Helping
  ) -> Read {
    var log = SampleLog()
    var read = Read(outcome: outcome(info: nil, error: nil, log: log))
    do {
      let archive = try ZipTestSupport.archive(zip)
      let entry = try HealthXMLLocator.healthExportEntry(in: archive)
      let info = try ExportReader.readStretched(
        archive, entry, into: &log, threads: 2, stretchBytes: stretchBytes, stretchCount: stretchCount,
        engine: engine, helping: helping, run: &read.run, scannedByInflater: &read.scannedByInflater)
      read.outcome = outcome(info: info, error: nil, log: log)
    } catch {
      read.outcome = outcome(
        info: nil, error: HealthExportError(wrapping: error, path: "export.zip"), log: log)
    }
    return read
  }

  /// The samples before an error are not compared (see ``ParallelTestSupport``).
  static func outcome(info: ExportInfo?, error: HealthExportError?, log: SampleLog) -> FullOutcome {
    ParallelTestSupport.outcome(info: info, error: error, log: log)
  }

  /// Checks every shape, helping and engine against the one-thread read of `zip`.
  /// - Returns: With `.always`, stretches scanned by the inflating thread and merged as scanned.
  @discardableResult
  static func expectSameResults(
    _ zip: [UInt8], name: String, shapes: [(Int, Int)] = shapes,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> (scannedByInflater: Int, merged: Int) {
    let expected = sequential(zip)
    var scanned = 0
    var merged = 0
    for (bytes, count) in shapes {
      for engine in InflateEngine.allCases {
        for helping in helpings {
          let read = stretched(
            zip, stretchBytes: bytes, stretchCount: count, engine: engine, helping: helping)
          #expect(
            read.outcome == expected, "\(name): \(bytes) × \(count), \(engine), \(helping)",
            sourceLocation: sourceLocation)
          if helping == .never { #expect(read.scannedByInflater == 0, sourceLocation: sourceLocation) }
          // `.always` is the helping whose counts do not depend on timing.
          if helping == .always {
            scanned += read.scannedByInflater
            merged += max(read.run.merged - 1, 0)
          }
        }
      }
    }
    return (scanned, merged)
  }

  @Test("Every export fixture in the tests, zipped, reads as front to back")
  func fixtures() throws {
    var scanned = 0
    var merged = 0
    for file in ParallelTestSupport.exportFixtures {
      let xml = try [UInt8](Data(contentsOf: file))
      let counts = Self.expectSameResults(Self.zip(xml), name: file.lastPathComponent)
      scanned += counts.scannedByInflater
      merged += counts.merged
    }
    // The inflating thread really scanned stretches, and they were joined as it scanned them.
    #expect(scanned > 50)
    #expect(merged > 50)
  }

  @Test("The generator's output of both shapes reads as front to back", arguments: ["watch", "dense"])
  func generated(shape: String) throws {
    let xml = try [UInt8](ParallelTestSupport.generatedExport(shape: shape, days: 2))
    let zip = Self.zip(xml)
    let expected = Self.sequential(zip)
    #expect(expected.error == nil)
    #expect(expected.samples.count > 100)
    let counts = Self.expectSameResults(zip, name: shape, shapes: [(1000, 3), (20_000, 4), (64 << 10, 8)])
    #expect(counts.scannedByInflater > 20)
    // With `.always`, every stretch after the header that starts at a seam is the inflating thread's.
    let read = Self.stretched(zip, stretchBytes: 20_000, stretchCount: 4, engine: .zlib, helping: .always)
    #expect(read.outcome == expected)
    #expect(read.run.stretches > xml.count / 21_000)
    #expect(read.scannedByInflater >= read.run.stretches * 9 / 10)
    #expect(read.run.merged > read.run.stretches * 8 / 10)
  }

  /// A dense export of `records` step records, one per line, with `insert` after record `at`.
  static func records(_ records: Int, insert: String = "", at: Int = -1) -> [UInt8] {
    var body = ""
    for index in 0..<records {
      body += ParallelTestSupport.steps(
        "\(index % 300 + 1)", day: index / 600 % 28 + 1, hour: index / 25 % 24)
      body += "\n"
      if index == at { body += insert + "\n" }
    }
    return [UInt8](ParallelTestSupport.export(body))
  }

  @Test(
    "A malformed record in a stretch the inflating thread scans is reported as front to back",
    arguments: 0..<3)
  func malformedRecordInInflaterStretch(variant: Int) throws {
    let inserts = [
      " <Record type=\"a<b\"/>",
      " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName/>",
      " <Record type=\"x\"\n <Record type=\"y\"/>",
    ]
    for at in [40, 700, 1990] {
      let zip = Self.zip(Self.records(2000, insert: inserts[variant], at: at))
      let expected = Self.sequential(zip)
      guard case .malformedXML(_, let line, _, _)? = expected.error else {
        Issue.record("expected a malformed-XML error, got \(expected)")
        continue
      }
      #expect(line > at)
      for engine in InflateEngine.allCases {
        let read = Self.stretched(zip, stretchBytes: 4000, stretchCount: 3, engine: engine, helping: .always)
        #expect(read.outcome == expected, "record \(at), \(engine)")
        #expect(read.scannedByInflater > 0)
      }
      Self.expectSameResults(zip, name: "malformed after record \(at)", shapes: [(1000, 2), (4000, 3)])
    }
  }

  @Test("Invalid records in stretches the inflating thread scans: the same count, examples and places")
  func invalidRecords() throws {
    var body = ""
    for index in 0..<3000 {
      let value = index % 37 == 0 ? "x\(index)" : "\(index % 90)"
      body += ParallelTestSupport.steps(value, day: index % 28 + 1, hour: index % 24) + "\n"
    }
    let zip = Self.zip([UInt8](ParallelTestSupport.export(body)))
    let expected = Self.sequential(zip)
    #expect(expected.invalid.count == 82)
    let counts = Self.expectSameResults(zip, name: "invalid records", shapes: [(2000, 2), (9000, 4)])
    #expect(counts.scannedByInflater > 10)
  }

  @Test("A wrong CRC-32 is reported as front to back, wherever the last stretch was scanned")
  func checksumMismatch() throws {
    let xml = Self.records(3000)
    for method in [ZipTestWriter.Method.deflated, .stored] {
      let zip = Self.zip(xml, .init(method: method, crcOverride: 0x0BAD_F00D))
      let expected = Self.sequential(zip)
      #expect(expected.error == .checksumMismatch(entry: "export.zip:\(Self.entryName)"))
      Self.expectSameResults(zip, name: "crc, \(method)", shapes: [(1000, 2), (7000, 3), (1 << 20, 2)])
    }
    // A truncated document with a wrong checksum: the checksum is reported first, as front to back.
    var cut = Self.records(500)
    cut.removeLast(40)
    let zip = Self.zip(cut, .init(crcOverride: 1))
    #expect(Self.sequential(zip).error == .checksumMismatch(entry: "export.zip:\(Self.entryName)"))
    Self.expectSameResults(zip, name: "truncated xml, crc", shapes: [(1000, 2), (5000, 3)])
  }

  @Test("A truncated or damaged deflate stream fails as front to back, after the stretches before it")
  func damagedStreams() throws {
    let xml = Self.records(3000)
    let compressed = ZipTestWriter.deflate(xml).count
    for keep in [compressed / 3, compressed - 5] {
      let zip = Self.zip(xml, .init(truncateCompressedTo: keep))
      let expected = Self.sequential(zip)
      guard case .corruptCompressedData? = expected.error else {
        Issue.record("expected corrupt compressed data, got \(expected)")
        continue
      }
      for engine in InflateEngine.allCases {
        for helping in Self.helpings {
          let read = Self.stretched(
            zip, stretchBytes: 3000, stretchCount: 3, engine: engine, helping: helping)
          guard case .corruptCompressedData? = read.outcome.error else {
            Issue.record("kept \(keep), \(engine), \(helping): \(read.outcome)")
            continue
          }
        }
      }
    }
    // Damaged copies: every helping gives what the joining thread alone gives over the same stretches.
    var state: UInt64 = 5
    func random(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(state >> 33) % bound
    }
    let seed = Self.zip(Self.records(1500))
    var failures = 0
    // Under ThreadSanitizer the first 10 of the 60 copies: each read starts and joins threads,
    // which took two minutes of the tsan stage for the 60.
    let copies = 60 / SanitizerRun.step(thread: 6, address: 1)
    for _ in 0..<copies {
      var bytes = seed
      for _ in 0..<(1 + random(3)) {
        let at = 80 + random(bytes.count - 200)
        bytes[at] ^= UInt8(1 << random(8))
      }
      for engine in InflateEngine.allCases {
        let reference = Self.stretched(
          bytes, stretchBytes: 2000, stretchCount: 3, engine: engine, helping: .never)
        if reference.outcome.error != nil { failures += 1 }
        for helping in [InflatedStretches.Helping.always, .whenIdle] {
          let read = Self.stretched(
            bytes, stretchBytes: 2000, stretchCount: 3, engine: engine, helping: helping)
          #expect(read.outcome == reference.outcome, "\(engine), \(helping)")
        }
      }
    }
    #expect(failures > copies / 2)
  }

  @Test("An export date after the first stretches is read front to back from there")
  func lateExportDate() throws {
    var body = ""
    for index in 0..<1500 {
      body += ParallelTestSupport.steps("\(index % 50)", day: index % 28 + 1) + "\n"
      if index == 700 { body += " <ExportDate value=\"2024-06-10 10:00:00 +0000\"/>\n" }
    }
    let zip = Self.zip([UInt8](ParallelTestSupport.export(body)))
    Self.expectSameResults(zip, name: "late export date", shapes: [(1000, 2), (6000, 4)])
  }

  @Test("A zip of a few MiB read through the public API on two threads gives the one-thread results")
  func publicPath() throws {
    let directory = FileManager.default.temporaryDirectory
    let xmlPath = directory.appendingPathComponent("stepkit-stretched-public-\(getpid()).xml").path
    let zipPath = directory.appendingPathComponent("stepkit-stretched-public-\(getpid()).zip").path
    defer {
      try? FileManager.default.removeItem(atPath: xmlPath)
      try? FileManager.default.removeItem(atPath: zipPath)
    }
    _ = try generateExport(arguments: ["--days", "60", "--shape", "dense", "-o", xmlPath, "--zip", zipPath])
    let archive = try ZipArchive(source: FileByteSource(path: zipPath))
    let entry = try HealthXMLLocator.healthExportEntry(in: archive)
    #expect(entry.uncompressedSize >= ExportReader.minimumStretchedEntryBytes)
    var one = SampleLog()
    var two = SampleLog()
    let first = try ExportReader.read(.path(zipPath), into: &one, threads: 1)
    let second = try ExportReader.read(.path(zipPath), into: &two, threads: 2)
    #expect(first == second)
    #expect(one.samples == two.samples)
    #expect(one.origins == two.origins)
    #expect(one.invalid == two.invalid)
  }
}
