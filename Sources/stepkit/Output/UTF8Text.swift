import StepKitCore

/// Output text assembled as UTF-8 bytes.
///
/// A long export's `--format csv` has a row per day for years. Interpolating
/// each row into a `String` (the date's three padded fields, five numbers)
/// cost about 8,000 instructions a row, a few milliseconds of a run that
/// reads the export itself in a fifth of a second; appending bytes costs a
/// tenth of that.
struct UTF8Text {
  private(set) var bytes: [UInt8] = []

  init(reservingCapacity capacity: Int = 0) {
    bytes.reserveCapacity(capacity)
  }

  /// The text as a `String`.
  var string: String { String(decoding: bytes, as: UTF8.self) }

  /// Empties the text, keeping its room.
  mutating func removeAll() {
    bytes.removeAll(keepingCapacity: true)
  }

  mutating func append(_ text: String) {
    bytes.append(contentsOf: text.utf8)
  }

  /// `value` in decimal digits, `-` first when negative, as `String(value)`.
  mutating func append(_ value: Int64) {
    append(value, minimumDigits: 1)
  }

  /// `value` with at least `minimumDigits` digits, zeros in front, a `-`
  /// before them when negative: `LocalDate`'s `0042`, `-0042`.
  mutating func append(_ value: Int64, minimumDigits: Int) {
    if value < 0 { append(ascii: "-") }
    // The magnitude as unsigned, so that Int64.min has one too.
    let magnitude = value.magnitude
    var digits = 1
    var power: UInt64 = 1
    while digits < 20 && magnitude / power >= 10 {
      power *= 10
      digits += 1
    }
    for _ in digits..<max(digits, minimumDigits) { append(ascii: "0") }
    while power > 0 {
      bytes.append(UInt8(ascii: "0") + UInt8(magnitude / power % 10))
      power /= 10
    }
  }

  /// One ASCII character.
  mutating func append(ascii character: Unicode.Scalar) {
    bytes.append(UInt8(ascii: character))
  }

  /// `date` as `YYYY-MM-DD`, as ``LocalDate/description`` writes it.
  mutating func append(_ date: LocalDate) {
    append(Int64(date.year), minimumDigits: 4)
    append(ascii: "-")
    append(Int64(date.month), minimumDigits: 2)
    append(ascii: "-")
    append(Int64(date.day), minimumDigits: 2)
  }

  /// `bucket`'s label, as ``Tally/Bucket/label(unit:)`` writes it.
  mutating func appendLabel(of bucket: Tally.Bucket, unit: BucketUnit) {
    switch unit {
    case .day, .week:
      append(bucket.firstDay)
    case .month:
      append(Int64(bucket.firstDay.year), minimumDigits: 4)
      append(ascii: "-")
      append(Int64(bucket.firstDay.month), minimumDigits: 2)
    case .hour:
      append(bucket.firstDay)
      append(ascii: "T")
      append(Int64(bucket.hour ?? 0), minimumDigits: 2)
      append(":00")
      append(UTCOffsetText.iso8601(bucket.utcOffsetSeconds ?? 0, zero: .numeric))
    }
  }
}
