extension SampleLog {
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
  /// A sample whose origin cannot be registered here (the log already holds
  /// 65 536 origins) is reported invalid as ``InvalidSample/Reason/outOfRange``
  /// with no location, as ``append(_:location:)`` reports it.
  ///
  /// - Parameters:
  ///   - other: The log to append.
  ///   - relocate: Applied to the location of every example taken from
  ///     `other`'s report (a stretch of a file counts its lines from its own
  ///     start; this adds the lines before it).
  public mutating func append(
    contentsOf other: SampleLog, relocatingInvalid relocate: (SourceLocation) -> SourceLocation = { $0 }
  ) {
    var identifiers: [OriginID?] = []
    identifiers.reserveCapacity(other.origins.count)
    for origin in other.origins {
      identifiers.append(self.origin(source: origin.source, device: origin.device))
    }
    // Each sample is decoded from `other`'s blocks in order and written into
    // this store with its origin renumbered: no `Sample`, no strings, and no
    // second validation (`other` stored only samples its own append accepted).
    other.store.decodeAll { _, stored in
      guard let origin = identifiers[Int(stored.origin)] else {
        reportInvalid(.outOfRange, location: nil)
        return
      }
      var renumbered = stored
      renumbered.origin = origin.rawValue
      storeValid(renumbered)
    }
    invalid.merge(other.invalid, relocating: relocate)
  }
}
