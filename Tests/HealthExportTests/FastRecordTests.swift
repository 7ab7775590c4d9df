import Foundation
import StepKitCore
import Testing

@_spi(Testing) @testable import HealthExport

/// Step and distance records read straight from their bytes
/// (`ExportDecoder.fastSampleRecord()`) must give exactly what lexing every
/// tag first gives: the same samples, origins, counts, invalid-record reports
/// and errors, with the same lines and columns.
@Suite("Records read straight from their bytes")
struct FastRecordTests {
  /// What reading `bytes` gave, and how many records were read straight from their bytes.
  static func read(_ bytes: [UInt8], fast: Bool, chunkSize: Int = Int.max) -> (FullOutcome, fastRecords: Int)
  {
    var decoder = ExportDecoder(
      source: ChunkedSource(bytes, chunkSize: chunkSize), mode: .samples, fastRecords: fast)
    do {
      while case .record = try decoder.step() {}
      return (
        ParallelTestSupport.outcome(info: decoder.info, error: nil, log: decoder.log), decoder.recordsReadFast
      )
    } catch {
      let wrapped = HealthExportError(wrapping: error, path: "export.xml")
      return (
        ParallelTestSupport.outcome(info: nil, error: wrapped, log: decoder.log), decoder.recordsReadFast
      )
    }
  }

  /// Expects both ways to agree on `bytes`; returns how many records were read fast.
  @discardableResult
  static func expectSame(
    _ bytes: [UInt8], chunkSize: Int = Int.max, _ comment: @autoclosure () -> String = "",
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> Int {
    let (careful, none) = read(bytes, fast: false, chunkSize: chunkSize)
    let (fast, count) = read(bytes, fast: true, chunkSize: chunkSize)
    #expect(none == 0, sourceLocation: sourceLocation)
    #expect(fast == careful, "\(comment())", sourceLocation: sourceLocation)
    return count
  }

  static let watch =
    "&lt;&lt;HKDevice: 0x28bdf9180&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
    + "hardware:Watch6,1, software:7.3&gt;"
  static let phone =
    "&lt;&lt;HKDevice: 0x2835a1e00&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, "
    + "hardware:iPhone12,1, software:14.4&gt;"

  /// A record line as Apple writes them.
  static func record(
    _ type: String, source: String, device: String?, unit: String, minute: Int, value: String,
    address: String? = nil, children: String? = nil
  ) -> String {
    let start = String(format: "2024-06-01 08:%02d:00 +0200", minute)
    let end = String(format: "2024-06-01 08:%02d:30 +0200", minute)
    var deviceAttribute = ""
    if var device {
      if let address { device = device.replacingOccurrences(of: "0x28bdf9180", with: address) }
      deviceAttribute = " device=\"\(device)\""
    }
    let head =
      " <Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"\(source)\" sourceVersion=\"7.3\""
      + "\(deviceAttribute) unit=\"\(unit)\" creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\""
      + " value=\"\(value)\""
    guard let children else { return head + "/>" }
    return head + ">\n" + children + "\n </Record>"
  }

  /// Records of a watch, a phone and a device-less app, with fresh addresses,
  /// both kinds, several units, a user-entered child and a heart rate between.
  static var records: [String] {
    var lines: [String] = []
    for minute in 0..<6 {
      let address = String(format: "0x28%07x", 0x1234 &* (minute + 1))
      lines.append(
        record(
          "StepCount", source: "Lena’s Apple Watch", device: watch, unit: "count", minute: minute,
          value: "\(40 + minute)", address: address))
      lines.append(
        record(
          "DistanceWalkingRunning", source: "Lena’s Apple Watch", device: watch, unit: "km",
          minute: minute, value: "0.0\(3 + minute)1", address: address))
      lines.append(
        record(
          "StepCount", source: "Lena’s iPhone", device: phone, unit: "count", minute: minute,
          value: "\(30 + minute)"))
      lines.append(
        // Heart rates with a child and an end tag (passed over whole), or without.
        record(
          "HeartRate", source: "Lena’s Apple Watch", device: watch, unit: "count/min", minute: minute,
          value: "71",
          children: minute.isMultiple(of: 2)
            ? "  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"0\"/>" : nil))
      lines.append(
        record(
          "DistanceWalkingRunning", source: "小米运动健康", device: nil,
          unit: minute.isMultiple(of: 2) ? "mi" : "m",
          minute: minute, value: "\(12 + minute)"))
    }
    lines.append(
      record(
        "StepCount", source: "Health", device: nil, unit: "count", minute: 50, value: "1500",
        children: "  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>"))
    lines.append(
      record(
        "StepCount", source: "Lena’s iPhone", device: phone, unit: "count", minute: 51, value: "12",
        children: "  <MetadataEntry key=\"HKMetadataKeySyncVersion\" value=\"1\"/>"))
    return lines
  }

  /// An export holding `body`, followed by enough bytes for every record to be deferred.
  static func export(_ body: String) -> [UInt8] {
    let padding = "<!--" + String(repeating: " ", count: 5000) + "-->"
    return Array(
      ParallelTestSupport.export(body + "\n " + padding, exportDate: "2024-06-30 10:00:00 +0200"))
  }

  @Test("Apple-shaped records: the same results, nearly all of them read straight from their bytes")
  func appleShaped() throws {
    let bytes = Self.export(Self.records.joined(separator: "\n"))
    let fast = Self.expectSame(bytes)
    let (outcome, _) = Self.read(bytes, fast: true)
    #expect(outcome.error == nil)
    #expect(outcome.samples.count == 26)
    #expect(outcome.info?.userEnteredRecords == 1)
    // The first record of each of the four origins is lexed; the rest, heart rates passed over
    // included, is read fast.
    #expect(fast == 28)
  }

  /// The bytes a mutation puts in.
  static let replacements: [UInt8] = Array("\"'<>\n\t&/ =x0".utf8) + [0x0B, 0xE2]

  @Test("Any one byte replaced, removed or doubled in the records gives the same results both ways")
  func mutations() throws {
    let body = Self.records.prefix(8).joined(separator: "\n")
    let base = Self.export(body)
    let bodyStart = try #require(base.firstRange(of: Array(" <Record".utf8))?.lowerBound)
    let bodyEnd = bodyStart + body.utf8.count
    var fastTotal = 0
    var cases = 0
    // Every third byte of the records, each change of it; every byte of the first record.
    // Under a sanitizer (158 s under ThreadSanitizer for every case), every 7th or 2nd of those.
    let sample = SanitizerRun.step(thread: 7, address: 2)
    for position in bodyStart..<bodyEnd
    where (position < bodyStart + 420 || position % 3 == 0) && (position - bodyStart) % sample == 0 {
      var variants: [[UInt8]] = []
      for byte in Self.replacements where byte != base[position] {
        var changed = base
        changed[position] = byte
        variants.append(changed)
      }
      var removed = base
      removed.remove(at: position)
      variants.append(removed)
      var doubled = base
      doubled.insert(base[position], at: position)
      variants.append(doubled)
      for variant in variants {
        fastTotal += Self.expectSame(variant, "byte \(position - bodyStart) changed")
        cases += 1
      }
    }
    // Unchanged, five of the eight records are read fast (the first of each origin is lexed);
    // most changes leave most of them so: the fast path was really compared.
    #expect(fastTotal > cases * 2)
  }

  @Test("A record longer than the deferral window, at the buffer's end, at any chunk size")
  func longRecords() throws {
    let long = String(repeating: "7", count: 4200)
    var lines = Self.records
    lines.insert(
      Self.record(
        "StepCount", source: "Lena’s iPhone", device: Self.phone, unit: "count", minute: 40, value: "9"
      )
      .replacingOccurrences(of: "sourceVersion=\"7.3\"", with: "sourceVersion=\"\(long)\""),
      at: 10)
    let bytes = Self.export(lines.joined(separator: "\n"))
    for chunk in [4097, 4300, 5000, 9000, 20_000] {
      Self.expectSame(bytes, chunkSize: chunk, "chunk \(chunk)")
    }
    #expect(Self.expectSame(bytes) > 20)
  }

  @Test(
    "Whatever lies between records, the same lines, columns and control characters both ways",
    arguments: [
      "", " ", "\n", "\n ", "\n      ", "\n       ", "\n        ", "\n" + String(repeating: " ", count: 20),
      "\r\n ", "\n\t", " \n", "\n\n ", "\n \u{0B}", "\u{0B}\n ", "\n\u{01}", "\n <!-- between -->\n ",
    ])
  func between(separator: String) throws {
    var lines = Self.records.map { String($0.dropFirst()) }
    // An invalid record after the fast ones, and one at the end, located from what came before.
    lines[17] = lines[17].replacingOccurrences(of: "value=\"33\"", with: "value=\"-33\"")
    lines.append(lines[2].replacingOccurrences(of: "value=\"30\"", with: "value=\"-30\""))
    let bytes = Self.export(separator + lines.joined(separator: separator))
    let fast = Self.expectSame(bytes, "separated by \(Array(separator.utf8))")
    let (outcome, _) = Self.read(bytes, fast: true)
    #expect(outcome.error == nil)
    #expect(outcome.invalid.count == 2)
    if separator.hasPrefix("\n"), separator.utf8.dropFirst().allSatisfy({ $0 == ASCII.space }) {
      #expect(fast > 20)
    }
  }

  @Test("Invalid records after fast ones are reported at their own line and column")
  func invalidAfterFast() throws {
    var lines = Self.records
    lines[7] = lines[7].replacingOccurrences(of: "value=\"31\"", with: "value=\"-31\"")
    lines[12] = lines[12].replacingOccurrences(of: "2024-06-01 08:02:00", with: "2024-06-01 08:02:0x")
    lines[21] = lines[21].replacingOccurrences(of: "unit=\"km\"", with: "unit=\"parsec\"")
    let bytes = Self.export(lines.joined(separator: "\n"))
    Self.expectSame(bytes)
    let (outcome, _) = Self.read(bytes, fast: true)
    let examples = outcome.invalid.examples
    // The header takes seven lines: record k is on line 8 + k, and two more after each heart rate
    // with a child (minutes 0, 2 and 4).
    #expect(examples.map { $0.location?.line } == [17, 22, 33])
    #expect(examples.allSatisfy { $0.location?.column == 2 })
  }

  @Test(
    "The generator's output of both shapes: the same results, step records read fast",
    arguments: ["watch", "dense"])
  func generated(shape: String) throws {
    let bytes = try [UInt8](ParallelTestSupport.generatedExport(shape: shape, days: 3))
    let fast = Self.expectSame(bytes)
    let (outcome, _) = Self.read(bytes, fast: true)
    let records = try #require(outcome.info?.stepAndDistanceRecords)
    #expect(fast > records * 9 / 10)
  }

  @Test("Every export fixture in the tests, and the fuzz corpus, give the same results both ways")
  func fixturesAndCorpus() throws {
    let files = ParallelTestSupport.exportFixtures + ParallelTestSupport.xmlFiles(under: "Fuzz/corpus/xml")
    #expect(files.count > 10)
    for file in files {
      let bytes = try [UInt8](Data(contentsOf: file))
      // Padded as well, so that their records are deferred.
      Self.expectSame(bytes, file.lastPathComponent)
      Self.expectSame(bytes + Array(repeating: UInt8(ascii: "\n"), count: 5000), file.lastPathComponent)
    }
  }
}
