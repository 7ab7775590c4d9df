import Foundation

extension ExportReader {
  /// ``forEachRecord(source:ofTypes:entryName:bufferBytes:fastRecords:progress:_:)``
  /// with the reading on a thread of its own (``RecordBatches``), `body`
  /// called on the calling thread; on one thread when none can be made.
  static func forEachRecordInBatches(
    source: any ByteChunkSource, ofTypes filter: RecordTypeFilter, entryName: String? = nil,
    batchBytes: Int = 1 << 20, progress: (@Sendable (ExportProgress) -> Void)? = nil,
    _ body: (RawRecord) throws -> Void
  ) throws -> WholeExportReport {
    try inBatches(
      source: source, batchBytes: batchBytes,
      reading: { source, handOut in
        try forEachRecord(source: source, ofTypes: filter, entryName: entryName, progress: progress) {
          try handOut(.record($0))
        }
      },
      { element in if case .record(let record) = element { try body(record) } })
  }

  /// ``forEachElement(source:entryName:bufferBytes:progress:_:)`` with the
  /// reading on a thread of its own (``RecordBatches``), `body` called on the
  /// calling thread with every element in file order; on one thread when
  /// none can be made.
  static func forEachElementInBatches(
    source: any ByteChunkSource, entryName: String? = nil, bufferBytes: Int = XMLScanner.defaultBufferBytes,
    batchBytes: Int = 1 << 20, progress: (@Sendable (ExportProgress) -> Void)? = nil,
    _ body: (ExportElement) throws -> Void
  ) throws -> WholeExportReport {
    try inBatches(
      source: source, batchBytes: batchBytes,
      reading: { source, handOut in
        try forEachElement(
          source: source, entryName: entryName, bufferBytes: bufferBytes, progress: progress, handOut)
      }, body)
  }

  /// Runs `reading` on a thread of its own, its elements handed to `body` on
  /// the calling thread in order, a batch at a time; both on the calling
  /// thread when no thread can be made.
  private static func inBatches(
    source: any ByteChunkSource, batchBytes: Int,
    reading:
      @escaping @Sendable (any ByteChunkSource, (ExportElement) throws -> Void) throws -> WholeExportReport,
    _ body: (ExportElement) throws -> Void
  ) throws -> WholeExportReport {
    let batches = RecordBatches(batchBytes: batchBytes)
    let transfer = TransferredOwnership(value: source)
    let reader = ProducerThread {
      var batch = batches.takeEmpty()
      let result = Result { () throws -> WholeExportReport in
        try reading(transfer.value) {
          guard let filling = batch else { throw RecordBatchesStopped() }
          filling.append($0)
          if filling.isFull(batchBytes: batches.batchBytes) {
            batches.handOver(filling)
            batch = batches.takeEmpty()
          }
        }
      }
      if let batch, !batch.isEmpty { batches.handOver(batch) }
      batches.finish(result)
    }
    guard let reader else { return try reading(transfer.value, body) }
    defer {
      batches.stop()
      reader.join()
    }
    while true {
      let (batch, finished) = batches.takeFull()
      if let batch {
        try batch.forEach(body)
        batches.giveBack(batch)
      } else if let finished {
        return try finished.get()
      }
    }
  }
}
