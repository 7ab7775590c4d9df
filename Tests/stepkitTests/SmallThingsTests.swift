import Foundation
import Testing

@testable import stepkit

/// What a newcomer runs into in the first hour: each with the behaviour that replaced it.
@Suite("A newcomer's small things")
struct SmallThingsTests {
  @Test("A zip cut short says the download or copy is probably incomplete, in English and Chinese")
  func truncatedZip() throws {
    try withScratchDirectory { directory in
      let whole = try Data(contentsOf: StepkitRunner.fixtures.appendingPathComponent("cohort/bob.zip"))
      let path = directory.appendingPathComponent("export.zip").path
      try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
      let english = try StepkitRunner.run(["steps", path], in: directory)
      #expect(english.exitCode == 1)
      #expect(
        english.standardError.contains("is an incomplete zip archive (it ends after \(whole.count / 2) bytes")
      )
      #expect(english.standardError.contains("the download or copy is probably incomplete"))
      let chinese = try StepkitRunner.run(
        ["steps", path], in: directory, environment: ["LANG": "zh_CN.UTF-8"])
      #expect(chinese.standardError.contains("下载或复制很可能没有完成"))
      // A file that never was a zip still says so.
      let garbage = directory.appendingPathComponent("notes.zip").path
      try Data(repeating: 0x41, count: 100).write(to: URL(fileURLWithPath: garbage))
      #expect(
        try StepkitRunner.run(["steps", garbage], in: directory).standardError.contains(
          "is not a zip archive"))
    }
  }

  @Test("TERM=dumb, or no TERM, gets no escape codes; a real terminal type does")
  func dumbTerminal() {
    #expect(!Platform.takesEscapes(term: "dumb"))
    #expect(!Platform.takesEscapes(term: nil))
    #expect(!Platform.takesEscapes(term: ""))
    #expect(Platform.takesEscapes(term: "xterm-256color"))
    // A cohort on a terminal: the status line redraws itself only where escapes are understood.
    for takesEscapes in [false, true] {
      let output = WrittenText()
      let error = WrittenText()
      let console = Console(
        output: { output.append($0) }, error: { error.append($0) }, outputIsTerminal: false,
        errorIsTerminal: true, errorTakesEscapes: takesEscapes)
      let code = StepKitCommand.main(
        ["steps", StepkitRunner.fixtures.appendingPathComponent("cohort").path, "--format", "csv"],
        console: console)
      #expect(code == 1)  // carol.xml is broken on purpose
      #expect(error.all.joined().contains("\u{1B}") == takesEscapes, "escapes: \(takesEscapes)")
    }
  }

  @Test("doctor's advice about NSMotionUsageDescription names the --no-motion flag")
  func doctorNamesFlag() throws {
    let result = try StepkitRunner.run(["doctor", "doctor/incomplete/Info.plist"])
    #expect(result.standardOutput.contains("`stepkit doctor --no-motion`"))
    let quiet = try StepkitRunner.run(["doctor", "doctor/incomplete/Info.plist", "--no-motion"])
    #expect(!quiet.standardOutput.contains("MISSING NSMotionUsageDescription"))
  }

  @Test("--from after the data says there is no data there, and where the data is")
  func fromAfterData() throws {
    let after = try StepkitRunner.run(["steps", EndToEndTests.fixture, "--from", "2030-01-01", "-q"])
    #expect(after.exitCode == 0)
    let note = try StepkitRunner.run([
      "steps", EndToEndTests.fixture, "--from", "2030-01-01", "--format", "csv",
    ])
    #expect(
      note.standardError.contains(
        "stepkit: no data from 2030-01-01 on; the export's samples run from 2026-03-"))
    let both = try StepkitRunner.run(
      ["steps", EndToEndTests.fixture, "--from", "2030-01-01", "--to", "2030-01-03", "--format", "csv"])
    #expect(
      both.standardOutput
        == "date,steps,distance_m,raw_steps,manual_steps,hours_with_data,valid\n"
        + "2030-01-01,,,,,0,false\n2030-01-02,,,,,0,false\n2030-01-03,,,,,0,false\n")
    #expect(both.standardError.contains("stepkit: no data from 2030-01-01 to 2030-01-03;"))
    let inside = try StepkitRunner.run(["steps", EndToEndTests.fixture, "--format", "csv"])
    #expect(!inside.standardError.contains("no data"))
  }

  /// An iOS 8 export as Withings' Health Mate left them (EXPORT-FORMAT.md, section 7): the
  /// space-named metadata attributes sit on its weight records, not on the iPhone's steps.
  static let ios8WeightQuirk = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="20150616071916-0700"/>
     <Record type="HKQuantityTypeIdentifierBodyMass" source="Health Mate" unit="kg" startDate="20150614070000-0700" \
    endDate="20150614070000-0700" value="71.2" Health Mate App Version="2.6.2" Withings User Identifier="7985588"/>
     <Record type="HKQuantityTypeIdentifierStepCount" source="Ada’s iPhone" unit="count" startDate="20150614084300-0700" \
    endDate="20150614094300-0700" value="2741.7" recordCount="191"/>
     <Record type="HKQuantityTypeIdentifierBodyMass" source="Health Mate" unit="kg" startDate="20150615070000-0700" \
    endDate="20150615070000-0700" value="71.0" Health Mate App Version="2.6.2" Withings User Identifier="7985588"/>
    </HealthData>

    """

  @Test(
    "iOS 8 space-named attributes on weight records: the file is read, steps counted, and no note, as documented"
  )
  func ios8AttributesOnOtherRecords() throws {
    try withScratchDirectory { directory in
      let path = directory.appendingPathComponent("export.xml").path
      try Self.ios8WeightQuirk.write(toFile: path, atomically: true, encoding: .utf8)
      let run = try StepkitRunner.run(["steps", path, "--format", "csv"], in: directory)
      #expect(run.exitCode == 0)
      // 2,741.7 steps from 08:43 to 09:43 at -07:00, all on 14 June: 2,742 printed.
      #expect(
        run.standardOutput
          == "date,steps,distance_m,raw_steps,manual_steps,hours_with_data,valid\n2015-06-14,2742,0,2742,0,2,false\n"
      )
      // docs/CLI.md: the note appears only when step or distance records carry such attributes.
      #expect(!run.standardError.contains("named with spaces"))
      #expect(run.standardError.isEmpty)
      // On the step records of the iOS 8 fixture, it does.
      let steps = try StepkitRunner.run(["steps", "ios8-export.xml", "--format", "csv"])
      #expect(steps.standardError.contains("named with spaces (an iOS 8 export bug) skipped"))
    }
  }
}
