import StepKitCore

/// Builds the rare top-level elements (``ExportElement``: `<Workout>`,
/// `<ActivitySummary>`, `<Correlation>`) from their tags, one tag at a time,
/// as the decoder meets them.
///
/// Clarity over speed: a handful of these come per day of data, so every
/// attribute is a `String`. An element that cannot be read as written (a
/// required attribute missing, a date or number that does not parse, an end
/// before its start) is not handed out: it is reported in ``invalid`` with its
/// line and column and its children are passed over. A child that cannot be
/// read (a `<WorkoutEvent>` without a date) is reported and left out; its
/// element is kept.
struct ElementAssembler {
  /// A tag's attributes, entity references decoded, in file order.
  typealias Attributes = [(name: String, value: String)]

  /// The elements left out, and why.
  private(set) var invalid = InvalidSampleReport()

  /// The element being built.
  private enum Open {
    case workout(ExportWorkout)
    case correlation(ExportCorrelation)
    /// An element found invalid: its children are passed over.
    case skipped
  }

  /// What the last child (one level below the element) was, for its own children.
  private enum LastChild {
    case event, route, activity, record, other
  }

  private var open: Open?
  private var lastChild = LastChild.other

  /// Whether an element is being built (its end tag not yet met).
  var isOpen: Bool { open != nil }

  /// Whether a top-level tag named `name` starts an element this assembles.
  static func assembles(_ name: String) -> Bool {
    name == "Workout" || name == "ActivitySummary" || name == "Correlation"
  }

  /// Whether a tag named `name` needs its attributes: an old route's
  /// thousands of inline `<Location>` points are only counted.
  static func needsAttributes(_ name: String) -> Bool { name != "Location" }

  // MARK: - Tags

  /// A top-level start tag whose name ``assembles(_:)``.
  ///
  /// - Returns: The element, when the tag is self-closing and valid.
  mutating func start(
    _ name: String, attributes: Attributes, selfClosing: Bool, location: SourceLocation
  ) -> ExportElement? {
    lastChild = .other
    var fields = Fields(attributes, location: location)
    switch name {
    case "ActivitySummary":
      // Always empty in the DTD; a child, if any, is passed over.
      if !selfClosing { open = .skipped }
      guard let summary = activitySummary(&fields) else { return reject(fields) }
      return .activitySummary(summary)
    case "Workout":
      guard let workout = workout(&fields) else { return reject(fields, selfClosing: selfClosing) }
      if selfClosing { return .workout(workout) }
      open = .workout(workout)
    case "Correlation":
      guard let correlation = correlation(&fields) else { return reject(fields, selfClosing: selfClosing) }
      if selfClosing { return .correlation(correlation) }
      open = .correlation(correlation)
    default:
      break
    }
    return nil
  }

  /// A start tag inside the open element, `parents` elements deep (2 for its
  /// children, 3 for theirs).
  mutating func child(_ name: String, parents: Int, attributes: Attributes, location: SourceLocation) {
    guard let element = open else { return }
    var fields = Fields(attributes, location: location)
    switch element {
    case .skipped:
      return
    case .workout(var workout):
      open = .skipped  // not copied while it changes
      workoutChild(name, parents: parents, &fields, into: &workout)
      open = .workout(workout)
    case .correlation(var correlation):
      open = .skipped
      correlationChild(name, parents: parents, &fields, into: &correlation)
      open = .correlation(correlation)
    }
  }

  /// The end tag of the open element.
  ///
  /// - Returns: The element, unless it was found invalid.
  mutating func end() -> ExportElement? {
    defer { open = nil }
    switch open {
    case .workout(let workout): return .workout(workout)
    case .correlation(let correlation): return .correlation(correlation)
    case .skipped, nil: return nil
    }
  }

  private mutating func reject(_ fields: Fields, selfClosing: Bool = true) -> ExportElement? {
    if let problem = fields.problem { invalid.record(problem) }
    if !selfClosing { open = .skipped }
    return nil
  }

  // MARK: - Elements

  private func workout(_ fields: inout Fields) -> ExportWorkout? {
    guard let activityType = fields.required("workoutActivityType"), let origin = fields.origin(),
      let (start, end) = fields.span()
    else { return nil }
    var workout = ExportWorkout(
      activityType: activityType, origin: origin, start: start, end: end, location: fields.location)
    workout.duration = fields.quantity("duration", unit: "durationUnit")
    workout.totalDistance = fields.quantity("totalDistance", unit: "totalDistanceUnit")
    workout.totalEnergyBurned = fields.quantity("totalEnergyBurned", unit: "totalEnergyBurnedUnit")
    return fields.problem == nil ? workout : nil
  }

  private func activitySummary(_ fields: inout Fields) -> ExportActivitySummary? {
    guard let text = fields.required("dateComponents") else { return nil }
    guard let date = LocalDate(text) else {
      fields.fail(.unparsableDate(text))
      return nil
    }
    var summary = ExportActivitySummary(date: date, location: fields.location)
    summary.activeEnergyBurned = fields.number("activeEnergyBurned")
    summary.activeEnergyBurnedGoal = fields.number("activeEnergyBurnedGoal")
    summary.activeEnergyBurnedUnit = fields.text("activeEnergyBurnedUnit")
    // iOS 14 renamed appleMoveMinutes to appleMoveTime.
    summary.appleMoveTime = fields.number("appleMoveTime") ?? fields.number("appleMoveMinutes")
    summary.appleMoveTimeGoal = fields.number("appleMoveTimeGoal") ?? fields.number("appleMoveMinutesGoal")
    summary.appleExerciseTime = fields.number("appleExerciseTime")
    summary.appleExerciseTimeGoal = fields.number("appleExerciseTimeGoal")
    summary.appleStandHours = fields.number("appleStandHours")
    summary.appleStandHoursGoal = fields.number("appleStandHoursGoal")
    return fields.problem == nil ? summary : nil
  }

  private func correlation(_ fields: inout Fields) -> ExportCorrelation? {
    guard let type = fields.required("type"), let origin = fields.origin(), let (start, end) = fields.span()
    else { return nil }
    return ExportCorrelation(type: type, origin: origin, start: start, end: end, location: fields.location)
  }

  // MARK: - Children

  // A workout's and a correlation's children start alike (metadata first), apart on purpose: each
  // parent has children of its own kinds, and the assembler is part of the scan, a hot path.

  private mutating func workoutChild(
    _ name: String, parents: Int, _ fields: inout Fields, into workout: inout ExportWorkout
  ) {
    if parents == 2 {
      lastChild = .other
      switch name {
      case "MetadataEntry":
        if let entry = metadataEntry(&fields) { workout.metadata.append(entry) }
      case "WorkoutEvent":
        guard let type = fields.required("type"), let date = fields.date("date") else { break }
        let duration = fields.quantity("duration", unit: "durationUnit")
        guard fields.problem == nil else { break }
        workout.events.append(ExportWorkout.Event(type: type, date: date, duration: duration))
        lastChild = .event
      case "WorkoutStatistics":
        guard let type = fields.required("type"), let (start, end) = fields.span() else { break }
        let statistics = ExportWorkout.Statistics(
          type: type, start: start, end: end, average: fields.number("average"),
          minimum: fields.number("minimum"), maximum: fields.number("maximum"), sum: fields.number("sum"),
          unit: fields.text("unit"))
        guard fields.problem == nil else { break }
        workout.statistics.append(statistics)
      case "WorkoutRoute":
        guard let origin = fields.origin() else { break }
        let route = ExportWorkout.Route(
          origin: origin, start: fields.optionalDate("startDate"), end: fields.optionalDate("endDate"))
        guard fields.problem == nil else { break }
        workout.routes.append(route)
        lastChild = .route
      case "WorkoutActivity":
        guard let uuid = fields.required("uuid"), let start = fields.date("startDate") else { break }
        let activity = ExportWorkout.Activity(
          uuid: uuid, start: start, end: fields.optionalDate("endDate"),
          duration: fields.quantity("duration", unit: "durationUnit"))
        guard fields.problem == nil else { break }
        workout.activities.append(activity)
        lastChild = .activity
      default:
        break
      }
    } else if parents == 3 {
      switch (name, lastChild) {
      case ("MetadataEntry", .event):
        if let entry = metadataEntry(&fields) {
          workout.events[workout.events.count - 1].metadata.append(entry)
        }
      case ("MetadataEntry", .route):
        if let entry = metadataEntry(&fields) {
          workout.routes[workout.routes.count - 1].metadata.append(entry)
        }
      case ("MetadataEntry", .activity):
        if let entry = metadataEntry(&fields) {
          workout.activities[workout.activities.count - 1].metadata.append(entry)
        }
      case ("FileReference", .route):
        if let path = fields.required("path") { workout.routes[workout.routes.count - 1].filePath = path }
      case ("Location", .route):
        workout.routes[workout.routes.count - 1].inlinePoints += 1
      default:
        break
      }
    }
    if let problem = fields.problem { invalid.record(problem) }
  }

  private mutating func correlationChild(
    _ name: String, parents: Int, _ fields: inout Fields, into correlation: inout ExportCorrelation
  ) {
    if parents == 2 {
      lastChild = .other
      switch name {
      case "MetadataEntry":
        if let entry = metadataEntry(&fields) { correlation.metadata.append(entry) }
      case "Record":
        // Checked as the top-level copy of the record is: a type, a source and dates.
        guard fields.required("type") != nil, fields.origin() != nil, fields.span() != nil else { break }
        correlation.records.append(
          ExportRecord(
            attributes: Dictionary(fields.attributes, uniquingKeysWith: { first, _ in first }),
            location: fields.location))
        lastChild = .record
      default:
        break
      }
    } else if parents == 3, name == "MetadataEntry", lastChild == .record {
      if let entry = metadataEntry(&fields) {
        correlation.records[correlation.records.count - 1].metadata.append(entry)
      }
    }
    if let problem = fields.problem { invalid.record(problem) }
  }

  private func metadataEntry(_ fields: inout Fields) -> ExportRecord.MetadataEntry? {
    guard let key = fields.required("key") else { return nil }
    return ExportRecord.MetadataEntry(key: key, value: fields.text("value") ?? "")
  }
}

extension ElementAssembler {
  /// A tag's attributes read by name, with the first problem found.
  struct Fields {
    let attributes: Attributes
    let location: SourceLocation
    /// Why the tag cannot be read, once found.
    private(set) var problem: InvalidSample?

    init(_ attributes: Attributes, location: SourceLocation) {
      self.attributes = attributes
      self.location = location
    }

    mutating func fail(_ reason: InvalidSample.Reason) {
      if problem == nil { problem = InvalidSample(reason: reason, location: location) }
    }

    /// The attribute's value, when present.
    func text(_ name: String) -> String? {
      attributes.first { $0.name == name }?.value
    }

    /// The attribute's value; a missing one is the tag's problem.
    mutating func required(_ name: String) -> String? {
      guard let value = text(name) else {
        fail(.missingAttribute(name))
        return nil
      }
      return value
    }

    /// The attribute as a date; a missing or unreadable one is the tag's problem.
    mutating func date(_ name: String) -> ExportTimestamp? {
      guard let text = required(name) else { return nil }
      guard let date = ExportTimestamp(text) else {
        fail(.unparsableDate(text))
        return nil
      }
      return date
    }

    /// The attribute as a date when present; an unreadable one is the tag's problem.
    mutating func optionalDate(_ name: String) -> ExportTimestamp? {
      text(name) == nil ? nil : date(name)
    }

    /// `startDate` and `endDate`, the end not before the start.
    mutating func span() -> (ExportTimestamp, ExportTimestamp)? {
      guard let start = date("startDate"), let end = date("endDate") else { return nil }
      guard end.epochMilliseconds >= start.epochMilliseconds else {
        fail(.endBeforeStart)
        return nil
      }
      return (start, end)
    }

    /// The attribute as a finite number when present; an unreadable one is the tag's problem.
    mutating func number(_ name: String) -> Double? {
      guard let text = text(name) else { return nil }
      guard let value = ElementAssembler.number(text) else {
        fail(.unparsableValue(text))
        return nil
      }
      return value
    }

    /// A number attribute with its unit attribute, when the number is present.
    mutating func quantity(_ name: String, unit: String) -> ExportQuantity? {
      number(name).map { ExportQuantity(value: $0, unit: text(unit)) }
    }

    /// `sourceName` (iOS 8 and 9: `source`), `sourceVersion`, `device` and `creationDate`.
    mutating func origin() -> ExportOrigin? {
      guard let source = text("sourceName") ?? text("source") else {
        fail(.missingAttribute("sourceName"))
        return nil
      }
      return ExportOrigin(
        sourceName: source, sourceVersion: text("sourceVersion"), deviceDescription: text("device"),
        creationDate: optionalDate("creationDate"))
    }
  }

  /// A decimal number as exports write them (`48.74499999999999`, `-1`, `1e3`);
  /// `nil` for anything else, `nan` and `inf` included.
  static func number(_ text: String) -> Double? {
    guard let first = text.utf8.first,
      first == UInt8(ascii: "-") || first == UInt8(ascii: ".")
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
      let value = Double(text), value.isFinite
    else { return nil }
    return value
  }
}
