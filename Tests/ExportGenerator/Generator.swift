import Foundation

/// The command's help text.
let generatorUsage = """
  USAGE: export-generator [options]

  Writes a synthetic Apple Health export: the internal DTD, ExportDate, Me, an
  iPhone and an Apple Watch recording overlapping steps and distance, a
  third-party step app, hand-typed entries from Health, heart-rate / energy /
  workout / blood-pressure noise, trips across time zones and DST changes
  (home: Europe/Berlin). As on a real phone, every record's device carries
  its own HKDevice object address. The same options always give the same bytes.

  OPTIONS:
    -o, --output FILE        Write export.xml to FILE (- for standard output).
    --zip FILE               Write FILE as an export.zip (apple_health_export/export.xml
                             deflated, plus export_cda.xml; ZIP64 when needed).
    --zip-entry NAME         Name of the XML entry (default apple_health_export/export.xml).
    --legacy-names           Do not set the UTF-8 flag on non-ASCII entry names.
    --zip64                  Write ZIP64 records even when not needed (tests readers).
    --zip-level N            Deflate level 0-9 (default 6).
    --days N                 Number of days (default 56, or until --target-bytes).
    --target-bytes N         Keep adding days until the XML reaches N bytes.
    --seed N                 Random seed (default 1).
    --start-date YYYY-MM-DD  First day (default 2021-01-04).
    --shape watch|dense      watch (default): an Apple Watch wearer's mix, where energy
                             and heart rate dominate and the iPhone adds walking speed,
                             step length and headphone audio; dense: an iPhone and a
                             Watch carried all day, steps and distance nearly every record.
    --order type|time        type (default): as an iPhone writes the file, every Record
                             grouped by type (heart rate, then steps, distance, energy,
                             flights, ...), each type's records in time order with the
                             sources interleaved, then the Correlations, Workouts and
                             ActivitySummaries. Each type is spilled to a temporary file
                             beside the output (unlinked as it is made: the disk needs
                             room for the XML, zipped or not) and copied in at the end.
                             time: day by day, every type interleaved (the order of the
                             exports written before --order existed). Both orders hold
                             the same elements and give the same expected CSVs.
    --long-history           What years of a real history hold besides: days without any
                             sample (about 2 in 100), a hike now and then (1 in 200 days,
                             20,000 to 30,000 steps) and a step app's whole-day record of
                             about 30,000 steps that only raw sums count (1 in 100 days).
    --broken-dtd             Reproduce iOS 16's DTD (export version 12, a missing '>').
    --preset demo            About 8 weeks from 2026-03-02: DST change, a trip to
                             Shanghai, < 1 MB. Other options still apply.
    --expect-raw-csv FILE    Write date,raw_steps,manual_steps,step_samples per local day.
    --expect-totals-csv FILE Write date,type,value,raw_value per local day for active energy
                             and flights: the Health app's merge (health policy, kcal and
                             count) and the plain sum, worked out from the records as written.
    --hostile SHAPE          Instead of a person's export, only step records of one iPhone
                             that all start at one instant, to test memory: identical
                             (copies of one record) or shared-start (each ending a second
                             later than the one before, a day of ends in turn). With
                             --records N (default 1000000) or --target-bytes; stream a
                             huge one into --zip (the XML need not fit on the disk).
    --records N              Number of records of a --hostile shape.
    -h, --help               Show this help.

  """

struct Options {
  var output: String?
  var zip: String?
  var zipEntry = "apple_health_export/export.xml"
  var legacyNames = false
  var forceZip64 = false
  var zipLevel: Int32 = 6
  var days: Int?
  var longHistory = false
  var targetBytes: Int64?
  var seed: UInt64 = 1
  var startDate = CivilDate("2021-01-04")
  var brokenDTD = false
  var demo = false
  var shape = "watch"
  var order = ExportOrder.type
  var expectCSV: String?
  var expectTotalsCSV: String?
  var hostile: HostileShape?
  var records: Int64?
}

func parseOptions(_ arguments: [String]) throws -> Options {
  var options = Options()
  var index = 0
  func value(_ name: String) throws -> String {
    index += 1
    guard index < arguments.count else { throw GeneratorError(description: "\(name) needs a value") }
    return arguments[index]
  }
  func number<T: FixedWidthInteger>(_ name: String, _ type: T.Type) throws -> T {
    let text = try value(name)
    guard let number = T(text), number >= 0 else {
      throw GeneratorError(description: "\(name): not a number: \(text)")
    }
    return number
  }
  while index < arguments.count {
    let argument = arguments[index]
    switch argument {
    case "-o", "--output": options.output = try value(argument)
    case "--zip": options.zip = try value(argument)
    case "--zip-entry": options.zipEntry = try value(argument)
    case "--legacy-names": options.legacyNames = true
    case "--zip64": options.forceZip64 = true
    case "--zip-level":
      options.zipLevel = try number(argument, Int32.self)
      guard options.zipLevel <= 9 else { throw GeneratorError(description: "--zip-level must be 0-9") }
    case "--days": options.days = try number(argument, Int.self)
    case "--target-bytes": options.targetBytes = try number(argument, Int64.self)
    case "--seed": options.seed = try number(argument, UInt64.self)
    case "--start-date":
      let text = try value(argument)
      guard let date = CivilDate(text) else {
        throw GeneratorError(description: "--start-date: not YYYY-MM-DD: \(text)")
      }
      options.startDate = date
    case "--shape":
      let name = try value(argument)
      guard ["watch", "dense"].contains(name) else {
        throw GeneratorError(description: "unknown shape \(name) (known: watch, dense)")
      }
      options.shape = name
    case "--order":
      let name = try value(argument)
      guard let order = ExportOrder(rawValue: name) else {
        throw GeneratorError(description: "unknown order \(name) (known: type, time)")
      }
      options.order = order
    case "--broken-dtd": options.brokenDTD = true
    case "--long-history": options.longHistory = true
    case "--preset":
      let name = try value(argument)
      guard name == "demo" else { throw GeneratorError(description: "unknown preset \(name) (known: demo)") }
      options.demo = true
    case "--expect-raw-csv": options.expectCSV = try value(argument)
    case "--expect-totals-csv": options.expectTotalsCSV = try value(argument)
    case "--hostile":
      let name = try value(argument)
      guard let shape = HostileShape(rawValue: name) else {
        let known = HostileShape.allCases.map(\.rawValue).joined(separator: ", ")
        throw GeneratorError(description: "unknown hostile shape \(name) (known: \(known))")
      }
      options.hostile = shape
    case "--records": options.records = try number(argument, Int64.self)
    default:
      throw GeneratorError(description: "unknown option \(argument)\n\n\(generatorUsage)")
    }
    index += 1
  }
  guard options.output != nil || options.zip != nil else {
    throw GeneratorError(description: "nothing to write: give -o FILE and/or --zip FILE\n\n\(generatorUsage)")
  }
  return options
}

/// What a run wrote.
struct GenerationSummary: CustomStringConvertible {
  var days: Int
  /// The records of a hostile shape (`nil`: a person's export, by days).
  var records: Int64? = nil
  var xmlBytes: Int64
  var seconds: Double
  var description: String {
    let megabytes = Double(xmlBytes) / 1e6
    let what = records.map { "\($0) records" } ?? "\(days) days"
    return "export-generator: \(what), "
      + String(
        format: "%.1f MB of XML in %.2f s (%.0f MB/s)\n", megabytes, seconds, megabytes / max(seconds, 1e-9))
  }
}

/// Parses `arguments` (the command line without the program name) and writes the export.
func generateExport(arguments: [String]) throws -> GenerationSummary {
  var options = try parseOptions(arguments)
  guard let home = TimeZone(identifier: "Europe/Berlin") else {
    throw GeneratorError(description: "the time-zone database lacks Europe/Berlin")
  }
  var density = options.shape == "dense" ? Density.dense : Density.watch
  var fixedTrips: [Timeline.Trip]?
  if options.demo {
    density = .demo
    if !arguments.contains("--start-date") { options.startDate = CivilDate("2026-03-02") }
    if options.days == nil, options.targetBytes == nil { options.days = 56 }
    if let shanghai = TimeZone(identifier: "Asia/Shanghai") {
      fixedTrips = [Timeline.Trip(firstDay: 33, lastDay: 39, zone: shanghai)]
    }
  }
  density.longHistory = options.longHistory
  guard let start = options.startDate else { throw GeneratorError(description: "bad start date") }
  let maximumDays = options.days ?? (options.targetBytes != nil ? 1_000_000 : 56)
  let estimatedBytes =
    options.targetBytes
    ?? (options.hostile != nil
      ? min(options.records ?? 1_000_000, Int64.max / 250) * 250
      : Int64(maximumDays) * 400_000)

  var outputs: [ByteOutput] = []
  if let path = options.output { outputs.append(try FileOutput(path: path)) }
  var zipWriter: ZipFileWriter?
  if let path = options.zip {
    let writer = try ZipFileWriter(
      path: path, level: options.zipLevel, utf8Flag: !options.legacyNames, forceZip64: options.forceZip64)
    outputs.append(try writer.beginEntry(name: options.zipEntry, zip64: estimatedBytes > 3_900_000_000))
    zipWriter = writer
  }

  // Wall-clock time for the summary line (ContinuousClock's components need iOS 16; the package
  // supports iOS 15, and the target is type-checked for it).
  let began = Date()
  let sink = ByteSink(outputs: outputs)
  if let shape = options.hostile {
    let records = try shape.write(
      to: sink, records: options.records ?? (options.targetBytes == nil ? 1_000_000 : .max),
      targetBytes: options.targetBytes)
    try sink.finish()
    try zipWriter?.close()
    return GenerationSummary(
      days: 0, records: records, xmlBytes: sink.totalBytes, seconds: Date().timeIntervalSince(began))
  }
  var timelineRandom = SeededRandom(seed: options.seed ^ 0x7121_9C0F)
  let timeline = Timeline(
    home: home, days: min(maximumDays, 100_000), random: &timelineRandom, fixedTrips: fixedTrips)
  // Spill files go beside the output (standard output's: the temporary directory).
  let besideOutput = [options.output, options.zip].compactMap { $0 }.first { $0 != "-" }
  let spillDirectory =
    besideOutput.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }
    ?? FileManager.default.temporaryDirectory.path
  let sections = try SectionSinks(document: sink, order: options.order, spillDirectory: spillDirectory)
  let writer = ExportWriter(
    sections: sections, seed: options.seed, density: density, timeline: timeline,
    firstEpochDay: start.daysSinceEpoch)

  // The export date is the day after the last day; with --target-bytes it is
  // not known up front, so estimate it from the target (it is only a header).
  let plannedDays = options.days ?? Int(min(Int64(maximumDays), (options.targetBytes ?? 0) / 330_000 + 1))
  writer.writeHeader(
    brokenDTD: options.brokenDTD, exportDay: CivilDate(daysSinceEpoch: start.daysSinceEpoch + plannedDays))
  var day = 0
  while day < maximumDays {
    if let target = options.targetBytes, sections.writtenBytes >= target { break }
    try writer.writeDay(day)
    day += 1
  }
  try writer.writeFooter()
  try sink.finish()
  if let zipWriter {
    try zipWriter.addEntry(
      name: "apple_health_export/export_cda.xml", contents: Array(ClinicalDocument.text.utf8))
    try zipWriter.close()
  }
  let seconds = Date().timeIntervalSince(began)

  if let path = options.expectCSV {
    var csv = "date,raw_steps,manual_steps,step_samples\n"
    for tally in writer.tallies {
      csv += "\(tally.date),\(tally.rawSteps),\(tally.manualSteps),\(tally.stepSamples)\n"
    }
    try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
  }
  if let path = options.expectTotalsCSV {
    let csv = (["date,type,value,raw_value"] + writer.truth.lines).joined(separator: "\n") + "\n"
    try Data(csv.utf8).write(to: URL(fileURLWithPath: path))
  }
  return GenerationSummary(days: day, xmlBytes: sink.totalBytes, seconds: seconds)
}
