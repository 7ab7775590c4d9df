import Foundation
import Testing

@testable import stepkit

/// The workouts, activity summaries, correlations and `me` tables of `stepkit
/// sqlite`, with rows written by hand from the XML of the fixtures.
@Suite("SQLite workouts, activity summaries, correlations and me")
struct SQLiteElementTests {
  static let realFixtures = StepkitRunner.testsDirectory.deletingLastPathComponent()
    .appendingPathComponent("HealthExportTests/Fixtures")

  static func real(_ name: String) -> String { realFixtures.appendingPathComponent(name).path }

  @Test("An iOS 12 export: its workout, summaries and characteristics")
  func singleExport() throws {
    try withScratchDirectory { directory in
      let result = try StepkitRunner.run(
        ["sqlite", Self.real("hk2sqlite-export.xml"), "out.db", "--quiet"], in: directory)
      #expect(result.exitCode == 0)
      #expect(result.standardError == "")
      let path = directory.appendingPathComponent("out.db").path
      // 5.19412346680959 min; 0.4971749504535062 mi × 1609.344 m/mi; 48.74499999999999 kcal.
      #expect(
        try query(
          path,
          """
          SELECT id, activity_type, activity, start, end, utc_offset, local_date, round(duration_min, 6),
            round(distance_m, 6), round(energy_kcal, 6), route_path, source, source_version, device_model,
            creation_date, metadata FROM workouts
          """) == [
            [
              "1", "HKWorkoutActivityTypeRunning", "Running", "2016-11-14T14:25:41Z", "2016-11-14T14:30:52Z",
              "-25200", "2016-11-14", "5.194123", "800.125523", "48.745", "NULL", "Apple\u{A0}Watch", "3.1",
              "NULL", "2016-11-14T14:33:49Z",
              #"{"HKTimeZone": "America/Los_Angeles", "HKWeatherTemperature": "56 degF", "HKWeatherHumidity": "96 %"}"#,
            ]
          ])
      #expect(try query(path, "SELECT COUNT(*) FROM workout_statistics") == [["0"]])
      #expect(try query(path, "SELECT COUNT(*) FROM workout_events") == [["0"]])
      #expect(
        try query(path, "SELECT * FROM activity_summaries ORDER BY date") == [
          ["2016-11-15", "590.252", "630.0", "kcal", "NULL", "NULL", "68.0", "30.0", "13.0", "12.0"],
          ["2016-11-16", "323.513", "630.0", "kcal", "NULL", "NULL", "39.0", "30.0", "9.0", "12.0"],
        ])
      #expect(
        try query(path, "SELECT * FROM me") == [
          ["1990-02-02", "HKBiologicalSexMale", "HKBloodTypeNotSet", "HKFitzpatrickSkinTypeNotSet", "NULL"]
        ])
      #expect(try query(path, "SELECT COUNT(*) FROM correlations") == [["0"]])
      #expect(
        try query(path, "SELECT json_extract(metadata, '$.HKTimeZone') FROM workouts") == [
          ["America/Los_Angeles"]
        ])
    }
  }

  /// An iOS 17 workout with statistics, events and a route file, and a blood-pressure correlation.
  static let modern = """
    <?xml version="1.0" encoding="UTF-8"?>
    <HealthData locale="en_US">
     <ExportDate value="2024-03-01 09:00:00 +0800"/>
     <Me HKCharacteristicTypeIdentifierDateOfBirth="1988-06-14" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeAPositive" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>
     <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Lin’s iPhone" unit="count" startDate="2024-02-29 08:00:00 +0800" endDate="2024-02-29 08:10:00 +0800" value="100"/>
     <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="1.5" durationUnit="hr" sourceName="Lin’s Apple Watch" sourceVersion="10.3" device="&lt;&lt;HKDevice: 0x2816a8e10&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:10.3&gt;" creationDate="2024-02-29 21:31:00 +0800" startDate="2024-02-29 20:00:00 +0800" endDate="2024-02-29 21:30:00 +0800">
      <MetadataEntry key="HKIndoorWorkout" value="1"/>
      <WorkoutEvent type="HKWorkoutEventTypePause" date="2024-02-29 20:20:00 +0800"/>
      <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2024-02-29 20:00:00 +0800" duration="30" durationUnit="min">
       <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>
      </WorkoutEvent>
      <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2024-02-29 20:00:00 +0800" endDate="2024-02-29 21:30:00 +0800" sum="2092" unit="kJ"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceCycling" startDate="2024-02-29 20:00:00 +0800" endDate="2024-02-29 21:30:00 +0800" sum="20" unit="mi"/>
      <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2024-02-29 20:00:00 +0800" endDate="2024-02-29 21:30:00 +0800" average="141" minimum="96" maximum="172" unit="count/min"/>
      <WorkoutRoute sourceName="Lin’s Apple Watch" sourceVersion="10.3" creationDate="2024-02-29 21:31:05 +0800" startDate="2024-02-29 20:00:01 +0800" endDate="2024-02-29 21:29:59 +0800">
       <FileReference path="/workout-routes/route_2024-02-29_9.30pm.gpx"/>
      </WorkoutRoute>
     </Workout>
     <Workout sourceName="Lin’s Apple Watch" startDate="2024-02-29 22:00:00 +0800" endDate="2024-02-29 22:30:00 +0800"/>
     <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Health Mate" creationDate="2024-02-29 07:31:00 +0800" startDate="2024-02-29 07:30:00 +0800" endDate="2024-02-29 07:30:00 +0800">
      <MetadataEntry key="Meal" value="none"/>
      <MetadataEntry key="meal" value="tea &amp; toast"/>
      <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Health Mate" unit="mmHg" startDate="2024-02-29 07:30:00 +0800" endDate="2024-02-29 07:30:00 +0800" value="121">
       <MetadataEntry key="HKWasUserEntered" value="0"/>
      </Record>
      <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Health Mate" unit="mmHg" startDate="2024-02-29 07:30:00 +0800" endDate="2024-02-29 07:30:00 +0800" value="79"/>
     </Correlation>
     <ActivitySummary dateComponents="2024-02-29" activeEnergyBurned="512.25" activeEnergyBurnedGoal="480" activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="52" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>
    </HealthData>

    """

  @Test("An iOS 17 workout: totals from its statistics in canonical units, events, route; a correlation")
  func modernExport() throws {
    try withScratchDirectory { directory in
      try Self.modern.write(
        to: directory.appendingPathComponent("export.xml"), atomically: true, encoding: .utf8)
      let result = try StepkitRunner.run(["sqlite", "export.xml", "out.db"], in: directory)
      #expect(result.exitCode == 0)
      #expect(
        result.standardError.contains(
          "stepkit: 1 invalid record not written to the database:"
            + " export.xml:19:2 (missing attribute 'workoutActivityType')\n"))
      let path = directory.appendingPathComponent("out.db").path
      // 1.5 hr = 90 min; 20 mi × 1609.344 = 32186.88 m; 2092 kJ / 4.184 = 500 kcal.
      #expect(
        try query(
          path,
          """
          SELECT activity, start, end, utc_offset, local_date, round(duration_min, 6), round(distance_m, 6),
            round(energy_kcal, 6), route_path, source, device_name, device_manufacturer, device_model,
            device_hardware, device_software, metadata FROM workouts
          """) == [
            [
              "Cycling", "2024-02-29T12:00:00Z", "2024-02-29T13:30:00Z", "28800", "2024-02-29", "90.0",
              "32186.88",
              "500.0", "/workout-routes/route_2024-02-29_9.30pm.gpx", "Lin’s Apple Watch", "Apple Watch",
              "Apple Inc.", "Watch", "Watch6,1", "10.3", #"{"HKIndoorWorkout": "1"}"#,
            ]
          ])
      #expect(
        try query(path, "SELECT * FROM workout_statistics ORDER BY rowid") == [
          [
            "1", "HKQuantityTypeIdentifierActiveEnergyBurned", "2024-02-29T12:00:00Z", "2024-02-29T13:30:00Z",
            "NULL", "NULL", "NULL", "2092.0", "kJ",
          ],
          [
            "1", "HKQuantityTypeIdentifierDistanceCycling", "2024-02-29T12:00:00Z", "2024-02-29T13:30:00Z",
            "NULL", "NULL", "NULL", "20.0", "mi",
          ],
          [
            "1", "HKQuantityTypeIdentifierHeartRate", "2024-02-29T12:00:00Z", "2024-02-29T13:30:00Z", "141.0",
            "96.0", "172.0", "NULL", "count/min",
          ],
        ])
      #expect(
        try query(path, "SELECT * FROM workout_events ORDER BY rowid") == [
          ["1", "HKWorkoutEventTypePause", "2024-02-29T12:20:00Z", "28800", "NULL", "NULL"],
          [
            "1", "HKWorkoutEventTypeSegment", "2024-02-29T12:00:00Z", "28800", "30.0",
            #"{"HKMetadataKeySyncVersion": "2"}"#,
          ],
        ])
      #expect(
        try query(
          path,
          "SELECT id, type, start, end, utc_offset, local_date, source, creation_date, metadata FROM correlations"
        )
          == [
            [
              "1", "HKCorrelationTypeIdentifierBloodPressure", "2024-02-28T23:30:00Z", "2024-02-28T23:30:00Z",
              "28800", "2024-02-29", "Health Mate", "2024-02-28T23:31:00Z",
              #"{"Meal": "none", "meal": "tea & toast"}"#,
            ]
          ])
      #expect(
        try query(
          path,
          "SELECT correlation_id, type, unit, value, value_text, start, utc_offset, source, metadata FROM correlation_records ORDER BY rowid"
        ) == [
          [
            "1", "HKQuantityTypeIdentifierBloodPressureSystolic", "mmHg", "121.0", "NULL",
            "2024-02-28T23:30:00Z",
            "28800", "Health Mate", #"{"HKWasUserEntered": "0"}"#,
          ],
          [
            "1", "HKQuantityTypeIdentifierBloodPressureDiastolic", "mmHg", "79.0", "NULL",
            "2024-02-28T23:30:00Z",
            "28800", "Health Mate", "NULL",
          ],
        ])
      #expect(
        try query(path, "SELECT * FROM activity_summaries") == [
          ["2024-02-29", "512.25", "480.0", "Cal", "0.0", "0.0", "52.0", "30.0", "11.0", "12.0"]
        ])
      #expect(
        try query(path, "SELECT * FROM me") == [
          [
            "1988-06-14", "HKBiologicalSexFemale", "HKBloodTypeAPositive", "HKFitzpatrickSkinTypeNotSet",
            "None",
          ]
        ])
      // The member records are not counted twice: the steps are the top-level record's.
      #expect(try query(path, "SELECT steps FROM days") == [["100"]])
    }
  }

  @Test("A cohort database carries the export id in every table; an export replaced loses its old rows")
  func cohort() throws {
    try withScratchDirectory { directory in
      let folder = directory.appendingPathComponent("cohort")
      for (id, fixture) in [("p1", "hk2sqlite-export.xml"), ("p2", "tdda-export6s3sample.xml")] {
        try FileManager.default.createDirectory(
          at: folder.appendingPathComponent(id), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
          atPath: Self.real(fixture), toPath: folder.appendingPathComponent("\(id)/export.xml").path)
      }
      let arguments = ["sqlite", "cohort", "cohort.db", "--id-from", "parent", "--quiet"]
      #expect(try StepkitRunner.run(arguments, in: directory).exitCode == 0)
      let path = directory.appendingPathComponent("cohort.db").path
      #expect(
        try query(path, "SELECT export, activity, route_path FROM workouts ORDER BY export") == [
          ["p1", "Running", "NULL"], ["p2", "Other", "NULL"],
        ])
      #expect(
        try query(path, "SELECT export, date FROM activity_summaries ORDER BY export, date") == [
          ["p1", "2016-11-15"], ["p1", "2016-11-16"], ["p2", "2016-04-14"], ["p2", "2016-04-15"],
        ])
      #expect(
        try query(path, "SELECT export, date_of_birth FROM me ORDER BY export") == [
          ["p1", "1990-02-02"], ["p2", "1965-07-31"],
        ])
      for table in SQLiteWriter.elementTableNames {
        let columns = try query(path, "SELECT name FROM pragma_table_info('\(table)')").map { $0[0] }
        #expect(columns.contains("export"), "\(table) has no export column")
      }
      // p1 exports again: the same day, its route now a file.
      try FileManager.default.removeItem(at: folder.appendingPathComponent("p1/export.xml"))
      try FileManager.default.copyItem(
        atPath: Self.real("hk2sqlite-zip-export.xml"),
        toPath: folder.appendingPathComponent("p1/export.xml").path)
      #expect(try StepkitRunner.run(arguments, in: directory).exitCode == 0)
      #expect(
        try query(path, "SELECT export, activity, route_path FROM workouts ORDER BY export") == [
          ["p1", "Running", "/workout-routes/route_2019-06-11_3.00pm.gpx"], ["p2", "Other", "NULL"],
        ])
      #expect(
        try query(path, "SELECT export, COUNT(*) FROM me GROUP BY export") == [["p1", "1"], ["p2", "1"]])
      #expect(
        try query(path, "SELECT export, COUNT(*) FROM activity_summaries GROUP BY export") == [
          ["p1", "2"], ["p2", "2"],
        ])
    }
  }
}
