import Foundation
import Testing

/// Runs the built `stepkit` binary and compares what it prints with golden
/// files in `Tests/stepkitTests/Golden`. `STEPKIT_RECORD_GOLDEN=1 swift test`
/// re-records them.
enum StepkitRunner {
  /// What one run printed.
  struct Result {
    var standardOutput: String
    var standardError: String
    var exitCode: Int32

    /// The transcript a golden file holds.
    func transcript(_ arguments: [String], stdin: String?, environment: [String: String] = [:]) -> String {
      let shown = arguments.map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
      let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value) " }.joined()
      let command = variables + (shown.isEmpty ? "stepkit" : "stepkit " + shown)
      var text = "$ " + (stdin.map { "\(command) < \($0)" } ?? command) + "\n"
      text += standardOutput
      if !standardError.isEmpty { text += "--- stderr\n" + standardError }
      text += "--- exit \(exitCode)\n"
      return text
    }
  }

  static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
  static let fixtures = testsDirectory.appendingPathComponent("Fixtures")
  static let golden = testsDirectory.appendingPathComponent("Golden")

  /// The directory the test bundle and the `stepkit` binary were built into.
  static var productsDirectory: URL {
    #if os(macOS)
      for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent()
      }
    #endif
    return Bundle.main.bundleURL
  }

  static var binary: URL { productsDirectory.appendingPathComponent("stepkit") }

  /// Runs `stepkit arguments` in the fixtures directory.
  ///
  /// - Parameters:
  ///   - standardOutput: Where standard output goes instead of being captured
  ///     (`/dev/full`, a pipe, a file); ``Result/standardOutput`` is then empty.
  ///   - fileSizeLimit: A limit on the size of every file the run writes, in
  ///     512-byte blocks (`ulimit -f`, that is `setrlimit(RLIMIT_FSIZE)`, in a
  ///     shell that ignores `SIGXFSZ` so that writes past it fail with `EFBIG`
  ///     instead of ending the process): a disk that fills up, without root.
  static func run(
    _ arguments: [String], stdin: String? = nil, in directory: URL = fixtures,
    environment extraEnvironment: [String: String] = [:], standardOutput: FileHandle? = nil,
    fileSizeLimit: Int? = nil
  ) throws -> Result {
    let process = Process()
    if let fileSizeLimit {
      process.executableURL = URL(fileURLWithPath: "/bin/sh")
      process.arguments =
        ["-c", "trap '' XFSZ && ulimit -f \(fileSizeLimit) && exec \"$0\" \"$@\"", binary.path] + arguments
    } else {
      process.executableURL = binary
      process.arguments = arguments
    }
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["LANG"] = "C"
    environment["LC_ALL"] = nil
    environment["LC_MESSAGES"] = nil
    for (name, value) in extraEnvironment { environment[name] = value }
    process.environment = environment
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepkit-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let out = scratch.appendingPathComponent("out")
    let err = scratch.appendingPathComponent("err")
    try Data().write(to: out)
    try Data().write(to: err)
    let outHandle = try FileHandle(forWritingTo: out)
    let errHandle = try FileHandle(forWritingTo: err)
    process.standardOutput = standardOutput ?? outHandle
    process.standardError = errHandle
    if let stdin {
      process.standardInput = try FileHandle(forReadingFrom: directory.appendingPathComponent(stdin))
    } else {
      process.standardInput = FileHandle.nullDevice
    }
    try process.run()
    process.waitUntilExit()
    try outHandle.close()
    try errHandle.close()
    return Result(
      standardOutput: String(decoding: try Data(contentsOf: out), as: UTF8.self),
      standardError: String(decoding: try Data(contentsOf: err), as: UTF8.self),
      exitCode: process.terminationStatus)
  }

  /// Runs `stepkit arguments` and compares the transcript with `Golden/name.txt`.
  @discardableResult
  static func expectGolden(
    _ name: String, _ arguments: [String], stdin: String? = nil,
    environment: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Result {
    let result = try run(arguments, stdin: stdin, environment: environment)
    let transcript = result.transcript(arguments, stdin: stdin, environment: environment)
    let file = golden.appendingPathComponent(name + ".txt")
    if ProcessInfo.processInfo.environment["STEPKIT_RECORD_GOLDEN"] == "1" {
      try Data(transcript.utf8).write(to: file)
      return result
    }
    guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
      Issue.record(
        "no golden file \(name).txt; run STEPKIT_RECORD_GOLDEN=1 swift test to record it",
        sourceLocation: sourceLocation)
      return result
    }
    #expect(
      transcript == expected, "stepkit \(arguments.joined(separator: " ")) differs from Golden/\(name).txt",
      sourceLocation: sourceLocation)
    return result
  }
}
