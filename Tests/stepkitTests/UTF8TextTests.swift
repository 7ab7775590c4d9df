import Foundation
import StepKitCore
import Testing

@testable import stepkit

@Suite("UTF-8 output text")
struct UTF8TextTests {
  private func written(_ build: (inout UTF8Text) -> Void) -> String {
    var text = UTF8Text()
    build(&text)
    return text.string
  }

  @Test(
    "integers read as String(value) does",
    arguments: [0, 7, -7, 10, -10, 99, 100, 1_234_567_890, -987_654_321, Int64.max, Int64.min, Int64.min + 1])
  func integers(_ value: Int64) {
    #expect(written { $0.append(value) } == String(value))
  }

  @Test("zero-padded integers keep the sign in front of the zeros")
  func padded() {
    for value: Int64 in [-12_345, -42, -1, 0, 5, 42, 999, 2026, 12_345] {
      for width in 0...6 {
        let digits = String(value.magnitude)
        let expected =
          (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        #expect(written { $0.append(value, minimumDigits: width) } == expected, "\(value), width \(width)")
      }
    }
  }

  @Test("labels are the buckets' own labels, for every unit")
  func labels() throws {
    let days = try [
      #require(LocalDate(year: 2026, month: 11, day: 29)),
      #require(LocalDate(year: 999, month: 1, day: 5)),
      #require(LocalDate(year: 12_026, month: 12, day: 31)),
      LocalDate(daysSinceEpoch: -800_000),
    ]
    for day in days {
      for (hour, offset) in [(0, 0), (8, 28_800), (23, -14_400), (5, 20_700), (14, -34_200)] {
        let bucket = Tally.Bucket(firstDay: day, hour: hour, utcOffsetSeconds: offset)
        for unit in [BucketUnit.hour, .day, .week, .month] {
          #expect(written { $0.appendLabel(of: bucket, unit: unit) } == bucket.label(unit: unit))
        }
      }
    }
    #expect(
      written { $0.appendLabel(of: Tally.Bucket(firstDay: days[0]), unit: .hour) } == "2026-11-29T00:00+00:00"
    )
  }

  @Test("text beyond ASCII is written as UTF-8")
  func unicode() {
    #expect(written { $0.append("小米运动健康,") } == "小米运动健康,")
  }

  @Test("csv rows are the labels and rounded sums, with and without an export id")
  func csvRows() {
    for unit in [BucketUnit.hour, .day, .week, .month] {
      let (_, tally) = sampleTally(CountingOptions(unit: unit, to: LocalDate("2026-11-30")))
      #expect(!tally.buckets.isEmpty)
      // A bucket without any sample has empty counts.
      let rows = tally.buckets.map {
        "\($0.label(unit: unit)),"
          + ($0.hasSamples
            ? "\($0.roundedSteps),\($0.roundedDistanceMeters),\($0.roundedRawSteps),\($0.roundedManualSteps)"
            : ",,,") + ",\($0.hoursWithData),"
          + (unit == .day ? "\(ValidDayRule.default.isValid($0))" : "")
      }
      #expect(CSVFormatter.format(tally) == CSVFormatter.header + "\n" + rows.map { $0 + "\n" }.joined())
      // A cohort's rows end with the contributing sources (none without the breakdown).
      #expect(CSVFormatter.format(tally, export: "p,1") == rows.map { "\"p,1\"," + $0 + ",\n" }.joined())
    }
  }

  @Test("steps in every format are written in pieces of about 64 KiB that add up to the whole output")
  func writtenInPieces() throws {
    // Two years of hours: 17,000 and more rows, each format ten pieces long or more.
    let (_, tally) = sampleTally(
      CountingOptions(unit: .hour, from: LocalDate("2025-01-01"), to: LocalDate("2026-12-31")))
    #expect(tally.buckets.count > 17_000)
    let writers: [(String, ((String) -> Void) -> Void)] = [
      (CSVFormatter.format(tally), { CSVFormatter.write(tally, to: $0) }),
      (JSONFormatter.steps(tally, export: "e"), { JSONFormatter.writeSteps(tally, export: "e", to: $0) }),
      (TableFormatter.steps(tally, rule: nil), { TableFormatter.writeSteps(tally, rule: nil, to: $0) }),
    ]
    for (whole, write) in writers {
      var pieces: [String] = []
      write { pieces.append($0) }
      // The table folds runs of hours without data into one line each, so it is shorter.
      #expect(pieces.count >= min(8, whole.utf8.count / CSVFormatter.pieceBytes))
      #expect(pieces.allSatisfy { $0.utf8.count < CSVFormatter.pieceBytes + 4096 })
      #expect(pieces.joined() == whole)
    }
    // The whole table against rows counted here: a line per bucket with samples and per short
    // run without, one per long run, each column line as wide as the rules.
    let runs = TableFormatter.noDataRuns(tally.buckets)
    let collapsed = runs.filter {
      !tally.buckets[$0.lowerBound].hasSamples && $0.count >= TableFormatter.collapsedRun
    }
    #expect(!collapsed.isEmpty)
    let table = TableFormatter.steps(tally, rule: nil).split(separator: "\n")
    #expect(table.count == tally.buckets.count - collapsed.reduce(0) { $0 + $1.count } + collapsed.count + 4)
    let columnLines = table.filter { !$0.contains("no data (") && !$0.hasPrefix("─") }
    #expect(columnLines.count == table.count - collapsed.count - 2)
    let widths = Set(columnLines.map { TextFormatting.displayWidth(String($0)) })
    #expect(widths.count == 1)
    // The rules span the columns, or a wider no-data line.
    let ruleWidth = table.filter { $0.hasPrefix("─") }.map { TextFormatting.displayWidth(String($0)) }
    let noteWidth = table.filter { $0.contains("no data (") }.map { TextFormatting.displayWidth(String($0)) }
    #expect(ruleWidth.count == 2 && Set(ruleWidth).count == 1)
    #expect(ruleWidth.first == max(widths.first ?? 0, noteWidth.max() ?? 0))
  }

  @Test("UTF8Check agrees with Foundation's UTF-8 decoding on every short sequence of interesting bytes")
  func utf8Check() {
    let interesting: [UInt8] = [
      0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1,
      0xF4, 0xF5, 0xFF, 0x8F, 0x90,
    ]
    var checked = 0
    for a in interesting {
      for b in interesting {
        for c in interesting {
          for d in [0x41, 0x80, 0xBF, 0xC2] as [UInt8] {
            let bytes = [a, b, c, d]
            let valid = bytes.withUnsafeBufferPointer { UTF8Check.isValid($0) }
            #expect(valid == (String(bytes: bytes, encoding: .utf8) != nil), "\(bytes)")
            let repaired = bytes.withUnsafeBufferPointer { UTF8Check.repaired($0) }
            #expect(String(bytes: repaired, encoding: .utf8) != nil)
            if valid { #expect(repaired == bytes) }
            // The same bytes among ASCII, where eight bytes at a time are checked.
            for pad in [5, 8] {
              let padded =
                Array(repeating: 0x41, count: pad) + bytes + Array(repeating: 0x42, count: 13 - pad)
              #expect(padded.withUnsafeBufferPointer { UTF8Check.isValid($0) } == valid, "\(padded)")
            }
            checked += 1
          }
        }
      }
    }
    #expect(checked == 22 * 22 * 22 * 4)
  }
}

@Suite("Record text: instants in UTC")
struct RecordTextTests {
  /// Foundation's ISO 8601 text of `ms` in UTC, milliseconds only when not zero.
  private static func foundation(_ ms: Int64) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.formatOptions =
      ms % 1000 == 0 ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
  }

  @Test("each instant as Foundation's ISO8601DateFormatter writes it, on the same day and across days")
  func utcInstants() {
    var text = RecordText(capacity: 8)
    // A fixed walk over 1950 to 2090, in steps that land on and off whole seconds, some on
    // the day before, so that both the cached day and a new day are written.
    var ms: Int64 = -631_152_000_000
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<3000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      // A quarter of the steps within the hour, the rest up to two months.
      let step = Int64(state >> 40) % (state & 6 == 0 ? 3_600_000 : 5_000_000_000)
      ms += state & 1 == 0 ? step - step % 1000 : step
      text.reset()
      let start = text.utcInstant(ms)
      let written = String(
        decoding: UnsafeBufferPointer(start: text.bytes + start, count: text.count - start), as: UTF8.self)
      #expect(written == Self.foundation(ms), "\(ms)")
      #expect(written == TextFormatting.localDateTime(ms, offsetSeconds: 0))
    }
  }

  /// RFC 4180 written out plainly: in quotes, each `"` doubled, when the text holds a
  /// comma, a `"`, a carriage return or a line feed.
  private static func naiveCSV(_ text: String) -> String {
    guard text.contains(where: { [",", "\"", "\r", "\n", "\r\n"].contains($0) }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  @Test("a CSV field as RFC 4180 writes it, at every length and place of a comma, quote or newline")
  func csvFields() {
    // Pieces that cross the eight-byte words the plain-text check reads, and runs of
    // quotes that the copying between them must double one by one.
    let pieces = ["a", "Watch6,1", "\"", "\"\"", "’", "小米", "\n", "\r\n", "x", "abcdefgh", "é,", " "]
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    var text = RecordText(capacity: 4)
    for _ in 0..<4000 {
      var field = ""
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      for k in 0..<Int(state >> 60) {
        field += pieces[Int((state >> UInt64(4 * k)) & 0xFF) % pieces.count]
      }
      text.reset()
      var utf8 = field
      let replaced = utf8.withUTF8 { text.csvField($0) }
      #expect(replaced == 0)
      let written = String(decoding: UnsafeBufferPointer(start: text.bytes, count: text.count), as: UTF8.self)
      #expect(written == Self.naiveCSV(field), "\(field.debugDescription)")
    }
  }

  @Test("a device's CSV and JSON text is its five fields as each field alone is written")
  func deviceText() throws {
    let description =
      "<<HKDevice: 0x1>, name:Apple \"Watch\", manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:7.3>"
    let device = RecordFields.DeviceFields(Device(hkDeviceDescription: description))
    #expect(
      String(decoding: device.csv, as: UTF8.self)
        == "\"Apple \"\"Watch\"\"\",Apple Inc.,Watch,\"Watch6,1\",7.3,")
    let object = "{" + String(decoding: device.json.dropLast(), as: UTF8.self) + "}"
    let parsed = try #require(
      try JSONSerialization.jsonObject(with: Data(object.utf8)) as? [String: String])
    #expect(
      parsed == [
        "device_name": "Apple \"Watch\"", "device_manufacturer": "Apple Inc.", "device_model": "Watch",
        "device_hardware": "Watch6,1", "device_software": "7.3",
      ])
    let none = RecordFields.DeviceFields(nil)
    #expect(String(decoding: none.csv, as: UTF8.self) == ",,,,,")
    #expect(
      String(decoding: none.json, as: UTF8.self)
        == "\"device_name\":null,\"device_manufacturer\":null,\"device_model\":null,\"device_hardware\":null,\"device_software\":null,"
    )
  }
}
