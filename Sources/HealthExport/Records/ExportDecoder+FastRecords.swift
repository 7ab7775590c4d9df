import StepKitCore

// The fast record path: a `<Record>` written as Apple writes it is decoded, or
// passed over with its `<MetadataEntry>` children, straight from its bytes,
// with no lexer looking at the tag (`fastSampleRecord(countsOneType:)`).
extension ExportDecoder {
  /// The earliest start a sample from an export may have: 2000-01-01 00:00
  /// UTC. HealthKit came with iOS 8 in September 2014; apps import older
  /// history into it (pedometers and trackers of the 2000s), so the limit
  /// leaves fourteen years for that. Anything earlier is a device clock
  /// reset (to 1970, or year 1) and is reported invalid (COUNTING.md, Inputs).
  static let earliestPlausibleStartMs: Int64 = 946_684_800_000

  /// A step record's unit.
  static let countUnit: StaticString = "count"

  /// The bytes of a step record's `type` value and its closing quote.
  static let stepType: StaticString = "HKQuantityTypeIdentifierStepCount\""
  /// The same for walking + running distance.
  static let distanceType: StaticString = "HKQuantityTypeIdentifierDistanceWalkingRunning\""

  /// Reads the deferred `<Record>` (see ``XMLScanner/isDeferred``) if it is
  /// written as Apple writes records: a step or distance record is decoded,
  /// each value checked by what reads it, and one of another type is passed
  /// over (`passOverRecord(typeStart:limit:)`). Returns `false` for any other, having
  /// changed nothing that the careful path (`lexDeferredTag()`, then
  /// `sampleRecord()`) depends on.
  ///
  /// The attributes must be some of ``RecordAttribute``'s in their order,
  /// each written ` name="value"`, and the tag must end right after the last
  /// value; `type`, `sourceName`, `startDate`, `endDate` and `value` (and
  /// `unit` for distance) must be there. No lexer looks at the tag, so
  /// every value must prove that it holds no `"`, `<`, line feed or control
  /// character, which also proves that its end was found right:
  /// - `type` equals one of the two names, closing quote included;
  /// - `sourceName` and `device` (or its lack) are the last origin's or the
  ///   one before's, the device's address aside
  ///   (``OriginCache/findPlain(source:device:)``);
  /// - the dates parse, and so are digits and separators only;
  /// - the other values are checked with ``ByteScanning/isPlain(_:from:to:)``.
  ///
  /// A record that the log would turn away, or that starts after the export
  /// date, is left to the careful path, which reports it.
  @inline(__always)
  mutating func fastSampleRecord(countsOneType: Bool) -> Bool {
    let base = scanner.buffer
    guard let (typeStart, limit) = deferredTypeStart() else { return false }
    var i: Int
    let kind: QuantityKind
    if _slowPath(countsOneType) {
      return fastCountedRecord(typeStart: typeStart, limit: limit)
    } else if ByteScanning.equal(base + typeStart, Self.stepType) {
      kind = .steps
      i = typeStart &+ Self.stepType.utf8CodeUnitCount
    } else if ByteScanning.equal(base + typeStart, Self.distanceType) {
      kind = .distance
      i = typeStart &+ Self.distanceType.utf8CodeUnitCount
    } else {
      return passOverRecord(typeStart: typeStart, limit: limit)
    }
    return fastSample(kind: kind, from: i, limit: limit, unit: nil)
  }

  /// Passes over the deferred `<Record>` when its `type` attribute comes
  /// first, written as Apple writes it, and names a type ``typeFilter`` does not
  /// want (`passOverRecord(typeStart:limit:)`); returns `false`, having
  /// changed nothing, for a wanted type and for any record written otherwise,
  /// which the careful path then lexes.
  ///
  /// A `type` with a `&` in it is left to the careful path too: that path
  /// decodes it, and so may find it wanted (`Step&#67;ount`), or malformed.
  @inline(__always)
  mutating func fastTypedRecord() -> Bool {
    let base = scanner.buffer
    guard let (typeStart, limit) = deferredTypeStart(), !typeFilter.matchesQuoted(base + typeStart),
      let typeEnd = ByteScanning.findShort(ASCII.quote, in: base, from: typeStart, to: limit),
      ByteScanning.holdsNone(
        base, from: typeStart, to: typeEnd, { ByteScanning.lanes($0 .== Self.ampersands) })
    else { return false }
    return passOverRecord(typeEnd: typeEnd, limit: limit)
  }

  private static let ampersands = SIMD16<UInt8>(repeating: ASCII.ampersand)

  /// Where the deferred `<Record>`'s `type` value starts, when `type` is its
  /// first attribute, written ` type="`; and the limit every value of the
  /// tag must end before: reads of up to 64 bytes from there stay inside the
  /// deferral window, which the buffer holds.
  @inline(__always)
  func deferredTypeStart() -> (typeStart: Int, limit: Int)? {
    let names = recordAttributes.names
    let type = RecordAttribute.type.rawValue
    let at = UnsafeRawPointer(scanner.buffer).loadUnaligned(
      fromByteOffset: scanner.nameEnd, as: SIMD16<UInt8>.self)
    guard names[type].matches(at) else { return nil }
    return (scanner.nameEnd &+ names[type].length, scanner.tagStart &+ XMLScanner.deferralWindow &- 64)
  }

  /// ``fastSampleRecord(countsOneType:)`` for a log that collects one ``SampleLog/countedType``:
  /// a record of that type is read as a step record is, its value converted
  /// to the type's canonical unit; every other is passed over.
  @inline(never)
  mutating func fastCountedRecord(typeStart: Int, limit: Int) -> Bool {
    guard var counted = log.countedType else { return false }
    if !Self.isQuoted(counted, at: scanner.buffer + typeStart) {
      // Counting several types: the record's own type's log, if it is one of them.
      guard typeLogsTaken, let index = countedTypeIndex(quotedAt: typeStart) else {
        return passOverRecord(typeStart: typeStart, limit: limit)
      }
      activateTypeLog(index)
      counted = log.countedType ?? counted
    }
    return fastSample(
      kind: .steps, from: typeStart &+ counted.quotedIdentifierBytes.count, limit: limit, unit: counted.unit)
  }

  /// The rest of ``fastSampleRecord(countsOneType:)`` once the record's `type` (ending
  /// before `i`) chose `kind`: reads the other attributes and appends the
  /// sample. With `unit`, the record must name a unit that converts to it.
  @inline(__always)
  mutating func fastSample(
    kind: QuantityKind, from start: Int, limit: Int, unit canonical: CanonicalUnit?
  )
    -> Bool
  {
    let base = scanner.buffer
    let bounds = valueBounds
    // The optional attributes (`sourceVersion`, `device`, `unit`, `creationDate`) are empty until found.
    for k in RecordAttribute.optionalBounds { bounds[k] = 0 }
    guard let (present, close, selfClosing) = fastAttributes(from: start, limit: limit) else { return false }
    /// The value of `attribute` (empty for an optional one the record has none of).
    @inline(__always) func bytes(_ attribute: RecordAttribute) -> UnsafeBufferPointer<UInt8> {
      let k = attribute.boundsIndex
      return UnsafeBufferPointer(start: base + bounds[k], count: bounds[k &+ 1] &- bounds[k])
    }
    // `type`, `sourceName`, the dates and `value`; `unit` for distance and a converted type.
    let required =
      kind == .distance || canonical != nil
      ? RecordAttribute.requiredForSample | RecordAttribute.unit.bit : RecordAttribute.requiredForSample
    // `sourceVersion` and `creationDate` are read by nothing, so checked here.
    @inline(__always) func isPlain(_ attribute: RecordAttribute) -> Bool {
      let k = attribute.boundsIndex
      return ByteScanning.isPlain(base, from: bounds[k], to: bounds[k &+ 1])
    }
    guard present & required == required, isPlain(.sourceVersion), isPlain(.creationDate), isPlain(.value),
      isPlain(.unit)
    else { return false }
    guard let span = ExportDateParser.parse(start: bytes(.startDate), end: bytes(.endDate), cache: &dayCache),
      // The value ends before `limit`: the eight bytes from its start can be read.
      var number = DecimalParser.parse(paddedBytes: bytes(.value))
    else { return false }
    if let exportedAtMs, span.startMs > exportedAtMs { return false }
    if span.startMs < Self.earliestPlausibleStartMs { return false }
    if let canonical {
      guard let factor = canonical.factor(utf8: bytes(.unit)) else { return false }
      number *= factor
    } else if kind == .distance {
      guard let factor = LengthUnit.metresPerUnit(utf8: bytes(.unit)) else { return false }
      number *= factor
    } else if present & RecordAttribute.unit.bit != 0 {
      let unitBytes = bytes(.unit)
      guard unitBytes.count == 5, ByteScanning.equal(unitBytes.baseAddress!, Self.countUnit) else {
        return false
      }
    }
    if SampleLog.isImplausible(value: number, startMs: span.startMs, endMs: span.endMs) { return false }
    let deviceBytes = present & RecordAttribute.device.bit != 0 ? bytes(.device) : nil
    guard let origin = origins.findPlain(source: bytes(.sourceName), device: deviceBytes),
      SampleLog.rejection(
        startMs: span.startMs, endMs: span.endMs, value: number, utcOffsetSeconds: span.utcOffsetSeconds)
        == nil
    else { return false }
    scanner.commitDeferredTag(close: close, selfClosing: selfClosing)
    recordsReadFast &+= 1
    info.recordCount += 1
    info.stepAndDistanceRecords += 1
    let sample = PendingSample(
      kind: kind, startMs: span.startMs, endMs: span.endMs, value: number,
      utcOffsetSeconds: span.utcOffsetSeconds, origin: origin, userEntered: false)
    if selfClosing {
      appendSample(sample, location: nil)
    } else {
      pendingSample = sample
      pendingLocation = nil
    }
    return true
  }

  /// Reads the attributes of the deferred `<Record>` that follow its `type`,
  /// from `start` (the byte after the type's closing quote) to the tag's
  /// end, when they are some of ``RecordAttribute``'s in their order, each
  /// written ` name="value"`, and the tag ends right after the last: each
  /// value's start and end go to ``valueBounds`` by slot (an attribute left
  /// out keeps what was there). Returns the mask of the slots found, `type`'s
  /// included, the index of the tag's `>` and whether it ends with `/>`; `nil`
  /// for any other tag.
  @inline(__always)
  mutating func fastAttributes(from start: Int, limit: Int) -> (
    present: UInt32, close: Int, selfClosing: Bool
  )? {
    let base = scanner.buffer
    // Where each attribute's value starts and ends, stored by slot without a branch on it (a jump on
    // the slot was mispredicted record after record).
    let bounds = valueBounds
    var i = start
    var present = RecordAttribute.type.bit
    var slot = RecordAttribute.sourceName.rawValue
    while true {
      let c = base[i]
      if c == ASCII.space {
        guard
          let (valueStart, valueEnd) = recordAttributes.attribute(at: i, in: base, slot: &slot, before: limit)
        else { return nil }
        // `RecordAttribute(rawValue: slot).boundsIndex`, without the optional.
        bounds[2 &* slot] = valueStart
        bounds[2 &* slot &+ 1] = valueEnd
        present |= 1 &<< UInt32(truncatingIfNeeded: slot)
        slot &+= 1
        i = valueEnd &+ 1
      } else if c == ASCII.greaterThan {
        return (present, i, false)
      } else if c == ASCII.slash, base[i &+ 1] == ASCII.greaterThan {
        return (present, i &+ 1, true)
      } else {
        return nil
      }
    }
  }

  /// Passes over the deferred `<Record>` whose `type` value starts at
  /// `typeStart` and is neither steps nor distance, as the careful path
  /// would: its end is the first `>`, which ends the tag when the bytes
  /// before it hold an even number of `"` and no `<` (the lexer then leaves
  /// the attributes of a record passed over unread), and its type is the
  /// first attribute, followed by white space or the tag's end. It must also
  /// hold no `'` (which makes the lexer read every attribute), and no line
  /// feed or control character, so that it has no line to count. Returns
  /// `false` for any other, having changed nothing.
  @inline(__always)
  mutating func passOverRecord(typeStart: Int, limit: Int) -> Bool {
    guard let typeEnd = ByteScanning.findShort(ASCII.quote, in: scanner.buffer, from: typeStart, to: limit)
    else { return false }
    return passOverRecord(typeEnd: typeEnd, limit: limit)
  }

  /// ``passOverRecord(typeStart:limit:)`` once the type's closing quote, at `typeEnd`, is found.
  @inline(__always)
  mutating func passOverRecord(typeEnd: Int, limit: Int) -> Bool {
    let base = scanner.buffer
    let from = scanner.nameEnd
    guard let (close, quotes) = ByteScanning.plainTagEnd(base, from: from, to: limit), typeEnd < close,
      quotes & 1 == 0
    else { return false }
    let selfClosing = base[close &- 1] == ASCII.slash
    let after = typeEnd &+ 1
    guard base[after] == ASCII.space || after == (selfClosing ? close &- 1 : close) else { return false }
    if selfClosing {
      scanner.commitDeferredTag(close: close, selfClosing: true)
    } else if !passOverChildren(of: close, limit: limit) {
      scanner.commitDeferredTag(close: close, selfClosing: false)
    }
    recordsReadFast &+= 1
    info.recordCount += 1
    return true
  }

  /// Where the first byte from `start` on that is neither a space nor a line
  /// feed lies (`limit` at most), the line feeds passed counted into `lines`
  /// and the start of the line after the last into `lastLineStart`.
  @inline(__always)
  func passSpaces(from start: Int, limit: Int, lines: inout Int, lastLineStart: inout Int) -> Int {
    let base = scanner.buffer
    var i = start
    while i < limit {
      let b = base[i]
      if b == ASCII.lineFeed {
        lines &+= 1
        lastLineStart = i &+ 1
      } else if b != ASCII.space {
        break
      }
      i &+= 1
    }
    return i
  }

  /// The start of the end tag that closes a passed-over record.
  static let recordEndTag: StaticString = "</Record>"
  /// The start of a child that a passed-over record's children may be.
  static let metadataEntryStart: StaticString = "<MetadataEntry "

  /// Passes over the children of the deferred, passed-over `<Record>` whose
  /// start tag ends at `close`, and its end tag, when they are written as
  /// Apple writes them: `<MetadataEntry … />` children passed over as the
  /// lexer passes them over (see `passOverRecord(typeStart:limit:)`), with
  /// only spaces and line feeds between, all before `limit`. Returns `false`,
  /// having changed nothing, for any other.
  @inline(__always)
  mutating func passOverChildren(of close: Int, limit: Int) -> Bool {
    let base = scanner.buffer
    var i = close &+ 1
    var lines = 0
    var lastLineStart = 0
    while true {
      i = passSpaces(from: i, limit: limit, lines: &lines, lastLineStart: &lastLineStart)
      guard i < limit, base[i] == ASCII.lessThan else { return false }
      if ByteScanning.equal(base + i, Self.recordEndTag) {
        scanner.commitDeferredElement(
          close: close, end: i &+ Self.recordEndTag.utf8CodeUnitCount &- 1, lines: lines,
          lastLineStart: lastLineStart)
        return true
      }
      let attributes = i &+ Self.metadataEntryStart.utf8CodeUnitCount &- 1
      guard ByteScanning.equal(base + i, Self.metadataEntryStart),
        let (childClose, quotes) = ByteScanning.plainTagEnd(base, from: attributes, to: limit),
        quotes & 1 == 0,
        base[childClose &- 1] == ASCII.slash
      else { return false }
      i = childClose &+ 1
    }
  }
}
