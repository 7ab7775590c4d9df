import Foundation
@_spi(ExportReading) import StepKitCore

/// Turns the scanner's tags into samples (or records): the `<HealthData>`
/// root, `<ExportDate>`, `<Me>`, and top-level `<Record>`s with their
/// `<MetadataEntry>` children.
///
/// A record's `type` decides whether anything else of it is decoded: every
/// type but steps and walking + running distance is passed over without a
/// single `String` being made. Records inside a `<Correlation>` are never
/// counted: the export repeats them at the top level.
struct ExportDecoder: ~Copyable {
  /// What the decoder produces.
  enum Mode {
    /// Step and distance samples into ``log``.
    case samples
    /// ``ExportRecord`` values of these types (all when `nil`).
    case records(Set<String>?)
    /// Every top-level element, as byte spans (``ExportElement``), handed
    /// out by ``handOutElement(_:)`` after each ``Event/element``.
    case elements
    /// The top-level `<Record>`s whose `type` is one of the filter's
    /// identifiers, handed out as ``elements`` hands records out; every other
    /// record is passed over on its `type` alone (see `fastTypedRecord()`),
    /// and workouts, summaries and correlations are not assembled.
    case typedRecords(RecordTypeFilter)
  }

  /// What ``step()`` stopped at.
  enum Event {
    case record(ExportRecord)
    /// A whole-export element is ready (``Mode/elements``): take it with ``handOutElement(_:)``.
    case element
    case finished
    /// The end of a range that stops at a seam; `clean` when the scan ended
    /// there at top level with no record unfinished, and nothing met that a
    /// speculative decoder may not decide alone.
    case seam(clean: Bool)
  }

  /// How a decoder that starts part way through an export picks up.
  struct Resumption: Sendable {
    /// Where the scanner starts.
    var scan: XMLScanner.ResumePoint
    /// What the export said about itself before that point, and the counts so
    /// far (all zero for a stretch counted on its own).
    var info: ExportInfo
    /// The export date, in milliseconds since 1970, when it was read.
    var exportedAtMs: Int64?
    /// Whether the state before this point is assumed rather than known: an
    /// `<ExportDate>`, `<Me>` or a second root then ends the range unclean,
    /// since they change what the stretches after them decode.
    var speculative: Bool
  }

  var scanner: XMLScanner
  private let mode: Mode
  /// ``Mode/typedRecords(_:)``'s filter (empty in the other modes), kept
  /// apart so that reading it borrows it: taking it out of the mode's payload
  /// at each start tag retained and released its two arrays.
  let typeFilter: RecordTypeFilter
  /// Every record is wanted whole (``Mode/elements``): ``typeFilter`` is not asked.
  private let wantsEveryType: Bool
  /// The samples read so far (``Mode/samples``). For a log that counts
  /// several types at once (``SampleLog/typeLogs``), while ``step()`` reads:
  /// the log of the type being read (see ``typeLogs``).
  var log = SampleLog()
  /// While ``step()`` reads into a log that counts several types at once:
  /// its ``SampleLog/typeLogs``, taken out, but for the one of ``activeType``,
  /// which is in ``log``, and whose place holds the log they were taken from
  /// (``typeLogsTaken``). Records of a type go to its log as if it alone were
  /// read: the same decoding, checks and origins (its own ``origins`` cache).
  var typeLogs: [SampleLog] = []
  /// The origin caches of ``typeLogs``, alike (``origins`` holds the active one's).
  var typeOrigins: [OriginCache] = []
  /// Which of ``typeLogs`` is in ``log``.
  var activeType = 0
  /// Whether ``typeLogs`` are taken out (see ``takeTypeLogs()``).
  var typeLogsTaken = false
  /// What the export says about itself.
  var info: ExportInfo
  var origins = OriginCache()
  var dayCache = ExportDateParser.DayCache()
  private var devices: [[UInt8]: Device?] = [:]
  /// The last `device` of a record read into the arena (``Mode/elements``, ``Mode/typedRecords(_:)``).
  private var deviceMemo = DeviceTextMemo()
  private var progress: (@Sendable (ExportProgress) -> Void)?
  private var lastProgressRefills = 0
  private var lastProgressTime: UInt64 = 0

  /// A step or distance record whose children are still to come.
  struct PendingSample {
    var kind: QuantityKind
    var startMs: Int64
    var endMs: Int64
    var value: Double
    var utcOffsetSeconds: Int
    var origin: OriginID
    var userEntered: Bool
  }

  /// The export date: a sample that starts later comes from a wrong clock.
  var exportedAtMs: Int64?
  var pendingSample: PendingSample?
  /// Where the values of a record read straight from its bytes start and
  /// end, two per ``RecordAttribute`` (see `fastSampleRecord(countsOneType:)`).
  let valueBounds = UnsafeMutablePointer<Int>.allocate(capacity: 2 * ExpectedAttributes.maximumCount)
  /// Where the pending sample's record starts; found only for a sample the log
  /// will turn away. Kept beside it, so that the sample itself stays a few
  /// plain words to copy.
  var pendingLocation: SourceLocation?
  private var pendingRecord: ExportRecord?
  /// The record being read in ``Mode/elements``: its bytes, and what was parsed of them.
  private let arena: RecordArena?
  private struct PendingElement {
    var startMs: Int64
    var endMs: Int64
    var utcOffsetSeconds: Int
    var creationMs: Int64?
    var number: Double?
  }
  /// A valid record whose children are still to come (``Mode/elements``).
  private var pendingElement: PendingElement?
  /// A record complete and not yet handed out (``Mode/elements``).
  private var readyElement: PendingElement?
  /// The records of ``Mode/elements`` not handed out, and why.
  private(set) var invalidElements = InvalidSampleReport()
  /// Builds workouts, activity summaries and correlations (``Mode/elements``).
  private var assembler: ElementAssembler?
  /// A workout, summary or correlation complete and not yet handed out.
  private var readyOther: ExportElement?
  /// The records ``handOutElement(_:)`` handed out.
  private(set) var elementsHandedOut = 0
  /// Set by a speculative decoder that met what it may not decide alone.
  private var doubtful = false
  /// How many records were read straight from their bytes (see `fastSampleRecord(countsOneType:)`).
  var recordsReadFast = 0
  /// How many of those were wanted records read into the arena (`fastWholeRecord()`).
  var recordsDecodedStraight = 0
  private var speculative = false

  /// The export date, in milliseconds since 1970, once read and parsed.
  var exportDateMilliseconds: Int64? { exportedAtMs }
  /// The scanner's position and counts (see ``XMLScanner/resumePoint``).
  var scannerResumePoint: XMLScanner.ResumePoint { scanner.resumePoint }

  ///
  /// With `fastRecords` (and ``Mode/samples``), a `<Record>` inside the root
  /// is handed out before its attributes are lexed, and one written as Apple
  /// writes step and distance records is read straight from its bytes (see
  /// `fastSampleRecord(countsOneType:)`); without it, every tag is lexed first. The results
  /// are the same either way.
  init(
    source: any ByteChunkSource, mode: Mode, xmlEntryName: String? = nil,
    bufferBytes: Int = XMLScanner.defaultBufferBytes,
    maximumTokenBytes: Int = XMLScanner.defaultMaximumTokenBytes,
    fastRecords: Bool = true,
    progress: (@Sendable (ExportProgress) -> Void)? = nil
  ) {
    scanner = XMLScanner(source: source, bufferBytes: bufferBytes, maximumTokenBytes: maximumTokenBytes)
    switch mode {
    case .samples where fastRecords, .typedRecords where fastRecords, .elements where fastRecords:
      let name: StaticString = "Record"
      scanner.deferredTagName = TagName(name.utf8Start, length: name.utf8CodeUnitCount)
    default: break
    }
    self.mode = mode
    if case .elements = mode { wantsEveryType = true } else { wantsEveryType = false }
    if case .typedRecords(let filter) = mode {
      typeFilter = filter
    } else {
      typeFilter = RecordTypeFilter([])
    }
    switch mode {
    case .elements:
      arena = RecordArena()
      assembler = ElementAssembler()
    case .typedRecords:
      arena = RecordArena()
    case .samples, .records:
      arena = nil
    }
    info = ExportInfo(fileName: source.displayName, xmlEntryName: xmlEntryName)
    self.progress = progress
  }

  /// A decoder for `source`, a stretch of an export: it starts at
  /// `resumption`, and with `stopsAtSeam` it reports the stretch's end as
  /// ``Event/seam(clean:)`` instead of checking it as the end of the XML.
  init(
    source: any ByteChunkSource, resuming resumption: Resumption?, stopsAtSeam: Bool,
    bufferBytes: Int = XMLScanner.defaultBufferBytes,
    progress: (@Sendable (ExportProgress) -> Void)? = nil
  ) {
    self.init(source: source, mode: .samples, bufferBytes: bufferBytes, progress: progress)
    scanner.stopsAtSeam = stopsAtSeam
    if let resumption {
      scanner.resume(at: resumption.scan)
      info = resumption.info
      exportedAtMs = resumption.exportedAtMs
      speculative = resumption.speculative
    }
  }

  deinit { valueBounds.deallocate() }

  /// Lets a decoder that returned ``Event/seam(clean:)`` read on, once its
  /// source has been given more bytes (see ``XMLScanner/readPastRangeEnd(stopsAtSeam:)``).
  mutating func readPastRangeEnd(stopsAtSeam: Bool) {
    scanner.readPastRangeEnd(stopsAtSeam: stopsAtSeam)
  }

  /// Reads on until a record to hand out (``Mode/records``) or the end.
  ///
  /// - Throws: The scanner's ``HealthExportError``s.
  mutating func step() throws -> Event {
    if !log.typeLogs.isEmpty { takeTypeLogs() }
    defer { if typeLogsTaken { returnTypeLogs() } }
    while true {
      let token = try scanner.next()
      if progress != nil, scanner.refills != lastProgressRefills { reportProgress(final: false) }
      switch token {
      case .startTag:
        // Samples need no record handed out: their path returns nothing to copy.
        switch mode {
        case .samples:
          try sampleStartTag()
        case .records(let types):
          if let record = try recordStartTag(types: types) { return .record(record) }
        case .elements:
          if try wholeExportStartTag() || readyOther != nil { return .element }
        case .typedRecords:
          if try typedRecordStartTag() { return .element }
        }
      case .endTag:
        if scanner.depth == 1 {
          if let pending = pendingSample {
            pendingSample = nil
            appendSample(pending, location: pendingLocation)
            pendingLocation = nil
          } else if let record = pendingRecord {
            pendingRecord = nil
            return .record(record)
          } else if let element = pendingElement {
            pendingElement = nil
            readyElement = element
            return .element
          } else if assembler?.isOpen == true {
            readyOther = assembler?.end()
            if readyOther != nil { return .element }
          }
        }
      case .endOfInput:
        info.skippedControlCharacters = scanner.controlCharacters
        info.exportVersion = scanner.exportVersion
        info.xmlByteCount = scanner.bytesRead
        if progress != nil { reportProgress(final: true) }
        return .finished
      case .endOfRange(let atTopLevel):
        info.skippedControlCharacters = scanner.controlCharacters
        info.exportVersion = scanner.exportVersion
        info.xmlByteCount = scanner.bytesRead
        return .seam(clean: atTopLevel && pendingSample == nil && pendingRecord == nil)
      }
      if doubtful { return .seam(clean: false) }
    }
  }

  // MARK: - Start tags

  /// Handles a start tag in ``Mode/samples``.
  @inline(__always)
  private mutating func sampleStartTag() throws {
    if scanner.isDeferred {
      // A top-level `<Record>`, its attributes not lexed yet; the records after it, one by one, as
      // long as they are read straight from their bytes.
      // Asked once for the records read in a row here, not once per record.
      let countsOneType = log.countedType != nil
      while fastSampleRecord(countsOneType: countsOneType) {
        guard scanner.deferNextTag() else { return }
      }
      guard try scanner.lexDeferredTag() else { return }
    }
    // The number of elements enclosing this one.
    let parents = scanner.isSelfClosing ? scanner.depth : scanner.depth - 1
    if parents == 1, scanner.nameIs("Record") {
      info.recordCount += 1
      try sampleRecord()
    } else {
      try otherStartTag(parents: parents)
    }
  }

  /// Handles a start tag in ``Mode/records``; returns a finished record.
  private mutating func recordStartTag(types: Set<String>?) throws -> ExportRecord? {
    let parents = scanner.isSelfClosing ? scanner.depth : scanner.depth - 1
    if parents == 1, scanner.nameIs("Record") {
      info.recordCount += 1
      return try exportRecord(types: types)
    }
    try otherStartTag(parents: parents)
    return nil
  }

  /// Handles a start tag other than a top-level `<Record>`, `parents`
  /// elements deep: the root, `<ExportDate>`, `<Me>`, a record's `<MetadataEntry>`.
  private mutating func otherStartTag(parents: Int) throws {
    if assembler != nil, try assembleStartTag(parents: parents) { return }
    if parents == 1 {
      if scanner.nameIs("ExportDate") {
        if speculative { doubtful = true }
        try exportDate()
      } else if scanner.nameIs("Me") {
        if speculative { doubtful = true }
        try me()
      }
      return
    }
    if parents == 2, scanner.nameIs("MetadataEntry") {
      if pendingSample != nil {
        try sampleMetadata()
      } else if pendingRecord != nil {
        try recordMetadata()
      }
      return
    }
    if parents == 0 {
      if speculative { doubtful = true }
      guard scanner.nameIs("HealthData") else {
        throw HealthExportError.notAHealthExport(file: scanner.fileName)
      }
      try checkDistinctAttributeNames()
      var cursor = scanner.nameEnd
      while let attribute = try scanner.nextAttribute(&cursor) {
        if scanner.attributeNameIs(attribute, "locale") { info.locale = try scanner.decodedValue(attribute) }
      }
    }
  }

  /// Throws when two attributes of the current start tag (the root or
  /// `<Me>`, whose attributes are all decoded) have one name.
  private mutating func checkDistinctAttributeNames() throws {
    try scanner.readAttributes()
    try scanner.checkDistinctAttributeNames()
  }

  private mutating func exportDate() throws {
    var cursor = scanner.nameEnd
    var seen = false
    while let attribute = try scanner.nextAttribute(&cursor) {
      guard scanner.attributeNameIs(attribute, "value") else { continue }
      if seen { throw scanner.duplicateAttribute(attribute) }
      seen = true
      let text = try scanner.decodedValue(attribute)
      info.exportDate = text
      if let parsed = ExportDateParser.parse(text) {
        info.exportedAt = Date(epochMilliseconds: parsed.epochMilliseconds)
        info.exportUTCOffsetSeconds = parsed.utcOffsetSeconds
        exportedAtMs = parsed.epochMilliseconds
      }
    }
  }

  private mutating func me() throws {
    try checkDistinctAttributeNames()
    var cursor = scanner.nameEnd
    while let attribute = try scanner.nextAttribute(&cursor) {
      let raw = try scanner.decodedValue(attribute)
      let value: String? = raw.isEmpty ? nil : raw
      if scanner.attributeNameIs(attribute, "HKCharacteristicTypeIdentifierDateOfBirth") {
        info.me.dateOfBirth = value
      } else if scanner.attributeNameIs(attribute, "HKCharacteristicTypeIdentifierBiologicalSex") {
        info.me.biologicalSex = value
      } else if scanner.attributeNameIs(attribute, "HKCharacteristicTypeIdentifierBloodType") {
        info.me.bloodType = value
      } else if scanner.attributeNameIs(attribute, "HKCharacteristicTypeIdentifierFitzpatrickSkinType") {
        info.me.fitzpatrickSkinType = value
      } else if scanner.attributeNameIs(
        attribute, "HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse")
      {
        info.me.cardioFitnessMedicationsUse = value
      }
    }
  }

  // MARK: - Step and distance samples

  /// Where a record's attributes lie: indices for ``XMLScanner/attribute(_:)``, -1 for none.
  private struct RecordLayout {
    /// The first `type`.
    var type = -1
    // The last of each name, as a repeated attribute has always been read.
    var sourceName = -1
    /// iOS 8's name for `sourceName`.
    var legacySource = -1
    var device = -1
    var unit = -1
    var startDate = -1
    var endDate = -1
    var value = -1
    /// iOS 8 and 9 wrote the flag as an attribute rather than a MetadataEntry.
    var userEntered = -1
    /// Attributes named with spaces (iOS 8's third-party metadata).
    var malformedAttributes = 0
  }

  /// Record layouts already worked out, by the scanner's ``AttributeLayout``:
  /// records of a few layouts (with or without a device, with children or
  /// not) alternate, so a handful are kept.
  private var layoutKeys: [AttributeLayout] = []
  private var layouts: [RecordLayout] = []
  private var nextLayoutSlot = 0
  private static let keptLayouts = 4

  /// The attributes of a `<Record>`, in the order Apple's exports write
  /// them, any of them left out: what ``recordLayout(present:)`` reads.
  static let recordAttributeNames: [StaticString] = RecordAttribute.allCases.map(\.name)
  /// ``recordAttributeNames``, for ``XMLScanner/readAttributes(expecting:first:)``.
  var recordAttributes = ExpectedAttributes(recordAttributeNames)
  /// The last layout worked out from which of ``recordAttributes`` a record
  /// has (`UInt32.max`: none yet).
  private var expectedLayoutKey = UInt32.max
  private var expectedLayout = RecordLayout()

  /// The layout of a record that has the ``recordAttributeNames`` in
  /// `present` (one bit per name), in that order, and no other attributes.
  @inline(__always)
  private mutating func recordLayout(present: UInt32) -> RecordLayout {
    if present == expectedLayoutKey { return expectedLayout }
    // The attribute of the name at bit `k` is the tag's `n`-th, `n` the names present before it.
    func index(_ attribute: RecordAttribute) -> Int {
      present & attribute.bit == 0 ? -1 : (present & (attribute.bit &- 1)).nonzeroBitCount
    }
    var layout = RecordLayout()
    layout.type = index(.type)
    layout.sourceName = index(.sourceName)
    layout.device = index(.device)
    layout.unit = index(.unit)
    layout.startDate = index(.startDate)
    layout.endDate = index(.endDate)
    layout.value = index(.value)
    expectedLayoutKey = present
    expectedLayout = layout
    return layout
  }

  /// The layout of the current start tag's attributes.
  @inline(__always)
  private mutating func recordLayout() throws -> RecordLayout {
    guard let key = scanner.attributeLayout else { return try workOutRecordLayout() }
    for slot in layoutKeys.indices where layoutKeys[slot] == key { return layouts[slot] }
    let layout = try workOutRecordLayout()
    if layoutKeys.count < Self.keptLayouts {
      layoutKeys.append(key)
      layouts.append(layout)
    } else {
      layoutKeys[nextLayoutSlot] = key
      layouts[nextLayoutSlot] = layout
      nextLayoutSlot = (nextLayoutSlot + 1) % Self.keptLayouts
    }
    return layout
  }

  private func workOutRecordLayout() throws -> RecordLayout {
    // A layout met before had its names checked then (a layout fixes them).
    try scanner.checkDistinctAttributeNames()
    var layout = RecordLayout()
    for index in 0..<scanner.attributeCount {
      let attribute = scanner.attribute(index)
      if attribute.nameHasSpaces {
        layout.malformedAttributes += 1
        continue
      }
      switch attribute.nameEnd - attribute.nameStart {
      case 4 where scanner.attributeNameIs(attribute, "type"): if layout.type < 0 { layout.type = index }
      case 4 where scanner.attributeNameIs(attribute, "unit"): layout.unit = index
      case 5 where scanner.attributeNameIs(attribute, "value"): layout.value = index
      case 6 where scanner.attributeNameIs(attribute, "device"): layout.device = index
      case 6 where scanner.attributeNameIs(attribute, "source"): layout.legacySource = index
      case 7 where scanner.attributeNameIs(attribute, "endDate"): layout.endDate = index
      case 9 where scanner.attributeNameIs(attribute, "startDate"): layout.startDate = index
      case 10 where scanner.attributeNameIs(attribute, "sourceName"): layout.sourceName = index
      case 16 where scanner.attributeNameIs(attribute, "HKWasUserEntered"): layout.userEntered = index
      default: break
      }
    }
    return layout
  }

  /// Decodes a top-level `<Record>` if it is a step or distance record.
  @inline(__always)
  private mutating func sampleRecord() throws {
    // Apple writes `type` first: most records are passed over on it alone.
    var cursor = scanner.nameEnd
    let type: XMLAttribute
    if let first = scanner.expectedAttribute(" type=\"", at: &cursor) {
      type = first
    } else {
      try scanner.readAttributes()
      let layout = try recordLayout()
      guard layout.type >= 0 else { return }
      type = scanner.attribute(layout.type)
    }
    let kind: QuantityKind
    if let counted = log.countedType {
      // One chosen type, in the steps slot (``SampleLog/countedType``); or, counting several, the log of
      // the record's type.
      if !Self.isNamed(counted, by: scanner.rawValue(type)) {
        guard typeLogsTaken, let index = countedTypeIndex(ofValue: scanner.rawValue(type)) else { return }
        activateTypeLog(index)
      }
      kind = .steps
    } else if scanner.attributeValueIs(type, "HKQuantityTypeIdentifierStepCount") {
      kind = .steps
    } else if scanner.attributeValueIs(type, "HKQuantityTypeIdentifierDistanceWalkingRunning") {
      kind = .distance
    } else {
      return
    }
    if let present = try scanner.readAttributes(expecting: &recordAttributes, first: type) {
      try decodeSample(kind: kind, layout: recordLayout(present: present))
    } else {
      try decodeSample(kind: kind, layout: try recordLayout())
    }
  }

  private mutating func decodeSample(kind: QuantityKind, layout: RecordLayout) throws {
    info.stepAndDistanceRecords += 1
    info.malformedAttributes += layout.malformedAttributes
    @inline(__always) func attribute(_ index: Int) -> XMLAttribute? {
      index >= 0 ? scanner.attribute(index) : nil
    }
    let sourceName = attribute(layout.sourceName)
    let legacySource = attribute(layout.legacySource)
    let device = attribute(layout.device)
    let unit = attribute(layout.unit)
    let value = attribute(layout.value)
    let startDate = attribute(layout.startDate)
    let endDate = attribute(layout.endDate)
    let userEntered = try attribute(layout.userEntered).map { try userEnteredValue($0) } ?? false
    guard let source = sourceName ?? legacySource else { return invalid(.missingAttribute("sourceName")) }
    guard let startDate else { return invalid(.missingAttribute("startDate")) }
    guard let endDate else { return invalid(.missingAttribute("endDate")) }
    guard let value else { return invalid(.missingAttribute("value")) }
    guard let start = ExportDateParser.parse(scanner.rawValue(startDate), cache: &dayCache) else {
      return invalid(.unparsableDate(try scanner.decodedValue(startDate)))
    }
    guard let end = ExportDateParser.parse(scanner.rawValue(endDate), cache: &dayCache) else {
      return invalid(.unparsableDate(try scanner.decodedValue(endDate)))
    }
    guard var number = DecimalParser.parse(scanner.rawValue(value)) else {
      return invalid(.unparsableValue(try scanner.decodedValue(value)))
    }
    if let exportedAtMs, start.epochMilliseconds > exportedAtMs {
      return invalid(.startsAfterExport)
    }
    if start.epochMilliseconds < Self.earliestPlausibleStartMs {
      return invalid(.startsBeforeHealthKit)
    }
    // Distance in metres, or the counted type in its unit (``CanonicalUnit/factor(utf8:)``).
    if let canonical = log.countedType?.unit ?? (kind == .distance ? .metres : nil) {
      guard let unit else { return invalid(.missingAttribute("unit")) }
      if let factor = canonical.factor(utf8: scanner.rawValue(unit)) {
        number *= factor
      } else {
        // Entities in a unit name are possible, if never seen: decode and look again.
        let name = try scanner.decodedValue(unit)
        guard let factor = canonical.factor(name) else { return invalid(.unknownUnit(name)) }
        number *= factor
      }
    } else if let unit, !scanner.attributeValueIs(unit, "count") {
      let name = try scanner.decodedValue(unit)
      if name != "count" { return invalid(.notACount(name)) }
    }
    if end.epochMilliseconds >= start.epochMilliseconds,
      SampleLog.isImplausible(value: number, startMs: start.epochMilliseconds, endMs: end.epochMilliseconds)
    {
      return invalid(.implausibleValue)
    }
    let rawSource = scanner.rawValue(source)
    let rawDevice = device.map { scanner.rawValue($0) }
    let origin: OriginID
    if let cached = origins.find(source: rawSource, device: rawDevice) {
      origin = cached
    } else {
      let name = try scanner.decodedValue(source)
      var parsedDevice: Device?
      if let device, let rawDevice {
        let key = Array(rawDevice)
        if let known = devices[key] {
          parsedDevice = known
        } else {
          parsedDevice = Device(hkDeviceDescription: try scanner.decodedValue(device))
          devices[key] = parsedDevice
        }
      }
      guard let registered = log.origin(source: name, device: parsedDevice) else {
        return invalid(.tooManySources)
      }
      origins.insert(source: rawSource, device: rawDevice, origin: registered)
      origin = registered
    }
    let rejected =
      SampleLog.rejection(
        startMs: start.epochMilliseconds, endMs: end.epochMilliseconds, value: number,
        utcOffsetSeconds: start.utcOffsetSeconds) != nil
    let sample = PendingSample(
      kind: kind, startMs: start.epochMilliseconds, endMs: end.epochMilliseconds, value: number,
      utcOffsetSeconds: start.utcOffsetSeconds, origin: origin, userEntered: userEntered)
    // Only a sample the log turns away needs its location, and finding one costs.
    let location = rejected ? scanner.location(at: scanner.tagStart) : nil
    if scanner.isSelfClosing {
      appendSample(sample, location: location)
    } else {
      pendingSample = sample
      pendingLocation = location
    }
  }

  /// Appends a sample to the log.
  ///
  /// - Parameter location: Where the sample is when ``SampleLog/rejection(startMs:endMs:value:utcOffsetSeconds:)``
  ///   turns it away (the log reports it there); `nil` for one that it found valid, which is stored
  ///   without the rules being checked again.
  mutating func appendSample(_ sample: PendingSample, location: SourceLocation?) {
    if sample.userEntered { info.userEnteredRecords += 1 }
    guard let location else {
      log.appendValid(
        kind: sample.kind, startMs: sample.startMs, endMs: sample.endMs, value: sample.value,
        utcOffsetSeconds: sample.utcOffsetSeconds, origin: sample.origin, userEntered: sample.userEntered)
      return
    }
    let stored = log.append(
      kind: sample.kind, startMs: sample.startMs, endMs: sample.endMs, value: sample.value,
      utcOffsetSeconds: sample.utcOffsetSeconds, origin: sample.origin, userEntered: sample.userEntered,
      location: location)
    if !stored { info.invalidRecords += 1 }
  }

  /// Reports the current record as invalid (its children are then passed over).
  private mutating func invalid(_ reason: InvalidSample.Reason) {
    log.reportInvalid(reason, location: scanner.location(at: scanner.tagStart))
    info.invalidRecords += 1
  }

  /// Whether an `HKWasUserEntered` value means user-entered (COUNTING.md, Inputs).
  @inline(__always)
  private func userEnteredValue(_ value: XMLAttribute) throws -> Bool {
    if scanner.attributeValueIs(value, "1") { return true }
    if scanner.attributeValueIs(value, "0") { return false }
    return isUserEnteredMetadataValue(try scanner.decodedValue(value))
  }

  private mutating func sampleMetadata() throws {
    var cursor = scanner.nameEnd
    var isUserEnteredKey = false
    var value: XMLAttribute?
    var keySeen = false
    while let attribute = try scanner.nextAttribute(&cursor) {
      if scanner.attributeNameIs(attribute, "key") {
        if keySeen { throw scanner.duplicateAttribute(attribute) }
        keySeen = true
        isUserEnteredKey = scanner.attributeValueIs(attribute, "HKWasUserEntered")
      } else if scanner.attributeNameIs(attribute, "value") {
        if value != nil { throw scanner.duplicateAttribute(attribute) }
        value = attribute
      }
    }
    guard isUserEnteredKey, let value else { return }
    let userEntered = try userEnteredValue(value)
    pendingSample?.userEntered = userEntered
  }

  // MARK: - Records for forEachRecord

  private mutating func exportRecord(types: Set<String>?) throws -> ExportRecord? {
    var cursor = scanner.nameEnd
    var attributes: [String: String] = [:]
    var wanted = types == nil
    while let attribute = try scanner.nextAttribute(&cursor) {
      let name = scanner.text(attribute.nameStart, attribute.nameEnd)
      let value = try scanner.decodedValue(attribute)
      if !wanted, name == "type", let types {
        guard types.contains(value) else { return nil }
        wanted = true
      }
      // Every attribute is decoded here: a name given twice is malformed (XML 1.0, 3.1).
      if attributes.updateValue(value, forKey: name) != nil { throw scanner.duplicateAttribute(attribute) }
    }
    guard wanted, attributes["type"] != nil || types == nil else { return nil }
    let record = ExportRecord(attributes: attributes, location: scanner.location(at: scanner.tagStart))
    if scanner.isSelfClosing { return record }
    pendingRecord = record
    return nil
  }

  private mutating func recordMetadata() throws {
    var cursor = scanner.nameEnd
    var key: String?
    var value: String?
    while let attribute = try scanner.nextAttribute(&cursor) {
      if scanner.attributeNameIs(attribute, "key") {
        if key != nil { throw scanner.duplicateAttribute(attribute) }
        key = try scanner.decodedValue(attribute)
      } else if scanner.attributeNameIs(attribute, "value") {
        if value != nil { throw scanner.duplicateAttribute(attribute) }
        value = try scanner.decodedValue(attribute)
      }
    }
    guard let key else { return }
    pendingRecord?.metadata.append(ExportRecord.MetadataEntry(key: key, value: value ?? ""))
  }

  // MARK: - Every record, as byte spans

  /// Handles a start tag in ``Mode/typedRecords(_:)``; returns whether a record is ready.
  ///
  /// A deferred `<Record>` of another type, written as Apple writes records,
  /// is passed over on its `type` bytes (`fastTypedRecord()`), and the
  /// ones after it as long as they are; any other is lexed, and decoded
  /// whole (``wholeRecord()``) only when its `type` is wanted.
  @inline(__always)
  private mutating func typedRecordStartTag() throws -> Bool {
    if scanner.isDeferred {
      while fastTypedRecord() {
        guard scanner.deferNextTag() else { return false }
      }
      if let ready = fastWholeRecord() { return ready }
      guard try scanner.lexDeferredTag() else { return false }
    }
    return try elementStartTag(filtered: true)
  }

  /// Handles a start tag in ``Mode/elements``; returns whether a record is
  /// ready. A deferred `<Record>` written as Apple writes records is read
  /// straight from its bytes (``fastWholeRecord()``); any other tag is lexed.
  @inline(__always)
  private mutating func wholeExportStartTag() throws -> Bool {
    if scanner.isDeferred {
      if let ready = fastWholeRecord() { return ready }
      guard try scanner.lexDeferredTag() else { return false }
    }
    return try elementStartTag()
  }

  /// Reads the deferred `<Record>`, of a type ``typeFilter`` wants (in
  /// ``Mode/elements``, of any type), into the
  /// arena straight from its bytes, as ``wholeRecord()`` would read it, when
  /// Apple wrote it so: its
  /// attributes some of ``RecordAttribute``'s in their order, each written
  /// ` name="value"`, the tag ending right after the last value, every value
  /// but the device's holding no `&`, `"`, `<`, line feed or control
  /// character, the device the last one's but for its address
  /// (``DeviceTextMemo``), and the record valid. Returns whether the record
  /// is ready (it has no children), or `nil`, having changed nothing that
  /// the careful path depends on, for any other record, which that path then
  /// reads and, if need be, reports.
  ///
  /// No lexer looks at the tag: the checks of the values also prove that
  /// each end was found right (see ``ExpectedAttributes/Name/closingQuote(in:from:before:)``).
  @inline(__always)
  private mutating func fastWholeRecord() -> Bool? {
    let base = scanner.buffer
    // `fastTypedRecord()` leaves unwanted records it cannot pass over here too.
    guard let arena, let (typeStart, limit) = deferredTypeStart(),
      wantsEveryType || typeFilter.matchesQuoted(base + typeStart)
    else { return nil }
    let bounds = valueBounds
    for k in 2..<(2 * Self.recordAttributeCount) { bounds[k] = 0 }
    guard let typeEnd = ByteScanning.findShort(ASCII.quote, in: base, from: typeStart, to: limit) else {
      return nil
    }
    bounds[0] = typeStart
    bounds[1] = typeEnd
    guard let (present, close, selfClosing) = fastAttributes(from: typeEnd &+ 1, limit: limit) else {
      return nil
    }
    let required =
      RecordAttribute.type.bit | RecordAttribute.sourceName.bit | RecordAttribute.startDate.bit
      | RecordAttribute.endDate.bit
    guard present & required == required else { return nil }
    @inline(__always) func bytes(_ attribute: RecordAttribute) -> UnsafeBufferPointer<UInt8> {
      let k = attribute.boundsIndex
      return UnsafeBufferPointer(start: base + bounds[k], count: bounds[k &+ 1] &- bounds[k])
    }
    // Every value but the device's is copied as it is written.
    for slot in 0..<Self.recordAttributeCount where slot != RecordAttribute.device.rawValue {
      guard ByteScanning.isLiteral(base, from: bounds[2 &* slot], to: bounds[2 &* slot &+ 1]) else {
        return nil
      }
    }
    guard let span = ExportDateParser.parse(start: bytes(.startDate), end: bytes(.endDate), cache: &dayCache),
      span.endMs >= span.startMs
    else { return nil }
    var creationMs: Int64?
    if present & RecordAttribute.creationDate.bit != 0 {
      guard let parsed = ExportDateParser.parse(bytes(.creationDate), cache: &dayCache) else { return nil }
      creationMs = parsed.epochMilliseconds
    }
    var number: Double?
    if present & RecordAttribute.value.bit != 0 { number = DecimalParser.parse(bytes(.value)) }
    let type = bytes(.type)
    if type.count >= Self.quantityTypePrefix.utf8CodeUnitCount,
      ByteScanning.equal(type.baseAddress!, Self.quantityTypePrefix)
    {
      guard let number, number.isFinite else { return nil }
    } else if let value = number, !value.isFinite {
      number = nil
    }
    arena.reset()
    // `RawRecord.Field` numbers the fields as `RecordAttribute` numbers the slots.
    for slot in 0..<Self.recordAttributeCount where present & (1 &<< UInt32(truncatingIfNeeded: slot)) != 0 {
      let value = UnsafeBufferPointer(
        start: base + bounds[2 &* slot], count: bounds[2 &* slot &+ 1] &- bounds[2 &* slot])
      let span: (Int, Int)
      if slot == RecordAttribute.device.rawValue {
        guard let device = deviceMemo.append(value, to: arena) else { return nil }
        span = device
      } else {
        span = arena.append(value)
      }
      arena.fields[2 &* slot] = span.0
      arena.fields[2 &* slot &+ 1] = span.1
    }
    recordsReadFast &+= 1
    recordsDecodedStraight &+= 1
    info.recordCount += 1
    let element = PendingElement(
      startMs: span.startMs, endMs: span.endMs, utcOffsetSeconds: span.utcOffsetSeconds,
      creationMs: creationMs, number: number)
    if selfClosing {
      scanner.commitDeferredTag(close: close, selfClosing: true)
    } else if let (end, lines, lastLineStart) = metadataChildren(of: close, limit: limit, into: arena) {
      scanner.commitDeferredElement(close: close, end: end, lines: lines, lastLineStart: lastLineStart)
    } else {
      arena.removeMetadata()
      scanner.commitDeferredTag(close: close, selfClosing: false)
      pendingElement = element
      return false
    }
    readyElement = element
    return true
  }

  private static let recordAttributeCount = RecordAttribute.allCases.count
  /// The start of a metadata entry as Apple writes it, up to its key.
  private static let metadataKeyStart: StaticString = "<MetadataEntry key=\""
  /// What lies between a metadata entry's key and its value.
  private static let metadataValueStart: StaticString = "\" value=\""

  /// Reads the children of the record whose start tag ends at `close` into
  /// the arena's metadata, as `elementMetadata()` would, and finds its end
  /// tag, when they are written as Apple writes them: `<MetadataEntry
  /// key="…" value="…"/>` children, each value free of `&`, `"`, `<`, line
  /// feeds and control characters, with only spaces and line feeds between,
  /// then `</Record>`, all before `limit`. Returns the end tag's `>` and the
  /// line feeds passed (as ``XMLScanner/commitDeferredElement(close:end:lines:lastLineStart:)``
  /// takes them), or `nil` for any other children, some entries perhaps added.
  @inline(__always)
  private func metadataChildren(of close: Int, limit: Int, into arena: RecordArena)
    -> (end: Int, lines: Int, lastLineStart: Int)?
  {
    let base = scanner.buffer
    var i = close &+ 1
    var lines = 0
    var lastLineStart = 0
    while true {
      i = passSpaces(from: i, limit: limit, lines: &lines, lastLineStart: &lastLineStart)
      guard i < limit, base[i] == ASCII.lessThan else { return nil }
      if ByteScanning.equal(base + i, Self.recordEndTag) {
        return (i &+ Self.recordEndTag.utf8CodeUnitCount &- 1, lines, lastLineStart)
      }
      guard ByteScanning.equal(base + i, Self.metadataKeyStart) else { return nil }
      let keyStart = i &+ Self.metadataKeyStart.utf8CodeUnitCount
      guard let keyEnd = ByteScanning.findShort(ASCII.quote, in: base, from: keyStart, to: limit),
        keyEnd &+ 16 < limit, ByteScanning.equal(base + keyEnd, Self.metadataValueStart)
      else { return nil }
      let valueStart = keyEnd &+ Self.metadataValueStart.utf8CodeUnitCount
      guard let valueEnd = ByteScanning.findShort(ASCII.quote, in: base, from: valueStart, to: limit),
        valueEnd &+ 2 < limit, base[valueEnd &+ 1] == ASCII.slash, base[valueEnd &+ 2] == ASCII.greaterThan,
        ByteScanning.isLiteral(base, from: keyStart, to: keyEnd),
        ByteScanning.isLiteral(base, from: valueStart, to: valueEnd)
      else { return nil }
      arena.appendMetadata(
        key: arena.append(UnsafeBufferPointer(start: base + keyStart, count: keyEnd &- keyStart)),
        value: arena.append(UnsafeBufferPointer(start: base + valueStart, count: valueEnd &- valueStart)))
      i = valueEnd &+ 3
    }
  }

  /// Whether the current (lexed) `<Record>`'s first `type` attribute is one ``typeFilter`` wants.
  private mutating func hasWantedType() throws -> Bool {
    var cursor = scanner.nameEnd
    var type = scanner.expectedAttribute(" type=\"", at: &cursor)
    if type == nil {
      try scanner.readAttributes()
      for index in 0..<scanner.attributeCount
      where !scanner.attribute(index).nameHasSpaces
        && scanner.attributeNameIs(scanner.attribute(index), "type")
      {
        type = scanner.attribute(index)
        break
      }
    }
    guard let type else { return false }
    let raw = scanner.rawValue(type)
    if ByteScanning.find(ASCII.ampersand, in: scanner.buffer, from: type.valueStart, to: type.valueEnd) == nil
    {
      return typeFilter.contains(raw)
    }
    var decoded = try scanner.decodedValue(type)
    return decoded.withUTF8 { typeFilter.contains($0) }
  }

  /// Handles a start tag in ``Mode/elements``, or, `filtered`, in
  /// ``Mode/typedRecords(_:)`` once lexed (a record of a type ``typeFilter``
  /// does not want passed over); returns whether a record is ready.
  private mutating func elementStartTag(filtered: Bool = false) throws -> Bool {
    let parents = scanner.isSelfClosing ? scanner.depth : scanner.depth - 1
    if parents == 1, scanner.nameIs("Record") {
      info.recordCount += 1
      if filtered, try !hasWantedType() { return false }
      return try wholeRecord()
    }
    if parents == 2, pendingElement != nil, scanner.nameIs("MetadataEntry") {
      try elementMetadata()
      return false
    }
    try otherStartTag(parents: parents)
    return false
  }

  /// Copies `attribute`'s value, entity references decoded, into the arena.
  @inline(__always)
  private func copyValue(_ attribute: XMLAttribute, into arena: RecordArena) throws -> (Int, Int) {
    if ByteScanning.find(
      ASCII.ampersand, in: scanner.buffer, from: attribute.valueStart, to: attribute.valueEnd)
      == nil
    {
      return arena.append(scanner.rawValue(attribute))
    }
    let start = arena.count
    try scanner.decodeValue(attribute) { _ = arena.append($0) }
    return (start, arena.count)
  }

  /// Copies a record's `device` value into the arena as ``copyValue(_:into:)``
  /// does, through ``deviceMemo``.
  private mutating func copyDevice(_ attribute: XMLAttribute, into arena: RecordArena) throws -> (Int, Int) {
    let raw = scanner.rawValue(attribute)
    if let span = deviceMemo.append(raw, to: arena) { return span }
    let span = try copyValue(attribute, into: arena)
    deviceMemo.remember(
      raw: raw, decoded: UnsafeBufferPointer(start: arena.bytes + span.0, count: span.1 - span.0))
    return span
  }

  /// The field an attribute name of a `<Record>` fills, or `nil` for another name.
  @inline(__always)
  private func recordField(_ attribute: XMLAttribute) -> RawRecord.Field? {
    if attribute.nameHasSpaces { return nil }
    switch attribute.nameEnd - attribute.nameStart {
    case 4:
      if scanner.attributeNameIs(attribute, "type") { return .type }
      if scanner.attributeNameIs(attribute, "unit") { return .unit }
    case 5: if scanner.attributeNameIs(attribute, "value") { return .value }
    case 6: if scanner.attributeNameIs(attribute, "device") { return .device }
    case 7: if scanner.attributeNameIs(attribute, "endDate") { return .endDate }
    case 9: if scanner.attributeNameIs(attribute, "startDate") { return .startDate }
    case 10: if scanner.attributeNameIs(attribute, "sourceName") { return .sourceName }
    case 12: if scanner.attributeNameIs(attribute, "creationDate") { return .creationDate }
    case 13: if scanner.attributeNameIs(attribute, "sourceVersion") { return .sourceVersion }
    default: break
    }
    return nil
  }

  /// Reads a top-level `<Record>` into the arena and checks it; returns
  /// whether it is ready to hand out (a valid record with no children).
  private mutating func wholeRecord() throws -> Bool {
    guard let arena else { return false }
    try scanner.readAttributes()
    arena.reset()
    var seen: UInt32 = 0
    // iOS 8 and 9 wrote `source`; it stands for `sourceName` when that is absent.
    var legacySource: (Int, Int)?
    for index in 0..<scanner.attributeCount {
      let attribute = scanner.attribute(index)
      let field = recordField(attribute)
      let value =
        try field == .device ? copyDevice(attribute, into: arena) : copyValue(attribute, into: arena)
      if let field {
        let bit: UInt32 = 1 << UInt32(field.rawValue)
        if seen & bit != 0 {
          return invalidElement(.duplicateAttribute(scanner.text(attribute.nameStart, attribute.nameEnd)))
        }
        seen |= bit
        arena.set(field, value)
      } else {
        let name = arena.append(
          UnsafeBufferPointer(
            start: scanner.buffer + attribute.nameStart, count: attribute.nameEnd - attribute.nameStart))
        if legacySource == nil, scanner.attributeNameIs(attribute, "source") { legacySource = value }
        arena.appendOther(name: name, value: value)
      }
    }
    if arena.others.count > 4 {
      // Names outside the known ones may repeat too (the known ones were checked by bit).
      let others = arena.others.buffer
      for later in stride(from: 4, to: others.count, by: 4) {
        for earlier in stride(from: 0, to: later, by: 4) where equalSpans(arena, others, earlier, later) {
          let name = String(
            decoding: UnsafeBufferPointer(
              start: arena.bytes + others[later], count: others[later + 1] - others[later]),
            as: UTF8.self)
          return invalidElement(.duplicateAttribute(name))
        }
      }
    }
    if seen & (1 << UInt32(RawRecord.Field.sourceName.rawValue)) == 0, let legacySource {
      arena.set(.sourceName, legacySource)
    }
    guard let type = arena.field(.type) else { return invalidElement(.missingAttribute("type")) }
    guard arena.field(.sourceName) != nil else { return invalidElement(.missingAttribute("sourceName")) }
    guard let startBytes = arena.field(.startDate) else {
      return invalidElement(.missingAttribute("startDate"))
    }
    guard let endBytes = arena.field(.endDate) else { return invalidElement(.missingAttribute("endDate")) }
    guard let start = ExportDateParser.parse(startBytes, cache: &dayCache) else {
      return invalidElement(.unparsableDate(String(decoding: startBytes, as: UTF8.self)))
    }
    guard let end = ExportDateParser.parse(endBytes, cache: &dayCache) else {
      return invalidElement(.unparsableDate(String(decoding: endBytes, as: UTF8.self)))
    }
    guard end.epochMilliseconds >= start.epochMilliseconds else { return invalidElement(.endBeforeStart) }
    var creationMs: Int64?
    if let creation = arena.field(.creationDate) {
      guard let parsed = ExportDateParser.parse(creation, cache: &dayCache) else {
        return invalidElement(.unparsableDate(String(decoding: creation, as: UTF8.self)))
      }
      creationMs = parsed.epochMilliseconds
    }
    var number: Double?
    if let value = arena.field(.value) { number = DecimalParser.parse(value) }
    // A quantity is a number; a category's value may be a name.
    if type.count >= Self.quantityTypePrefix.utf8CodeUnitCount,
      ByteScanning.equal(type.baseAddress!, Self.quantityTypePrefix)
    {
      guard let value = arena.field(.value) else { return invalidElement(.missingAttribute("value")) }
      guard let number else {
        return invalidElement(.unparsableValue(String(decoding: value, as: UTF8.self)))
      }
      guard number.isFinite else { return invalidElement(.nonFiniteValue) }
    } else if let value = number, !value.isFinite {
      number = nil
    }
    let element = PendingElement(
      startMs: start.epochMilliseconds, endMs: end.epochMilliseconds,
      utcOffsetSeconds: start.utcOffsetSeconds,
      creationMs: creationMs, number: number)
    if scanner.isSelfClosing {
      readyElement = element
      return true
    }
    pendingElement = element
    return false
  }

  private static let quantityTypePrefix: StaticString = "HKQuantityTypeIdentifier"

  /// Whether spans `a` and `b` (name spans of `spans`, four entries each) hold the same bytes.
  private func equalSpans(_ arena: RecordArena, _ spans: UnsafeBufferPointer<Int>, _ a: Int, _ b: Int) -> Bool
  {
    let length = spans[a + 1] - spans[a]
    return length == spans[b + 1] - spans[b]
      && ByteScanning.equal(arena.bytes + spans[a], arena.bytes + spans[b], count: length)
  }

  /// Reports the current record as invalid; its children are then passed over.
  private mutating func invalidElement(_ reason: InvalidSample.Reason) -> Bool {
    invalidElements.record(InvalidSample(reason: reason, location: scanner.location(at: scanner.tagStart)))
    pendingElement = nil
    return false
  }

  /// A `<MetadataEntry>` of the pending record: its key and value into the arena.
  private mutating func elementMetadata() throws {
    guard let arena else { return }
    var cursor = scanner.nameEnd
    var key: (Int, Int)?
    var value: (Int, Int)?
    while let attribute = try scanner.nextAttribute(&cursor) {
      if scanner.attributeNameIs(attribute, "key") {
        if key != nil { return dropPendingElement(.duplicateAttribute("key")) }
        key = try copyValue(attribute, into: arena)
      } else if scanner.attributeNameIs(attribute, "value") {
        if value != nil { return dropPendingElement(.duplicateAttribute("value")) }
        value = try copyValue(attribute, into: arena)
      }
    }
    guard let key else { return dropPendingElement(.missingAttribute("key")) }
    let valueSpan = value ?? (key.1, key.1)
    arena.appendMetadata(key: key, value: valueSpan)
  }

  /// Reports the pending record as invalid at the current child tag.
  private mutating func dropPendingElement(_ reason: InvalidSample.Reason) {
    _ = invalidElement(reason)
  }

  /// Calls `body` with the record that ``Event/element`` announced.
  mutating func handOutElement(_ body: (ExportElement) throws -> Void) rethrows {
    if let other = readyOther {
      readyOther = nil
      return try body(other)
    }
    guard let element = readyElement, let arena else { return }
    readyElement = nil
    elementsHandedOut += 1
    try body(
      .record(
        RawRecord(
          arena: UnsafePointer(arena.bytes), fields: UnsafePointer(arena.fields),
          metadataSpans: arena.metadata.buffer, otherSpans: arena.others.buffer,
          startMilliseconds: element.startMs, endMilliseconds: element.endMs,
          utcOffsetSeconds: element.utcOffsetSeconds, creationMilliseconds: element.creationMs,
          numericValue: element.number)))
  }

  // MARK: - Workouts, activity summaries, correlations

  /// The workouts, summaries and correlations (and their children) ``Mode/elements`` left out.
  var invalidOtherElements: InvalidSampleReport { assembler?.invalid ?? InvalidSampleReport() }

  /// Hands a start tag to the ``assembler`` when it starts or lies inside an
  /// element it builds; returns whether it did.
  private mutating func assembleStartTag(parents: Int) throws -> Bool {
    guard var assembler else { return false }
    let name: String
    if parents == 1 {
      name = scanner.name
      guard ElementAssembler.assembles(name) else { return false }
    } else if parents >= 2, assembler.isOpen {
      name = scanner.name
    } else {
      return false
    }
    let attributes = ElementAssembler.needsAttributes(name) ? try tagAttributes() : []
    let location = scanner.location(at: scanner.tagStart)
    self.assembler = nil  // not copied while it changes
    if parents == 1 {
      readyOther = assembler.start(
        name, attributes: attributes, selfClosing: scanner.isSelfClosing, location: location)
    } else {
      assembler.child(name, parents: parents, attributes: attributes, location: location)
    }
    self.assembler = assembler
    return true
  }

  /// The current tag's attributes, decoded; a name written twice is malformed XML.
  private func tagAttributes() throws -> ElementAssembler.Attributes {
    var cursor = scanner.nameEnd
    var attributes: ElementAssembler.Attributes = []
    while let attribute = try scanner.nextAttribute(&cursor) {
      let name = scanner.text(attribute.nameStart, attribute.nameEnd)
      if attributes.contains(where: { $0.name == name }) { throw scanner.duplicateAttribute(attribute) }
      attributes.append((name, try scanner.decodedValue(attribute)))
    }
    return attributes
  }

  // MARK: - Progress

  private mutating func reportProgress(final: Bool) {
    lastProgressRefills = scanner.refills
    let now = DispatchTime.now().uptimeNanoseconds
    guard final || now &- lastProgressTime >= 100_000_000 else { return }
    lastProgressTime = now
    progress?(ExportProgress(bytesRead: scanner.bytesRead, totalBytes: scanner.expectedByteCount))
  }
}
