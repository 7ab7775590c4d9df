import Foundation

/// The records of `ExportReader.forEachRecord(in:ofTypes:threads:progress:_:)`,
/// or the elements of `ExportReader.forEachElement(in:threads:progress:_:)`,
/// read on a thread of its own and handed to the calling thread in file
/// order, a batch at a time: the reading thread scans, passes over and
/// decodes while the calling thread writes out the records before.
///
/// A batch holds whole records, each copied as the decoder's arena held it
/// (its bytes, then its field offsets and spans as words), so that a
/// ``RawRecord`` handed out points into the batch as one from the decoder
/// points into the arena. A few batches go round between the two threads, so
/// memory stays bounded whatever the export's size: the reader waits for a
/// batch to be given back when all are full.
final class RecordBatches: @unchecked Sendable {
  // Safe to share: `full`, `empty`, `finished` and `stopped` are read and written only under
  // `condition`; a batch belongs to one thread at a time, handed over under it.

  /// Records copied into one buffer, with their offsets and spans, and the
  /// other elements between them.
  ///
  /// The buffers live in a struct (``Contents``) that ``append(_:)`` changes
  /// in one access, and that access goes unchecked: a batch belongs to one
  /// thread at a time, and a class's stored property changed in a call costs
  /// a dynamic exclusivity check each time, about 7 % of the reading thread's
  /// time when it was one per array.
  final class Batch {
    /// The copied records: each one's words start at an element of `records`.
    struct Contents {
      var bytes: [UInt8] = []
      /// Each record's header (``headerWords``), field offsets and spans, in
      /// memory of its own (written through a pointer: ten `Array.append`s
      /// and three `append(contentsOf:)` a record cost 5 % of the reading thread).
      var words: SpanList
      /// Where each record's words start in ``words``.
      var records: [Int] = []
      /// The workouts, activity summaries and correlations, each with the
      /// number of records before it in the batch.
      var elements: [(recordsBefore: Int, element: ExportElement)] = []

      mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        words.count = 0
        records.removeAll(keepingCapacity: true)
        elements.removeAll(keepingCapacity: true)
      }

      /// Copies `record` to the end.
      mutating func append(_ record: RawRecord) {
        let fieldWords = 2 * RawRecord.Field.allCases.count
        // The arena's bytes up to the last one any span reaches.
        var length = 0
        for k in 0..<fieldWords { length = max(length, record.fields[k]) }
        for end in record.metadataSpans { length = max(length, end) }
        for end in record.otherSpans { length = max(length, end) }
        records.append(words.count)
        let metadata = record.metadataSpans.count
        let others = record.otherSpans.count
        let out = words.appendUninitialized(Batch.headerWords + fieldWords + metadata + others)
        out[0] = bytes.count
        out[1] = metadata
        out[2] = others
        out[3] = Int(record.startMilliseconds)
        out[4] = Int(record.endMilliseconds)
        out[5] = record.utcOffsetSeconds
        out[6] = record.creationMilliseconds == nil ? 0 : 1
        out[7] = Int(record.creationMilliseconds ?? 0)
        out[8] = record.numericValue == nil ? 0 : 1
        out[9] = Int(bitPattern: UInt(record.numericValue?.bitPattern ?? 0))
        var at = out + Batch.headerWords
        at.update(from: record.fields, count: fieldWords)
        at += fieldWords
        if let spans = record.metadataSpans.baseAddress { at.update(from: spans, count: metadata) }
        at += metadata
        if let spans = record.otherSpans.baseAddress { at.update(from: spans, count: others) }
        bytes.append(contentsOf: UnsafeBufferPointer(start: record.arena, count: length))
      }
    }

    @exclusivity(unchecked) private(set) var contents: Contents

    init(bytes: Int) {
      contents = Contents(words: SpanList(capacity: max(bytes / 16, 64)))
      contents.bytes.reserveCapacity(bytes + (1 << 12))
    }

    deinit { contents.words.deallocate() }

    /// A batch is handed over at this many workouts, summaries and
    /// correlations, whatever its bytes, so that memory stays bounded: a
    /// decoded element (its strings, statistics, events and metadata) takes
    /// one to three KiB, and an export ends with thousands of them, which
    /// the reading thread decodes faster than the rows are written. With
    /// 1,024 the four batches held 6 MiB of them at the end of a 2 GB
    /// Watch export's read.
    static let elementLimit = 128

    /// Whether it holds nothing.
    var isEmpty: Bool { contents.records.isEmpty && contents.elements.isEmpty }

    /// Whether it is to be handed over: `batchBytes` of records, or ``elementLimit`` other elements.
    func isFull(batchBytes: Int) -> Bool {
      contents.bytes.count >= batchBytes || contents.elements.count >= Self.elementLimit
    }

    func removeAll() { contents.removeAll() }

    /// Copies `element` to the end: a record as the other `append` copies it, another element as it is.
    func append(_ element: ExportElement) {
      if case .record(let record) = element {
        contents.append(record)
      } else {
        contents.elements.append((contents.records.count, element))
      }
    }

    /// The number of words before a record's fields.
    static let headerWords = 10

    /// Copies `record` to the end.
    func append(_ record: RawRecord) { contents.append(record) }

    /// Calls `body` with each record and other element, in order.
    func forEach(_ body: (ExportElement) throws -> Void) rethrows {
      let elements = contents.elements
      var nextElement = 0
      try forEachRecord { index, record in
        while nextElement < elements.count, elements[nextElement].recordsBefore == index {
          try body(elements[nextElement].element)
          nextElement += 1
        }
        try body(.record(record))
      }
      for (_, element) in elements[nextElement...] { try body(element) }
    }

    /// Calls `body` with each record's index and the record, in order (the
    /// other elements left out).
    func forEachRecord(_ body: (Int, RawRecord) throws -> Void) rethrows {
      let fieldWords = 2 * RawRecord.Field.allCases.count
      let contents = contents
      let words = contents.words.buffer
      try contents.bytes.withUnsafeBufferPointer { bytes in
        for (index, start) in contents.records.enumerated() {
          let header = UnsafeBufferPointer(rebasing: words[start..<start + Self.headerWords])
          let fields = start + Self.headerWords
          let metadata = fields + fieldWords
          let others = metadata + header[1]
          try body(
            index,
            RawRecord(
              arena: bytes.baseAddress! + header[0], fields: words.baseAddress! + fields,
              metadataSpans: UnsafeBufferPointer(rebasing: words[metadata..<others]),
              otherSpans: UnsafeBufferPointer(rebasing: words[others..<others + header[2]]),
              startMilliseconds: Int64(header[3]), endMilliseconds: Int64(header[4]),
              utcOffsetSeconds: header[5], creationMilliseconds: header[6] != 0 ? Int64(header[7]) : nil,
              numericValue: header[8] != 0 ? Double(bitPattern: UInt64(UInt(bitPattern: header[9]))) : nil))
        }
      }
    }
  }

  /// What the reading thread fills batches through: each record or element
  /// goes into the batch being filled, which is handed over once full.
  struct Filler {
    fileprivate let batches: RecordBatches
    fileprivate var batch: Batch?

    /// Copies `record` into the batch being filled.
    ///
    /// - Throws: ``RecordBatchesStopped`` once the calling thread stopped taking batches.
    mutating func add(_ record: RawRecord) throws { try fill { $0.append(record) } }

    /// Copies `element` into the batch being filled (a record as ``add(_:)-(RawRecord)`` does).
    ///
    /// - Throws: ``RecordBatchesStopped`` once the calling thread stopped taking batches.
    mutating func add(_ element: ExportElement) throws { try fill { $0.append(element) } }

    /// Appends to the batch being filled with `append`, then hands it over if full.
    @inline(__always)
    private mutating func fill(_ append: (Batch) -> Void) throws {
      guard let filling = batch else { throw RecordBatchesStopped() }
      append(filling)
      guard filling.isFull(batchBytes: batches.batchBytes) else { return }
      batches.handOver(filling)
      batch = batches.takeEmpty()
    }

    /// Hands over what is left, then `result`: how the reading ended.
    consuming func finish(_ result: Result<WholeExportReport, any Error>) {
      if let batch, !batch.isEmpty { batches.handOver(batch) }
      batches.finish(result)
    }
  }

  /// The reading thread's filler, with the first empty batch.
  func filler() -> Filler { Filler(batches: self, batch: takeEmpty()) }

  private let condition = NSCondition()
  private var full: [Batch] = []
  private var empty: [Batch]
  /// How the reading ended: its report, or the error that stopped it.
  private var finished: Result<WholeExportReport, any Error>?
  /// Set by the calling thread when it stops taking batches.
  private var stopped = false
  /// A batch is handed over once it holds this many bytes.
  let batchBytes: Int

  /// Batches of about `batchBytes`, `count` of them going round.
  init(batchBytes: Int = 1 << 20, count: Int = 4) {
    self.batchBytes = batchBytes
    empty = (0..<count).map { _ in Batch(bytes: batchBytes) }
  }

  // MARK: - The reading thread

  /// A batch to fill, once one is given back; `nil` when the calling thread stopped.
  func takeEmpty() -> Batch? {
    condition.lock()
    defer { condition.unlock() }
    while empty.isEmpty && !stopped { condition.wait() }
    return stopped ? nil : empty.removeLast()
  }

  /// Hands `batch`, filled, to the calling thread.
  func handOver(_ batch: Batch) {
    condition.lock()
    full.append(batch)
    condition.broadcast()
    condition.unlock()
  }

  /// Ends the reading with its report or error (after the last batch was handed over).
  func finish(_ result: Result<WholeExportReport, any Error>) {
    condition.lock()
    finished = result
    condition.broadcast()
    condition.unlock()
  }

  // MARK: - The calling thread

  /// The next filled batch, in order, or `nil` with how the reading ended.
  func takeFull() -> (Batch?, Result<WholeExportReport, any Error>?) {
    condition.lock()
    defer { condition.unlock() }
    while full.isEmpty && finished == nil { condition.wait() }
    if !full.isEmpty { return (full.removeFirst(), nil) }
    return (nil, finished)
  }

  /// Gives `batch` back to be filled again.
  func giveBack(_ batch: Batch) {
    batch.removeAll()
    condition.lock()
    empty.append(batch)
    condition.broadcast()
    condition.unlock()
  }

  /// Tells the reading thread to stop at its next batch.
  func stop() {
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }
}

/// Why the reading thread stopped early: the calling thread stopped taking batches.
struct RecordBatchesStopped: Error {}
