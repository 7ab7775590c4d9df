import Testing

@testable import stepkit

/// `--priority` names must name sources of the export: a straight apostrophe matches Apple's curly
/// one (and the other way round), and anything else is an error that lists the sources.
@Suite("--priority names")
struct PriorityNamesTests {
  static let fixture = EndToEndTests.fixture

  @Test("A straight apostrophe ranks the same source as Apple's ’, and the ranking takes effect")
  func apostrophes() throws {
    let curly = try StepkitRunner.run(["steps", Self.fixture, "--priority", "Mi Fitness,Ada’s iPhone", "-q"])
    let straight = try StepkitRunner.run([
      "steps", Self.fixture, "--priority", "Mi Fitness,Ada's iPhone", "-q",
    ])
    let plain = try StepkitRunner.run(["steps", Self.fixture, "-q"])
    #expect(straight.exitCode == 0)
    #expect(straight.standardOutput == curly.standardOutput)
    #expect(straight.standardOutput != plain.standardOutput, "the ranking must change the counts")
    #expect(PriorityNames.folded("Ada‘s “iPhone”") == "Ada's \"iPhone\"")
  }

  @Test("An unknown name is a usage error naming the nearest source and listing them all")
  func unknownName() throws {
    let result = try StepkitRunner.run(["steps", Self.fixture, "--priority", "Ada's iPhon"])
    #expect(result.exitCode == 2)
    #expect(result.standardOutput.isEmpty)
    #expect(result.standardError.contains("unknown --priority source 'Ada's iPhon'"))
    #expect(result.standardError.contains("did you mean 'Ada’s iPhone'?"))
    #expect(result.standardError.contains("Ada’s Apple Watch, Ada’s iPhone, Health, Mi Fitness"))
    let typo = try StepkitRunner.run(["sources", Self.fixture, "--priority", "Mi Fitnes"])
    #expect(typo.exitCode == 2)
    #expect(typo.standardError.contains("did you mean 'Mi Fitness'?"))
  }

  @Test("The nearest name is by edit distance after folding quotes and case")
  func nearest() {
    let sources = ["Jonathan’s Apple Watch", "Jonathan’s iPhone", "Pedometer++"]
    let message = PriorityNames.unknownMessage("jonathans iphone", sources: sources, export: "export.zip")
    #expect(message.contains("did you mean 'Jonathan’s iPhone'?"))
    #expect(PriorityNames.distance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars)) == 3)
    #expect(
      PriorityNames.matched(["jonathan's iPhone", "Jonathan's iPhone"], sources: sources)
        == ["jonathan's iPhone", "Jonathan’s iPhone"])
  }
}
