import CSQLite
import HealthExport
import StepKitCore

extension SQLiteWriter {
  /// The tables of the export's workouts, activity summaries, correlations
  /// and `<Me>`; with `cohort`, each led by the export id.
  static func elementTables(cohort: Bool) -> String {
    let export = cohort ? "\n  export TEXT NOT NULL REFERENCES exports (export)," : ""
    return """
      CREATE TABLE IF NOT EXISTS workouts (
        id INTEGER PRIMARY KEY,\(export)
        activity_type TEXT NOT NULL,
        activity TEXT NOT NULL,
        \(spanColumns),
        duration_min REAL,
        distance_m REAL,
        energy_kcal REAL,
        route_path TEXT,
        \(originColumns),
        metadata TEXT
      );
      CREATE TABLE IF NOT EXISTS workout_statistics (
        workout_id INTEGER NOT NULL REFERENCES workouts (id),\(export)
        type TEXT NOT NULL,
        start TEXT NOT NULL,
        end TEXT NOT NULL,
        average REAL,
        minimum REAL,
        maximum REAL,
        sum REAL,
        unit TEXT
      );
      CREATE TABLE IF NOT EXISTS workout_events (
        workout_id INTEGER NOT NULL REFERENCES workouts (id),\(export)
        type TEXT NOT NULL,
        date TEXT NOT NULL,
        utc_offset INTEGER NOT NULL,
        duration_min REAL,
        metadata TEXT
      );
      CREATE TABLE IF NOT EXISTS activity_summaries (\(export)
        date TEXT NOT NULL,
        active_energy REAL,
        active_energy_goal REAL,
        active_energy_unit TEXT,
        move_time_min REAL,
        move_time_goal_min REAL,
        exercise_time_min REAL,
        exercise_time_goal_min REAL,
        stand_hours REAL,
        stand_hours_goal REAL
      );
      CREATE TABLE IF NOT EXISTS correlations (
        id INTEGER PRIMARY KEY,\(export)
        type TEXT NOT NULL,
        \(spanColumns),
        \(originColumns),
        metadata TEXT
      );
      CREATE TABLE IF NOT EXISTS correlation_records (
        correlation_id INTEGER NOT NULL REFERENCES correlations (id),\(export)
        type TEXT NOT NULL,
        unit TEXT,
        value REAL,
        value_text TEXT,
        start TEXT,
        end TEXT,
        utc_offset INTEGER,
        \(originColumns.replacingOccurrences(of: "source TEXT NOT NULL", with: "source TEXT")),
        metadata TEXT
      );
      CREATE TABLE IF NOT EXISTS me (\(export.isEmpty ? "" : "\n  export TEXT PRIMARY KEY REFERENCES exports (export),")
        date_of_birth TEXT,
        biological_sex TEXT,
        blood_type TEXT,
        fitzpatrick_skin_type TEXT,
        cardio_fitness_medications_use TEXT
      );

      """
  }

  /// When a row's sample was: its start and end in UTC, the start's offset and its local
  /// date, as `records`, `workouts` and `correlations` each list them (on lines of their own,
  /// two spaces in, after the first).
  static let spanColumns = """
    start TEXT NOT NULL,
      end TEXT NOT NULL,
      utc_offset INTEGER NOT NULL,
      local_date TEXT NOT NULL
    """

  /// Where a row came from: its source, the source's version, the device and the creation
  /// date, as `records`, `workouts` and `correlations` each list them (on lines of their own,
  /// two spaces in, after the first).
  static let originColumns = """
    source TEXT NOT NULL,
      source_version TEXT,
      device_name TEXT,
      device_manufacturer TEXT,
      device_model TEXT,
      device_hardware TEXT,
      device_software TEXT,
      creation_date TEXT
    """

  /// The indexes of the element tables, made once every row is in.
  static func elementIndexes(cohort: Bool) -> String {
    let export = cohort ? "export, " : ""
    return """

      CREATE INDEX IF NOT EXISTS workouts_by_local_date ON workouts (\(export)local_date);
      CREATE INDEX IF NOT EXISTS workout_statistics_by_workout ON workout_statistics (workout_id);
      CREATE INDEX IF NOT EXISTS workout_events_by_workout ON workout_events (workout_id);
      CREATE INDEX IF NOT EXISTS activity_summaries_by_date ON activity_summaries (\(export)date);
      CREATE INDEX IF NOT EXISTS correlation_records_by_correlation ON correlation_records (correlation_id);
      """
  }

  /// The element tables, in the order ``removeExport(_:)`` empties them (children first).
  static let elementTableNames = [
    "workout_statistics", "workout_events", "workouts", "correlation_records", "correlations",
    "activity_summaries", "me",
  ]

}

/// The prepared inserts of the element tables.
final class ElementRows {
  private let writer: SQLiteWriter
  private let export: String?
  /// 1 in a cohort database, where the export id follows a table's first column (or leads `me`).
  private let first: Int32
  private var days: LocalDayFinder
  private let workout: OpaquePointer?
  private let statistics: OpaquePointer?
  private let event: OpaquePointer?
  private let summary: OpaquePointer?
  private let correlation: OpaquePointer?
  private let member: OpaquePointer?

  init(_ writer: SQLiteWriter, export: String?, days: LocalDayFinder) throws(OutputFileError) {
    self.writer = writer
    self.export = export
    self.days = days
    let first: Int32 = writer.isCohort ? 1 : 0
    self.first = first
    func insert(_ table: String, _ columns: Int32) throws(OutputFileError) -> OpaquePointer? {
      try writer.prepare("INSERT INTO \(table) VALUES (\(SQLiteWriter.placeholders(columns + first)))")
    }
    workout = try insert("workouts", 20)
    statistics = try insert("workout_statistics", 9)
    event = try insert("workout_events", 6)
    summary = try insert("activity_summaries", 10)
    correlation = try insert("correlations", 15)
    member = try insert("correlation_records", 17)
  }

  deinit {
    for statement in [workout, statistics, event, summary, correlation, member] {
      sqlite3_finalize(statement)
    }
  }

  /// Writes `element` and its children (a record is ``RecordRows``' to write).
  func insert(_ element: ExportElement) throws(OutputFileError) {
    switch element {
    case .record: break
    case .workout(let workout): try insert(workout)
    case .activitySummary(let summary): try insert(summary)
    case .correlation(let correlation): try insert(correlation)
    }
  }

  /// Writes the one row of `me`.
  func insert(_ me: MeCharacteristics) throws(OutputFileError) {
    let statement = try writer.prepare("INSERT INTO me VALUES (\(SQLiteWriter.placeholders(5 + first)))")
    defer { sqlite3_finalize(statement) }
    if let export { writer.bind(statement, 1, export) }
    let values = [
      me.dateOfBirth, me.biologicalSex, me.bloodType, me.fitzpatrickSkinType, me.cardioFitnessMedicationsUse,
    ]
    for (offset, value) in values.enumerated() { writer.bind(statement, first + 1 + Int32(offset), value) }
    try writer.step(statement)
  }

  // MARK: - Rows

  private func insert(_ workout: ExportWorkout) throws(OutputFileError) {
    let s = self.workout
    var c = leading(s)
    text(s, &c, workout.activityType)
    text(s, &c, workout.activityName)
    span(s, &c, workout.start, workout.end)
    number(s, &c, workout.duration.flatMap { Self.converted($0, to: .minutes) })
    number(s, &c, Self.distanceMetres(workout))
    number(s, &c, Self.energyKilocalories(workout))
    text(s, &c, workout.routes.lazy.compactMap(\.filePath).first)
    let id = try parent(s, &c, origin: workout.origin, metadata: Self.json(workout.metadata))
    for item in workout.statistics {
      var c = child(statistics, id)
      text(statistics, &c, item.type)
      instant(statistics, &c, item.start)
      instant(statistics, &c, item.end)
      for value in [item.average, item.minimum, item.maximum, item.sum] { number(statistics, &c, value) }
      text(statistics, &c, item.unit)
      try writer.step(statistics)
    }
    for item in workout.events {
      var c = child(event, id)
      text(event, &c, item.type)
      instant(event, &c, item.date)
      integer(event, &c, Int64(item.date.utcOffsetSeconds))
      number(event, &c, item.duration.flatMap { Self.converted($0, to: .minutes) })
      text(event, &c, Self.json(item.metadata))
      try writer.step(event)
    }
  }

  private func insert(_ item: ExportActivitySummary) throws(OutputFileError) {
    let s = summary
    var c: Int32 = 1
    if let export { text(s, &c, export) }
    text(s, &c, item.date.description)
    for value in [item.activeEnergyBurned, item.activeEnergyBurnedGoal] { number(s, &c, value) }
    text(s, &c, item.activeEnergyBurnedUnit)
    for value in [
      item.appleMoveTime, item.appleMoveTimeGoal, item.appleExerciseTime, item.appleExerciseTimeGoal,
      item.appleStandHours, item.appleStandHoursGoal,
    ] {
      number(s, &c, value)
    }
    try writer.step(s)
  }

  private func insert(_ item: ExportCorrelation) throws(OutputFileError) {
    let s = correlation
    var c = leading(s)
    text(s, &c, item.type)
    span(s, &c, item.start, item.end)
    let id = try parent(s, &c, origin: item.origin, metadata: Self.json(item.metadata))
    for record in item.records {
      var c = child(member, id)
      text(member, &c, record.type)
      text(member, &c, record.unit)
      let numeric = record.value.flatMap(Self.number)
      number(member, &c, numeric)
      text(member, &c, numeric == nil ? record.value : nil)
      let start = record.startDate.flatMap(ExportTimestamp.init)
      instant(member, &c, start)
      instant(member, &c, record.endDate.flatMap(ExportTimestamp.init))
      integer(member, &c, start.map { Int64($0.utcOffsetSeconds) })
      let creation = record.creationDate.flatMap(ExportTimestamp.init)
      origin(
        member, &c,
        ExportOrigin(
          sourceName: record.sourceName ?? "", sourceVersion: record.sourceVersion,
          deviceDescription: record.deviceDescription, creationDate: creation))
      text(member, &c, Self.json(record.metadata))
      try writer.step(member)
    }
  }

  /// Ends a workout's or a correlation's row with its origin and metadata, writes it, and
  /// returns the id its children's rows name.
  private func parent(
    _ statement: OpaquePointer?, _ column: inout Int32, origin: ExportOrigin, metadata: String?
  ) throws(OutputFileError) -> Int64 {
    self.origin(statement, &column, origin)
    text(statement, &column, metadata)
    try writer.step(statement)
    return sqlite3_last_insert_rowid(writer.database)
  }

  // MARK: - Columns

  /// Binds a table's leading `id` (NULL: SQLite numbers the row) and export id; returns the next column.
  private func leading(_ statement: OpaquePointer?) -> Int32 {
    sqlite3_bind_null(statement, 1)
    var c: Int32 = 2
    if let export { text(statement, &c, export) }
    return c
  }

  /// Binds a child table's parent id and export id; returns the next column.
  private func child(_ statement: OpaquePointer?, _ parent: Int64) -> Int32 {
    var c: Int32 = 1
    integer(statement, &c, parent)
    if let export { text(statement, &c, export) }
    return c
  }

  private func text(_ statement: OpaquePointer?, _ column: inout Int32, _ value: String?) {
    writer.bind(statement, column, value)
    column += 1
  }

  private func number(_ statement: OpaquePointer?, _ column: inout Int32, _ value: Double?) {
    writer.bind(statement, column, value)
    column += 1
  }

  private func integer(_ statement: OpaquePointer?, _ column: inout Int32, _ value: Int64?) {
    writer.bind(statement, column, value)
    column += 1
  }

  /// An instant in UTC, as the `samples` table writes it.
  private func instant(_ statement: OpaquePointer?, _ column: inout Int32, _ value: ExportTimestamp?) {
    text(
      statement, &column, value.map { TextFormatting.localDateTime($0.epochMilliseconds, offsetSeconds: 0) })
  }

  /// `start`, `end`, `utc_offset` (the start's) and `local_date`.
  private func span(
    _ statement: OpaquePointer?, _ column: inout Int32, _ start: ExportTimestamp, _ end: ExportTimestamp
  ) {
    instant(statement, &column, start)
    instant(statement, &column, end)
    integer(statement, &column, Int64(start.utcOffsetSeconds))
    let day = days.day(of: start.epochMilliseconds, recordedOffsetSeconds: start.utcOffsetSeconds)
    text(statement, &column, day.description)
  }

  /// `source`, `source_version`, the device's fields (never its object address) and `creation_date`.
  private func origin(_ statement: OpaquePointer?, _ column: inout Int32, _ origin: ExportOrigin) {
    text(statement, &column, origin.sourceName)
    text(statement, &column, origin.sourceVersion)
    let device = origin.device
    for field in [device?.name, device?.manufacturer, device?.model, device?.hardware, device?.software] {
      text(statement, &column, field)
    }
    instant(statement, &column, origin.creationDate)
  }

  // MARK: - Values

  /// The metadata as one JSON object, keys in file order (keys that differ
  /// only by case are two members; a key named twice is one, its first
  /// value); `nil` for none.
  static func json(_ metadata: [ExportRecord.MetadataEntry]) -> String? {
    guard !metadata.isEmpty else { return nil }
    var seen = Set<[UInt8]>()
    let members = metadata.filter { seen.insert(Array($0.key.utf8)).inserted }
    return JSONValue.object(members.map { ($0.key, .string($0.value)) }).rendered()
  }

  /// A record's value as a number, when it is one (a category's value is a name).
  static func number(_ text: String) -> Double? {
    guard let value = Double(text), value.isFinite,
      text.first.map({ $0.isNumber || $0 == "-" || $0 == "." }) == true
    else { return nil }
    return value
  }

  /// `quantity` in `unit`, when its unit converts to it.
  static func converted(_ quantity: ExportQuantity, to unit: CanonicalUnit) -> Double? {
    guard let written = quantity.unit, let factor = unit.factor(written) else { return nil }
    return quantity.value * factor
  }

  /// The workout's distance in metres: its `totalDistance` (exports before
  /// iOS 16), else the sum of its distance statistics (walking + running,
  /// cycling, swimming, …: one per leg of a multisport workout).
  static func distanceMetres(_ workout: ExportWorkout) -> Double? {
    if let total = workout.totalDistance { return converted(total, to: .metres) }
    let sums = workout.statistics.filter { $0.type.hasPrefix("HKQuantityTypeIdentifierDistance") }.compactMap
    {
      item in item.sum.flatMap { converted(ExportQuantity(value: $0, unit: item.unit), to: .metres) }
    }
    return sums.isEmpty ? nil : sums.reduce(0, +)
  }

  /// The workout's active energy in kcal: its `totalEnergyBurned` (exports
  /// before iOS 16), else its active-energy statistics' sum.
  static func energyKilocalories(_ workout: ExportWorkout) -> Double? {
    if let total = workout.totalEnergyBurned { return converted(total, to: .kilocalories) }
    let active = workout.statistics.first { $0.type == CumulativeType.activeEnergyBurned.identifier }
    guard let active, let sum = active.sum else { return nil }
    return converted(ExportQuantity(value: sum, unit: active.unit), to: .kilocalories)
  }
}
