import Foundation
import Testing

/// A fresh directory, removed when `body` returns.
func withScratchDirectory<T>(_ body: (URL) throws -> T) throws -> T {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "stepkit-scratch-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  return try body(directory)
}

/// The names in `directory`, sorted (hidden temporary files included).
func contents(_ directory: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
}

/// What `path` is, by `lstat`: `S_IFIFO`, `S_IFREG`, …
func fileType(_ path: String) -> mode_t {
  var info = stat()
  guard lstat(path, &info) == 0 else { return 0 }
  return info.st_mode & S_IFMT
}

@Suite("What stepkit writes when writing fails")
struct OutputFailureTests {
  /// Whether this run is `.ci/run tsan`: a ThreadSanitizer-built `stepkit`
  /// dies of SIGBUS in the sanitizer's own runtime once a file-size limit
  /// (`ulimit -f`) is set, before StepKit's code runs, so the tests that set
  /// one run in the plain test stage only.
  static let underThreadSanitizer = SanitizerRun.name == "thread"
  static let fixture = StepkitRunner.fixtures.appendingPathComponent("watch-and-phone.xml").path
  /// Larger than the fixture: its database and chart do not fit in a few kilobytes.
  static let demo = StepkitRunner.testsDirectory.appendingPathComponent(
    "../../Sources/stepkit/Resources/demo-export.xml"
  ).standardizedFileURL.path

  // MARK: Standard output

  @Test(
    "a full disk on standard output (/dev/full) is exit 1 with a message, in every format",
    arguments: ["csv", "json", "table"])
  func fullStandardOutput(format: String) throws {
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    defer { try? full.close() }
    let result = try StepkitRunner.run(
      ["steps", Self.fixture, "--format", format, "-q"], standardOutput: full)
    #expect(result.exitCode == 1)
    #expect(
      result.standardError == "stepkit: error: cannot write to standard output: No space left on device\n")
  }

  @Test(
    "a file that cannot grow (RLIMIT_FSIZE) on standard output is exit 1, not a silently cut file",
    .disabled(if: underThreadSanitizer, "a ThreadSanitizer build faults under a file-size limit"))
  func cutStandardOutput() throws {
    try withScratchDirectory { directory in
      let path = directory.appendingPathComponent("out.csv").path
      #expect(FileManager.default.createFile(atPath: path, contents: nil))
      let file = try #require(FileHandle(forWritingAtPath: path))
      defer { try? file.close() }
      let result = try StepkitRunner.run(
        ["steps", Self.demo, "--by", "hour", "--format", "csv"], standardOutput: file, fileSizeLimit: 2)
      #expect(result.exitCode == 1)
      #expect(result.standardError == "stepkit: error: cannot write to standard output: File too large\n")
      let written = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
      #expect(written == 1024)
    }
  }

  @Test("a closed pipe (stepkit … | head) stops the output quietly")
  func closedPipe() throws {
    let pipe = Pipe()
    try pipe.fileHandleForReading.close()
    let result = try StepkitRunner.run(
      ["steps", Self.demo, "--by", "hour", "--format", "csv"], standardOutput: pipe.fileHandleForWriting)
    try pipe.fileHandleForWriting.close()
    #expect(result.exitCode == 0)
    #expect(result.standardError.isEmpty)
  }

  // MARK: sqlite

  @Test(
    "sqlite over an existing database on a disk that fills up leaves the old database exactly as it was",
    .disabled(if: underThreadSanitizer, "a ThreadSanitizer build faults under a file-size limit"))
  func sqliteFullDiskKeepsOldDatabase() throws {
    try withScratchDirectory { directory in
      let first = try StepkitRunner.run(["sqlite", Self.fixture, "health.db", "-q"], in: directory)
      #expect(first.exitCode == 0)
      let path = directory.appendingPathComponent("health.db").path
      let before = try Data(contentsOf: URL(fileURLWithPath: path))
      let result = try StepkitRunner.run(
        ["sqlite", Self.demo, "health.db", "-q"], in: directory, fileSizeLimit: 400)
      #expect(result.exitCode == 1)
      #expect(result.standardError.hasPrefix("stepkit: error: cannot write health.db: "))
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
      #expect(try query(path, "PRAGMA integrity_check") == [["ok"]])
      #expect(try query(path, "SELECT COUNT(*) FROM sources") == [["4"]])
      #expect(try contents(directory) == ["health.db"], "the temporary file is removed")
    }
  }

  @Test(
    "sqlite on a disk too small for any database leaves no file behind",
    .disabled(if: underThreadSanitizer, "a ThreadSanitizer build faults under a file-size limit"))
  func sqliteFullDiskLeavesNothing() throws {
    try withScratchDirectory { directory in
      let result = try StepkitRunner.run(
        ["sqlite", Self.fixture, "health.db", "-q"], in: directory, fileSizeLimit: 1)
      #expect(result.exitCode == 1)
      #expect(result.standardError.hasPrefix("stepkit: error: cannot write health.db: "))
      #expect(try contents(directory) == [])
    }
  }

  @Test("sqlite replaces a database in one step, keeping its permissions and the symbolic link to it")
  func sqliteReplacesInPlace() throws {
    try withScratchDirectory { directory in
      let real = directory.appendingPathComponent("real.db").path
      #expect(try StepkitRunner.run(["sqlite", Self.demo, "real.db", "-q"], in: directory).exitCode == 0)
      try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: real)
      try FileManager.default.createSymbolicLink(
        atPath: directory.appendingPathComponent("link.db").path, withDestinationPath: "real.db")
      let result = try StepkitRunner.run(["sqlite", Self.fixture, "link.db", "-q"], in: directory)
      #expect(result.exitCode == 0)
      #expect(fileType(directory.appendingPathComponent("link.db").path) == S_IFLNK)
      #expect(try query(real, "SELECT COUNT(*) FROM sources") == [["4"]])
      #expect(try query(real, "SELECT COUNT(*) FROM days") == [["6"]])
      let permissions = try FileManager.default.attributesOfItem(atPath: real)[.posixPermissions] as? Int
      #expect(permissions == 0o640)
      #expect(try contents(directory) == ["link.db", "real.db"])
    }
  }

  @Test(
    "a target that is not a regular file is refused and left alone",
    arguments: [
      ("sqlite", "fifo", "a FIFO (named pipe)"), ("sqlite", "directory", "a directory"),
      ("chart", "fifo", "a FIFO (named pipe)"), ("chart", "directory", "a directory"),
    ])
  func nonRegularTarget(command: String, kind: String, description: String) throws {
    try withScratchDirectory { directory in
      let name = command == "sqlite" ? "target.db" : "target.svg"
      let path = directory.appendingPathComponent(name).path
      if kind == "fifo" {
        #expect(mkfifo(path, 0o644) == 0)
      } else {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      }
      let arguments =
        command == "sqlite" ? ["sqlite", Self.fixture, name] : ["chart", Self.fixture, "-o", name]
      let result = try StepkitRunner.run(arguments, in: directory)
      #expect(result.exitCode == 1)
      #expect(
        result.standardError
          == "stepkit: error: cannot write \(name): it is \(description), not a regular file; nothing was written. "
          + "Give the path of a file to create or replace\n")
      #expect(fileType(path) == (kind == "fifo" ? S_IFIFO : S_IFDIR))
      #expect(try contents(directory) == [name])
    }
  }

  @Test("sqlite refuses a device node such as /dev/full and leaves it a device")
  func deviceTarget() throws {
    let result = try StepkitRunner.run(["sqlite", Self.fixture, "/dev/full"])
    #expect(result.exitCode == 1)
    #expect(result.standardError.contains("it is a character device, not a regular file"))
    #expect(fileType("/dev/full") == S_IFCHR)
  }

  @Test("an interrupted sqlite (kill, Ctrl-C) removes its temporary file", .hangLimit())
  func interruptedSQLite() throws {
    try withScratchDirectory { directory in
      // A FIFO nobody writes to: reading it blocks, with the temporary database already made.
      #expect(mkfifo(directory.appendingPathComponent("stuck.xml").path, 0o644) == 0)
      let process = Process()
      process.executableURL = StepkitRunner.binary
      process.arguments = ["sqlite", Self.fixture, "stuck.xml", "health.db", "-q"]
      process.currentDirectoryURL = directory
      process.standardInput = FileHandle.nullDevice
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      var waited = 0
      while try !contents(directory).contains(where: { $0.hasPrefix(".health.db.stepkit-") }) && waited < 400
      {
        usleep(25_000)
        waited += 1
      }
      #expect(try contents(directory).count == 2, "the temporary database is there while the export is read")
      process.terminate()
      waited = 0
      while process.isRunning && waited < 400 {
        usleep(25_000)
        waited += 1
      }
      if process.isRunning {
        Issue.record("stepkit did not end on SIGTERM")
        kill(process.processIdentifier, SIGKILL)
      }
      process.waitUntilExit()
      #expect(process.terminationReason == .uncaughtSignal)
      #expect(try contents(directory) == ["stuck.xml"])
    }
  }

  // MARK: chart

  @Test(
    "chart -o on a disk that fills up leaves the old chart exactly as it was",
    .disabled(if: underThreadSanitizer, "a ThreadSanitizer build faults under a file-size limit"))
  func chartFullDiskKeepsOldChart() throws {
    try withScratchDirectory { directory in
      #expect(
        try StepkitRunner.run(["chart", Self.fixture, "-o", "steps.svg", "-q"], in: directory).exitCode == 0)
      let path = directory.appendingPathComponent("steps.svg").path
      let before = try Data(contentsOf: URL(fileURLWithPath: path))
      let result = try StepkitRunner.run(
        ["chart", Self.demo, "-o", "steps.svg", "-q"], in: directory, fileSizeLimit: before.count / 512 + 1)
      #expect(result.exitCode == 1)
      #expect(result.standardError == "stepkit: error: cannot write steps.svg: File too large\n")
      #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
      #expect(try contents(directory) == ["steps.svg"])
    }
  }
}
