import Foundation
import StepKitCore

/// Locale-independent number and date text, so that output is the same on every machine.
enum TextFormatting {
  /// `12345678` → `12,345,678` (the table's grouping; csv and json never group).
  static func grouped(_ value: Int64) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(character)
    }
    return value < 0 ? "-" + result : result
  }

  /// Metres as kilometres with two decimals: `6512` → `6.51`.
  static func kilometres(_ metres: Int64) -> String {
    kilometres(hundredths: hundredths(ofMetres: metres))
  }

  /// `metres` in hundredths of a kilometre, the unit tables print: nearest, halves away from zero.
  static func hundredths(ofMetres metres: Int64) -> Int64 {
    let hundredths = Int64((metres.magnitude + 5) / 10)
    return metres < 0 ? -hundredths : hundredths
  }

  /// A distance of `hundredths` hundredths of a kilometre, `12.35`.
  static func kilometres(hundredths: Int64) -> String {
    let whole = Int64(hundredths.magnitude / 100)
    let fraction = hundredths.magnitude % 100
    let text = grouped(whole) + "." + (fraction < 10 ? "0" : "") + String(fraction)
    return hundredths < 0 ? "-" + text : text
  }

  /// `text` with what a terminal would act on instead of showing written as
  /// `\u{…}`: control characters (C0, DEL, C1: escape sequences that move
  /// the cursor or retitle the window) and the bidirectional controls that
  /// reorder what follows them (U+061C, U+200E–U+200F, U+202A–U+202E,
  /// U+2066–U+2069). A source name is whatever an app chose to write.
  static func terminalSafe(_ text: String) -> String {
    func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
      let value = scalar.value
      return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x061C || value == 0x200E
        || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }
    guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
      if isUnsafe(scalar) {
        result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// `value` with `digits` decimals, rounded half away from zero, no grouping:
  /// `fixed(1234.56, digits: 1)` is `1234.6`.
  static func fixed(_ value: Double, digits: Int) -> String {
    fixed(scaled: scaled(value, digits: digits), digits: digits)
  }

  /// `value` as a whole number of its last printed digit (`scaled(12.345, digits: 2)` is
  /// `1235`): what ``fixed(_:digits:)`` prints, so that totals can add the printed rows.
  static func scaled(_ value: Double, digits: Int) -> Int64 {
    roundedForOutput(value * Double(scale(digits)))
  }

  /// A number given in units of its last digit (`scaled`) with `digits` decimals: `1235` → `12.35`.
  static func fixed(scaled: Int64, digits: Int) -> String {
    let scale = scale(digits)
    let whole = String(scaled.magnitude / scale.magnitude)
    let sign = scaled < 0 ? "-" : ""
    guard digits > 0 else { return sign + whole }
    let fraction = String(scaled.magnitude % scale.magnitude + scale.magnitude).dropFirst()
    return sign + whole + "." + fraction
  }

  private static func scale(_ digits: Int) -> Int64 {
    var scale: Int64 = 1
    for _ in 0..<digits { scale *= 10 }
    return scale
  }

  /// `text` right-aligned in `width` terminal columns.
  static func padLeft(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - displayWidth(text))) + text
  }

  /// `text` left-aligned in `width` terminal columns.
  static func padRight(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - displayWidth(text)))
  }

  /// How many terminal columns `text` takes: East Asian wide and fullwidth
  /// characters (`小米运动健康`) take two, combining marks and joiners none.
  static func displayWidth(_ text: String) -> Int {
    var width = 0
    for scalar in text.unicodeScalars {
      let value = scalar.value
      switch scalar.properties.generalCategory {
      case .nonspacingMark, .enclosingMark, .format: continue
      default: break
      }
      let wide =
        (0x1100...0x115F).contains(value) || (0x2E80...0x303E).contains(value)
        || (0x3041...0x33FF).contains(value) || (0x3400...0x4DBF).contains(value)
        || (0x4E00...0x9FFF).contains(value) || (0xA000...0xA4CF).contains(value)
        || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
        || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
        || (0xFFE0...0xFFE6).contains(value) || (0x1F300...0x1F64F).contains(value)
        || (0x1F900...0x1F9FF).contains(value) || (0x20000...0x3FFFD).contains(value)
      width += wide ? 2 : 1
    }
    return width
  }

  /// Aligns rows of cells into columns; `rightAligned[i]` says how column `i` aligns.
  static func columns(_ rows: [[String]], rightAligned: [Bool], separator: String = "  ") -> [String] {
    let count = rows.map(\.count).max() ?? 0
    var widths = [Int](repeating: 0, count: count)
    for row in rows {
      for (index, cell) in row.enumerated() { widths[index] = max(widths[index], displayWidth(cell)) }
    }
    return rows.map { line($0, widths: widths, rightAligned: rightAligned, separator: separator) }
  }

  /// One line of ``columns(_:rightAligned:separator:)``: each cell padded to
  /// its column's width, but a left-aligned last one.
  static func line(_ row: [String], widths: [Int], rightAligned: [Bool], separator: String = "  ") -> String {
    var cells: [String] = []
    for (index, cell) in row.enumerated() {
      let right = index < rightAligned.count && rightAligned[index]
      let isLast = index == row.count - 1
      cells.append(right ? padLeft(cell, widths[index]) : (isLast ? cell : padRight(cell, widths[index])))
    }
    return cells.joined(separator: separator)
  }

  /// An instant as ISO 8601 in UTC: `2026-11-29T00:30:00Z`.
  static func isoUTC(_ date: Date) -> String {
    localDateTime(date.epochMilliseconds, offsetSeconds: 0)
  }

  /// An instant as ISO 8601 local time at `offsetSeconds`: `2026-11-29T08:30:00+08:00`
  /// (`Z` for offset zero). Milliseconds are shown only when not zero.
  static func localDateTime(_ epochMilliseconds: EpochMilliseconds, offsetSeconds: Int) -> String {
    let date = localDay(epochMilliseconds, offsetSeconds: offsetSeconds)
    let msOfDay = epochMilliseconds + Int64(offsetSeconds) * 1000 - Int64(date.daysSinceEpoch) * 86_400_000
    let seconds = Int(msOfDay / 1000)
    let millis = Int(msOfDay % 1000)
    var text = "\(date)T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    if millis != 0 { text += "." + String(String(millis + 1000).dropFirst()) }
    return text + offset(offsetSeconds)
  }

  /// The local calendar day of an instant at `offsetSeconds`.
  static func localDay(_ epochMilliseconds: EpochMilliseconds, offsetSeconds: Int) -> LocalDate {
    LocalDate(containing: epochMilliseconds, utcOffsetSeconds: offsetSeconds)
  }

  /// `+08:00`, `-05:30`, or `Z` for zero: the instant's offset, by the one rule.
  static func offset(_ seconds: Int) -> String { UTCOffsetText.iso8601(seconds, zero: .z) }

  private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
