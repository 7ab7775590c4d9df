extension SampleLog {
  /// An empty log that numbers origins as `other` does: `other`'s origins
  /// and sources, registered in its order, its ``storage`` and ``countedType``, and its
  /// ``typeLogs`` made alike; no samples
  /// and no invalid samples.
  ///
  /// A reader that decodes stretches of one export on several threads
  /// starts each stretch's log this way from the log the stretches are
  /// appended to, so that ``append(contentsOf:relocatingInvalid:)`` moves
  /// their samples as encoded, without decoding them again: only an origin
  /// first seen inside a stretch can need a new number.
  ///
  /// - Parameter other: The log whose origins to start from.
  public init(numberingOriginsAs other: SampleLog) {
    store = SampleStore(storage: other.storage)
    originTable = other.originTable
    originSource = other.originSource
    originSampleCounts = [Int](repeating: 0, count: other.originSampleCounts.count)
    originIndex = other.originIndex
    sourceFacts = other.sourceFacts
    sourceIndex = other.sourceIndex
    countedType = other.countedType
    typeLogs = other.typeLogs.map(SampleLog.init(numberingOriginsAs:))
  }

  /// Appends everything `other` holds, as if each of its samples and invalid
  /// samples had been appended to this log one by one, in `other`'s order.
  ///
  /// The rule is the one appending one by one follows:
  /// - `other`'s origins are registered here in `other`'s order, so an origin
  ///   new to this log gets the next identifier in the order it was first seen
  ///   there, and one this log already knows keeps its identifier. Origins of
  ///   `other` that no sample used are registered too, as they were there.
  /// - `other`'s samples follow this log's, in their order, each with its
  ///   origin's identifier here.
  /// - `other`'s invalid-sample report is added to this one's: its count in
  ///   full, its examples while this report has room
  ///   (``InvalidSampleReport/keptExamples`` in all, the first ones seen).
  ///
  /// A reader that decodes stretches of one export on several threads, each
  /// into a log of its own, concatenates them in file order with this and gets
  /// the log that reading the export front to back would have built.
  ///
  /// The samples move as they are encoded, a block of up to 256 at a time,
  /// whenever their origins keep their identifiers here (as they all do
  /// when `other` was made with ``init(numberingOriginsAs:)`` from this log
  /// and saw no origin new to it). A block naming an origin whose
  /// identifier changes is copied with the new identifiers written over the
  /// old, or decoded and encoded again when they take another number of
  /// bytes.
  ///
  /// A sample whose origin cannot be registered here (the log already holds
  /// 65 536 origins) is reported invalid as ``InvalidSample/Reason/outOfRange``
  /// with no location, as ``append(_:location:)`` reports it.
  ///
  /// The ``typeLogs`` of `other` (made alike) are appended to this log's, each to its own.
  ///
  /// - Parameters:
  ///   - other: The log to append.
  ///   - relocate: Applied to the location of every example taken from
  ///     `other`'s report (a stretch of a file counts its lines from its own
  ///     start; this adds the lines before it).
  public mutating func append(
    contentsOf other: SampleLog, relocatingInvalid relocate: (SourceLocation) -> SourceLocation = { $0 }
  ) {
    var identifiers: [UInt16?] = []
    identifiers.reserveCapacity(other.origins.count)
    for origin in other.origins {
      identifiers.append(self.origin(source: origin.source, device: origin.device)?.rawValue)
    }
    // The origins numbered alike in both logs, from the first.
    var kept = 0
    while kept < identifiers.count, identifiers[kept] == UInt16(truncatingIfNeeded: kept) { kept += 1 }
    let dropped = store.append(contentsOf: other.store, keptOrigins: kept) { identifiers[Int($0)] }
    for (index, identifier) in identifiers.enumerated() {
      guard let identifier else { continue }
      for slot in 0..<4 {
        originSampleCounts[4 * Int(identifier) + slot] += other.originSampleCounts[4 * index + slot]
      }
    }
    for _ in 0..<dropped { reportInvalid(.outOfRange, location: nil) }
    invalid.merge(other.invalid, relocating: relocate)
    for index in typeLogs.indices where index < other.typeLogs.count {
      typeLogs[index].append(contentsOf: other.typeLogs[index], relocatingInvalid: relocate)
    }
  }
}
