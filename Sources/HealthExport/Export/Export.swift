import Foundation
import StepKitCore

/// Where an Apple Health export comes from.
public enum ExportInput: Sendable {
  /// A file: an `export.zip` (recognised by its content, whatever its name)
  /// or an unpacked `export.xml`.
  case path(String)
  /// Standard input, holding export XML (`stepkit … -`).
  case standardInput
  /// Bytes in memory, a zip archive or XML; `name` is used in locations and errors.
  case data(Data, name: String)
  /// A file named `name` in locations and errors: a copy of standard input
  /// kept to be read twice is named `<stdin>`.
  case namedFile(path: String, name: String)
}

/// Reads Apple Health exports as a stream, in bounded memory.
///
/// The reader never loads the file whole: a zip entry is inflated on a
/// thread of its own while a byte-level scanner works through the XML in
/// 4 MiB pieces. It tolerates what real exports contain (the broken DTD of
/// iOS 16, stray control characters, localized entry names) and stops at
/// malformed XML with the file, line and column.
///
/// ```swift
/// var log = SampleLog()
/// let info = try ExportReader.read(.path("export.zip"), into: &log)
/// let tally = log.tally(CountingOptions(unit: .day))
/// print(info.stepAndDistanceRecords, tally.total.steps)
/// ```
public enum ExportReader {
  /// Reads the export (zip found by content, or XML), appending its step and
  /// walking + running distance samples to `log`.
  ///
  /// Only top-level records count (records repeated inside a `<Correlation>`
  /// are left out). Records that cannot be decoded (a bad date, value or
  /// unit) are reported in `log.invalid` with their line and column and
  /// reading goes on; malformed XML stops it.
  ///
  /// - Parameters:
  ///   - input: The file, standard input, or bytes to read.
  ///   - log: Receives the samples and the invalid-record report.
  ///   - progress: Called with the bytes read so far, at most about ten times
  ///     a second and once at the end, on the calling thread.
  /// - Returns: What the export says about itself and what was found in it.
  /// - Throws: ``HealthExportError``: the file cannot be opened or read, the
  ///   archive is damaged, the XML is malformed or truncated (with line and
  ///   column), or it is not a Health export.
  public static func read(
    _ input: ExportInput, into log: inout SampleLog,
    progress: (@Sendable (ExportProgress) -> Void)? = nil
  ) throws -> ExportInfo {
    try read(input, into: &log, threads: defaultThreadCount, progress: progress)
  }

  /// Reads the export as ``read(_:into:progress:)`` does, scanning an
  /// unpacked `export.xml` on up to `threads` threads.
  ///
  /// With more than one thread, a regular `export.xml` file of a few MiB or
  /// more is cut into stretches that start at a record, scanned on that many
  /// threads at once and joined in file order. Every seam is verified (the
  /// stretch before it must have ended exactly there, between two top-level
  /// elements), and anything doubtful is read front to back instead, so the
  /// samples, the counts, the invalid-record report and any error (with its
  /// line and column) are the same as with one thread. A zip entry of a few
  /// MiB or more inflates on a thread of its own into stretches cut the same
  /// way, and that thread also scans stretches whenever it has nothing to
  /// inflate into (scanning is then the slower side), with the same checks.
  /// Standard input, bytes in memory and small files are read on one thread
  /// (a small zip entry's inflation still runs on a thread of its own).
  ///
  /// - Parameters:
  ///   - input: The file, standard input, or bytes to read.
  ///   - log: Receives the samples and the invalid-record report.
  ///   - threads: How many threads may scan an `export.xml`; 1 reads it front
  ///     to back on the calling thread. ``defaultThreadCount`` is what
  ///     ``read(_:into:progress:)`` uses.
  ///   - progress: Called with the bytes read so far, at most about ten times
  ///     a second and once at the end, on the calling thread.
  /// - Returns: What the export says about itself and what was found in it.
  /// - Throws: ``HealthExportError``, as ``read(_:into:progress:)`` does.
  public static func read(
    _ input: ExportInput, into log: inout SampleLog, threads: Int,
    progress: (@Sendable (ExportProgress) -> Void)? = nil
  ) throws -> ExportInfo {
    let opened = try open(input)
    var info: ExportInfo
    if threads > 1, let file = opened.file {
      let settings = ParallelExportReader.Settings.automatic(threads: threads, byteCount: file.byteCount)
      info = try ParallelExportReader.read(file, into: &log, settings: settings, progress: progress)
    } else if threads > 1, let (archive, entry) = opened.zip,
      entry.uncompressedSize >= minimumStretchedEntryBytes
    {
      info = try readStretched(archive, entry, into: &log, threads: threads, progress: progress)
    } else {
      info = try read(source: opened.source(), entryName: opened.entryName, into: &log, progress: progress)
    }
    if let (archive, entry) = opened.zip {
      info.otherXMLEntryNames = HealthXMLLocator.otherHealthExportEntries(in: archive, besides: entry)
    }
    return info
  }

  /// Zip entries smaller than this are scanned on one thread while they inflate on another.
  static let minimumStretchedEntryBytes: Int64 = 4 << 20

  /// Reads a zip entry cut into stretches as it inflates (``InflatedStretches``),
  /// which the inflating thread helps to scan when scanning is the slower side.
  static func readStretched(
    _ archive: ZipArchive, _ entry: ZipEntry, into log: inout SampleLog, threads: Int,
    stretchBytes: Int = 2 << 20, stretchCount: Int = 4, engine: InflateEngine = .preferred,
    helping: InflatedStretches.Helping = .whenIdle, progress: (@Sendable (ExportProgress) -> Void)? = nil,
    run: inout ParallelExportReader.Run, scannedByInflater: inout Int
  ) throws -> ExportInfo {
    let stretches = try InflatedStretches(
      archive: archive, entry: entry, stretchBytes: stretchBytes, stretchCount: stretchCount, engine: engine,
      helping: helping)
    defer { scannedByInflater = stretches.stretchesScannedByInflater }
    let settings = ParallelExportReader.Settings.automatic(
      threads: threads, byteCount: entry.uncompressedSize)
    return try ParallelExportReader.join(
      stretches, entryName: entry.name, into: &log, settings: settings, progress: progress, run: &run)
  }

  private static func readStretched(
    _ archive: ZipArchive, _ entry: ZipEntry, into log: inout SampleLog, threads: Int,
    progress: (@Sendable (ExportProgress) -> Void)?
  ) throws -> ExportInfo {
    var run = ParallelExportReader.Run()
    var scanned = 0
    return try readStretched(
      archive, entry, into: &log, threads: threads, progress: progress, run: &run, scannedByInflater: &scanned
    )
  }

  /// How many threads ``read(_:into:progress:)`` scans an `export.xml` on:
  /// one per processor the process may use.
  public static var defaultThreadCount: Int { ProcessInfo.processInfo.activeProcessorCount }

  /// Calls `body` with every top-level `<Record>` of the given types, in file
  /// order, with its attributes and metadata decoded.
  ///
  /// Use it for record types the counting engine does not handle (heart
  /// rate, energy, sleep). Records of other types are skipped cheaply.
  ///
  /// - Parameters:
  ///   - input: The file, standard input, or bytes to read.
  ///   - types: The `type` values to yield (`HKQuantityTypeIdentifierHeartRate`),
  ///     or `nil` for every record.
  ///   - body: Called once per record; an error it throws stops reading and is rethrown.
  /// - Throws: A ``HealthExportError`` as ``read(_:into:progress:)`` does, or
  ///   whatever `body` throws.
  public static func forEachRecord(
    in input: ExportInput, types: Set<String>?, _ body: (ExportRecord) throws -> Void
  ) throws {
    let opened = try open(input)
    var decoder = ExportDecoder(
      source: try opened.source(), mode: .records(types), xmlEntryName: opened.entryName)
    while case .record(let record) = try decoder.step() {
      try body(record)
    }
  }

  /// Calls `body` with every top-level element of the export, in file
  /// order: each `<Record>` of every type, as byte spans (``RawRecord``),
  /// and each workout, activity summary and correlation, decoded whole.
  ///
  /// This is the whole-export path: it decodes every record, with no
  /// per-record allocation, for writing them all out (a database, CSV).
  /// A record that cannot be read as written (no `type`, source or dates, a
  /// date that does not parse, an end before its start, a quantity whose
  /// value is not a number, an attribute written twice) is not handed out;
  /// it is counted and reported with its line and column in the returned
  /// report, and reading goes on. Malformed XML stops it, as in
  /// ``read(_:into:progress:)``.
  ///
  /// - Parameters:
  ///   - input: The file, standard input, or bytes to read.
  ///   - threads: With more than 1, the export is read, and its elements
  ///     decoded, on a thread of its own while `body` runs on the calling
  ///     thread, the elements handed over in file order a batch at a time (a
  ///     few batches of about 1 MiB go round, so memory stays bounded); with
  ///     1, the default, everything happens on the calling thread.
  ///   - progress: Called with the bytes read so far, at most about ten times
  ///     a second and once at the end, on the thread that reads.
  ///   - body: Called once per element, on the calling thread; its spans are
  ///     valid only during the call. An error it throws stops reading and is rethrown.
  /// - Returns: What the export says about itself, and its invalid records.
  /// - Throws: A ``HealthExportError`` as ``read(_:into:progress:)`` does, or
  ///   whatever `body` throws.
  @discardableResult
  public static func forEachElement(
    in input: ExportInput, threads: Int = 1, progress: (@Sendable (ExportProgress) -> Void)? = nil,
    _ body: (ExportElement) throws -> Void
  ) throws -> WholeExportReport {
    let opened = try open(input)
    var report: WholeExportReport
    if threads > 1 {
      report = try forEachElementInBatches(
        source: try opened.source(), entryName: opened.entryName, progress: progress, body)
    } else {
      report = try forEachElement(
        source: try opened.source(), entryName: opened.entryName, progress: progress, body)
    }
    if let (archive, entry) = opened.zip {
      report.info.otherXMLEntryNames = HealthXMLLocator.otherHealthExportEntries(in: archive, besides: entry)
    }
    return report
  }

  /// Calls `body` with every top-level `<Record>` whose `type` `filter`
  /// wants, in file order, as byte spans (``RawRecord``), as
  /// ``forEachElement(in:threads:progress:_:)`` hands records out.
  ///
  /// Every other record is passed over on its `type` bytes alone, without
  /// its other attributes being read, as the step counter passes over the
  /// records it does not count; only the wanted ones are decoded. A wanted
  /// record that cannot be read as written is counted and reported in the
  /// returned report with its line and column, as in
  /// ``forEachElement(in:threads:progress:_:)``; invalid records of other types are
  /// not looked at. Workouts, activity summaries and correlations are passed
  /// over (records repeated inside a correlation are not handed out again).
  ///
  /// - Parameters:
  ///   - input: The file, standard input, or bytes to read.
  ///   - filter: The types to hand out.
  ///   - threads: With more than 1, the export is read, and the wanted
  ///     records decoded, on a thread of its own while `body` runs on the
  ///     calling thread, the records handed over in file order a batch at a
  ///     time (a few batches of about 1 MiB go round, so memory stays bounded);
  ///     with 1, everything happens on the calling thread.
  ///   - progress: Called with the bytes read so far, at most about ten times
  ///     a second and once at the end, on the thread that reads.
  ///   - body: Called once per record, on the calling thread; its spans are
  ///     valid only during the call. An error it throws stops reading and is rethrown.
  /// - Returns: What the export says about itself (``ExportInfo/recordCount``
  ///   counts the records of every type), the records handed out, and the
  ///   invalid ones of the wanted types.
  /// - Throws: A ``HealthExportError`` as ``read(_:into:progress:)`` does, or
  ///   whatever `body` throws.
  @discardableResult
  public static func forEachRecord(
    in input: ExportInput, ofTypes filter: RecordTypeFilter, threads: Int = defaultThreadCount,
    progress: (@Sendable (ExportProgress) -> Void)? = nil, _ body: (RawRecord) throws -> Void
  ) throws -> WholeExportReport {
    let opened = try open(input)
    var report: WholeExportReport
    if threads > 1 {
      report = try forEachRecordInBatches(
        source: try opened.source(), ofTypes: filter, entryName: opened.entryName, progress: progress, body)
    } else {
      report = try forEachRecord(
        source: try opened.source(), ofTypes: filter, entryName: opened.entryName, progress: progress, body)
    }
    if let (archive, entry) = opened.zip {
      report.info.otherXMLEntryNames = HealthXMLLocator.otherHealthExportEntries(in: archive, besides: entry)
    }
    return report
  }

  /// ``forEachRecord(in:ofTypes:threads:progress:_:)`` from `source`; without
  /// `fastRecords`, every record is lexed before its type is looked at
  /// (tests compare the two, and choose tiny buffers to cross every boundary).
  static func forEachRecord(
    source: any ByteChunkSource, ofTypes filter: RecordTypeFilter, entryName: String? = nil,
    bufferBytes: Int = XMLScanner.defaultBufferBytes, fastRecords: Bool = true,
    progress: (@Sendable (ExportProgress) -> Void)? = nil, _ body: (RawRecord) throws -> Void
  ) throws -> WholeExportReport {
    var decoder = ExportDecoder(
      source: source, mode: .typedRecords(filter), xmlEntryName: entryName, bufferBytes: bufferBytes,
      fastRecords: fastRecords, progress: progress)
    reading: while true {
      switch try decoder.step() {
      case .element:
        try decoder.handOutElement { element in
          if case .record(let record) = element { try body(record) }
        }
      case .finished: break reading
      case .record, .seam: continue
      }
    }
    var report = WholeExportReport(info: decoder.info)
    report.records = decoder.elementsHandedOut
    report.invalid = decoder.invalidElements
    report.recordsDecodedStraight = decoder.recordsDecodedStraight
    return report
  }

  /// ``forEachElement(in:threads:progress:_:)`` from `source` (tests choose tiny buffers to cross every boundary).
  ///
  /// `fastRecords: false` lexes every record's tag before decoding it,
  /// instead of reading records written as Apple writes them straight from their bytes.
  static func forEachElement(
    source: any ByteChunkSource, entryName: String? = nil, bufferBytes: Int = XMLScanner.defaultBufferBytes,
    fastRecords: Bool = true, progress: (@Sendable (ExportProgress) -> Void)? = nil,
    _ body: (ExportElement) throws -> Void
  ) throws -> WholeExportReport {
    var decoder = ExportDecoder(
      source: source, mode: .elements, xmlEntryName: entryName, bufferBytes: bufferBytes,
      fastRecords: fastRecords, progress: progress)
    reading: while true {
      switch try decoder.step() {
      case .element: try decoder.handOutElement(body)
      case .finished: break reading
      case .record, .seam: continue
      }
    }
    var report = WholeExportReport(info: decoder.info)
    report.records = decoder.elementsHandedOut
    report.invalid = decoder.invalidElements
    report.invalid.merge(decoder.invalidOtherElements)
    report.recordsDecodedStraight = decoder.recordsDecodedStraight
    return report
  }

  // MARK: - Internal entry points

  /// Reads XML from `source` (tests choose tiny buffers to cross every boundary):
  /// ``ExportDecoder/readSamples(from:entryName:into:bufferBytes:maximumTokenBytes:fastRecords:progress:)``.
  static func read(
    source: any ByteChunkSource, entryName: String? = nil, into log: inout SampleLog,
    bufferBytes: Int = XMLScanner.defaultBufferBytes,
    maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes, fastRecords: Bool = true,
    progress: (@Sendable (ExportProgress) -> Void)? = nil
  ) throws -> ExportInfo {
    try ExportDecoder.readSamples(
      from: source, entryName: entryName, into: &log, bufferBytes: bufferBytes,
      maximumTokenBytes: maximumTokenBytes, fastRecords: fastRecords, progress: progress)
  }

  /// Opens `input` and names the zip entry it reads, if any.
  ///
  /// A zip archive is recognised by its first bytes (`PK\u{3}\u{4}`, or
  /// `PK\u{5}\u{6}` for an empty one), never by its name: an `export.xml`
  /// renamed to `.zip` is still read, and a `.zip` that is neither a zip nor
  /// XML is reported as ``HealthExportError/notAZip(path:)``.
  private static func open(_ input: ExportInput) throws -> Opened {
    switch input {
    case .standardInput:
      return try openStream(FileChunkSource.standardInput())
    case .path(let path):
      return try openPath(path)
    case .namedFile(let path, let name):
      return try openPath(path, name: name)
    case .data(let data, let name):
      return try openData(data, name: name)
    }
  }

  /// Opens the file at `path` once: a regular file for random access (a zip
  /// archive's directory sits at its end), anything else (a named pipe, a
  /// device) as a stream, since its bytes are gone once read.
  ///
  /// `"-"` is a file named `-` here; the command maps it to standard input.
  private static func openPath(_ path: String, name: String? = nil) throws -> Opened {
    var status = stat()
    guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
      // Not a regular file, or not there: the stream reports why it cannot be read.
      return try openStream(FileChunkSource(path: path, displayName: name))
    }
    let file = try FileByteSource(path: path, displayName: name)
    let head = try file.readBytes(at: 0, count: Int(min(file.byteCount, 64)), what: "file signature")
    switch classify(head[...], name: path) {
    case .zip: return try openZip(ZipArchive(source: file))
    case .notAZip where isArchive(file), .unknown where isArchive(file):
      // A self-extracting archive: a program first, the zip after it.
      return try openZip(ZipArchive(source: file))
    case .notAZip: throw HealthExportError.notAZip(path: name ?? path)
    case .xml, .unknown: return Opened(source: file.range(from: 0, to: nil), file: file)
    }
  }

  /// A pipe or standard input: XML is scanned as it arrives; a zip archive is
  /// copied to a temporary file first, since its directory sits at its end.
  private static func openStream(_ stream: FileChunkSource) throws -> Opened {
    let head = try StreamSpooling.head(of: stream, count: 64)
    if classify(head[...], name: stream.displayName) == .zip {
      return try openZip(ZipArchive(source: StreamSpooling.spool(head: head, rest: stream)))
    }
    return Opened(source: PrefixedChunkSource(prefix: head, rest: stream))
  }

  private static func openData(_ data: Data, name: String) throws -> Opened {
    let kind = classify(ArraySlice(data.prefix(64)), name: name)
    let bytes = MemoryByteSource(data, displayName: name)
    if kind == .zip || (kind != .xml && isArchive(bytes)) { return try openZip(ZipArchive(source: bytes)) }
    if kind == .notAZip { throw HealthExportError.notAZip(path: name) }
    return Opened(source: MemoryChunkSource(data, displayName: name))
  }

  /// What the first bytes say: a zip, XML, neither in a file named `.zip`,
  /// or neither in a file named otherwise (read as XML, which then fails
  /// with the reason, unless a zip archive follows a program in front).
  private enum Kind { case zip, xml, notAZip, unknown }

  /// Whether `source`, which does not start as a zip does, ends with a zip
  /// archive's directory: a self-extracting archive (a program, then the zip).
  private static func isArchive(_ source: any RandomAccessByteSource) -> Bool {
    guard let archive = try? ZipArchive(source: source) else { return false }
    return !archive.entries.isEmpty
  }

  /// A source to scan and the zip entry it reads, if any.
  private struct Opened {
    /// The XML, unless it is a zip entry.
    var xml: (any ByteChunkSource)?
    var entryName: String?
    /// The file itself, when it is a regular file of XML (which may be read in parallel).
    var file: FileByteSource?
    /// The archive and the entry holding the XML, not yet inflating.
    var zip: (archive: ZipArchive, entry: ZipEntry)?

    init(source: any ByteChunkSource, file: FileByteSource? = nil) {
      xml = source
      self.file = file
    }

    init(archive: ZipArchive, entry: ZipEntry) {
      zip = (archive, entry)
      entryName = entry.name
    }

    /// The XML's bytes front to back (a zip entry starts inflating on a thread of its own).
    func source() throws -> any ByteChunkSource {
      if let xml { return xml }
      guard let (archive, entry) = zip else { preconditionFailure("an opened input is XML or a zip entry") }
      return try ZipEntryChunkSource(archive: archive, entry: entry)
    }
  }

  /// Decides by content; the name only picks the error for unreadable bytes.
  private static func classify(_ head: ArraySlice<UInt8>, name: String) -> Kind {
    let bytes = Array(head)
    // A local file header (`PK\u{3}\u{4}`) or, for an empty archive, the end of the directory.
    if bytes.count >= 4, bytes[0] == UInt8(ascii: "P"), bytes[1] == UInt8(ascii: "K"),
      (bytes[2] == 3 && bytes[3] == 4) || (bytes[2] == 5 && bytes[3] == 6)
    {
      return .zip
    }
    let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    var i = bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
    while i < bytes.count, ByteScanning.isSpace(bytes[i]) { i += 1 }
    if i < bytes.count, bytes[i] == UInt8(ascii: "<") { return .xml }
    return name.lowercased().hasSuffix(".zip") ? .notAZip : .unknown
  }

  private static func openZip(_ archive: ZipArchive) throws -> Opened {
    let entry = try HealthXMLLocator.healthExportEntry(in: archive)
    return Opened(archive: archive, entry: entry)
  }
}
