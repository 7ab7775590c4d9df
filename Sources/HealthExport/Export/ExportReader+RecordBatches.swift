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
      reading: { source, filler in
        try forEachRecord(source: source, ofTypes: filter, entryName: entryName, progress: progress) {
          try filler.add($0)
        }
      },
      direct: { source in
        try forEachRecord(source: source, ofTypes: filter, entryName: entryName, progress: progress, body)
      },
      taking: { batch in try batch.forEachRecord { try body($1) } })
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
      reading: { source, filler in
        try forEachElement(
          source: source, entryName: entryName, bufferBytes: bufferBytes, progress: progress
        ) { try filler.add($0) }
      },
      direct: { source in
        try forEachElement(
          source: source, entryName: entryName, bufferBytes: bufferBytes, progress: progress, body)
      },
      taking: { batch in try batch.forEach(body) })
  }

  /// Runs `reading` on a thread of its own, filling batches that `taking`
  /// is given on the calling thread in order, each once; `direct` on the
  /// calling thread instead when no thread can be made.
  ///
  /// The records' own path fills and takes plain records: wrapped as
  /// elements, each cost 4 % more instructions on the reading thread.
  private static func inBatches(
    source: any ByteChunkSource, batchBytes: Int,
    reading:
      @escaping @Sendable (any ByteChunkSource, inout RecordBatches.Filler) throws -> WholeExportReport,
    direct: (any ByteChunkSource) throws -> WholeExportReport,
    taking: (RecordBatches.Batch) throws -> Void
  ) throws -> WholeExportReport {
    let batches = RecordBatches(batchBytes: batchBytes)
    let transfer = TransferredOwnership(value: source)
    let reader = ProducerThread {
      var filler = batches.filler()
      let result = Result { try reading(transfer.value, &filler) }
      filler.finish(result)
    }
    guard let reader else { return try direct(transfer.value) }
    defer {
      batches.stop()
      reader.join()
    }
    while true {
      let (batch, finished) = batches.takeFull()
      if let batch {
        try taking(batch)
        batches.giveBack(batch)
      } else if let finished {
        return try finished.get()
      }
    }
  }
}
