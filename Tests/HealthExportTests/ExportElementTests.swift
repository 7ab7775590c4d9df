import Foundation
import StepKitCore
import Testing

@testable import HealthExport

/// Workouts, activity summaries and correlations, checked against values
/// copied by hand from the XML of the fixtures (never from the decoder).
@Suite("Workouts, activity summaries and correlations")
struct ExportElementTests {
  typealias T = ExportTestSupport

  /// A workout, summary or correlation, kept after the call that handed it out.
  enum Element: Equatable {
    case workout(ExportWorkout)
    case activitySummary(ExportActivitySummary)
    case correlation(ExportCorrelation)
  }

  /// Every workout, summary and correlation of `xml`, read with the given buffer and piece sizes.
  static func elements(_ xml: String, bufferBytes: Int = 1 << 16, chunkSize: Int = Int.max) throws -> (
    elements: [Element], invalid: InvalidSampleReport, info: ExportInfo
  ) {
    var decoder = ExportDecoder(
      source: ChunkedSource(Array(xml.utf8), chunkSize: chunkSize), mode: .elements, bufferBytes: bufferBytes)
    var elements: [Element] = []
    reading: while true {
      switch try decoder.step() {
      case .element:
        decoder.handOutElement { element in
          switch element {
          case .record: break  // byte spans, valid only during the call; the records' own tests check them
          case .workout(let workout): elements.append(.workout(workout))
          case .activitySummary(let summary): elements.append(.activitySummary(summary))
          case .correlation(let correlation): elements.append(.correlation(correlation))
          }
        }
      case .finished: break reading
      case .record, .seam: continue
      }
    }
    return (elements, decoder.invalidOtherElements, decoder.info)
  }

  static func workouts(_ elements: [Element]) -> [ExportWorkout] {
    elements.compactMap { if case .workout(let workout) = $0 { workout } else { nil } }
  }

  static func summaries(_ elements: [Element]) -> [ExportActivitySummary] {
    elements.compactMap { if case .activitySummary(let summary) = $0 { summary } else { nil } }
  }

  static func correlations(_ elements: [Element]) -> [ExportCorrelation] {
    elements.compactMap { if case .correlation(let correlation) = $0 { correlation } else { nil } }
  }

  static func metadata(_ pairs: KeyValuePairs<String, String>) -> [ExportRecord.MetadataEntry] {
    pairs.map { ExportRecord.MetadataEntry(key: $0.key, value: $0.value) }
  }

  /// Milliseconds since 1970 of a UTC wall-clock time, computed without the export's date parser.
  static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int) -> Int64 {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let date = calendar.date(
      from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
    return Int64(date.timeIntervalSince1970) * 1000
  }

  @Test("An iOS 12 export: a workout with attribute totals, metadata and an inline route; two summaries")
  func healthkitToSqliteFixture() throws {
    let xml = String(decoding: try T.fixture("hk2sqlite-export.xml"), as: UTF8.self)
    let (elements, invalid, info) = try Self.elements(xml)
    #expect(invalid.count == 0)
    #expect(elements.count == 3)
    let workout = try #require(Self.workouts(elements).first)
    #expect(workout.activityType == "HKWorkoutActivityTypeRunning")
    #expect(workout.activityName == "Running")
    #expect(workout.duration == ExportQuantity(value: 5.19412346680959, unit: "min"))
    #expect(workout.totalDistance == ExportQuantity(value: 0.4971749504535062, unit: "mi"))
    #expect(workout.totalEnergyBurned == ExportQuantity(value: 48.74499999999999, unit: "kcal"))
    #expect(workout.origin.sourceName == "Apple\u{A0}Watch")  // a no-break space, as Apple writes it
    #expect(workout.origin.sourceVersion == "3.1")
    #expect(workout.origin.deviceDescription == nil)
    #expect(workout.origin.creationDate?.text == "2016-11-14 07:33:49 -0700")
    #expect(workout.start.text == "2016-11-14 07:25:41 -0700")
    #expect(workout.start.epochMilliseconds == Self.utc(2016, 11, 14, 14, 25, 41))
    #expect(workout.start.utcOffsetSeconds == -7 * 3600)
    #expect(workout.end.epochMilliseconds == Self.utc(2016, 11, 14, 14, 30, 52))
    #expect(
      workout.metadata
        == Self.metadata([
          "HKTimeZone": "America/Los_Angeles", "HKWeatherTemperature": "56 degF", "HKWeatherHumidity": "96 %",
        ]))
    #expect(workout.events.isEmpty && workout.statistics.isEmpty && workout.activities.isEmpty)
    #expect(workout.routes.count == 1)
    let route = try #require(workout.routes.first)
    #expect(route.origin.sourceName == "Simon’s iPhone")
    #expect(route.origin.sourceVersion == "10.1.1")
    #expect(route.start?.text == "2016-11-14 07:25:44 -0700")
    #expect(route.end?.text == "2016-11-14 07:30:51 -0700")
    #expect(route.filePath == nil)
    #expect(route.inlinePoints == 2)
    #expect(workout.location.line == 14 && workout.location.column == 5)
    let summaries = Self.summaries(elements)
    #expect(summaries.map(\.date.description) == ["2016-11-15", "2016-11-16"])
    #expect(summaries.map(\.activeEnergyBurned) == [590.252, 323.513])
    #expect(summaries.map(\.activeEnergyBurnedGoal) == [630, 630])
    #expect(summaries.map(\.activeEnergyBurnedUnit) == ["kcal", "kcal"])
    #expect(summaries.map(\.appleExerciseTime) == [68, 39])
    #expect(summaries.map(\.appleExerciseTimeGoal) == [30, 30])
    #expect(summaries.map(\.appleStandHours) == [13, 9])
    #expect(summaries.map(\.appleStandHoursGoal) == [12, 12])
    #expect(summaries.map(\.appleMoveTime) == [nil, nil])
    #expect(info.me.biologicalSex == "HKBiologicalSexMale")
    #expect(info.recordCount == 2)
  }

  @Test("A route written to a file names its path")
  func fileReference() throws {
    let xml = String(decoding: try T.fixture("hk2sqlite-zip-export.xml"), as: UTF8.self)
    let workout = try #require(Self.workouts(try Self.elements(xml).elements).first)
    let route = try #require(workout.routes.first)
    #expect(route.filePath == "/workout-routes/route_2019-06-11_3.00pm.gpx")
    #expect(route.inlinePoints == 0)
    #expect(route.start?.text == "2016-11-14 06:25:44 -0800")
    #expect(route.origin.creationDate?.text == "2016-11-14 06:33:54 -0800")
  }

  @Test("A version 3 export (2016): a self-closing workout and two summaries after the DTD")
  func version3Fixture() throws {
    let xml = String(decoding: try T.fixture("tdda-export6s3sample.xml"), as: UTF8.self)
    let (elements, invalid, _) = try Self.elements(xml)
    #expect(invalid.count == 0)
    let workout = try #require(Self.workouts(elements).first)
    #expect(workout.activityType == "HKWorkoutActivityTypeOther")
    #expect(workout.duration == ExportQuantity(value: 31.73680251737436, unit: "min"))
    #expect(workout.totalDistance == ExportQuantity(value: 0, unit: "km"))
    #expect(workout.totalEnergyBurned == ExportQuantity(value: 139.3170000000021, unit: "kcal"))
    #expect(workout.origin.sourceName == "NJR Apple\u{A0}Watch")
    #expect(workout.origin.sourceVersion == "2.2")
    #expect(workout.start.text == "2016-04-02 10:40:38 +0100")
    #expect(workout.end.epochMilliseconds == Self.utc(2016, 4, 2, 10, 12, 22))
    #expect(workout.metadata.isEmpty)
    let summaries = Self.summaries(elements)
    #expect(summaries.map(\.date.description) == ["2016-04-14", "2016-04-15"])
    #expect(summaries.map(\.activeEnergyBurned) == [700.698, 56.609])
    #expect(summaries.map(\.appleExerciseTime) == [89, 6])
    #expect(summaries.map(\.appleStandHours) == [16, 2])
    // The summaries come before the workout in the file, and are handed out in file order.
    #expect(elements.count == 3)
    if case .activitySummary = elements[0], case .workout = elements[2] {
    } else {
      Issue.record("not in file order: \(elements)")
    }
  }

  /// An iOS 17 shape: statistics instead of total attributes, events with
  /// metadata, an activity, a route file, a blood-pressure correlation.
  static let modern = T.export(
    """
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Lin’s iPhone" unit="count" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="100"/>
     <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="45.5" durationUnit="min" sourceName="Lin’s Apple&#160;Watch" sourceVersion="10.3" device="&lt;&lt;HKDevice: 0x2816a8e10&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3&gt;" creationDate="2024-02-29 19:46:02 +0800" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:45:30 +0800">
      <MetadataEntry key="HKIndoorWorkout" value="0"/>
      <MetadataEntry key="HKAverageMETs" value="7.2 kcal/hr·kg"/>
      <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-02-29 19:00:00 +0800" duration="10" durationUnit="min"/>
      <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-02-29 19:20:00 +0800"/>
      <WorkoutEvent type="HKWorkoutEventTypeResume" date="2024-02-29 19:21:00 +0800">
       <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
      </WorkoutEvent>
      <WorkoutActivity uuid="5C9E1E0E-4E4B-4C55-9F49-3F1B0E2E6C11" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:45:30 +0800" duration="45.5" durationUnit="min">
       <MetadataEntry key="HKIndoorWorkout" value="0"/>
      </WorkoutActivity>
      <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:45:30 +0800" sum="412.5" unit="kcal"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceCycling" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:45:30 +0800" sum="18.25" unit="km"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:45:30 +0800" average="141" minimum="96" maximum="172" unit="count/min"/>
      <WorkoutRoute sourceName="Lin’s Apple&#160;Watch" sourceVersion="10.3" creationDate="2024-02-29 19:46:05 +0800" startDate="2024-02-29 19:00:01 +0800" endDate="2024-02-29 19:45:29 +0800">
       <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
       <FileReference path="/workout-routes/route_2024-02-29_7.45pm.gpx"/>
      </WorkoutRoute>
     </Workout>
     <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Health Mate" sourceVersion="6.2" creationDate="2024-02-29 07:31:00 +0800" startDate="2024-02-29 07:30:00 +0800" endDate="2024-02-29 07:30:00 +0800">
      <MetadataEntry key="Meal" value="none"/>
      <MetadataEntry key="meal" value="Breakfast &amp; tea"/>
      <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Health Mate" sourceVersion="6.2" unit="mmHg" creationDate="2024-02-29 07:31:00 +0800" startDate="2024-02-29 07:30:00 +0800" endDate="2024-02-29 07:30:00 +0800" value="121">
       <MetadataEntry key="HKWasUserEntered" value="0"/>
      </Record>
      <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Health Mate" sourceVersion="6.2" unit="mmHg" creationDate="2024-02-29 07:31:00 +0800" startDate="2024-02-29 07:30:00 +0800" endDate="2024-02-29 07:30:00 +0800" value="79"/>
     </Correlation>
     <ActivitySummary dateComponents="2024-02-29" activeEnergyBurned="512.25" activeEnergyBurnedGoal="480" activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="52" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>
    """)

  @Test("An iOS 17 workout with statistics, events, an activity and a route file; a correlation; a summary")
  func modernExport() throws {
    let (elements, invalid, info) = try Self.elements(Self.modern)
    #expect(invalid.count == 0)
    #expect(info.recordCount == 1)
    #expect(elements.count == 3)
    let workout = try #require(Self.workouts(elements).first)
    #expect(workout.activityName == "Cycling")
    #expect(workout.duration == ExportQuantity(value: 45.5, unit: "min"))
    #expect(workout.totalDistance == nil && workout.totalEnergyBurned == nil)
    #expect(workout.origin.sourceName == "Lin’s Apple\u{A0}Watch")
    #expect(workout.origin.device?.model == "Watch")
    #expect(workout.origin.device?.hardware == "Watch6,1")
    #expect(workout.start.epochMilliseconds == Self.utc(2024, 2, 29, 11, 0, 0))
    #expect(workout.start.utcOffsetSeconds == 8 * 3600)
    #expect(workout.metadata == Self.metadata(["HKIndoorWorkout": "0", "HKAverageMETs": "7.2 kcal/hr·kg"]))
    #expect(
      workout.events.map(\.type) == [
        "HKWorkoutEventTypeSegment", "HKWorkoutEventTypePause", "HKWorkoutEventTypeResume",
      ])
    #expect(
      workout.events.map(\.date.text) == [
        "2024-02-29 19:00:00 +0800", "2024-02-29 19:20:00 +0800", "2024-02-29 19:21:00 +0800",
      ])
    #expect(workout.events.map(\.duration) == [ExportQuantity(value: 10, unit: "min"), nil, nil])
    #expect(workout.events.map(\.metadata) == [[], [], Self.metadata(["HKMetadataKeySyncVersion": "2"])])
    #expect(workout.activities.map(\.uuid) == ["5C9E1E0E-4E4B-4C55-9F49-3F1B0E2E6C11"])
    #expect(workout.activities.first?.metadata == Self.metadata(["HKIndoorWorkout": "0"]))
    #expect(
      workout.statistics.map(\.type) == [
        "HKQuantityTypeIdentifierActiveEnergyBurned", "HKQuantityTypeIdentifierDistanceCycling",
        "HKQuantityTypeIdentifierHeartRate",
      ])
    #expect(workout.statistics.map(\.sum) == [412.5, 18.25, nil])
    #expect(workout.statistics.map(\.unit) == ["kcal", "km", "count/min"])
    #expect(workout.statistics[2].average == 141 && workout.statistics[2].minimum == 96)
    #expect(workout.statistics[2].maximum == 172)
    #expect(workout.routes.map(\.filePath) == ["/workout-routes/route_2024-02-29_7.45pm.gpx"])
    #expect(workout.routes.first?.metadata == Self.metadata(["HKMetadataKeySyncVersion": "2"]))
    let correlation = try #require(Self.correlations(elements).first)
    #expect(correlation.type == "HKCorrelationTypeIdentifierBloodPressure")
    #expect(correlation.origin.sourceName == "Health Mate")
    #expect(correlation.metadata == Self.metadata(["Meal": "none", "meal": "Breakfast & tea"]))
    #expect(
      correlation.records.map(\.type) == [
        "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
      ])
    #expect(correlation.records.map(\.value) == ["121", "79"])
    #expect(correlation.records.map(\.unit) == ["mmHg", "mmHg"])
    #expect(correlation.records.map(\.metadata) == [Self.metadata(["HKWasUserEntered": "0"]), []])
    let summary = try #require(Self.summaries(elements).first)
    #expect(summary.date == LocalDate(year: 2024, month: 2, day: 29))
    #expect(summary.activeEnergyBurned == 512.25 && summary.activeEnergyBurnedUnit == "Cal")
    #expect(summary.appleMoveTime == 0 && summary.appleMoveTimeGoal == 0)
    #expect(summary.appleExerciseTime == 52 && summary.appleStandHoursGoal == 12)
  }

  @Test("Every buffer and piece size gives the same elements", arguments: [(256, 1), (300, 7), (4096, 1000)])
  func boundaries(bufferBytes: Int, chunkSize: Int) throws {
    let whole = try Self.elements(Self.modern)
    let pieces = try Self.elements(Self.modern, bufferBytes: bufferBytes, chunkSize: chunkSize)
    #expect(pieces.elements == whole.elements)
  }

  @Test("iOS 13's appleMoveMinutes is read as appleMoveTime")
  func moveMinutes() throws {
    let xml = T.export(
      #" <ActivitySummary dateComponents="2019-10-01" appleMoveMinutes="12" appleMoveMinutesGoal="30"/>"#)
    let summary = try #require(Self.summaries(try Self.elements(xml).elements).first)
    #expect(summary.appleMoveTime == 12 && summary.appleMoveTimeGoal == 30)
    #expect(summary.activeEnergyBurned == nil)
  }

  @Test("Invalid elements and children are reported with line and column, counted, and reading goes on")
  func invalidElements() throws {
    let xml = T.export(
      """
       <Workout sourceName="W" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:30:00 +0800">
        <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-02-29 19:10:00 +0800"/>
       </Workout>
       <Workout workoutActivityType="HKWorkoutActivityTypeYoga" duration="twenty" sourceName="W" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:30:00 +0800"/>
       <Workout workoutActivityType="HKWorkoutActivityTypeYoga" sourceName="W" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 18:30:00 +0800"/>
       <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="W" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:30:00 +0800">
        <WorkoutEvent type="HKWorkoutEventTypePause" date="yesterday"/>
        <WorkoutStatistics type="HKQuantityTypeIdentifierStepCount" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:30:00 +0800" sum="1e999" unit="count"/>
        <WorkoutStatistics type="HKQuantityTypeIdentifierStepCount" startDate="2024-02-29 19:00:00 +0800" endDate="2024-02-29 19:30:00 +0800" sum="2400" unit="count"/>
        <MetadataEntry value="no key"/>
       </Workout>
       <ActivitySummary dateComponents="2024-02-30" activeEnergyBurned="1"/>
       <ActivitySummary dateComponents="2024-02-28" activeEnergyBurned="nan"/>
       <Correlation type="HKCorrelationTypeIdentifierFood" startDate="2024-02-29 12:00:00 +0800" endDate="2024-02-29 12:00:00 +0800">
        <Record type="HKQuantityTypeIdentifierDietaryEnergyConsumed" sourceName="App" unit="kcal" startDate="2024-02-29 12:00:00 +0800" endDate="2024-02-29 12:00:00 +0800" value="500"/>
       </Correlation>
       <ActivitySummary dateComponents="2024-02-29" activeEnergyBurned="300"/>
      """)
    let (elements, invalid, _) = try Self.elements(xml)
    // What is left: the walk with its good statistics, and the last summary.
    #expect(elements.count == 2)
    let walk = try #require(Self.workouts(elements).first)
    #expect(walk.activityName == "Walking")
    #expect(walk.events.isEmpty && walk.metadata.isEmpty)
    #expect(walk.statistics.map(\.sum) == [2400])
    #expect(Self.summaries(elements).map(\.date.description) == ["2024-02-29"])
    // The export's body starts on line 4, each element at column 2.
    #expect(
      invalid.examples.map(\.description) == [
        "export.xml:4:2: missing attribute 'workoutActivityType'",
        "export.xml:7:2: unreadable value 'twenty'",
        "export.xml:8:2: end date before start date",
        "export.xml:10:3: unreadable date 'yesterday'",
        "export.xml:11:3: unreadable value '1e999'",
        "export.xml:13:3: missing attribute 'key'",
        "export.xml:15:2: unreadable date '2024-02-30'",
        "export.xml:16:2: unreadable value 'nan'",
        "export.xml:17:2: missing attribute 'sourceName'",
      ])
    #expect(invalid.count == 9)
  }

  @Test("A name written twice in an element's tag is malformed XML, with its line and column")
  func duplicateAttribute() throws {
    let xml = T.export(
      #" <ActivitySummary dateComponents="2024-02-29" dateComponents="2024-02-28"/>"#)
    #expect(throws: HealthExportError.self) { try Self.elements(xml) }
    do {
      _ = try Self.elements(xml)
    } catch let error as HealthExportError {
      guard case .malformedXML(_, let line, let column, _) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(line == 4 && column == 47)
    }
  }

  @Test("forEachElement reads a file and reports its invalid elements")
  func publicEntry() throws {
    let xml = T.export(
      #" <ActivitySummary dateComponents="2024-02-29" activeEnergyBurned="300"/> <ActivitySummary/>"#)
    var dates: [String] = []
    let report = try ExportReader.forEachElement(in: .data(Data(xml.utf8), name: "export.xml")) { element in
      if case .activitySummary(let summary) = element { dates.append(summary.date.description) }
    }
    #expect(dates == ["2024-02-29"])
    #expect(report.invalid.count == 1)
    #expect(
      report.invalid.examples.first?.description == "export.xml:4:74: missing attribute 'dateComponents'")
    #expect(report.info.exportDate == "2024-03-01 09:00:00 +0800")
  }
}
