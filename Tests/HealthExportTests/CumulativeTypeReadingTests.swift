import Foundation
import StepKitCore
import Testing

@testable import ExportGenerator
@testable import HealthExport

/// Any cumulative type counted as steps are (``SampleLog/countedType``): checked
/// against totals worked out by hand and against the generator's own merge.
@Suite("Cumulative types")
struct CumulativeTypeReadingTests {
  private static let watch =
    "&lt;&lt;HKDevice: 0x282a45810&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.1&gt;"
  private static let phone =
    "&lt;&lt;HKDevice: 0x282a45990&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,2, software:17.1&gt;"

  private static func record(
    _ type: String, source: String, device: String? = nil, unit: String, start: String, end: String,
    value: String,
    typedIn: Bool = false
  ) -> String {
    let deviceAttribute = device.map { " device=\"\($0)\"" } ?? ""
    let head =
      " <Record type=\"HKQuantityTypeIdentifier\(type)\" sourceName=\"\(source)\" sourceVersion=\"1\"\(deviceAttribute) unit=\"\(unit)\" creationDate=\"2024-02-29 23:00:00 +0000\" startDate=\"2024-02-29 \(start) +0000\" endDate=\"2024-02-29 \(end) +0000\" value=\"\(value)\""
    return typedIn
      ? head + ">\n  <MetadataEntry key=\"HKWasUserEntered\" value=\"1\"/>\n </Record>" : head + "/>"
  }

  /// Watch and iPhone energy overlapping, an app's energy in kJ, energy typed
  /// in (in Cal), flights from all of them, and records of other types.
  static let handMade = ExportTestSupport.export(
    [
      record(
        "ActiveEnergyBurned", source: "Ada’s Apple Watch", device: watch, unit: "kcal", start: "10:00:00",
        end: "10:10:00", value: "50"),
      record(
        "ActiveEnergyBurned", source: "Ada’s iPhone", device: phone, unit: "kcal", start: "10:05:00",
        end: "10:15:00", value: "40"),
      record(
        "ActiveEnergyBurned", source: "Keep", unit: "kJ", start: "10:12:00", end: "10:22:00", value: "418.4"),
      record(
        "ActiveEnergyBurned", source: "Health", unit: "Cal", start: "12:00:00", end: "12:30:00", value: "200",
        typedIn: true),
      record(
        "HeartRate", source: "Ada’s Apple Watch", device: watch, unit: "count/min", start: "10:00:00",
        end: "10:00:00", value: "88"),
      record(
        "FlightsClimbed", source: "Ada’s iPhone", device: phone, unit: "count", start: "09:00:00",
        end: "09:01:00", value: "3"),
      record(
        "FlightsClimbed", source: "Ada’s Apple Watch", device: watch, unit: "count", start: "09:00:30",
        end: "09:01:30", value: "2"),
      record(
        "FlightsClimbed", source: "Stairs", unit: "count", start: "18:00:00", end: "18:20:00", value: "10"),
      ExportTestSupport.steps("1000", start: "2024-02-29 10:00:00 +0000", end: "2024-02-29 10:10:00 +0000"),
    ].joined(separator: "\n"))

  private static func tally(
    _ xml: String, _ type: CumulativeType, policy: CountingPolicy = .health, fastRecords: Bool = true,
    chunkSize: Int = Int.max
  ) throws -> (Tally, ExportInfo) {
    var log = SampleLog()
    log.countedType = type
    let info = try ExportReader.read(
      source: ChunkedSource(Array(xml.utf8), chunkSize: chunkSize), into: &log, fastRecords: fastRecords)
    var options = CountingOptions()
    options.policy = policy
    return (log.tally(options), info)
  }

  @Test(
    "Active energy: Watch first, the iPhone and the app where it is not, kJ and Cal converted, typed-in out")
  func energyByHand() throws {
    for fast in [true, false] {
      for chunk in [Int.max, 7] {
        let (health, info) = try Self.tally(
          Self.handMade, .activeEnergyBurned, fastRecords: fast, chunkSize: chunk)
        // 50 (Watch) + 40 × 5/10 (iPhone, 10:10–10:15) + 100 kcal × 7/10 (Keep, 10:15–10:22).
        #expect(abs(health.total.steps - 140) < 1e-9)
        // 50 + 40 + 418.4 kJ = 100 kcal + 200 Cal = 200 kcal.
        #expect(abs(health.total.rawSteps - 390) < 1e-9)
        #expect(abs(health.total.manualSteps - 200) < 1e-9)
        #expect(health.total.distanceMeters == 0)
        #expect(info.stepAndDistanceRecords == 4)
        #expect(health.buckets.map(\.firstDay.description) == ["2024-02-29"])
      }
    }
    // `all` ranks the typed-in source first; it covers nothing else here.
    #expect(abs(try Self.tally(Self.handMade, .activeEnergyBurned, policy: .all).0.total.steps - 340) < 1e-9)
    // `device` keeps the Watch and the iPhone only.
    #expect(
      abs(try Self.tally(Self.handMade, .activeEnergyBurned, policy: .device).0.total.steps - 70) < 1e-9)
  }

  @Test("Flights: ranked on their own (the Watch first), an app's flights where no device counted")
  func flightsByHand() throws {
    let (tally, _) = try Self.tally(Self.handMade, .flightsClimbed)
    // Watch 2; iPhone 3 × 30/60 (09:00:00–09:00:30); Stairs 10.
    #expect(abs(tally.total.steps - 13.5) < 1e-9)
    #expect(abs(tally.total.rawSteps - 15) < 1e-9)
    let classes = Dictionary(uniqueKeysWithValues: tally.sources.map { ($0.name, $0.sourceClass) })
    #expect(classes == ["Ada’s Apple Watch": .appleWatch, "Ada’s iPhone": .iPhone, "Stairs": .other])
    #expect(tally.sources.map(\.name) == ["Ada’s Apple Watch", "Ada’s iPhone", "Stairs"])
  }

  @Test("Steps read as a counted type equal steps read the usual way")
  func stepsAsCountedType() throws {
    let (asType, _) = try Self.tally(Self.handMade, .stepCount)
    var log = SampleLog()
    _ = try ExportReader.read(source: ChunkedSource(Array(Self.handMade.utf8), chunkSize: .max), into: &log)
    #expect(asType.total.steps == log.tally(CountingOptions()).total.steps)
    #expect(asType.total.steps == 1000)
  }

  /// Active energy invalid three ways (lines 4–6), valid once, and flights with a bad value (line 8).
  static let invalidMix = ExportTestSupport.export(
    [
      Self.record(
        "ActiveEnergyBurned", source: "Keep", unit: "kcal", start: "10:00:00", end: "10:10:00", value: "-5"),
      Self.record(
        "ActiveEnergyBurned", source: "Keep", unit: "furlong", start: "11:00:00", end: "11:10:00",
        value: "5"),
      Self.record(
        "ActiveEnergyBurned", source: "Keep", unit: "kcal", start: "12:10:00", end: "12:00:00", value: "5"),
      Self.record(
        "ActiveEnergyBurned", source: "Keep", unit: "kcal", start: "13:00:00", end: "13:10:00",
        value: "12.5"),
      // Judged only when flights are counted.
      Self.record(
        "FlightsClimbed", source: "Keep", unit: "count", start: "13:00:00", end: "13:10:00", value: "x"),
    ].joined(separator: "\n"))

  @Test("Invalid records of a counted type are reported with their place, like invalid steps")
  func invalidRecords() throws {
    let xml = Self.invalidMix
    for fast in [true, false] {
      let (tally, info) = try Self.tally(xml, .activeEnergyBurned, fastRecords: fast)
      #expect(tally.total.steps == 12.5)
      #expect(info.invalidRecords == 3)
      #expect(tally.invalid.count == 3)
      #expect(tally.invalid.examples.map { $0.location?.line } == [4, 5, 6])
      #expect(tally.invalid.examples[1].reason == .unknownUnit("furlong"))
    }
  }

  @Test(
    "The generator's energy and flights: every day equals its own merge, on one thread and on two, alone and at once"
  )
  func generatorGroundTruth() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepkit-cumulative-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let xml = folder.appendingPathComponent("export.xml").path
    let truthPath = folder.appendingPathComponent("truth.csv").path
    _ = try generateExport(arguments: [
      "--days", "24", "--seed", "7", "-o", xml, "--expect-totals-csv", truthPath,
    ])
    let lines = try String(contentsOfFile: truthPath, encoding: .utf8).split(separator: "\n").dropFirst()
    var expected: [String: [String: (Double, Double)]] = [:]
    for line in lines {
      let cells = line.split(separator: ",").map(String.init)
      expected[cells[1], default: [:]][cells[0]] = (Double(cells[2])!, Double(cells[3])!)
    }
    #expect(expected.count == 2)
    let types = [CumulativeType.activeEnergyBurned, .flightsClimbed]
    /// Checks the days of `log`, which read `type`, against the generator's.
    func check(_ log: SampleLog, _ type: CumulativeType, _ how: String) throws {
      let days = try #require(expected[type.identifier])
      #expect(days.count >= 20)
      var seen = 0
      for bucket in log.tally(CountingOptions()).buckets {
        guard let (value, raw) = days[bucket.firstDay.description] else { continue }
        seen += 1
        #expect(abs(bucket.steps - value) < 1e-6, "\(type) \(bucket.firstDay), \(how)")
        #expect(abs(bucket.rawSteps - raw) < 1e-6, "\(type) \(bucket.firstDay), \(how)")
      }
      #expect(seen == days.values.filter { $0.1 > 0 }.count, "\(type), \(how)")
    }
    for threads in [1, 2] {
      for type in types {
        var log = SampleLog()
        log.countedType = type
        _ = try ExportReader.read(.path(xml), into: &log, threads: threads)
        try check(log, type, "alone, \(threads) threads")
      }
      // Every type in one read (``SampleLog/init(countingEach:storage:)``).
      var log = SampleLog(countingEach: types.reversed())
      _ = try ExportReader.read(.path(xml), into: &log, threads: threads)
      for (type, typeLog) in zip(types.reversed(), log.typeLogs) {
        try check(typeLog, type, "at once, \(threads) threads")
      }
    }
  }

  // MARK: - Every type counted in one read (``SampleLog/init(countingEach:storage:)``)

  /// Reads `xml` once into a log counting each of `types` (sequentially, in `chunkSize` pieces).
  private static func typeLogs(
    _ xml: String, _ types: [CumulativeType], fastRecords: Bool = true, chunkSize: Int = Int.max
  ) throws -> [SampleLog] {
    var log = SampleLog(countingEach: types)
    _ = try ExportReader.read(
      source: ChunkedSource(Array(xml.utf8), chunkSize: chunkSize), into: &log, fastRecords: fastRecords)
    #expect(log.count == 0)
    #expect(log.typeLogs.map(\.countedType) == types)
    return log.typeLogs
  }

  @Test("Every type read at once: energy, flights and steps as worked out by hand")
  func handMadeAtOnce() throws {
    for fast in [true, false] {
      for chunk in [Int.max, 7] {
        let logs = try Self.typeLogs(
          Self.handMade, [.flightsClimbed, .activeEnergyBurned, .stepCount], fastRecords: fast,
          chunkSize: chunk)
        let flights = logs[0].tally(CountingOptions())
        let energy = logs[1].tally(CountingOptions())
        let steps = logs[2].tally(CountingOptions())
        // As `energyByHand` and `flightsByHand` work them out.
        #expect(abs(energy.total.steps - 140) < 1e-9)
        #expect(abs(energy.total.rawSteps - 390) < 1e-9)
        #expect(abs(energy.total.manualSteps - 200) < 1e-9)
        #expect(abs(flights.total.steps - 13.5) < 1e-9)
        #expect(abs(flights.total.rawSteps - 15) < 1e-9)
        #expect(flights.sources.map(\.name) == ["Ada’s Apple Watch", "Ada’s iPhone", "Stairs"])
        #expect(steps.total.steps == 1000)
        // Each log numbers only its own type's sources.
        #expect(logs[1].sourceNames == ["Ada’s Apple Watch", "Ada’s iPhone", "Keep", "Health"])
        #expect(logs[2].sourceNames == ["iPhone"])
      }
    }
  }

  @Test("Every type read at once: each type's invalid records in its own log, at their lines")
  func invalidAtOnce() throws {
    for fast in [true, false] {
      let logs = try Self.typeLogs(
        Self.invalidMix, [.activeEnergyBurned, .flightsClimbed], fastRecords: fast)
      #expect(logs[0].tally(CountingOptions()).total.steps == 12.5)
      #expect(logs[0].invalid.examples.map { $0.location?.line } == [4, 5, 6])
      #expect(
        logs[0].invalid.examples.map(\.reason) == [.negativeValue, .unknownUnit("furlong"), .endBeforeStart])
      #expect(logs[1].count == 0)
      #expect(logs[1].invalid.examples.map { $0.location?.line } == [8])
      #expect(logs[1].invalid.examples.map(\.reason) == [.unparsableValue("x")])
    }
  }
  /// A Watch-shape export with, every 40 records, records of counted types that
  /// are invalid, written otherwise than Apple writes them, or from sources
  /// first seen there.
  private static func generatedWithOddRecords() throws -> Data {
    let data = try ParallelTestSupport.generatedExport(shape: "watch", days: 6)
    var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
      .map(String.init)
    var index = 0
    var seen = 0
    while index < lines.count {
      if lines[index].hasPrefix(" <Record "), lines[index].hasSuffix("/>") {
        seen += 1
        if seen % 40 == 0 {
          let app = "App \(seen % 7)"
          let odd = [
            record(
              "ActiveEnergyBurned", source: app, unit: "lb", start: "10:00:00", end: "10:10:00", value: "5"),
            record(
              "FlightsClimbed", source: app, unit: "count", start: "10:00:00", end: "10:10:00", value: "-1"),
            record(
              "BasalEnergyBurned", source: app, unit: "kJ", start: "10:00:00", end: "10:10:00",
              value: "41.84",
              typedIn: true),
            " <Record sourceName=\"\(app)\" type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" unit=\"Cal\""
              + " startDate=\"2024-02-29 10:00:00 +0000\" endDate=\"2024-02-29 10:05:00 +0000\" value=\"7\"/>",
            record(
              "ActiveEnergyBurned", source: app, unit: "kcal", start: "10:10:00", end: "10:00:00", value: "5"),
          ]
          lines.insert(contentsOf: odd, at: index + 1)
          index += odd.count
        }
      }
      index += 1
    }
    return Data(lines.joined(separator: "\n").utf8)
  }

  @Test("Every type read at once equals each type read alone, on one thread and in parallel at any seams")
  func atOnceEqualsAlone() throws {
    let data = try Self.generatedWithOddRecords()
    let types: [CumulativeType] = [.activeEnergyBurned, .basalEnergyBurned, .flightsClimbed, .stepCount]
    /// What a read into `log` produced for comparing, the shared counts of `info` aside.
    func outcome(_ log: SampleLog) -> FullOutcome {
      ParallelTestSupport.outcome(info: nil, error: nil, log: log)
    }
    var alone: [FullOutcome] = []
    for type in types {
      var log = SampleLog()
      log.countedType = type
      let expected = ParallelTestSupport.sequential(data, into: log)
      #expect(expected.error == nil)
      #expect(expected.samples.count > 0)
      alone.append(
        FullOutcome(
          info: nil, error: nil, samples: expected.samples, sampleOrigins: expected.sampleOrigins,
          origins: expected.origins, invalid: expected.invalid))
    }
    #expect(alone[0].invalid.count > 0 && alone[2].invalid.count > 0)
    let atOnce = SampleLog(countingEach: types)
    var sequential = atOnce
    _ = try ExportReader.read(.data(data, name: "export.xml"), into: &sequential, threads: 1)
    #expect(sequential.typeLogs.map(outcome) == alone)
    for chunk in [64, 1000, 20_000] {
      var run = ParallelExportReader.Run()
      var parallel = atOnce
      let settings = ParallelExportReader.Settings(
        threads: 2, chunkBytes: chunk, headerBytes: chunk, minimumBytes: 0, bufferBytes: 1 << 16)
      _ = try ParallelExportReader.read(
        MemoryByteSource(data, displayName: "export.xml"), into: &parallel, settings: settings, run: &run)
      #expect(run.merged > 1, "chunk \(chunk)")
      #expect(parallel.typeLogs.map(outcome) == alone, "chunk \(chunk)")
    }
  }
}
