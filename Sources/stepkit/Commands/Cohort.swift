import Foundation
import HealthExport
import StepKitCore

/// Where a cohort's export ids come from (`--id-from`).
enum ExportIDRule: String, Sendable {
  /// The file's name without its extension: `cohort/p001.zip` is `p001`.
  case name
  /// The name of the folder holding the file: `cohort/p001/export.zip` is `p001`
  /// (an unpacked `apple_health_export` folder is looked through).
  case parent
}

/// One export of a run: the path to read and the id its rows carry.
struct CohortMember: Equatable, Sendable {
  /// The `export` column (`p001`).
  var id: String
  /// The file, as the command line spelled it or under the folder it named.
  var path: String
}

/// What identifies an export file's contents: its SHA-256 and the `ExportDate` it names.
struct ExportFingerprint: Equatable, Sendable {
  /// The file's SHA-256, 64 lowercase hexadecimal digits.
  var sha256: String
  /// The export's own `ExportDate`, in UTC (`2026-04-26T08:00:00Z`), when read.
  var exportDate: String?
}

/// What reading and counting one export of a cohort gave.
enum CohortOutcome: Sendable {
  /// The export was read: its tally, its samples (kept only when the command
  /// writes them), how many there were, the note about its quirks, if any,
  /// and, when asked for, its fingerprint.
  case counted(Tally, log: SampleLog?, sampleCount: Int, quirks: String?, fingerprint: ExportFingerprint?)
  /// The file's SHA-256 is that of the export already imported under its id:
  /// it was not read.
  case unchanged(ExportFingerprint)
  /// The export could not be read: the message, with file, line and column.
  case failed(String)
}

/// Several exports in one run: the exports named by the command line, read in
/// parallel and handed back in a stable order, with a line per export and a
/// summary of the ones that failed.
enum Cohort {
  /// The exports that `arguments` name: files as given, and every export in a
  /// folder (``FolderSearch``: Apple Health exports by content, at any depth,
  /// hidden files left out), sorted by path.
  ///
  /// - Returns: The members in order, whether the run is a cohort (more than
  ///   one argument, or a folder: then rows carry the export id, however many
  ///   exports the folder holds), and the lines for standard error about what
  ///   folders held besides exports (other `.xml` and `.zip` files, loops).
  /// - Throws: ``CommandError/output(_:)`` for a folder without exports,
  ///   ``CommandError/usage(_:)`` when two exports would get the same id.
  static func members(_ arguments: [String], idRule: ExportIDRule) throws(CommandError) -> (
    members: [CohortMember], isCohort: Bool, notes: [String]
  ) {
    var paths: [String] = []
    var notes: [String] = []
    var foundFolder = false
    for argument in arguments {
      guard argument != "-", Platform.fileKind(argument).kind == .directory else {
        paths.append(argument)
        continue
      }
      foundFolder = true
      let search = FolderSearch(folder: argument)
      guard !search.exports.isEmpty else {
        let skipped =
          search.skipped.isEmpty ? "" : " (" + search.notes(folder: argument).joined().dropLast() + ")"
        throw .output(
          "\(argument) holds no Apple Health export (export.zip, export.xml or a localized name)"
            + skipped.replacingOccurrences(of: "\n", with: ";"))
      }
      notes += search.notes(folder: argument)
      paths += search.exports
    }
    let isCohort = arguments.count > 1 || foundFolder
    let members = paths.map { CohortMember(id: id(of: $0, rule: idRule), path: $0) }
    var seen: [String: String] = [:]
    for member in members {
      if let earlier = seen[member.id] {
        let hint =
          idRule == .name
          ? "use --id-from parent when each participant has a folder, or rename the files"
          : "rename the folders"
        throw .usage(
          UsageError(
            "two exports would both have the id '\(member.id)' (\(earlier) and \(member.path)); \(hint)"))
      }
      seen[member.id] = member.path
    }
    return (members, isCohort, notes)
  }

  /// The id of the export at `path` under `rule`.
  static func id(of path: String, rule: ExportIDRule) -> String {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    switch rule {
    case .name:
      let name = url.lastPathComponent
      guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
      return String(name[..<dot])
    case .parent:
      var folder = url.deletingLastPathComponent()
      if folder.lastPathComponent == "apple_health_export" { folder = folder.deletingLastPathComponent() }
      return folder.lastPathComponent
    }
  }

  /// Reads and counts every member on `settings.jobs` threads and calls
  /// `deliver` on the calling thread with each outcome, in the members' order
  /// whatever the scheduling. Prints a line per export on a terminal, each
  /// failure as it is delivered, and a summary of the failures at the end.
  ///
  /// - Parameters:
  ///   - keepsSamples: Whether outcomes keep their ``SampleLog`` (for
  ///     `sqlite`). Then at most `jobs` exports are held at once; otherwise a
  ///     log is dropped as soon as it is counted.
  ///   - imported: With a value, each file's SHA-256 is taken first, and an
  ///     export whose id maps to the same SHA-256 here is not read
  ///     (``CohortOutcome/unchanged(_:)``); `nil`: no hashing.
  ///   - deliver: Receives each member and its outcome; an error it throws
  ///     stops the run (exports being read are finished and dropped).
  /// - Returns: Whether every export was read.
  static func run(
    _ members: [CohortMember], settings: CountingArguments, keepsSamples: Bool,
    imported: [String: String]? = nil, console: Console,
    deliver: (CohortMember, CohortOutcome) throws(CommandError) -> Void
  ) throws(CommandError) -> Bool {
    let progress = CohortProgress(
      total: members.count, live: console.errorIsTerminal && !settings.quiet,
      showsStatus: !console.outputIsTerminal && console.errorTakesEscapes, write: console.error)
    // Each day's row names the sources that added to it.
    let options = { () -> CountingOptions in
      var options = settings.counting
      options.includesSourceBreakdown = true
      return options
    }()
    var failures: [(CohortMember, String)] = []
    let pool = ExportPool<CohortOutcome>(
      count: members.count, jobs: settings.jobs, window: keepsSamples ? settings.jobs : 4 * settings.jobs)
    try pool.run(
      work: { index in
        let member = members[index]
        progress.started(index, id: member.id)
        defer { progress.stopped(index) }
        do throws(CommandError) {
          var fingerprint: ExportFingerprint? = nil
          if let imported {
            let sha256: String
            do throws(SHA256.ReadError) {
              sha256 = try SHA256.hexDigest(ofFile: member.path)
            } catch {
              throw .output(error.message)
            }
            if imported[member.id] == sha256 { return .unchanged(ExportFingerprint(sha256: sha256)) }
            fingerprint = ExportFingerprint(sha256: sha256)
          }
          // The exports are read in parallel already: each on one thread.
          let (log, info) = try ExportLoading.read(
            member.path, threads: 1,
            progress: { report in
              progress.update(index, bytesRead: report.bytesRead, totalBytes: report.totalBytes)
            })
          // Each export has its own sources: a `--priority` name matches its apostrophes either
          // way, and one an export lacks ranks nothing there.
          var memberOptions = options
          memberOptions.ranking.explicitOrder = PriorityNames.matched(
            options.ranking.explicitOrder, sources: log.sourceNames)
          try ExportLoading.checkRange(log, memberOptions)
          let tally = log.tally(memberOptions, threads: 1)
          try ExportLoading.checkStorage(log, tally.countedValues, quiet: true, console: nil)
          try ExportLoading.checkSums(tally)
          fingerprint?.exportDate = info.exportedAt.map(TextFormatting.isoUTC)
          return .counted(
            tally, log: keepsSamples ? log : nil, sampleCount: log.count,
            quirks: ExportLoading.quirkNote(info), fingerprint: fingerprint)
        } catch {
          return .failed(error.message())
        }
      },
      deliver: { (index, outcome) throws(CommandError) in
        let member = members[index]
        switch outcome {
        case .unchanged:
          progress.finished(index, id: member.id, line: "unchanged")
        case .counted(let tally, _, let sampleCount, let quirks, _):
          progress.finished(
            index, id: member.id, line: "\(TextFormatting.grouped(Int64(sampleCount))) samples")
          if !settings.quiet, let quirks { progress.print(quirks) }
          if !settings.quiet, let note = ExportLoading.invalidNote(tally.invalid) { progress.print(note) }
        case .failed(let message):
          failures.append((member, message))
          progress.print("stepkit: error: \(message)\n")
        }
        try deliver(member, outcome)
        // Nobody reads the rows any more (`| head`, a full disk): read no more exports.
        if console.outputFailure() != nil { throw .outputStopped }
      })
    progress.clear()
    if !failures.isEmpty {
      var summary = "stepkit: \(failures.count) of \(members.count) exports could not be read:\n"
      for (member, message) in failures { summary += "  \(member.id): \(message)\n" }
      console.error(summary)
    } else if console.errorIsTerminal && !settings.quiet {
      console.error("stepkit: read \(members.count) exports\n")
    }
    return failures.isEmpty
  }
}

extension Cohort {
  /// What `steps` and `sources` print for each export.
  enum Rows {
    /// The buckets (`stepkit steps`).
    case steps
    /// The sources (`stepkit sources`).
    case sources
  }

  /// Reads the members and prints their rows in `format`, export by export in
  /// the members' order: csv with the export id in a first column, one json
  /// document with an `exports` array, or a table per export under its heading.
  ///
  /// - Throws: ``CommandError/checkFailed`` when some export could not be read
  ///   (after the others were printed and the failures listed).
  static func printRows(
    _ members: [CohortMember], of rows: Rows, format: OutputFormat, settings: CountingArguments,
    console: Console
  ) throws(CommandError) {
    switch format {
    case .csv:
      console.output((rows == .steps ? CSVFormatter.cohortHeader : CSVFormatter.cohortSourcesHeader) + "\n")
    case .json:
      console.output(
        JSONFormatter.cohortStart(settings.counting, idRule: settings.idRule, rule: settings.validDay))
    case .table: break
    }
    var isFirst = true
    let allRead = try run(members, settings: settings, keepsSamples: false, console: console) {
      member, outcome in
      defer { isFirst = false }
      if format == .json {
        console.output(
          (isFirst ? "" : ",\n")
            + JSONFormatter.cohortExport(member, outcome, days: rows == .steps, rule: settings.validDay))
        return
      }
      guard case .counted(let tally, _, _, _, _) = outcome else { return }
      switch (format, rows) {
      case (.csv, .steps):
        CSVFormatter.write(tally, rule: settings.validDay, export: member.id, to: console.output)
      case (.csv, .sources): console.output(CSVFormatter.sources(tally, export: member.id))
      case (_, .steps):
        console.output(
          (isFirst ? "" : "\n") + TableFormatter.heading(member)
            + TableFormatter.steps(tally, rule: settings.givenValidDay))
      case (_, .sources):
        console.output((isFirst ? "" : "\n") + TableFormatter.heading(member) + TableFormatter.sources(tally))
      }
    }
    if format == .json { console.output(JSONFormatter.cohortEnd) }
    if !allRead { throw .checkFailed }
  }
}

/// Runs work items on a fixed number of threads and hands their results back
/// in item order on the calling thread.
///
/// At most `window` items are started ahead of the one being delivered, so
/// memory stays bounded by the window however the items' durations differ.
final class ExportPool<Result: Sendable>: @unchecked Sendable {
  // Safe to share: the `let`s are constant; every `var` is read and written only under `condition`.
  private let count: Int
  private let jobs: Int
  private let window: Int
  private let condition = NSCondition()
  // Guarded by `condition`:
  private var nextToStart = 0
  private var delivered = 0
  private var results: [Int: Result] = [:]
  private var stopped = false

  /// A pool for items `0..<count` on `jobs` threads, at most `window` (≥ `jobs`) ahead of delivery.
  init(count: Int, jobs: Int, window: Int) {
    self.count = count
    self.jobs = max(1, min(jobs, count))
    self.window = max(window, self.jobs)
  }

  /// Runs `work` for every item and calls `deliver` with each result in order.
  ///
  /// - Throws: What `deliver` throws; the threads then start nothing more.
  func run<Failure: Error>(
    work: @escaping @Sendable (Int) -> Result, deliver: (Int, Result) throws(Failure) -> Void
  ) throws(Failure) {
    guard count > 0 else { return }
    if jobs == 1 {
      for index in 0..<count { try deliver(index, work(index)) }
      return
    }
    // Worker threads free each export's read buffers in arenas of their own (see the function).
    Platform.keepFreedMemoryForReuse()
    for _ in 0..<jobs {
      let thread = Thread { [self] in self.workLoop(work) }
      thread.stackSize = 8 << 20
      thread.start()
    }
    defer {
      condition.lock()
      stopped = true
      condition.broadcast()
      condition.unlock()
    }
    for index in 0..<count {
      condition.lock()
      while results[index] == nil { condition.wait() }
      let result = results.removeValue(forKey: index)!
      condition.unlock()
      try deliver(index, result)
      condition.lock()
      delivered += 1
      condition.broadcast()
      condition.unlock()
    }
  }

  private func workLoop(_ work: @Sendable (Int) -> Result) {
    while true {
      condition.lock()
      while !stopped && nextToStart < count && nextToStart >= delivered + window { condition.wait() }
      guard !stopped, nextToStart < count else {
        condition.unlock()
        return
      }
      let index = nextToStart
      nextToStart += 1
      condition.unlock()
      let result = work(index)
      condition.lock()
      results[index] = result
      condition.broadcast()
      condition.unlock()
    }
  }
}

/// The lines a cohort run prints on standard error: on a terminal a line per
/// export as it is delivered and, below them, when the data goes elsewhere
/// (a file, a pipe), one status line naming the exports being read, redrawn
/// at most ten times a second.
final class CohortProgress: @unchecked Sendable {
  // Safe to share: the `let`s are constant (`write` is `@Sendable`); every `var` is read and
  // written only under `lock`.
  private let total: Int
  private let live: Bool
  private let write: @Sendable (String) -> Void
  private let lock = NSLock()
  private let clock = ContinuousClock()
  private var reading: [Int: (id: String, fraction: Double?)] = [:]
  private var lastDrawn: ContinuousClock.Instant?
  private var statusShown = false

  private let showsStatus: Bool

  /// Lines for `total` exports written with `write`, when `live` (standard
  /// error is a terminal, no `--quiet`); the status line only with
  /// `showsStatus`, which is off when the data goes to the same terminal and
  /// would be cut into by it.
  init(total: Int, live: Bool, showsStatus: Bool = true, write: @escaping @Sendable (String) -> Void) {
    self.total = total
    self.live = live
    self.showsStatus = live && showsStatus
    self.write = write
  }

  /// Export `index` started.
  func started(_ index: Int, id: String) {
    guard live else { return }
    lock.withLock {
      reading[index] = (id, nil)
      drawStatus(force: true)
    }
  }

  /// Export `index` read `bytesRead` of `totalBytes`.
  func update(_ index: Int, bytesRead: Int64, totalBytes: Int64?) {
    guard live else { return }
    lock.withLock {
      let fraction = totalBytes.map { $0 > 0 ? min(1, Double(bytesRead) / Double($0)) : 1 }
      reading[index]?.fraction = fraction
      drawStatus(force: false)
    }
  }

  /// Export `index` was read (or failed).
  func stopped(_ index: Int) {
    guard live else { return }
    lock.withLock {
      reading[index] = nil
      drawStatus(force: true)
    }
  }

  /// Export `index` was delivered: its line, on a terminal.
  func finished(_ index: Int, id: String, line: String) {
    guard live else { return }
    let width = String(total).count
    print("stepkit: [\(TextFormatting.padLeft(String(index + 1), width))/\(total)] \(id): \(line)\n")
  }

  /// Prints `text` above the status line.
  func print(_ text: String) {
    lock.withLock {
      if statusShown { write("\r\u{1B}[K") }
      write(text)
      statusShown = false
      drawStatus(force: true)
    }
  }

  /// Removes the status line.
  func clear() {
    lock.withLock {
      if statusShown { write("\r\u{1B}[K") }
      statusShown = false
    }
  }

  /// Must be called with `lock` held.
  private func drawStatus(force: Bool) {
    guard showsStatus else { return }
    let now = clock.now
    if !force, let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
    lastDrawn = now
    guard !reading.isEmpty else {
      if statusShown { write("\r\u{1B}[K") }
      statusShown = false
      return
    }
    let parts = reading.sorted { $0.key < $1.key }.prefix(4).map { _, item in
      item.fraction.map { "\(item.id) \(Int($0 * 100))%" } ?? item.id
    }
    let more = reading.count > 4 ? ", …" : ""
    write("\rreading \(parts.joined(separator: ", "))\(more)\u{1B}[K")
    statusShown = true
  }
}
