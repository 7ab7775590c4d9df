import StepKitCore
import Testing

@testable import stepkit

@Suite("Argument parser")
struct ArgumentParserTests {
  let from = ArgumentSpec.Option("from", value: "YYYY-MM-DD", help: "From.")
  let output = ArgumentSpec.Option("output", short: "o", value: "FILE", help: "Output.")
  let quiet = ArgumentSpec.Flag("quiet", short: "q", help: "Quiet.")
  var spec: ArgumentSpec {
    ArgumentSpec(
      options: [from, output],
      flags: [quiet],
      positionals: [.init("EXPORT", help: "an export"), .init("OUT", help: "a file", optional: true)])
  }

  @Test("--long value, --long=value, short options, flags and positionals")
  func acceptedForms() throws {
    let parsed = try ArgumentParser.parse(
      ["export.zip", "--from", "2026-11-01", "-q", "-o", "out.svg"], spec: spec)
    #expect(parsed.positionals == ["export.zip"])
    #expect(parsed.value(from) == "2026-11-01")
    #expect(parsed.value(output) == "out.svg")
    #expect(parsed.has(quiet))
    let inline = try ArgumentParser.parse(["--from=2026-11-02", "--quiet", "a", "b"], spec: spec)
    #expect(inline.value(from) == "2026-11-02")
    #expect(inline.positionals == ["a", "b"])
  }

  @Test("- is standard input, and -- ends the options")
  func dashAndDoubleDash() throws {
    #expect(try ArgumentParser.parse(["-"], spec: spec).positionals == ["-"])
    #expect(try ArgumentParser.parse(["--", "--from"], spec: spec).positionals == ["--from"])
    #expect(try ArgumentParser.parse(["--output", "-", "x"], spec: spec).value(output) == "-")
  }

  @Test("a repeated positional (EXPORT...) takes every argument the others leave")
  func repeatedPositional() throws {
    let spec = ArgumentSpec(
      positionals: [.init("EXPORT", help: "exports", repeated: true), .init("OUT.db", help: "a database")])
    #expect(
      try ArgumentParser.parse(["a", "b", "c", "out.db"], spec: spec).positionals == [
        "a", "b", "c", "out.db",
      ])
    #expect(throws: UsageError("missing OUT.db (a database)")) { try ArgumentParser.parse(["a"], spec: spec) }
    #expect(spec.helpLines.hasPrefix("  EXPORT...   exports\n  OUT.db      a database\n"))
  }

  @Test("--help wins over everything else before --")
  func help() throws {
    #expect(try ArgumentParser.parse(["--frm", "-h"], spec: spec).helpRequested)
    #expect(try ArgumentParser.parse(["--help"], spec: spec).helpRequested)
    #expect(try ArgumentParser.parse(["x", "--", "--help"], spec: spec).helpRequested == false)
  }

  @Test(
    "bad command lines fail with a one-line reason",
    arguments: [
      (["x", "--frm", "2026-11-01"], "unknown option '--frm'"),
      (["x", "-z"], "unknown option '-z'"),
      (["x", "-qz"], "unknown option '-qz'"),
      (["x", "--from"], "--from needs a value (YYYY-MM-DD)"),
      (["x", "--from", "--quiet"], "--from needs a value (YYYY-MM-DD)"),
      (["x", "--quiet=yes"], "--quiet takes no value"),
      (["x", "--from", "a", "--from=b"], "--from is given more than once"),
      (["x", "y", "z"], "unexpected argument 'z'"),
      ([], "missing EXPORT (an export)"),
    ])
  func failures(arguments: [String], message: String) {
    #expect(throws: UsageError(message)) { try ArgumentParser.parse(arguments, spec: spec) }
  }

  @Test("help lists positionals, options with their aliases, flags and --help")
  func helpLines() {
    let lines = spec.helpLines.split(separator: "\n").map(String.init)
    #expect(lines.count == 6)
    #expect(lines[0].hasPrefix("  EXPORT"))
    #expect(lines[3].hasPrefix("  -o, --output FILE"))
    #expect(lines[5].hasPrefix("  -h, --help"))
  }
}

@Suite("Counting options from the command line")
struct CountingArgumentsTests {
  func parse(_ arguments: [String]) throws -> CountingArguments {
    let parsed = try ArgumentParser.parse(arguments, spec: StepsCommand.arguments)
    return try CountingArguments(parsed)
  }

  @Test("every option reaches CountingOptions")
  func allOptions() throws {
    let settings = try parse([
      "e.xml", "--from", "2026-11-01", "--to", "2026-11-30", "--by", "week", "--policy", "device",
      "--time-zone", "Asia/Shanghai", "--priority", " Pedometer++ , Ada’s Watch ,", "-q",
    ])
    #expect(settings.export == "e.xml")
    #expect(settings.counting.from == LocalDate("2026-11-01"))
    #expect(settings.counting.to == LocalDate("2026-11-30"))
    #expect(settings.counting.unit == .week)
    #expect(settings.counting.policy == .device)
    #expect(settings.counting.timeZone.description == "Asia/Shanghai")
    #expect(settings.counting.ranking.explicitOrder == ["Pedometer++", "Ada’s Watch"])
    #expect(settings.quiet)
  }

  @Test("defaults follow COUNTING.md")
  func defaults() throws {
    let settings = try parse(["e.xml"])
    #expect(settings.counting == CountingOptions())
    #expect(!settings.quiet)
  }

  @Test(
    "bad values name the option and what it expects",
    arguments: [
      (["--from", "2026-13-01"], "invalid --from '2026-13-01': expected a date as YYYY-MM-DD"),
      (["--to", "29/11/2026"], "invalid --to '29/11/2026': expected a date as YYYY-MM-DD"),
      (["--from", "2026-11-02", "--to", "2026-11-01"], "--to 2026-11-01 is before --from 2026-11-02"),
      (["--by", "year"], "invalid --by 'year': expected hour, day, week or month"),
      (["--policy", "strict"], "invalid --policy 'strict': expected health, device or all"),
      (
        ["--time-zone", "Mars/Olympus"],
        "invalid --time-zone 'Mars/Olympus': expected recorded or an IANA zone such as Asia/Shanghai"
      ),
      (["--priority", " , "], "invalid --priority ' , ': expected source names separated by commas"),
    ])
  func badValues(arguments: [String], message: String) {
    #expect(throws: UsageError(message)) { try parse(["e.xml"] + arguments) }
  }

  @Test("--format defaults to table on a terminal and csv elsewhere")
  func formatDefault() throws {
    let none = try ArgumentParser.parse(["e.xml"], spec: StepsCommand.arguments)
    #expect(try CountingArguments.format(none, terminal: true) == .table)
    #expect(try CountingArguments.format(none, terminal: false) == .csv)
    let json = try ArgumentParser.parse(["e.xml", "--format", "json"], spec: StepsCommand.arguments)
    #expect(try CountingArguments.format(json, terminal: true) == .json)
    let bad = try ArgumentParser.parse(["e.xml", "--format", "xml"], spec: StepsCommand.arguments)
    #expect(throws: UsageError("invalid --format 'xml': expected table, csv or json")) {
      try CountingArguments.format(bad, terminal: true)
    }
  }
}
