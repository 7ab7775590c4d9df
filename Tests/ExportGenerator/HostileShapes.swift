/// Crafted exports that stress memory rather than model a person: every
/// record a step record of one iPhone, all starting at one instant. A real
/// export never holds these; an attacker's does, and the reader and the
/// merge must stay within their memory budget on them (docs/READING.md).
enum HostileShape: String, CaseIterable {
  /// Copies of one record: one start, end and value.
  case identical
  /// One start, each record ending one second later than the one before,
  /// cycling through a day of ends: no two neighbours alike.
  case sharedStart = "shared-start"

  /// The start every record has: 2024-03-01 08:00:00 +0100.
  static let start: StaticString = "2024-03-01 08:00:00 +0100"
  /// The export date, a day after.
  static let exportDate: StaticString = "2024-03-02 09:12:33 +0100"

  /// Writes the header, `records` records of the shape (fewer when the XML
  /// reaches `targetBytes` first) and the footer; returns how many records.
  func write(to sink: ByteSink, records: Int64, targetBytes: Int64?) throws -> Int64 {
    sink.append(Array(ExportDTD.text(broken: false).utf8))
    sink.append("<HealthData locale=\"en_US\">\n <ExportDate value=\"")
    sink.append(Self.exportDate)
    sink.append("\"/>\n")
    var written: Int64 = 0
    while written < records {
      if let targetBytes, sink.writtenBytes >= targetBytes { break }
      sink.append(
        " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" sourceVersion=\"17.4\" unit=\"count\" creationDate=\""
      )
      sink.append(Self.start)
      sink.append("\" startDate=\"")
      sink.append(Self.start)
      sink.append("\" endDate=\"")
      switch self {
      case .identical:
        sink.append("2024-03-01 08:10:00 +0100")
      case .sharedStart:
        // 08:00:01 up to a day later, one second more for each record.
        let seconds = 8 * 3600 + 1 + Int(written % 86_400)
        let day = seconds / 86_400
        let clock = seconds % 86_400
        sink.append(day == 0 ? "2024-03-01 " : "2024-03-02 ")
        sink.append(twoDigits: clock / 3600)
        sink.append(byte: UInt8(ascii: ":"))
        sink.append(twoDigits: clock / 60 % 60)
        sink.append(byte: UInt8(ascii: ":"))
        sink.append(twoDigits: clock % 60)
        sink.append(" +0100")
      }
      sink.append("\" value=\"100\"/>\n")
      written += 1
      try sink.flushIfNeeded()
    }
    sink.append("</HealthData>\n")
    return written
  }
}
