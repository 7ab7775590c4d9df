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
    let batches = RecordBatches(batchBytes: batchBytes)
    let transfer = TransferredOwnership(value: source)
    let reader = ProducerThread {
      var batch = batches.takeEmpty()
      let result = Result { () throws -> WholeExportReport in
        try forEachRecord(source: transfer.value, ofTypes: filter, entryName: entryName, progress: progress) {
          guard let filling = batch else { throw RecordBatchesStopped() }
          filling.append($0)
          if filling.byteCount >= batches.batchBytes {
            batches.handOver(filling)
            batch = batches.takeEmpty()
          }
        }
      }
      if let batch, !batch.isEmpty { batches.handOver(batch) }
      batches.finish(result)
    }
    guard let reader else {
      return try forEachRecord(
        source: transfer.value, ofTypes: filter, entryName: entryName, progress: progress, body)
    }
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
