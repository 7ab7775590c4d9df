import Foundation
import StepKitCore
import Testing

@testable import ExportGenerator
@testable import HealthExport

@Suite("Export generator")
struct GeneratorTests {
  /// A fresh directory for one test's files.
  private static func directory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("stepkit-generator-tests-\(getpid())")
      .appendingPathComponent(name)
    try? FileManager.default.removeItem(at: url)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Sums StepCount values per start date, straight from the text (a reader independent of HealthExport).
  private static func naiveStepSums(_ xml: String) -> [String: (raw: Int, manual: Int, samples: Int)] {
    var sums: [String: (raw: Int, manual: Int, samples: Int)] = [:]
    for line in xml.split(separator: "\n") where line.contains("type=\"HKQuantityTypeIdentifierStepCount\"") {
      guard let start = line.range(of: "startDate=\""), let value = line.range(of: "value=\"") else {
        continue
      }
      let date = String(line[start.upperBound...].prefix(10))
      let digits = line[value.upperBound...].prefix { $0.isNumber }
      let steps = Int(digits) ?? 0
      var entry = sums[date] ?? (0, 0, 0)
      entry.raw += steps
      entry.samples += 1
      if line.contains("sourceName=\"Health\"") { entry.manual += steps }
      sums[date] = entry
    }
    return sums
  }

  @Test("The demo preset: small, realistic, and its expected CSV matches its records")
  func demo() throws {
    let folder = try Self.directory("demo")
    let xmlPath = folder.appendingPathComponent("export.xml").path
    let zipPath = folder.appendingPathComponent("export.zip").path
    let csvPath = folder.appendingPathComponent("expected.csv").path
    let summary = try generateExport(arguments: [
      "--preset", "demo", "-o", xmlPath, "--zip", zipPath, "--expect-raw-csv", csvPath,
    ])
    #expect(summary.days == 56)
    let xmlData = try Data(contentsOf: URL(fileURLWithPath: xmlPath))
    #expect(xmlData.count < 1_000_000)
    #expect(Int64(xmlData.count) == summary.xmlBytes)
    let xml = String(decoding: xmlData, as: UTF8.self)

    for fragment in [
      "<!DOCTYPE HealthData [", "<!-- HealthKit Export Version: 14 -->", "<ExportDate value=\"", "<Me ",
      "hardware:Watch6,1", "&lt;&lt;HKDevice: 0x", "model:Watch", "model:iPhone", "sourceName=\"小米运动健康\"",
      "<MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>",
      "<Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\"",
      "<Workout workoutActivityType=", "startDate=\"2026-03-28 ", "+0100\"", "+0200\"", "+0800\"",
    ] {
      #expect(xml.contains(fragment), "missing \(fragment)")
    }

    // The CSV agrees with a naive reading of the records.
    let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
    let rows = csv.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map(String.init) }
    #expect(rows.count == 56)
    let sums = Self.naiveStepSums(xml)
    var manualTotal = 0
    for row in rows {
      let expected = sums[row[0]] ?? (0, 0, 0)
      #expect(Int(row[1]) == expected.raw, "raw steps on \(row[0])")
      #expect(Int(row[2]) == expected.manual, "manual steps on \(row[0])")
      #expect(Int(row[3]) == expected.samples, "samples on \(row[0])")
      manualTotal += expected.manual
    }
    #expect(manualTotal > 0)
    #expect(Set(sums.keys) == Set(rows.map { $0[0] }))

    // The zip holds the same XML, found by content, and the clinical document.
    let archive = try ExportArchive(path: zipPath)
    #expect(
      archive.entries.map(\.name) == ["apple_health_export/export.xml", "apple_health_export/export_cda.xml"])
    let entry = try archive.healthExportEntry()
    #expect(entry.name == "apple_health_export/export.xml")
    var inflated = Data()
    try archive.forEachChunk(of: entry) { chunk in
      inflated.append(contentsOf: chunk)
      return true
    }
    #expect(inflated == xmlData)
  }

  /// The record types in `xml` with their counts.
  private static func recordTypes(_ xml: String) -> [String: Int] {
    var counts: [String: Int] = [:]
    for line in xml.split(separator: "\n") where line.hasPrefix(" <Record type=\"") {
      let type = line.dropFirst(" <Record type=\"".count).prefix { $0 != "\"" }
      counts[String(type), default: 0] += 1
    }
    return counts
  }

  @Test("Every record's device carries its own HKDevice address", arguments: ["watch", "dense"])
  func freshAddresses(shape: String) throws {
    let folder = try Self.directory("addresses-\(shape)")
    let path = folder.appendingPathComponent("export.xml").path
    _ = try generateExport(arguments: ["--days", "2", "--shape", shape, "-o", path])
    let xml = try String(contentsOfFile: path, encoding: .utf8)
    var addresses: [Substring: Int] = [:]
    let pieces = xml.components(separatedBy: "device=\"&lt;&lt;HKDevice: 0x").dropFirst()
    let devices = pieces.count
    for piece in pieces {
      let address = piece.prefix { $0.isHexDigit }
      #expect(address.count == 9)
      addresses[address, default: 0] += 1
    }
    #expect(devices > 1000)
    // Drawn at random from 2^27 aligned addresses, a repeat is a rare coincidence.
    #expect(addresses.count * 100 >= devices * 99)
    #expect(addresses.values.max() ?? 0 <= 3)
  }

  @Test("The watch shape: energy and heart rate dominate; the iPhone adds gait and hearing records")
  func watchShape() throws {
    let folder = try Self.directory("watch-shape")
    let path = folder.appendingPathComponent("export.xml").path
    _ = try generateExport(arguments: ["--days", "6", "--start-date", "2024-01-01", "-o", path])
    let xml = try String(contentsOfFile: path, encoding: .utf8)
    let types = Self.recordTypes(xml)
    let total = types.values.reduce(0, +)
    let steps = types["HKQuantityTypeIdentifierStepCount", default: 0]
    let energyAndHeart =
      types["HKQuantityTypeIdentifierActiveEnergyBurned", default: 0]
      + types["HKQuantityTypeIdentifierHeartRate", default: 0]
    #expect(energyAndHeart * 2 > total)
    #expect(steps * 5 < total)
    for type in [
      "HKQuantityTypeIdentifierWalkingSpeed", "HKQuantityTypeIdentifierWalkingStepLength",
      "HKQuantityTypeIdentifierHeadphoneAudioExposure",
    ] {
      #expect(types[type, default: 0] > 0, "no \(type)")
    }
    for fragment in [
      "unit=\"km/hr\"", "unit=\"cm\"", "unit=\"dBASPL\"",
      // Headphones: no hardware or software field, and iOS 17's creation date.
      "name:AirPods Pro, manufacturer:Apple Inc., model:0x200e, localIdentifier:38:EC:0D:BF:32:C6-tacl, creation date:2020-06-01 06:06:25 +0000&gt;\" unit=\"dBASPL\"",
    ] {
      #expect(xml.contains(fragment), "missing \(fragment)")
    }
  }

  @Test("The dense shape: steps and distance are nearly every record, and the expected CSV matches")
  func denseShape() throws {
    let folder = try Self.directory("dense-shape")
    let path = folder.appendingPathComponent("export.xml").path
    let csvPath = folder.appendingPathComponent("expected.csv").path
    _ = try generateExport(arguments: [
      "--days", "6", "--shape", "dense", "-o", path, "--expect-raw-csv", csvPath,
    ])
    let xml = try String(contentsOfFile: path, encoding: .utf8)
    let types = Self.recordTypes(xml)
    let total = types.values.reduce(0, +)
    let stepsAndDistance =
      types["HKQuantityTypeIdentifierStepCount", default: 0]
      + types["HKQuantityTypeIdentifierDistanceWalkingRunning", default: 0]
    #expect(stepsAndDistance * 10 >= total * 9)
    let sums = Self.naiveStepSums(xml)
    let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
    for row in csv.split(separator: "\n").dropFirst().map({ $0.split(separator: ",").map(String.init) }) {
      #expect(Int(row[1]) == sums[row[0]]?.raw ?? 0, "raw steps on \(row[0])")
    }

    // The reader agrees with the generator's own count.
    var log = SampleLog()
    let info = try ExportReader.read(.path(path), into: &log)
    #expect(info.stepAndDistanceRecords == stepsAndDistance)
    #expect(log.invalid.count == 0)
    #expect(log.origins.count <= 4)
  }

  /// The top-level elements of `xml` (each with its children), split at the lines that open them.
  private static func topLevelElements(_ xml: String) -> [Substring] {
    guard let body = xml.range(of: "\n <ExportDate"), let end = xml.range(of: "</HealthData>") else {
      return []
    }
    var elements: [Substring] = []
    var current: Substring?
    for line in xml[xml.index(after: body.lowerBound)..<end.lowerBound].split(separator: "\n") {
      let opens = line.hasPrefix(" <") && !line.hasPrefix(" </")
      if opens, let element = current { elements.append(element) }
      if opens {
        current = line
      } else if let element = current {
        current = xml[element.startIndex..<line.endIndex]
      }
    }
    if let element = current { elements.append(element) }
    return elements
  }

  /// An element's kind: a record's type, else its name.
  private static func kind(_ element: Substring) -> String {
    let name = element.dropFirst(2).prefix { $0 != " " && $0 != "/" && $0 != ">" }
    guard name == "Record", let type = element.range(of: "type=\"") else { return String(name) }
    return String(element[type.upperBound...].prefix { $0 != "\"" })
  }

  @Test(
    "--order type: records grouped by type as a phone writes them, in time order; the elements of --order time",
    arguments: ["watch", "dense"])
  func typeOrder(shape: String) throws {
    let folder = try Self.directory("order-\(shape)")
    var exports: [String: String] = [:]
    for order in ["type", "time"] {
      let path = folder.appendingPathComponent("\(order).xml").path
      _ = try generateExport(arguments: [
        "--days", "21", "--shape", shape, "--long-history", "--order", order, "-o", path,
      ])
      exports[order] = try String(contentsOfFile: path, encoding: .utf8)
    }
    let byType = Self.topLevelElements(exports["type"] ?? "")
    let byTime = Self.topLevelElements(exports["time"] ?? "")
    #expect(byType.count > 10_000)
    let sameElements = byType.sorted() == byTime.sorted()
    #expect(sameElements, "the orders hold different elements")
    #expect(byType.count == byTime.count && byType != byTime)

    // One block per kind, in the order of a phone-made export (heart rate, steps, distance,
    // energy, flights; correlations, then workouts), the kinds it lacks after their family's.
    let expected = [
      "ExportDate", "Me", "HKQuantityTypeIdentifierHeartRate",
      "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
      "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
      "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierDistanceWalkingRunning",
      "HKQuantityTypeIdentifierWalkingSpeed", "HKQuantityTypeIdentifierWalkingStepLength",
      "HKQuantityTypeIdentifierBasalEnergyBurned", "HKQuantityTypeIdentifierActiveEnergyBurned",
      "HKQuantityTypeIdentifierFlightsClimbed", "HKQuantityTypeIdentifierHeadphoneAudioExposure",
      "Correlation",
      "Workout", "ActivitySummary",
    ]
    var blocks: [String] = []
    for element in byType where blocks.last != Self.kind(element) { blocks.append(Self.kind(element)) }
    #expect(blocks == expected.filter { kind in byTime.contains { Self.kind($0) == kind } })

    // Within a type, records by start instant, the sources interleaved.
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
    var last: [String: Date] = [:]
    var descents = 0
    var sourceChanges = 0
    var previousStepSource: Substring?
    for element in byType where element.hasPrefix(" <Record ") {
      let kind = Self.kind(element)
      guard let start = element.range(of: "startDate=\""),
        let date = formatter.date(from: String(element[start.upperBound...].prefix(25)))
      else {
        Issue.record("no start date: \(element.prefix(200))")
        continue
      }
      if let previous = last[kind], date < previous { descents += 1 }
      last[kind] = date
      if kind == "HKQuantityTypeIdentifierStepCount", let name = element.range(of: "sourceName=\"") {
        let source = element[name.upperBound...].prefix { $0 != "\"" }
        if let previousStepSource, previousStepSource != source { sourceChanges += 1 }
        previousStepSource = source
      }
    }
    // Only a trip east, whose first local day begins before the last one at home ended, goes back.
    #expect(descents <= 21)
    #expect(sourceChanges > 21 * 4)
  }

  @Test("The same options give the same bytes")
  func deterministic() throws {
    let folder = try Self.directory("deterministic")
    var outputs: [Data] = []
    for run in 0..<2 {
      let path = folder.appendingPathComponent("export\(run).xml").path
      _ = try generateExport(arguments: ["--days", "20", "--seed", "7", "-o", path])
      outputs.append(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
    #expect(outputs[0] == outputs[1])
    let other = folder.appendingPathComponent("other.xml").path
    _ = try generateExport(arguments: ["--days", "20", "--seed", "8", "-o", other])
    #expect(try Data(contentsOf: URL(fileURLWithPath: other)) != outputs[0])
  }

  @Test("Localized entry names, with or without the UTF-8 flag, and ZIP64 records", arguments: [false, true])
  func localizedZip(legacyNames: Bool) throws {
    let folder = try Self.directory("localized-\(legacyNames)")
    let zipPath = folder.appendingPathComponent("export.zip").path
    var arguments = ["--days", "3", "--zip", zipPath, "--zip-entry", "apple_health_export/导出.xml", "--zip64"]
    if legacyNames { arguments.append("--legacy-names") }
    let summary = try generateExport(arguments: arguments)
    let archive = try ZipArchive(source: FileByteSource(path: zipPath))
    let entry = try HealthXMLLocator.healthExportEntry(in: archive)
    #expect(entry.name == "apple_health_export/导出.xml")
    #expect(entry.hasUTF8Flag == !legacyNames)
    #expect(entry.uncompressedSize == summary.xmlBytes)
    #expect(
      try ZipTestSupport.readPipelined(entry, of: archive, bufferSize: 1 << 16).count == Int(summary.xmlBytes)
    )
  }

  @Test("--broken-dtd reproduces iOS 16's missing '>'")
  func brokenDTD() throws {
    let folder = try Self.directory("broken")
    let path = folder.appendingPathComponent("export.xml").path
    _ = try generateExport(arguments: ["--days", "1", "--broken-dtd", "-o", path])
    let xml = try String(contentsOfFile: path, encoding: .utf8)
    #expect(xml.contains("<!-- HealthKit Export Version: 12 -->"))
    #expect(xml.contains("  brand             CDATA #IMPLIED\n<!ELEMENT RightEye EMPTY>"))
    let good = ExportDTD.text(broken: false)
    #expect(good.contains("  brand             CDATA #IMPLIED\n>\n<!ELEMENT RightEye EMPTY>"))
  }

  @Test("--target-bytes stops once the XML is large enough")
  func targetBytes() throws {
    let folder = try Self.directory("target")
    let path = folder.appendingPathComponent("export.xml").path
    let summary = try generateExport(arguments: ["--target-bytes", "2000000", "-o", path])
    #expect(summary.xmlBytes >= 2_000_000)
    #expect(summary.xmlBytes < 3_000_000)
  }

  @Test(
    "Bad options are errors",
    arguments: [
      ["--days"], ["--days", "x", "-o", "a"], ["--bogus"], [], ["--preset", "huge", "-o", "a"],
      ["--shape", "sparse", "-o", "a"],
    ])
  func badOptions(arguments: [String]) {
    #expect(throws: GeneratorError.self) { try generateExport(arguments: arguments) }
  }

  @Test("Civil dates round-trip through day numbers")
  func civilDates() throws {
    for days in [-1, 0, 59, 365, 11_016, 20_512, 30_000] {
      let date = CivilDate(daysSinceEpoch: days)
      #expect(date.daysSinceEpoch == days)
    }
    #expect(CivilDate(daysSinceEpoch: 20_512).iso == "2026-02-28")
    #expect(CivilDate("2026-03-02")?.weekday == 0)
    #expect(offsetBytes(-(5 * 3600 + 1800)) == Array(" -0530".utf8))
  }
}
