import Foundation
import StepKitCore
import Testing

@testable import stepkit

/// A small log built in code: a watch and a phone overlapping, one typed-in entry.
/// By default the rows run to 2026-11-30: that day holds only the typed-in 2,500 steps, which the
/// policy drops, so without `--to` it would not close the range (COUNTING.md, Outputs).
func sampleTally(_ options: CountingOptions = CountingOptions(to: LocalDate("2026-11-30"))) -> (
  SampleLog, Tally
) {
  let watch = Device(
    hkDeviceDescription:
      "<<HKDevice: 0x1>, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3>"
  )
  let phone = Device(
    hkDeviceDescription:
      "<<HKDevice: 0x2>, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone16,2, software:17.3>"
  )
  // 2026-11-29 08:00 +08:00 is 00:00 UTC.
  let base = Date(timeIntervalSince1970: 1_795_910_400)
  func at(_ minutes: Double) -> Date { base.addingTimeInterval(minutes * 60) }
  var log = SampleLog()
  log.append(
    Sample(
      kind: .steps, start: at(0), end: at(10), value: 1000, utcOffsetSeconds: 28_800, source: "Watch",
      device: watch))
  log.append(
    Sample(
      kind: .steps, start: at(5), end: at(15), value: 800, utcOffsetSeconds: 28_800, source: "Phone",
      device: phone))
  log.append(
    Sample(
      kind: .distance, start: at(0), end: at(10), value: 750.4, utcOffsetSeconds: 28_800, source: "Watch",
      device: watch))
  log.append(
    Sample(
      kind: .steps, start: at(60 * 24), end: at(60 * 24 + 30), value: 2500, utcOffsetSeconds: 28_800,
      source: "Health", isUserEntered: true))
  log.append(
    Sample(
      kind: .steps, start: at(60 * 48), end: at(60 * 48 - 1), value: 5, utcOffsetSeconds: 28_800,
      source: "Phone", device: phone), location: SourceLocation(file: "export.xml", line: 12, column: 3))
  return (log, log.tally(options))
}

@Suite("Text formatting")
struct TextFormattingTests {
  @Test(
    "step counts group thousands with commas, negatives included",
    arguments: [
      (Int64(0), "0"), (999, "999"), (1000, "1,000"), (1_234_567, "1,234,567"), (-12_345, "-12,345"),
    ])
  func grouping(value: Int64, text: String) { #expect(TextFormatting.grouped(value) == text) }

  @Test(
    "metres print as kilometres rounded half up to two decimals",
    arguments: [(Int64(0), "0.00"), (4, "0.00"), (5, "0.01"), (6512, "6.51"), (1_234_567, "1,234.57")])
  func kilometres(metres: Int64, text: String) { #expect(TextFormatting.kilometres(metres) == text) }

  @Test("date-times carry their recorded offset, Z for UTC, milliseconds only when present")
  func dateTimes() {
    let ms: EpochMilliseconds = 1_795_910_400_000
    #expect(TextFormatting.localDateTime(ms, offsetSeconds: 28_800) == "2026-11-29T08:00:00+08:00")
    #expect(TextFormatting.localDateTime(ms + 1500, offsetSeconds: 0) == "2026-11-29T00:00:01.500Z")
    #expect(TextFormatting.localDateTime(ms, offsetSeconds: -19_800) == "2026-11-28T18:30:00-05:30")
    #expect(TextFormatting.localDay(ms, offsetSeconds: -3600) == LocalDate("2026-11-28"))
    #expect(TextFormatting.localDateTime(-1, offsetSeconds: 0) == "1969-12-31T23:59:59.999Z")
  }

  @Test("display width counts wide CJK characters twice and combining marks not at all")
  func displayWidth() {
    #expect(TextFormatting.displayWidth("Lena’s iPhone") == 13)
    #expect(TextFormatting.displayWidth("小米运动健康") == 12)
    #expect(TextFormatting.displayWidth("e\u{301}") == 1)
    #expect(TextFormatting.padRight("小米", 6) == "小米  ")
  }

  @Test("columns are padded to the widest cell, left or right aligned")
  func columns() {
    let lines = TextFormatting.columns([["a", "1"], ["bbb", "22"]], rightAligned: [false, true])
    #expect(lines == ["a     1", "bbb  22"])
  }
}

@Suite("Output formats")
struct OutputFormatTests {
  @Test("csv: the contract header, one row per bucket, integers without grouping")
  func csv() {
    let (_, tally) = sampleTally()
    let text = CSVFormatter.format(tally)
    #expect(
      text == """
        date,steps,distance_m,raw_steps,manual_steps,hours_with_data,valid
        2026-11-29,1400,750,1800,0,1,false
        2026-11-30,0,0,2500,2500,0,false

        """)
  }

  @Test("csv: hour labels carry the recorded offset")
  func csvHours() {
    let (_, tally) = sampleTally(CountingOptions(unit: .hour, to: LocalDate("2026-11-29")))
    let lines = CSVFormatter.format(tally).split(separator: "\n")
    #expect(lines[1] == "2026-11-29T08:00+08:00,1400,750,1800,0,1,")
  }

  @Test("json: options, days with the csv fields, totals, sources and invalid")
  func json() throws {
    let (_, tally) = sampleTally()
    let text = JSONFormatter.steps(tally, export: "export.xml")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    let days = try #require(object["days"] as? [[String: Any]])
    #expect(days.count == 2)
    #expect(days[0]["date"] as? String == "2026-11-29")
    #expect(days[0]["steps"] as? Int == 1400)
    #expect(
      Set(days[0].keys) == [
        "date", "steps", "distance_m", "raw_steps", "manual_steps", "hours_with_data", "valid",
      ])
    #expect(days[0]["hours_with_data"] as? Int == 1)
    #expect(days[0]["valid"] as? Bool == false)
    let options = try #require(object["options"] as? [String: Any])
    #expect(options["policy"] as? String == "health")
    #expect(options["export"] as? String == "export.xml")
    let sources = try #require(object["sources"] as? [[String: Any]])
    #expect(sources.map { $0["name"] as? String } == ["Health", "Watch", "Phone"])
    #expect(sources[2]["counted_steps"] as? Int == 400)
    let invalid = try #require(object["invalid"] as? [String: Any])
    #expect(invalid["count"] as? Int == 1)
    let example = try #require((invalid["examples"] as? [[String: Any]])?.first)
    #expect(example["line"] as? Int == 12)
    #expect(example["reason"] as? String == "end date before start date")
  }

  @Test("json strings escape quotes, backslashes and control characters")
  func jsonEscaping() {
    #expect(JSONValue.string("a\"b\\c\nd\u{1}é").rendered() == #""a\"b\\c\nd\u0001é""#)
    #expect(JSONValue.object([("a", .array([.integer(1), .null]))]).rendered() == #"{"a": [1, null]}"#)
  }

  @Test("table: aligned, grouped, with a totals row")
  func table() {
    let (_, tally) = sampleTally()
    let lines = TableFormatter.steps(tally, rule: nil).split(separator: "\n").map(String.init)
    #expect(lines[0] == "date        steps    km  raw steps  hand-typed  hours")
    #expect(lines[2] == "2026-11-29  1,400  0.75      1,800           0      1")
    #expect(lines.last == "total       1,400  0.75      4,300       2,500      1")
    let valid = TableFormatter.steps(tally, rule: ValidDayRule(minimumHours: 1)).split(separator: "\n")
    #expect(valid[0].hasSuffix("hours  valid"))
    #expect(valid[2].hasSuffix("1    yes"))
    #expect(valid.last?.hasSuffix("1      1") == true)
    #expect(Set(lines.map(\.count)).count == 1)
  }

  @Test("sources table: rank, class, devices, samples, raw, counted, hand-typed")
  func sourcesTable() {
    let (_, tally) = sampleTally()
    let lines = TableFormatter.sources(tally).split(separator: "\n").map(String.init)
    #expect(lines[2].hasPrefix("   1  Health  typed-in"))
    #expect(lines[3].contains("Watch   Apple Watch  Watch"))
    #expect(lines[3].contains("1,000"))
    #expect(lines[4].hasPrefix("   3  Phone   iPhone       iPhone     1 + 0        800      400"))
  }

  @Test("csv fields with commas or quotes are quoted")
  func csvFields() {
    #expect(CSVFormatter.field("plain") == "plain")
    #expect(CSVFormatter.field("a,b") == "\"a,b\"")
    #expect(CSVFormatter.field("say \"hi\"") == "\"say \"\"hi\"\"\"")
  }

  @Test("demo explanation: duplicates and hand-typed steps add up to the gap")
  func explanation() {
    let (_, tally) = sampleTally()
    let text = DemoCommand.explanation(tally.roundedTotal)
    #expect(text.hasPrefix("Why steps (1,400) is less than raw_steps (4,300): 400 steps"))
    #expect(text.contains("2,500 steps were typed in by hand"))
    #expect(text.split(separator: "\n").count == 2)
  }

  @Test("invalid-record note: count and the first locations on one line")
  func invalidNote() {
    let (_, tally) = sampleTally()
    #expect(
      ExportLoading.invalidNote(tally.invalid)
        == "stepkit: 1 invalid record not counted: export.xml:12:3 (end date before start date)\n")
    #expect(ExportLoading.invalidNote(InvalidSampleReport()) == nil)
  }

  @Test("progress bar line: percentage, MB, MB/s and ETA")
  func progressLine() {
    let line = ProgressBar.line(bytesRead: 100_000_000, totalBytes: 400_000_000, elapsedSeconds: 2)
    #expect(line == "[######------------------]  25%  100.0 / 400.0 MB  50.0 MB/s  ETA 0:06")
    #expect(
      ProgressBar.line(bytesRead: 60_000_000, totalBytes: nil, elapsedSeconds: 1)
        == "reading  60.0 MB  60.0 MB/s")
  }
}

@Suite("Chart")
struct StepChartTests {
  static let tickCases: [(Int64, [Int64])] = [
    (0, [0, 1000]), (7, [0, 2, 4, 6, 8]), (14_321, [0, 5000, 10_000, 15_000]),
    (100, [0, 20, 40, 60, 80, 100]),
  ]

  @Test("axis ticks are round numbers covering the maximum, 1,000 for an empty chart", arguments: tickCases)
  func ticks(maximum: Int64, expected: [Int64]) { #expect(StepChart.ticks(maximum: maximum) == expected) }

  @Test("the 7-day average covers the days so far, then the last seven")
  func sevenDayAverage() throws {
    let start = try #require(LocalDate("2026-11-01"))
    let days = (0..<9).map {
      StepChart.Day(
        date: LocalDate(daysSinceEpoch: start.daysSinceEpoch + $0), steps: Int64($0 * 100), rawSteps: 0)
    }
    let average = StepChart.sevenDayAverage(days)
    #expect(average[0] == 0)
    #expect(average[1] == 50)
    #expect(average[6] == 300)
    #expect(average[8] == 500)
  }

  @Test("svg: axes, a bar pair per day, the average line, escaped text")
  func svg() throws {
    let start = try #require(LocalDate("2026-12-30"))
    let days = (0..<4).map {
      StepChart.Day(date: LocalDate(daysSinceEpoch: start.daysSinceEpoch + $0), steps: 5000, rawSteps: 8000)
    }
    let svg = StepChart.svg(days, title: "Ada & Bo")
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(svg.contains("<title>Ada &amp; Bo</title>"))
    #expect(svg.components(separatedBy: "fill=\"#2f6fde\"/></g>").count == 5)
    #expect(svg.contains("<polyline"))
    #expect(svg.contains(">Dec 30</text>"))
    #expect(svg.contains(">Jan 1</text>"))
    #expect(svg.contains(">2027</text>"))
    // Counted steps set the axis (5,000); the raw bars of 8,000 are cut at it, and counted.
    #expect(svg.contains(">5,000</text>"))
    #expect(!svg.contains(">8,000</text>"))
    #expect(svg.contains("raw steps cut at the axis in 4 bars"))
    let html = StepChart.html(days, title: "Ada & Bo", summary: "S")
    #expect(html.hasPrefix("<!doctype html>"))
    #expect(html.contains(svg))
  }
}

/// Collects what a progress bar writes.
final class WrittenText: @unchecked Sendable {
  private let lock = NSLock()
  private var parts: [String] = []

  func append(_ text: String) {
    lock.lock()
    parts.append(text)
    lock.unlock()
  }

  var all: [String] {
    lock.lock()
    defer { lock.unlock() }
    return parts
  }
}

@Suite("Progress bar")
struct ProgressBarTests {
  @Test("small inputs draw nothing; large ones draw a line and clear it at the end")
  func threshold() {
    let small = WrittenText()
    let smallBar = ProgressBar(write: { small.append($0) })
    smallBar.update(bytesRead: 10_000_000, totalBytes: 20_000_000)
    smallBar.finish()
    #expect(small.all.isEmpty)

    let large = WrittenText()
    let largeBar = ProgressBar(write: { large.append($0) })
    largeBar.update(bytesRead: 1_000_000, totalBytes: 80_000_000)
    largeBar.finish()
    #expect(large.all.count == 2)
    #expect(large.all.first?.hasPrefix("\r[") == true)
    #expect(large.all.first?.contains("1.0 / 80.0 MB") == true)
    #expect(large.all.last == "\r\u{1B}[K")
  }
}
