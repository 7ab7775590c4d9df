import Foundation
import Testing

@testable import stepkit

@Suite("Several exports in one run")
struct CohortTests {
  /// Seven exports of different sizes, one of them broken, so that the reading order varies.
  static let exports = [
    "watch-and-phone.xml", "localized-name.zip", "../../../Sources/stepkit/Resources/demo-export.xml",
    "malformed.xml", "cohort/alice.xml", "../../HealthExportTests/Fixtures/tdda-export6s3sample.xml",
    "participants/p003/export.zip",
  ]
  static let ids = [
    "watch-and-phone", "localized-name", "demo-export", "malformed", "alice", "tdda-export6s3sample",
    "export",
  ]

  @Test(
    "rows come in the order of the arguments whatever the number of jobs",
    arguments: [
      ["steps", "--format", "csv"], ["sources", "--format", "json"], ["steps", "--format", "table"],
    ])
  func stableOrder(command: [String]) throws {
    let arguments = [command[0]] + Self.exports + Array(command.dropFirst())
    let one = try StepkitRunner.run(arguments + ["--jobs", "1"])
    #expect(one.exitCode == 1, "malformed.xml fails")
    for _ in 0..<3 {
      let four = try StepkitRunner.run(arguments + ["--jobs", "4"])
      #expect(four.standardOutput == one.standardOutput)
      #expect(four.standardError == one.standardError)
      #expect(four.exitCode == 1)
    }
  }

  @Test("each export's rows are its own run's rows, with the export id in front")
  func rowsMatchSingleRuns() throws {
    let cohort = try StepkitRunner.run(["steps"] + Self.exports + ["--format", "csv", "-q", "--jobs", "4"])
    var expected = "export,date,steps,distance_m,raw_steps,manual_steps,hours_with_data,valid\n"
    for (export, id) in zip(Self.exports, Self.ids) {
      let single = try StepkitRunner.run(["steps", export, "--format", "csv", "-q"])
      guard single.exitCode == 0 else { continue }
      for line in single.standardOutput.split(separator: "\n").dropFirst() { expected += "\(id),\(line)\n" }
    }
    // The cohort's rows end with the sources that added counted steps: some exactly when steps > 0.
    var withoutSources = ""
    for line in cohort.standardOutput.split(separator: "\n") {
      guard let comma = line.lastIndex(of: ",") else { continue }
      withoutSources += line[..<comma] + "\n"
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      if fields[0] != "export" {
        #expect((Int(fields[2]) ?? 0 > 0) == !line[line.index(after: comma)...].isEmpty)
      }
    }
    #expect(withoutSources == expected)
    #expect(cohort.exitCode == 1)
    let broken = try StepkitRunner.run(["steps", "malformed.xml"])
    let message = broken.standardError.replacingOccurrences(of: "stepkit: error: ", with: "")
    #expect(
      cohort.standardError == broken.standardError
        + "stepkit: 1 of 7 exports could not be read:\n  malformed: " + message)
  }

  @Test(
    "a cohort stops reading when standard output takes no more: exit 1 on a full disk, quiet on a closed pipe"
  )
  func stopsWhenOutputStops() throws {
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    defer { try? full.close() }
    let arguments = ["steps"] + Self.exports + ["--format", "csv", "-q", "--jobs", "1"]
    let onFullDisk = try StepkitRunner.run(arguments, standardOutput: full)
    #expect(onFullDisk.exitCode == 1)
    // The broken fourth export is never reached.
    #expect(
      onFullDisk.standardError == "stepkit: error: cannot write to standard output: No space left on device\n"
    )
    let pipe = Pipe()
    try pipe.fileHandleForReading.close()
    let onClosedPipe = try StepkitRunner.run(arguments, standardOutput: pipe.fileHandleForWriting)
    try pipe.fileHandleForWriting.close()
    #expect(onClosedPipe.exitCode == 0)
    #expect(onClosedPipe.standardError.isEmpty)
  }

  @Test("a cohort's json is one valid document with every export in order, broken ones with their error")
  func cohortJSON() throws {
    let result = try StepkitRunner.run(["steps"] + Self.exports + ["--format", "json", "-q"])
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
    let exports = try #require(document["exports"] as? [[String: Any]])
    #expect(exports.map { $0["export"] as? String } == Self.ids)
    for export in exports {
      let id = try #require(export["export"] as? String)
      let days = try #require(export["days"] as? [[String: Any]])
      #expect(days.allSatisfy { $0["export"] as? String == id })
      #expect((export["error"] is NSNull) == (id != "malformed"))
    }
    let options = try #require(document["options"] as? [String: Any])
    #expect(options["id_from"] as? String == "name")
    #expect(options["from"] is NSNull)
  }

  @Test("sqlite holds every export with its id, the same under 1 and 4 jobs, and matches the csv")
  func sqliteCohort() throws {
    try withScratchDirectory { directory in
      let paths = Self.exports.map {
        StepkitRunner.fixtures.appendingPathComponent($0).standardizedFileURL.path
      }
      var dumps: [[[String]]] = []
      for jobs in ["1", "4"] {
        let result = try StepkitRunner.run(
          ["sqlite"] + paths + ["cohort-\(jobs).db", "-q", "--jobs", jobs], in: directory)
        #expect(result.exitCode == 1)
        let path = directory.appendingPathComponent("cohort-\(jobs).db").path
        dumps.append(
          try query(path, "SELECT export, samples, invalid, error IS NULL FROM exports ORDER BY rowid")
            + query(path, "SELECT * FROM days ORDER BY rowid")
            + query(path, "SELECT * FROM sources ORDER BY rowid")
            + query(path, "SELECT * FROM samples ORDER BY id"))
        #expect(
          try query(path, "SELECT export FROM exports ORDER BY rowid").map { $0[0] } == Self.ids)
        #expect(
          try query(
            path,
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'samples_%' ORDER BY name")
            == [["samples_by_local_date"], ["samples_by_source"], ["samples_by_start"]])
        #expect(
          try query(path, "SELECT COUNT(*) FROM samples WHERE export = 'watch-and-phone'")
            == query(path, "SELECT samples FROM exports WHERE export = 'watch-and-phone'"))
        let csv = try StepkitRunner.run(["steps"] + Self.exports + ["--format", "csv", "-q"]).standardOutput
        let rows = try query(
          path,
          "SELECT export, date, steps, distance_m, raw_steps, manual_steps, hours_with_data,"
            + " CASE valid WHEN 1 THEN 'true' ELSE 'false' END, sources FROM days ORDER BY rowid")
        #expect(
          // A day without data is NULL in SQLite and empty in the CSV.
          ([CSVFormatter.cohortHeader]
            + rows.map { $0.map { $0 == "NULL" ? "" : CSVFormatter.field($0) }.joined(separator: ",") })
            .joined(separator: "\n") + "\n" == csv)
      }
      #expect(dumps[0] == dumps[1])
      #expect(try contents(directory) == ["cohort-1.db", "cohort-4.db"])
    }
  }

  @Test("a folder yields only Apple Health exports, by content, and lists what it left out")
  func folderSearch() throws {
    try withScratchDirectory { directory in
      let manager = FileManager.default
      let health = Data("<?xml version=\"1.0\"?>\n<HealthData locale=\"en_US\">\n</HealthData>\n".utf8)
      let bob = try Data(contentsOf: StepkitRunner.fixtures.appendingPathComponent("cohort/bob.zip"))
      let files: [(String, Data)] = [
        ("b/export.zip", Data()),  // damaged, but named as an export: read, and reported as unreadable
        ("a/apple_health_export/export.xml", health),
        ("a/apple_health_export/export_cda.xml", Data("<ClinicalDocument/>".utf8)),
        ("a/apple_health_export/workout-routes/route.gpx", Data("<gpx/>".utf8)),
        ("c/c.XML", health), ("zh/导出.xml", health), ("p001/p001.zip", bob),
        (".hidden.xml", health), ("notes.txt", Data()),
        ("tests/fixture.xml", Data("<export id=\"export\"><step/></export>".utf8)),
        ("tests/broken.zip", Data("not a zip".utf8)),
      ]
      for (path, contents) in files {
        let url = directory.appendingPathComponent(path)
        try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(manager.createFile(atPath: url.path, contents: contents))
      }
      // A link back to a folder above it: a loop, reported instead of followed or silently dropped.
      try manager.createSymbolicLink(atPath: directory.path + "/tests/loop", withDestinationPath: "..")
      let root = directory.path
      let search = FolderSearch(folder: root)
      #expect(
        search.exports == [
          root + "/a/apple_health_export/export.xml", root + "/b/export.zip", root + "/c/c.XML",
          root + "/p001/p001.zip", root + "/zh/导出.xml",
        ])
      #expect(
        search.skipped.map(\.path) == [
          root + "/tests/broken.zip", root + "/tests/fixture.xml", root + "/tests/loop",
        ])
      #expect(search.skipped[0].reason == "not a readable zip archive")
      #expect(search.skipped[1].reason.hasPrefix("not an Apple Health export"))
      #expect(search.skipped[2].reason.hasPrefix("a file-system loop"))
      // The command says what it left out, and reads the rest.
      let run = try StepkitRunner.run(
        ["steps", root, "--id-from", "parent", "--format", "csv"], in: directory)
      #expect(run.standardError.contains("3 entries of \(root) left out:"))
      #expect(run.standardError.contains("  \(root)/tests/fixture.xml: not an Apple Health export"))
      #expect(run.standardError.contains("  \(root)/tests/loop: a file-system loop"))
      #expect(run.standardOutput.contains("p001,"))
      #expect(Cohort.id(of: root + "/a/apple_health_export/export.xml", rule: .parent) == "a")
      #expect(Cohort.id(of: root + "/b/export.zip", rule: .parent) == "b")
      #expect(Cohort.id(of: root + "/b/export.zip", rule: .name) == "export")
      #expect(Cohort.id(of: "p.001.zip", rule: .name) == "p.001")
    }
  }

  @Test("a folder that holds no export says so, with what it left out")
  func folderWithoutExports() throws {
    try withScratchDirectory { directory in
      let url = directory.appendingPathComponent("fixture.xml")
      #expect(FileManager.default.createFile(atPath: url.path, contents: Data("<export/>".utf8)))
      let run = try StepkitRunner.run(["steps", directory.path], in: directory)
      #expect(run.exitCode == 1)
      #expect(run.standardError.contains("holds no Apple Health export"))
      #expect(run.standardError.contains("fixture.xml: not an Apple Health export"))
    }
  }

  @Test("the pool delivers in order and starts at most its window ahead of delivery")
  func poolOrderAndWindow() {
    let tracker = WindowTracker()
    let pool = ExportPool<Int>(count: 60, jobs: 4, window: 4)
    var delivered: [Int] = []
    pool.run(
      work: { index in
        tracker.started()
        usleep(UInt32.random(in: 0...3000))
        return index * 10
      },
      deliver: { (index: Int, value: Int) throws(Never) in
        #expect(value == index * 10)
        delivered.append(index)
        tracker.delivered()
      })
    #expect(delivered == Array(0..<60))
    #expect(tracker.maximumAhead <= 4)
    #expect(tracker.maximumAhead >= 2, "the work ran in parallel")
  }

  @Test("on a terminal each delivered export gets a line")
  func progressLines() {
    let written = WrittenText()
    let progress = CohortProgress(total: 12, live: true, write: { written.append($0) })
    progress.finished(2, id: "p003", line: "1,234 samples")
    progress.clear()
    #expect(written.all.joined() == "stepkit: [ 3/12] p003: 1,234 samples\n")
    let status = WrittenText()
    let reading = CohortProgress(total: 12, live: true, write: { status.append($0) })
    reading.started(4, id: "p005")
    #expect(status.all.joined() == "\rreading p005\u{1B}[K")
    let sameTerminal = WrittenText()
    let noStatus = CohortProgress(
      total: 12, live: true, showsStatus: false, write: { sameTerminal.append($0) })
    noStatus.started(4, id: "p005")
    #expect(sameTerminal.all.isEmpty, "no status line cuts into data on the same terminal")
    let quiet = WrittenText()
    let off = CohortProgress(total: 12, live: false, write: { quiet.append($0) })
    off.started(0, id: "p001")
    off.finished(0, id: "p001", line: "1 samples")
    #expect(quiet.all.isEmpty)
  }
}

/// How far the pool's work ran ahead of delivery.
final class WindowTracker: @unchecked Sendable {
  private let lock = NSLock()
  private var startedCount = 0
  private var deliveredCount = 0
  private(set) var maximumAhead = 0

  func started() {
    lock.withLock {
      startedCount += 1
      maximumAhead = max(maximumAhead, startedCount - deliveredCount)
    }
  }

  func delivered() { lock.withLock { deliveredCount += 1 } }
}
