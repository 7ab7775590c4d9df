import Foundation
@_spi(ExportReading) import StepKitCore

/// Reads a regular export.xml on several threads, with the results of
/// reading it front to back on one.
///
/// The file is cut at candidate seams (``SeamFinder``) into a short header
/// stretch and stretches of ``Settings/chunkBytes``. The header (XML
/// declaration, DTD, `<HealthData>`, `<ExportDate>`, `<Me>`) is scanned
/// first, on the calling thread; the other stretches are then handed out in
/// file order to worker threads, each reading its own byte range, and each
/// is scanned *speculatively*: as if it began inside `<HealthData>` at top
/// level, with the export date the header gave, into a ``SampleLog`` of its
/// own that numbers origins as the log being filled did when the stretch was
/// handed out (``SampleLog/init(numberingOriginsAs:)``), counting lines from
/// its own start.
///
/// The calling thread takes the results in file order as they complete. A
/// stretch's guess is right when the stretch before it (itself right) ended
/// exactly at the seam at top level, with no record unfinished: then the
/// stretch scanned exactly as the front-to-back scan would have, and its log
/// is appended (``SampleLog/append(contentsOf:relocatingInvalid:)``, with its
/// lines moved down by the lines before it): its samples move as encoded,
/// block by block, except blocks naming an origin first seen in the stretch
/// whose number differs in the log. The first stretch that is
/// doubtful (its seam not verified, an error, an `<ExportDate>` or `<Me>` met
/// in it, or too many origins to merge safely) stops the workers, and the
/// rest of the file from that stretch's seam on is read sequentially, from
/// the exact state there: so an error is the one, at the place, that the
/// sequential reader reports.
enum ParallelExportReader {
  /// How the file is cut and read.
  struct Settings: Sendable {
    /// Threads that scan stretches (the calling thread merges).
    var threads: Int
    /// The size of a stretch (the last one runs to the end of the file).
    var chunkBytes: Int
    /// Where the first seam is looked for: the header stretch is read alone first.
    var headerBytes: Int
    /// Files smaller than this are read sequentially.
    var minimumBytes: Int
    /// Each scanning thread's read buffer, when the file's bytes are copied
    /// (``FileReading/copied``); mapped windows are the file's own size.
    var bufferBytes: Int
    /// When more than 0, stretches shrink towards the end of the file, to
    /// this size at the least (``SeamFinder/seams(in:headerBytes:chunkBytes:smallestChunkBytes:threads:)``),
    /// so that the threads finish close together; 0 keeps them all ``chunkBytes``.
    var smallestChunkBytes = 0

    /// The settings for a file of `byteCount` bytes on `threads` threads:
    /// stretches of 16 MiB, smaller for a small file so that there are at
    /// least four per thread, shrinking towards the end of the file, never
    /// below 1 MiB; a 1 MiB read buffer per thread (larger reads gain
    /// nothing, and every thread holds one).
    static func automatic(threads: Int, byteCount: Int64) -> Settings {
      let perThread = Int(clamping: byteCount / Int64(max(threads, 1) * 4))
      let chunk = min(16 << 20, max(1 << 20, perThread))
      return Settings(
        threads: threads, chunkBytes: chunk, headerBytes: min(chunk, 1 << 20), minimumBytes: 4 << 20,
        bufferBytes: 1 << 20, smallestChunkBytes: 1 << 20)
    }
  }

  /// How a read went, for tests and measurements.
  struct Run: Sendable, Equatable {
    /// The stretches the file was cut into (0 when it was read front to back from the start).
    var stretches = 0
    /// How many of them, the header included, were merged as scanned in parallel.
    var merged = 0
    /// How many times a doubtful stretch was read again front to back, from its verified seam on.
    var repairs = 0
    /// How many stretches those repairs covered.
    var repairedStretches = 0
  }

  /// Reads `file` as export XML into `log` (see the type's description).
  static func read(
    _ file: any RandomAccessByteSource, entryName: String? = nil, into log: inout SampleLog,
    settings: Settings, progress: (@Sendable (ExportProgress) -> Void)? = nil
  ) throws -> ExportInfo {
    var run = Run()
    return try read(file, entryName: entryName, into: &log, settings: settings, progress: progress, run: &run)
  }

  /// Reads `file` as export XML into `log`, telling in `run` how it went.
  static func read(
    _ file: any RandomAccessByteSource, entryName: String? = nil, into log: inout SampleLog,
    settings: Settings, progress: (@Sendable (ExportProgress) -> Void)? = nil, run: inout Run
  ) throws -> ExportInfo {
    run = Run()
    let size = file.byteCount
    guard settings.threads > 1, size >= Int64(settings.minimumBytes) else {
      return try sequential(file, entryName: entryName, into: &log, progress: progress)
    }
    let seams =
      [Int64(0)]
      + (try SeamFinder.seams(
        in: file, headerBytes: settings.headerBytes, chunkBytes: settings.chunkBytes,
        smallestChunkBytes: settings.smallestChunkBytes, threads: settings.threads))
    guard seams.count > 1 else {
      return try sequential(file, entryName: entryName, into: &log, progress: progress)
    }
    let stretches = FileStretches(file: file, seams: seams, threads: settings.threads)
    return try join(
      stretches, entryName: entryName, into: &log, settings: settings, progress: progress, run: &run)
  }

  // Its parameters are `read`'s, alike on purpose: `read` (a file) and `join` (stretches) are the
  // two ways in, and the scan they share starts below them.

  /// Reads the XML that `stretches` cut into `log`: the header first, on the
  /// calling thread, then every later stretch, scanned ahead or read here,
  /// joined in order (see the type's description).
  static func join(
    _ stretches: some StretchSupply, entryName: String? = nil, into log: inout SampleLog,
    settings: Settings, progress: (@Sendable (ExportProgress) -> Void)? = nil, run: inout Run
  ) throws -> ExportInfo {
    run = Run()
    let size = stretches.expectedByteCount
    guard stretches.hasStretch(1),
      let header = scanHeader(
        stretches.range(from: 0, toEnd: false, consuming: false), entryName: entryName,
        origins: SampleLog(numberingOriginsAs: log), settings: settings)
    else {
      return try ExportDecoder.readSamples(
        from: stretches.range(from: 0, toEnd: true, consuming: true), entryName: entryName, into: &log,
        progress: progress)
    }
    run.merged = 1
    defer { run.stretches = stretches.knownCount }

    // Room for as many samples as the file can hold, as the sequential reader reserves.
    log.reserveCapacity(log.count + ExportDecoder.reservedSamples(forBytes: size))
    log.append(contentsOf: header.log)
    var state = MergedState(info: header.info, linesBefore: header.lines)
    var context = header.context
    context.origins = SampleLog(numberingOriginsAs: log)

    stretches.startScanning(context: context, settings: settings)
    defer { stretches.stopScanning() }

    var lastProgress: UInt64 = 0
    // The true state at the start of stretch `index` is known: top level, nothing unfinished.
    var index = 1
    while stretches.hasStretch(index) {
      stretches.joined(before: index)
      let chunk = stretches.result(index)
      // Merging must not run out of origin identifiers: the sequential reader
      // reports the record that would have; a repair does too.
      if let chunk, chunk.verified, hasRoom(in: log, for: chunk) {
        let shift = state.linesBefore
        log.append(contentsOf: chunk.log) { location in
          var moved = location
          moved.line = location.line.map { $0 + shift }
          return moved
        }
        state.add(chunk)
        run.merged += 1
        index += 1
        // Origins first seen in it: the stretches handed out from now on number them as the log does.
        stretches.publishOrigins(of: log)
      } else {
        defer { stretches.publishOrigins(of: log) }
        let (repaired, reportedEnd) = try repair(
          stretches, from: index, context: context, state: &state, into: &log, progress: progress)
        run.repairs += 1
        run.repairedStretches += repaired
        index += repaired
        // A repair that read to the end may have reported its own progress, the last report included.
        if reportedEnd {
          stretches.joined(before: index)
          try stretches.verifyEnd()
          return state.info
        }
      }
      if let progress {
        let now = DispatchTime.now().uptimeNanoseconds
        if !stretches.hasStretch(index) || now &- lastProgress >= 100_000_000 {
          lastProgress = now
          progress(ExportProgress(bytesRead: state.info.xmlByteCount, totalBytes: size))
        }
      }
    }
    stretches.joined(before: index)
    try stretches.verifyEnd()
    return state.info
  }

  /// Whether `log` can register every origin `chunk` may hold new to it,
  /// and so does each of its ``SampleLog/typeLogs``.
  private static func hasRoom(in log: SampleLog, for chunk: Chunk) -> Bool {
    let counts = log.originCounts
    let added = chunk.log.originCounts
    guard counts.count == added.count, added.count == chunk.seededOrigins.count else { return false }
    for index in counts.indices
    where counts[index] + added[index] - chunk.seededOrigins[index] > SampleLog.maximumOrigins {
      return false
    }
    return true
  }

  /// Whether `log` numbers origins that `seed` does not (any of its
  /// ``SampleLog/typeLogs`` included): the stretches handed out from then
  /// on are better seeded from it.
  static func numbersMoreOrigins(_ log: SampleLog, than seed: SampleLog) -> Bool {
    zip(log.originCounts, seed.originCounts).contains { $0 > $1 }
  }

  /// What the stretches merged so far add up to.
  private struct MergedState {
    var info: ExportInfo
    /// Newlines before the next seam.
    var linesBefore: Int

    mutating func add(_ chunk: Chunk) {
      info.recordCount += chunk.info.recordCount
      info.stepAndDistanceRecords += chunk.info.stepAndDistanceRecords
      info.userEnteredRecords += chunk.info.userEnteredRecords
      info.invalidRecords += chunk.info.invalidRecords
      info.malformedAttributes += chunk.info.malformedAttributes
      info.skippedControlCharacters += chunk.info.skippedControlCharacters
      info.xmlByteCount = chunk.info.xmlByteCount
      linesBefore += chunk.lines
    }
  }

  /// Reads on front to back from the verified seam `seams[index]`, on the
  /// calling thread, from the exact state there and into `log`, until it
  /// reaches a later seam at top level with nothing unfinished (or the end
  /// of the file): a seam inside a `<Correlation>`, a comment or a record
  /// with children is passed over this way, and the stretches after it are
  /// taken as scanned again. Its errors are the sequential reader's.
  ///
  /// When it read a new export date, the stretches after it were scanned
  /// with the wrong one: it then reads on to the end of the file.
  ///
  /// - Returns: How many stretches it covered, and whether it reported
  ///   progress to the end itself (it does when it starts as the last).
  private static func repair(
    _ stretches: some StretchSupply, from index: Int, context: Context, state: inout MergedState,
    into log: inout SampleLog, progress: (@Sendable (ExportProgress) -> Void)?
  ) throws -> (covered: Int, reportedEnd: Bool) {
    let resumption = ExportDecoder.Resumption(
      scan: XMLScanner.ResumePoint(
        byteOffset: stretches.start(of: index), linesBefore: state.linesBefore,
        controlCharactersBefore: state.info.skippedControlCharacters, rootName: context.rootName,
        doctypeSeen: context.doctypeSeen, exportVersion: context.exportVersion),
      info: state.info, exportedAtMs: context.exportedAtMs, speculative: false)
    var next = index + 1
    let toEnd = !stretches.scansAhead || stretches.isKnownLast(index)
    let source = stretches.range(from: index, toEnd: toEnd, consuming: true)
    let total = stretches.expectedByteCount
    // A repair that may read on to the end reports progress as it goes.
    let reports = toEnd || stretches.readsOnItself
    var decoder = ExportDecoder(
      source: source, resuming: resumption, stopsAtSeam: !toEnd,
      progress: reports
        ? progress.map { report in
          { @Sendable in report(ExportProgress(bytesRead: $0.bytesRead, totalBytes: total)) }
        } : nil)
    swap(&decoder.log, &log)
    defer { swap(&decoder.log, &log) }
    while true {
      switch try decoder.step() {
      case .record, .element:
        continue
      case .finished:
        state.info = decoder.info
        state.linesBefore = decoder.scannerResumePoint.linesBefore
        return (stretches.knownCount - index, reports && progress != nil)
      case .seam(let clean):
        // A stretch not known to be the last when the range was made may turn out to be.
        let more = stretches.hasStretch(next)
        let sameDate = decoder.exportDateMilliseconds == context.exportedAtMs
        if clean && more && sameDate && !stretches.claimForReading(next) {
          state.info = decoder.info
          state.linesBefore = decoder.scannerResumePoint.linesBefore
          return (next - index, false)
        }
        // The stretch from `next` on was scanned from a wrong guess, or not at all: read it too.
        if more {
          stretches.discard(next)
          next += 1
        }
        let last = !more || stretches.isKnownLast(next - 1) || !sameDate
        source.extend(to: last ? nil : stretches.end(of: next - 1))
        decoder.readPastRangeEnd(stopsAtSeam: !last)
      }
    }
  }

  /// What every stretch after the header starts from.
  struct Context: Sendable {
    var fileName: String
    var entryName: String?
    var rootName: [UInt8]
    var doctypeSeen: Bool
    var exportVersion: Int?
    var exportedAtMs: Int64?
    /// The log each stretch is scanned into: empty, numbering origins as
    /// the log the stretches are appended to.
    var origins = SampleLog()
  }

  /// One stretch's results.
  struct Chunk: Sendable {
    var log: SampleLog
    /// Counts of this stretch alone; `xmlByteCount` is the offset of its end.
    var info: ExportInfo
    /// Newlines in the stretch.
    var lines: Int
    /// Whether it ended at its seam at top level with nothing doubtful (or,
    /// for the last, at the end of the XML with no error).
    var verified: Bool
    /// How many of ``log``'s origins it started with (``Context/origins``),
    /// then how many each of its ``SampleLog/typeLogs`` started with.
    var seededOrigins: [Int] = [0]
  }

  private struct Header {
    var log: SampleLog
    var info: ExportInfo
    var lines: Int
    var context: Context
  }

  /// Scans `source`, the first stretch, as the start of the XML; `nil` when
  /// it did not end cleanly at its end (the sequential reader then reads the
  /// whole file).
  private static func scanHeader(
    _ source: any ByteRangeSource, entryName: String?, origins: SampleLog, settings: Settings
  ) -> Header? {
    var decoder = ExportDecoder(
      source: source, resuming: nil, stopsAtSeam: true, bufferBytes: settings.bufferBytes)
    decoder.log = origins
    guard case .seam(clean: true)? = try? decoder.step() else { return nil }
    var info = decoder.info
    info.xmlEntryName = entryName
    let point = decoder.scannerResumePoint
    let context = Context(
      fileName: info.fileName, entryName: entryName, rootName: point.rootName, doctypeSeen: point.doctypeSeen,
      exportVersion: point.exportVersion, exportedAtMs: decoder.exportDateMilliseconds)
    return Header(log: decoder.log, info: info, lines: point.linesBefore, context: context)
  }

  /// Scans stretch `index` of `seams` speculatively.
  static func scanChunk(
    _ file: any RandomAccessByteSource, seams: [Int64], index: Int, context: Context, settings: Settings
  ) -> Chunk {
    let isLast = index == seams.count - 1
    let start = seams[index]
    let end = isLast ? nil : seams[index + 1]
    return scanChunk(
      file.range(from: start, to: end), from: start, byteCount: (end ?? file.byteCount) - start,
      isLast: isLast, context: context, settings: settings)
  }

  /// Scans `source`, a stretch starting at offset `start` and `byteCount`
  /// bytes long (the last one when `isLast`), speculatively.
  static func scanChunk(
    _ source: any ByteRangeSource, from start: Int64, byteCount: Int64, isLast: Bool, context: Context,
    settings: Settings
  ) -> Chunk {
    let resumption = ExportDecoder.Resumption(
      scan: XMLScanner.ResumePoint(
        byteOffset: start, linesBefore: 0, controlCharactersBefore: 0, rootName: context.rootName,
        doctypeSeen: context.doctypeSeen, exportVersion: context.exportVersion),
      info: ExportInfo(fileName: context.fileName, xmlEntryName: context.entryName),
      exportedAtMs: context.exportedAtMs, speculative: true)
    var decoder = ExportDecoder(
      source: source, resuming: resumption, stopsAtSeam: !isLast, bufferBytes: settings.bufferBytes)
    decoder.log = context.origins
    decoder.log.reserveCapacity(ExportDecoder.reservedSamples(forBytes: byteCount))
    var verified = false
    do {
      switch try decoder.step() {
      case .finished: verified = isLast
      case .seam(let clean): verified = clean && !isLast
      case .record, .element: verified = false
      }
    } catch {
      verified = false
    }
    return Chunk(
      log: decoder.log, info: decoder.info, lines: decoder.scannerResumePoint.linesBefore, verified: verified,
      seededOrigins: context.origins.originCounts)
  }

  /// Reads the whole file front to back.
  private static func sequential(
    _ file: any RandomAccessByteSource, entryName: String?, into log: inout SampleLog,
    progress: (@Sendable (ExportProgress) -> Void)?
  ) throws -> ExportInfo {
    try ExportDecoder.readSamples(
      from: file.range(from: 0, to: nil), entryName: entryName, into: &log, progress: progress)
  }
}

/// Hands stretches out in file order and collects their results, at most
/// `window` ahead of the one being merged, so that memory stays bounded
/// however far the scanning threads could run ahead.
final class ChunkBoard: @unchecked Sendable {
  // Safe to share: every `var` is read and written only under `condition`; a result, once
  // delivered, is no longer touched by the thread that scanned it.
  private let condition = NSCondition()
  private let count: Int
  private let window: Int
  private var nextToScan = 1
  private var nextToMerge = 1
  private var results: [Int: ParallelExportReader.Chunk] = [:]
  private var cancelled = false
  /// The log each stretch handed out from now on is scanned into.
  private var origins: SampleLog

  /// A board for stretches `1 ..< count` (stretch 0, the header, is read
  /// first), each scanned into a copy of `origins`.
  init(count: Int, window: Int, origins: SampleLog) {
    self.count = count
    self.window = max(window, 1)
    self.origins = origins
  }

  /// The next stretch to scan and the log to scan it into, or `nil` when
  /// none are left or reading stopped.
  func take() -> (index: Int, origins: SampleLog)? {
    condition.lock()
    defer { condition.unlock() }
    while !cancelled, nextToScan < count, nextToScan - nextToMerge >= window { condition.wait() }
    guard !cancelled, nextToScan < count else { return nil }
    nextToScan += 1
    return (nextToScan - 1, origins)
  }

  /// Has the stretches handed out from now on numbered as `log` numbers
  /// origins, when it holds more than they would have started with.
  func publishOrigins(of log: SampleLog) {
    condition.lock()
    defer { condition.unlock() }
    guard ParallelExportReader.numbersMoreOrigins(log, than: origins) else { return }
    origins = SampleLog(numberingOriginsAs: log)
  }

  /// Hands in the results of stretch `index`.
  func deliver(_ index: Int, _ chunk: ParallelExportReader.Chunk) {
    condition.lock()
    results[index] = chunk
    condition.broadcast()
    condition.unlock()
  }

  /// Waits for the results of stretch `index` (taken in order).
  func result(_ index: Int) -> ParallelExportReader.Chunk {
    condition.lock()
    defer { condition.unlock() }
    while results[index] == nil { condition.wait() }
    nextToMerge = index + 1
    condition.broadcast()
    return results.removeValue(forKey: index)!
  }

  /// Stops handing out stretches (the ones being scanned still finish).
  func cancel() {
    condition.lock()
    cancelled = true
    condition.broadcast()
    condition.unlock()
  }
}
