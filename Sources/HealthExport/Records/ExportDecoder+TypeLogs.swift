@_spi(ExportReading) import StepKitCore

// Several cumulative types counted in one read (``SampleLog/typeLogs``): while
// ``step()`` reads, each type's log in turn is the decoder's ``log``, so the
// sample path (`sampleRecord()`, `fastSampleRecord(countsOneType:)`) decodes,
// checks and stores each record exactly as it does for a log counting that
// type alone.
extension ExportDecoder {
  /// Takes the type logs out of ``log`` and makes the one of ``activeType``
  /// the log read into; ``returnTypeLogs()`` puts them back.
  mutating func takeTypeLogs() {
    var logs: [SampleLog] = []
    log.exchangeTypeLogs(&logs)
    if typeOrigins.count != logs.count {
      typeOrigins = [OriginCache](repeating: OriginCache(), count: logs.count)
      activeType = 0
    }
    // The log they came from waits in the active one's place.
    swap(&log, &logs[activeType])
    swap(&origins, &typeOrigins[activeType])
    typeLogs = logs
    typeLogsTaken = true
  }

  /// Puts the type logs back into the log they were taken from, which is
  /// ``log`` again. The origin caches stay, for the next ``step()``.
  mutating func returnTypeLogs() {
    swap(&log, &typeLogs[activeType])
    swap(&origins, &typeOrigins[activeType])
    var logs: [SampleLog] = []
    swap(&logs, &typeLogs)
    log.exchangeTypeLogs(&logs)
    typeLogsTaken = false
  }

  /// Makes the log of type `index` the one read into (between records: a
  /// record's sample goes to the log that was active at its start tag).
  @inline(never)
  mutating func activateTypeLog(_ index: Int) {
    guard index != activeType else { return }
    // The waiting log moves from the active slot to `index`'s.
    swap(&log, &typeLogs[activeType])
    swap(&origins, &typeOrigins[activeType])
    swap(&log, &typeLogs[index])
    swap(&origins, &typeOrigins[index])
    activeType = index
  }

  /// The index in ``typeLogs`` of the type whose quoted identifier
  /// (``CumulativeType/quotedIdentifierBytes``) starts at `start` in the
  /// scanner's buffer, or `nil`; reads stay within the identifier's length
  /// from `start`, which the fast path's window holds.
  @inline(never)
  func countedTypeIndex(quotedAt start: Int) -> Int? {
    let at = scanner.buffer + start
    return countedTypeIndex { Self.isQuoted($0, at: at) }
  }

  /// The index in ``typeLogs`` of the type whose identifier is `value` (a
  /// `type` attribute's raw value), or `nil`.
  @inline(never)
  func countedTypeIndex(ofValue value: UnsafeBufferPointer<UInt8>) -> Int? {
    countedTypeIndex { Self.isNamed($0, by: value) }
  }

  /// The index of the first of ``typeLogs`` but the active one whose type `matches`.
  private func countedTypeIndex(where matches: (CumulativeType) -> Bool) -> Int? {
    for index in typeLogs.indices where index != activeType {
      if let type = typeLogs[index].countedType, matches(type) { return index }
    }
    return nil
  }

  /// Whether `type`'s identifier and its closing quote are the bytes at `bytes`.
  @inline(__always)
  static func isQuoted(_ type: CumulativeType, at bytes: UnsafePointer<UInt8>) -> Bool {
    type.quotedIdentifierBytes.withUnsafeBufferPointer {
      ByteScanning.equal(bytes, $0.baseAddress!, count: $0.count)
    }
  }

  /// Whether `value` (a `type` attribute's raw value) is `type`'s identifier.
  @inline(__always)
  static func isNamed(_ type: CumulativeType, by value: UnsafeBufferPointer<UInt8>) -> Bool {
    type.quotedIdentifierBytes.withUnsafeBufferPointer { quoted in
      guard let base = value.baseAddress, value.count == quoted.count - 1 else { return false }
      return ByteScanning.equal(base, quoted.baseAddress!, count: value.count)
    }
  }
}
