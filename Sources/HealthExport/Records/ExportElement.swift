import Foundation
import StepKitCore

/// A date as an export writes it (`2016-11-14 07:25:41 -0700`, or iOS 8's
/// `20141114072541-0700`): the text, the instant and the UTC offset it was
/// written with.
public struct ExportTimestamp: Sendable, Hashable {
  /// The date exactly as written.
  public var text: String
  /// The instant, in milliseconds since 1970 (UTC).
  public var epochMilliseconds: Int64
  /// The UTC offset the date was written with, in seconds (`-25200` for `-0700`).
  public var utcOffsetSeconds: Int

  /// Parses an export date.
  ///
  /// - Returns: `nil` when `text` is not a date in an export's formats.
  public init?(_ text: String) {
    guard let parsed = ExportDateParser.parse(text) else { return nil }
    self.text = text
    epochMilliseconds = parsed.epochMilliseconds
    utcOffsetSeconds = parsed.utcOffsetSeconds
  }

  /// The instant as a `Date`.
  public var date: Date { Date(epochMilliseconds: epochMilliseconds) }
}

/// A source and device as an element writes them: `sourceName`,
/// `sourceVersion`, `device` (an `HKDevice` description) and `creationDate`.
public struct ExportOrigin: Sendable, Hashable {
  /// `sourceName`: the app or device name (`Apple Watch`, `Simon’s iPhone`).
  public var sourceName: String
  /// `sourceVersion`.
  public var sourceVersion: String?
  /// `device`, as written (its object address differs in every element).
  public var deviceDescription: String?
  /// `creationDate`, when written and valid.
  public var creationDate: ExportTimestamp?

  /// Creates an origin.
  public init(
    sourceName: String, sourceVersion: String? = nil, deviceDescription: String? = nil,
    creationDate: ExportTimestamp? = nil
  ) {
    self.sourceName = sourceName
    self.sourceVersion = sourceVersion
    self.deviceDescription = deviceDescription
    self.creationDate = creationDate
  }

  /// The device's fields, parsed from ``deviceDescription`` (the object address left out).
  public var device: Device? { deviceDescription.flatMap { Device(hkDeviceDescription: $0) } }
}

/// A quantity as an element writes it: a number and its unit's name.
public struct ExportQuantity: Sendable, Hashable {
  /// The number.
  public var value: Double
  /// The unit as written (`min`, `km`, `mi`, `kcal`, `kJ`, `Cal`), when written.
  public var unit: String?

  /// Creates a quantity.
  public init(value: Double, unit: String?) {
    self.value = value
    self.unit = unit
  }
}

/// One `<Workout>` of an export.
///
/// Exports before iOS 16 write the totals as attributes
/// (`totalDistance="3.1" totalDistanceUnit="km"`); later ones write
/// `<WorkoutStatistics>` children instead (``statistics``).
public struct ExportWorkout: Sendable, Hashable {
  /// `workoutActivityType`: `HKWorkoutActivityTypeRunning`, `HKWorkoutActivityTypeOther`, …
  public var activityType: String
  /// `duration` with `durationUnit` (usually `min`).
  public var duration: ExportQuantity?
  /// `totalDistance` with `totalDistanceUnit` (older exports).
  public var totalDistance: ExportQuantity?
  /// `totalEnergyBurned` with `totalEnergyBurnedUnit` (older exports).
  public var totalEnergyBurned: ExportQuantity?
  /// The source, device and creation date.
  public var origin: ExportOrigin
  /// `startDate`.
  public var start: ExportTimestamp
  /// `endDate`.
  public var end: ExportTimestamp
  /// The `<MetadataEntry>` children, in file order (`HKTimeZone`, `HKIndoorWorkout`, …).
  public var metadata: [ExportRecord.MetadataEntry]
  /// The `<WorkoutEvent>` children (pauses, laps, segments), in file order.
  public var events: [Event]
  /// The `<WorkoutStatistics>` children: a total or average per quantity type.
  public var statistics: [Statistics]
  /// The `<WorkoutRoute>` children.
  public var routes: [Route]
  /// The `<WorkoutActivity>` children (the parts of a multisport workout).
  public var activities: [Activity]
  /// Where the `<Workout>` start tag is.
  public var location: SourceLocation

  /// Creates a workout with no children.
  public init(
    activityType: String, origin: ExportOrigin, start: ExportTimestamp, end: ExportTimestamp,
    location: SourceLocation
  ) {
    self.activityType = activityType
    self.origin = origin
    self.start = start
    self.end = end
    self.location = location
    metadata = []
    events = []
    statistics = []
    routes = []
    activities = []
  }

  /// The activity type without its `HKWorkoutActivityType` prefix (`Running`, `Other`).
  public var activityName: String {
    let prefix = "HKWorkoutActivityType"
    return activityType.hasPrefix(prefix) ? String(activityType.dropFirst(prefix.count)) : activityType
  }

  /// One `<WorkoutEvent>`: `HKWorkoutEventTypePause`, `…Resume`, `…Lap`, `…Segment`, `…Marker`.
  public struct Event: Sendable, Hashable {
    /// `type`.
    public var type: String
    /// `date`.
    public var date: ExportTimestamp
    /// `duration` with `durationUnit`, when written.
    public var duration: ExportQuantity?
    /// Its `<MetadataEntry>` children.
    public var metadata: [ExportRecord.MetadataEntry]

    /// Creates an event.
    public init(
      type: String, date: ExportTimestamp, duration: ExportQuantity? = nil,
      metadata: [ExportRecord.MetadataEntry] = []
    ) {
      self.type = type
      self.date = date
      self.duration = duration
      self.metadata = metadata
    }
  }

  /// One `<WorkoutStatistics>`: the workout's statistics of one quantity type.
  public struct Statistics: Sendable, Hashable {
    /// `type`: `HKQuantityTypeIdentifierActiveEnergyBurned`, `…DistanceWalkingRunning`, `…HeartRate`.
    public var type: String
    /// `startDate`.
    public var start: ExportTimestamp
    /// `endDate`.
    public var end: ExportTimestamp
    /// `average`, `minimum`, `maximum` (for discrete types such as heart rate).
    public var average: Double?
    /// `minimum`.
    public var minimum: Double?
    /// `maximum`.
    public var maximum: Double?
    /// `sum` (for cumulative types such as energy and distance).
    public var sum: Double?
    /// `unit`, as written.
    public var unit: String?

    /// Creates statistics.
    public init(
      type: String, start: ExportTimestamp, end: ExportTimestamp, average: Double? = nil,
      minimum: Double? = nil, maximum: Double? = nil, sum: Double? = nil, unit: String? = nil
    ) {
      self.type = type
      self.start = start
      self.end = end
      self.average = average
      self.minimum = minimum
      self.maximum = maximum
      self.sum = sum
      self.unit = unit
    }
  }

  /// One `<WorkoutRoute>`: the GPS track, written to a file of the archive
  /// (`<FileReference path="/workout-routes/route_….gpx"/>`) or, in exports
  /// before 2019, inline as `<Location>` points.
  public struct Route: Sendable, Hashable {
    /// The source, device and creation date.
    public var origin: ExportOrigin
    /// `startDate`, when written.
    public var start: ExportTimestamp?
    /// `endDate`, when written.
    public var end: ExportTimestamp?
    /// The `path` of its `<FileReference>`, as written (`/workout-routes/route_2019-06-11_3.00pm.gpx`).
    public var filePath: String?
    /// How many inline `<Location>` points it has (older exports).
    public var inlinePoints: Int
    /// Its `<MetadataEntry>` children.
    public var metadata: [ExportRecord.MetadataEntry]

    /// Creates a route.
    public init(
      origin: ExportOrigin, start: ExportTimestamp? = nil, end: ExportTimestamp? = nil,
      filePath: String? = nil,
      inlinePoints: Int = 0, metadata: [ExportRecord.MetadataEntry] = []
    ) {
      self.origin = origin
      self.start = start
      self.end = end
      self.filePath = filePath
      self.inlinePoints = inlinePoints
      self.metadata = metadata
    }
  }

  /// One `<WorkoutActivity>`: a part of a workout (a leg of a triathlon).
  public struct Activity: Sendable, Hashable {
    /// `uuid`.
    public var uuid: String
    /// `startDate`.
    public var start: ExportTimestamp
    /// `endDate`, when written.
    public var end: ExportTimestamp?
    /// `duration` with `durationUnit`, when written.
    public var duration: ExportQuantity?
    /// Its `<MetadataEntry>` children.
    public var metadata: [ExportRecord.MetadataEntry]

    // Written out as every public value type's memberwise initializer is (Swift makes none public):
    // alike in shape only with other types' of as many fields; each names its own fields.

    /// Creates an activity.
    public init(
      uuid: String, start: ExportTimestamp, end: ExportTimestamp? = nil, duration: ExportQuantity? = nil,
      metadata: [ExportRecord.MetadataEntry] = []
    ) {
      self.uuid = uuid
      self.start = start
      self.end = end
      self.duration = duration
      self.metadata = metadata
    }
  }
}

/// One `<ActivitySummary>`: a day of the Activity rings, its totals and goals.
///
/// The day is a calendar date without a time or zone (`dateComponents="2016-11-15"`):
/// the day as the person lived it.
public struct ExportActivitySummary: Sendable, Hashable {
  /// `dateComponents`.
  public var date: LocalDate
  /// `activeEnergyBurned` (the Move ring), in ``activeEnergyBurnedUnit``.
  public var activeEnergyBurned: Double?
  /// `activeEnergyBurnedGoal`.
  public var activeEnergyBurnedGoal: Double?
  /// `activeEnergyBurnedUnit` (`kcal`, `Cal`, `kJ`).
  public var activeEnergyBurnedUnit: String?
  /// `appleMoveTime` in minutes (Move ring in minutes; `appleMoveMinutes` before iOS 14).
  public var appleMoveTime: Double?
  /// `appleMoveTimeGoal` (`appleMoveMinutesGoal` before iOS 14).
  public var appleMoveTimeGoal: Double?
  /// `appleExerciseTime` in minutes (the Exercise ring).
  public var appleExerciseTime: Double?
  /// `appleExerciseTimeGoal`.
  public var appleExerciseTimeGoal: Double?
  /// `appleStandHours` (the Stand ring).
  public var appleStandHours: Double?
  /// `appleStandHoursGoal`.
  public var appleStandHoursGoal: Double?
  /// Where the element is.
  public var location: SourceLocation

  /// Creates a summary with no values.
  public init(date: LocalDate, location: SourceLocation) {
    self.date = date
    self.location = location
  }
}

/// One `<Correlation>`: records taken together (a blood-pressure reading's
/// systolic and diastolic values, a meal's nutrients).
///
/// Its member records are repeated as top-level `<Record>`s by the export:
/// never add the two together.
public struct ExportCorrelation: Sendable, Hashable {
  /// `type`: `HKCorrelationTypeIdentifierBloodPressure`, `HKCorrelationTypeIdentifierFood`.
  public var type: String
  /// The source, device and creation date.
  public var origin: ExportOrigin
  /// `startDate`.
  public var start: ExportTimestamp
  /// `endDate`.
  public var end: ExportTimestamp
  /// Its own `<MetadataEntry>` children.
  public var metadata: [ExportRecord.MetadataEntry]
  /// The member `<Record>`s, with their metadata, in file order.
  public var records: [ExportRecord]
  /// Where the `<Correlation>` start tag is.
  public var location: SourceLocation

  /// Creates a correlation with no members.
  public init(
    type: String, origin: ExportOrigin, start: ExportTimestamp, end: ExportTimestamp, location: SourceLocation
  ) {
    self.type = type
    self.origin = origin
    self.start = start
    self.end = end
    self.location = location
    metadata = []
    records = []
  }
}
