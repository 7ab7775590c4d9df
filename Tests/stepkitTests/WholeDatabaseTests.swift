import Foundation
import Testing

@testable import ExportGenerator

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// What Foundation's `XMLParser` (libxml2) finds in an export, and the
/// merged daily totals of every cumulative type worked out from it by a
/// naive reading of COUNTING.md: no StepKit code reads or counts here.
private final class NaiveExport: NSObject, XMLParserDelegate {
  struct Sample {
    var type: String
    var value: Double
    var start: Int64
    var end: Int64
    var offsetSeconds: Int
    var source: String
    var model: String?
    var hardware: String?
    var userEntered: Bool
  }

  struct Workout: Equatable {
    var durationMinutes: Double?
    var distanceMetres: Double?
    var statistics = 0
    var events = 0
  }

  var recordCounts: [String: Int] = [:]
  var samples: [Sample] = []
  var workouts: [Workout] = []
  var summaries = 0
  var correlations = 0
  var correlationMembers = 0
  var dateOfBirth: String?
  var exportDate: Int64?
  private var depth = 0
  private var record: [String: String]?
  private var userEntered = false
  private var workout: [String: String]?
  private var distanceSums: [Double] = []
  private var current = Workout()
  private var inCorrelation = false

  static func read(_ path: String) throws -> NaiveExport {
    var text = try String(contentsOfFile: path, encoding: .utf8)
    // swift-corelibs-foundation's XMLParser crashes on an export's internal DTD: cut it out.
    if let doctype = text.range(of: "<!DOCTYPE"),
      let end = text.range(of: "]>", range: doctype.upperBound..<text.endIndex)
    {
      text.removeSubrange(doctype.lowerBound..<end.upperBound)
    }
    let reader = NaiveExport()
    let parser = XMLParser(data: Data(text.utf8))
    parser.delegate = reader
    guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    return reader
  }

  /// `2024-02-29 12:00:00 +0100` as epoch milliseconds and the offset in seconds.
  static func date(_ text: String?) -> (ms: Int64, offset: Int)? {
    guard let text else { return nil }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
    guard let date = formatter.date(from: text) else { return nil }
    let zone = text.suffix(5)
    let sign = zone.first == "-" ? -1 : 1
    let hours = Int(zone.dropFirst().prefix(2)) ?? 0
    let minutes = Int(zone.suffix(2)) ?? 0
    return (Int64((date.timeIntervalSince1970 * 1000).rounded()), sign * (hours * 3600 + minutes * 60))
  }

  /// The units the exports use, in each dimension's canonical unit (COUNTING.md).
  static let units: [String: Double] = [
    "count": 1, "m": 1, "km": 1000, "cm": 0.01, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144,
    "kcal": 1, "Cal": 1, "kJ": 1 / 4.184, "J": 1 / 4184, "cal": 0.001,
    "min": 1, "s": 1.0 / 60, "hr": 60,
  ]

  /// The cumulative types of COUNTING.md "Which quantities" that these exports hold.
  static func isCumulative(_ type: String) -> Bool {
    let name = type.replacingOccurrences(of: "HKQuantityTypeIdentifier", with: "")
    return name == "StepCount" || name.hasPrefix("Distance") || name.hasSuffix("EnergyBurned")
      || name == "FlightsClimbed" || name == "PushCount" || name == "SwimmingStrokeCount"
      || ["AppleExerciseTime", "AppleMoveTime", "AppleStandTime"].contains(name)
  }

  func parser(
    _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    depth += 1
    switch (depth, name) {
    case (2, "ExportDate"): exportDate = Self.date(attributes["value"])?.ms
    case (2, "Me"): dateOfBirth = attributes["HKCharacteristicTypeIdentifierDateOfBirth"]
    case (2, "Record"):
      record = attributes
      userEntered = ["1", "true", "yes"].contains(attributes["HKWasUserEntered"]?.lowercased() ?? "")
    case (3, "MetadataEntry") where record != nil && attributes["key"] == "HKWasUserEntered":
      userEntered = ["1", "true", "yes"].contains(attributes["value"]?.lowercased() ?? "")
    case (2, "Workout"):
      workout = attributes
      current = Workout()
      distanceSums = []
    case (3, "WorkoutStatistics") where workout != nil:
      current.statistics += 1
      if attributes["type"]?.hasPrefix("HKQuantityTypeIdentifierDistance") == true,
        let sum = attributes["sum"].flatMap(Double.init),
        let factor = attributes["unit"].flatMap({ Self.units[$0] })
      {
        distanceSums.append(sum * factor)
      }
    case (3, "WorkoutEvent") where workout != nil: current.events += 1
    case (2, "ActivitySummary"): summaries += 1
    case (2, "Correlation"):
      correlations += 1
      inCorrelation = true
    case (3, "Record") where inCorrelation: correlationMembers += 1
    default: break
    }
  }

  func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?)
  {
    if depth == 2 { inCorrelation = false }
    if depth == 2, let attributes = record {
      record = nil
      take(attributes)
    }
    if depth == 2, let attributes = workout {
      workout = nil
      current.durationMinutes = attributes["duration"].flatMap(Double.init).map {
        $0 * (Self.units[attributes["durationUnit"] ?? "min"] ?? .nan)
      }
      if let total = attributes["totalDistance"].flatMap(Double.init) {
        current.distanceMetres = total * (Self.units[attributes["totalDistanceUnit"] ?? ""] ?? .nan)
      } else if !distanceSums.isEmpty {
        current.distanceMetres = distanceSums.reduce(0, +)
      }
      workouts.append(current)
    }
    depth -= 1
  }

  /// Counts a top-level record, and keeps it as a sample when its type is cumulative.
  private func take(_ attributes: [String: String]) {
    guard let type = attributes["type"], let source = attributes["sourceName"] ?? attributes["source"],
      let start = Self.date(attributes["startDate"]), let end = Self.date(attributes["endDate"]),
      end.ms >= start.ms
    else { return }
    let value = attributes["value"].flatMap(Double.init)
    if type.hasPrefix("HKQuantityTypeIdentifier"), value?.isFinite != true { return }
    recordCounts[type, default: 0] += 1
    guard Self.isCumulative(type), let value, value >= 0,
      let factor = attributes["unit"].flatMap({ Self.units[$0] })
    else { return }
    // COUNTING.md, Inputs: none before 2000 (HealthKit's start), none after the export's date.
    if start.ms < 946_684_800_000 { return }
    if let exportDate, start.ms > exportDate { return }
    let device = attributes["device"] ?? ""
    func field(_ name: String) -> String? {
      guard let range = device.range(of: name + ":") else { return nil }
      return String(device[range.upperBound...].prefix { $0 != "," && $0 != ">" })
    }
    samples.append(
      Sample(
        type: type, value: value * factor, start: start.ms, end: end.ms, offsetSeconds: start.offset,
        source: source, model: field("model"), hardware: field("hardware"), userEntered: userEntered))
  }

  /// The day (`2024-02-29`) of `ms` at `offsetSeconds` from UTC.
  static func day(_ ms: Int64, _ offsetSeconds: Int) -> Int64 {
    let local = ms + Int64(offsetSeconds) * 1000
    return local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
  }

  static func label(_ day: Int64) -> String {
    let date = Date(timeIntervalSince1970: Double(day) * 86_400)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
  }

  /// `value` spread over `[start, end)` in proportion to time, per local day.
  static func spread(
    _ value: Double, _ start: Int64, _ end: Int64, offset: Int, into days: inout [Int64: Double]
  ) {
    guard end > start else {
      days[day(start, offset), default: 0] += value
      return
    }
    var from = start
    while from < end {
      let today = day(from, offset)
      let next = (today + 1) * 86_400_000 - Int64(offset) * 1000
      let to = min(end, next)
      days[today, default: 0] += value * Double(to - from) / Double(end - start)
      from = to
    }
  }

  /// COUNTING.md step by step for `type` under the `health` policy: typed-in
  /// entries out; sources ranked Watch, iPhone, others, by name; each source
  /// counts what the sources above it left uncovered, pro-rated by time.
  /// - Returns: Per day label: the merged and the raw total.
  func dailyTotals(of type: String) -> [String: (value: Double, raw: Double)] {
    let all = samples.filter { $0.type == type }
    var raw: [Int64: Double] = [:]
    for sample in all {
      Self.spread(sample.value, sample.start, sample.end, offset: sample.offsetSeconds, into: &raw)
    }
    func rank(_ source: String) -> Int {
      let own = all.filter { $0.source == source }
      if own.allSatisfy(\.userEntered) { return 1 }
      if own.contains(where: { $0.model == "Watch" || $0.hardware?.hasPrefix("Watch") == true }) { return 2 }
      if own.contains(where: { $0.model == "iPhone" || $0.hardware?.hasPrefix("iPhone") == true }) {
        return 3
      }
      if own.allSatisfy({ $0.model == nil && $0.hardware == nil }) {
        if source.contains("Apple Watch") { return 2 }
        if source.contains("iPhone") { return 3 }
      }
      return 4
    }
    let kept = all.filter { !$0.userEntered }
    let sources = Set(kept.map(\.source)).sorted {
      rank($0) != rank($1)
        ? rank($0) < rank($1) : $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars)
    }
    var covered: [(Int64, Int64)] = []  // disjoint, sorted
    var merged: [Int64: Double] = [:]
    for source in sources {
      let own = kept.filter { $0.source == source }
      for sample in own {
        if sample.start == sample.end {
          if !covered.contains(where: { $0.0 <= sample.start && sample.start < $0.1 }) {
            merged[Self.day(sample.start, sample.offsetSeconds), default: 0] += sample.value
          }
          continue
        }
        var pieces = [(sample.start, sample.end)]
        for (a, b) in covered {
          pieces = pieces.flatMap { piece -> [(Int64, Int64)] in
            var rest: [(Int64, Int64)] = []
            if piece.0 < min(a, piece.1) { rest.append((piece.0, min(a, piece.1))) }
            if max(b, piece.0) < piece.1 { rest.append((max(b, piece.0), piece.1)) }
            return rest
          }
        }
        let perMs = sample.value / Double(sample.end - sample.start)
        for (a, b) in pieces {
          Self.spread(perMs * Double(b - a), a, b, offset: sample.offsetSeconds, into: &merged)
        }
      }
      var union = covered + own.filter { $0.start < $0.end }.map { ($0.start, $0.end) }
      union.sort { $0.0 < $1.0 }
      covered = []
      for interval in union {
        if let last = covered.last, interval.0 <= last.1 {
          covered[covered.count - 1].1 = max(last.1, interval.1)
        } else {
          covered.append(interval)
        }
      }
    }
    var result: [String: (Double, Double)] = [:]
    for (day, value) in raw { result[Self.label(day)] = (merged[day] ?? 0, value) }
    return result
  }
}

/// `stepkit sqlite` on generated and real exports, every table checked
/// against ``NaiveExport``: Foundation's XML parser and COUNTING.md by hand.
@Suite("stepkit sqlite: the whole export against XMLParser and a naive count")
struct WholeDatabaseTests {
  static let realFixtures = StepkitRunner.testsDirectory.deletingLastPathComponent()
    .appendingPathComponent("HealthExportTests/Fixtures")

  /// Checks every table of `database` against the reference read from `export`.
  static func check(_ database: String, against export: String) throws {
    let reference = try NaiveExport.read(export)
    let counts = try query(database, "SELECT type, count(*) FROM records GROUP BY type")
    #expect(
      Dictionary(uniqueKeysWithValues: counts.map { ($0[0], Int($0[1]) ?? -1) }) == reference.recordCounts)

    let workouts = try query(
      database,
      """
      SELECT duration_min, distance_m,
        (SELECT count(*) FROM workout_statistics s WHERE s.workout_id = w.id),
        (SELECT count(*) FROM workout_events e WHERE e.workout_id = w.id)
      FROM workouts w ORDER BY id
      """)
    #expect(workouts.count == reference.workouts.count)
    for (row, expected) in zip(workouts, reference.workouts) {
      #expect(close(Double(row[0]), expected.durationMinutes, 1e-9))
      #expect(close(Double(row[1]), expected.distanceMetres, 1e-6), "\(row) \(expected)")
      #expect(Int(row[2]) == expected.statistics)
      #expect(Int(row[3]) == expected.events)
    }
    #expect(try query(database, "SELECT count(*) FROM activity_summaries") == [["\(reference.summaries)"]])
    #expect(try query(database, "SELECT count(*) FROM correlations") == [["\(reference.correlations)"]])
    #expect(
      try query(database, "SELECT count(*) FROM correlation_records") == [["\(reference.correlationMembers)"]]
    )
    #expect(try query(database, "SELECT date_of_birth FROM me") == [[reference.dateOfBirth ?? "NULL"]])

    let types = Set(reference.samples.map(\.type))
    #expect(Set(try query(database, "SELECT DISTINCT type FROM daily_totals").map { $0[0] }) == types)
    for type in types {
      let expected = reference.dailyTotals(of: type)
      let rows = try query(
        database, "SELECT date, value, raw_value, unit FROM daily_totals WHERE type = '\(type)'")
      #expect(Set(rows.map { $0[0] }) == Set(expected.keys), "\(type)")
      for row in rows {
        guard let want = expected[row[0]] else { continue }
        // Rows are rounded as printed: whole counts and metres, two decimals otherwise.
        let tolerance = ["count", "m"].contains(row[3]) ? 0.5 + 1e-6 : 0.005 + 1e-9
        #expect(close(Double(row[1]), want.value, tolerance), "\(type) \(row) \(want)")
        #expect(close(Double(row[2]), want.raw, tolerance), "\(type) \(row) \(want)")
      }
    }
  }

  static func close(_ found: Double?, _ expected: Double?, _ tolerance: Double) -> Bool {
    guard let found, let expected else { return found == nil && expected == nil }
    return abs(found - expected) <= tolerance
  }

  @Test("A generated export across iOS 16: workouts as attributes, then as statistics; every cumulative type")
  func generatedAcrossIOS16() throws {
    try withScratchDirectory { directory in
      let export = directory.appendingPathComponent("export.xml").path
      _ = try generateExport(arguments: [
        "--seed", "5", "--days", "16", "--start-date", "2022-09-04", "-o", export,
      ])
      let result = try StepkitRunner.run(["sqlite", export, "out.db", "--quiet"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      let database = directory.appendingPathComponent("out.db").path
      // Both forms are there: totals as attributes before 12 September 2022, as statistics after.
      let forms = try query(
        database,
        """
        SELECT local_date < '2022-09-12', count(*), sum((SELECT count(*) FROM workout_statistics s
          WHERE s.workout_id = w.id) > 0) FROM workouts w GROUP BY 1 ORDER BY 1
        """)
      #expect(forms.count == 2)
      #expect(forms.first { $0[0] == "1" }?[2] == "0")
      #expect(forms.first { $0[0] == "0" }.map { $0[1] == $0[2] } == true)
      let types = try query(database, "SELECT count(DISTINCT type) FROM daily_totals")
      #expect((Int(types.first?.first ?? "") ?? 0) >= 4)
      try Self.check(database, against: export)
    }
  }

  @Test(
    "The real exports: records, workouts, summaries, me and daily totals",
    arguments: ["tdda-export6s3sample.xml", "hk2sqlite-export.xml"])
  func real(_ name: String) throws {
    try withScratchDirectory { directory in
      let export = Self.realFixtures.appendingPathComponent(name).path
      let result = try StepkitRunner.run(["sqlite", export, "out.db", "--quiet"], in: directory)
      #expect(result.exitCode == 0, "\(result.standardError)")
      try Self.check(directory.appendingPathComponent("out.db").path, against: export)
    }
  }
}
