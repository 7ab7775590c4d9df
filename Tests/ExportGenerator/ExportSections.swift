/// The order an export's elements are written in (`--order`).
enum ExportOrder: String, CaseIterable {
  /// As an iPhone writes export.xml: every `Record` grouped by type, the types in the order a
  /// phone-made export lists them, each type's records in time order with the sources
  /// interleaved as they fall; then the `Correlation`s, the `Workout`s and the
  /// `ActivitySummary`s.
  case type
  /// Day by day, every type interleaved: the generator's order before `--order type` existed.
  case time
}

/// Where a top-level element goes in an export written in ``ExportOrder/type`` order.
///
/// A phone-made export lists its record types in blocks: blood glucose, body mass, heart rate,
/// step count, walking and running distance, basal energy, active energy, flights climbed,
/// dietary types, cycling distance, sleep, mindful sessions; then every `Correlation`, then
/// every `Workout`. The types that export lacks come right after the type of their family it
/// has; activity summaries, which it lacks too, after the workouts, as the DTD's content model
/// lists them.
enum ExportSection {
  /// The record types in the order they are written.
  static let recordTypes = [
    "HKQuantityTypeIdentifierHeartRate",
    "HKQuantityTypeIdentifierHeartRateVariabilitySDNN",
    "HKQuantityTypeIdentifierBloodPressureSystolic",
    "HKQuantityTypeIdentifierBloodPressureDiastolic",
    "HKQuantityTypeIdentifierStepCount",
    "HKQuantityTypeIdentifierDistanceWalkingRunning",
    "HKQuantityTypeIdentifierWalkingSpeed",
    "HKQuantityTypeIdentifierWalkingStepLength",
    "HKQuantityTypeIdentifierBasalEnergyBurned",
    "HKQuantityTypeIdentifierActiveEnergyBurned",
    "HKQuantityTypeIdentifierFlightsClimbed",
    "HKQuantityTypeIdentifierHeadphoneAudioExposure",
  ]
  /// The other top-level elements, after the records, in the order they are written.
  static let otherElements = ["Correlation", "Workout", "ActivitySummary"]

  private static let indices: [String: Int] = Dictionary(
    uniqueKeysWithValues: (recordTypes + otherElements).enumerated().map { ($1, $0) })

  /// The number of sections.
  static var count: Int { recordTypes.count + otherElements.count }

  /// The section of a `Record` of `type`, or of any other element named `element`.
  static func index(element: String, type: String) -> Int {
    let key = element == "Record" ? type : element
    guard let index = indices[key] else {
      preconditionFailure("\(key) has no place in a type-ordered export: add it to ExportSection")
    }
    return index
  }
}

/// The sinks an export's elements are written to. In ``ExportOrder/time`` order every section
/// is the document's own sink; in ``ExportOrder/type`` order each section has a sink of its own
/// that spills to a temporary file, and ``finish()`` copies the files into the document in
/// section order, so memory stays a few buffers however large the export. There each day's
/// elements of a section are put in the order of their start (``beginElement(_:)``,
/// ``noteStart(_:)``, ``finishDay()``), as a phone's database holds them: its own samples and
/// the watch's interleaved by time.
final class SectionSinks {
  /// The document: the header and footer, and in type order every section at the end.
  let document: ByteSink
  private let sinks: [ByteSink]
  private let spills: [FileOutput]
  /// Per section, the day's elements: their start (seconds since 1970) and byte offset.
  private var elements: [[(start: Int64, offset: Int64)]]
  /// The section whose last element has no start yet.
  private var awaitingStart: Int?

  /// - Parameters:
  ///   - document: Where the export goes.
  ///   - order: The order of its elements.
  ///   - spillDirectory: Where type order's temporary files go (unlinked as they are made).
  init(document: ByteSink, order: ExportOrder, spillDirectory: String) throws {
    self.document = document
    elements = Array(repeating: [], count: ExportSection.count)
    switch order {
    case .time:
      spills = []
      sinks = Array(repeating: document, count: ExportSection.count)
    case .type:
      spills = try (0..<ExportSection.count).map { _ in try FileOutput.temporary(in: spillDirectory) }
      // A day of one section is well under a megabyte; the sinks flush between days.
      sinks = spills.map { ByteSink(outputs: [$0], capacity: 4 << 20, flushThreshold: 1 << 20) }
    }
  }

  /// The sink of section `index` (an ``ExportSection`` index).
  func sink(_ index: Int) -> ByteSink { sinks[index] }

  /// Every byte written so far, the document's and the sections'.
  var writtenBytes: Int64 {
    spills.isEmpty ? document.writtenBytes : sinks.reduce(document.writtenBytes) { $0 + $1.writtenBytes }
  }

  /// Notes that a top-level element of `section` begins (in type order, to sort the day by start).
  func beginElement(_ section: Int) {
    guard !spills.isEmpty else { return }
    elements[section].append((start: .max, offset: sinks[section].writtenBytes))
    awaitingStart = section
  }

  /// The start of the element begun last, if it has none yet (the first date an element writes
  /// after its creation date is its own; its children's come later).
  func noteStart(_ secondsSince1970: Int64) {
    guard let section = awaitingStart else { return }
    elements[section][elements[section].count - 1].start = secondsSince1970
    awaitingStart = nil
  }

  /// Flushes the document when it holds enough (in type order the sections wait for the day's end).
  func flushIfNeeded() throws {
    if spills.isEmpty { try document.flushIfNeeded() }
  }

  /// Ends a day: in type order puts each section's elements of the day in the order of their
  /// start (ties in the order they were made) and flushes the sinks that hold enough.
  func finishDay() throws {
    guard !spills.isEmpty else { return try document.flushIfNeeded() }
    for (section, sink) in sinks.enumerated() {
      let day = elements[section]
      let order = day.indices.sorted { (day[$0].start, $0) < (day[$1].start, $1) }
      if order != Array(day.indices) { sink.reorder(elementsAt: day.map(\.offset), order: order) }
      elements[section].removeAll(keepingCapacity: true)
      try sink.flushIfNeeded()
    }
  }

  /// Copies the sections into the document, in order, and closes their files.
  func finish() throws {
    for (sink, spill) in zip(sinks, spills) {
      try sink.flush()
      try document.append(contentsOf: spill, count: sink.totalBytes)
      try spill.finish()
    }
  }
}
