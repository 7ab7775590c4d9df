import Foundation

/// A zip entry's uncompressed bytes, inflated on a thread of its own into a
/// small ring of buffers while the consumer works on the previous one.
///
/// Memory stays at `bufferCount × bufferSize` whatever the entry's size. The
/// CRC-32 is computed on the inflating thread too, so the consumer's thread
/// spends its time scanning only; a mismatch (or a wrong size) arrives as the
/// stream's error after the last byte. Errors reach the consumer after
/// every byte before them. Dropping the source, or calling ``cancel()``, stops
/// the inflating thread at its next buffer and waits for it to end, so nothing
/// it held outlives the source.
///
/// The XML scanner borrows the ring's buffers through ``ChunkLender`` and
/// scans them where they were inflated; ``nextChunk()`` hands them out the
/// same way, and ``read(into:)`` copies out of them for other readers.
final class ZipEntryChunkSource: ChunkLender {
  /// Room in front of each buffer for the token that straddles two: 64 KiB,
  /// far more than a record's tag (longer ones are gathered by the scanner).
  static let defaultHeadroom = 64 << 10

  let displayName: String
  let expectedByteCount: Int64?
  /// The ring shared with the inflating thread.
  let pipeline: InflatePipeline
  private var current: (index: Int, count: Int, position: Int)?
  private var outcome: Result<Void, HealthExportError>?
  private let producer: ProducerThread

  /// Starts inflating `entry` of `archive` on a new thread.
  ///
  /// - Parameters:
  ///   - archive: The archive holding the entry.
  ///   - entry: The entry to read.
  ///   - bufferSize: Bytes per ring buffer (1–4 MiB works best).
  ///   - bufferCount: Buffers in the ring (at least 2).
  ///   - headroom: Bytes in front of each buffer for a borrower's unfinished token.
  ///   - engine: The deflate implementation to inflate with.
  /// - Throws: What ``ZipEntryReader/init(archive:entry:verifiesChecksum:inputChunkSize:engine:)``
  ///   throws; later errors arrive through ``read(into:)``.
  init(
    archive: ZipArchive, entry: ZipEntry, bufferSize: Int = 1 << 20, bufferCount: Int = 4,
    headroom: Int = ZipEntryChunkSource.defaultHeadroom, engine: InflateEngine = .preferred
  ) throws {
    let reader = try ZipEntryReader(archive: archive, entry: entry, verifiesChecksum: true, engine: engine)
    displayName = reader.displayName
    expectedByteCount = entry.uncompressedSize
    pipeline = InflatePipeline(bufferSize: bufferSize, bufferCount: bufferCount, headroom: headroom)
    let transfer = TransferredOwnership(value: reader)
    let pipeline = self.pipeline
    guard
      let producer = ProducerThread({
        Self.produce(reader: transfer.value, pipeline: pipeline)
      })
    else {
      throw HealthExportError.readFailed(path: displayName, reason: "cannot start the inflating thread")
    }
    self.producer = producer
  }

  deinit {
    pipeline.cancel()
    producer.join()
  }

  /// Stops inflating and waits for the inflating thread to end; later reads return 0.
  func cancel() {
    pipeline.cancel()
    producer.join()
    if outcome == nil { outcome = .success(()) }
    current = nil
  }

  private static func produce(reader: ZipEntryReader, pipeline: InflatePipeline) {
    while let index = pipeline.takeFreeBuffer() {
      do {
        let count = try reader.read(into: pipeline.buffers[index])
        if count == 0 {
          pipeline.finish(returning: index)
          return
        }
        pipeline.deliver(index: index, count: count)
      } catch {
        pipeline.fail(HealthExportError(wrapping: error, path: reader.displayName), returning: index)
        return
      }
    }
  }

  /// The next chunk of bytes, valid until the next call; `nil` at the end.
  ///
  /// - Throws: The producer's error, or ``HealthExportError/checksumMismatch(entry:)``.
  func nextChunk() throws -> UnsafeRawBufferPointer? {
    if let current, current.position < current.count {
      self.current?.position = current.count
      let buffer = pipeline.buffers[current.index]
      return UnsafeRawBufferPointer(rebasing: buffer[current.position..<current.count])
    }
    guard try advance() else { return nil }
    return try nextChunk()
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
      if let current, current.position < current.count {
        let count = min(buffer.count, current.count - current.position)
        guard count > 0, let destination = buffer.baseAddress,
          let source = pipeline.buffers[current.index].baseAddress
        else { return 0 }
        destination.copyMemory(from: source + current.position, byteCount: count)
        self.current?.position += count
        return count
      }
      guard try advance() else { return 0 }
    }
  }

  /// Moves to the next filled buffer; `false` at the end.
  private func advance() throws -> Bool {
    let previous = current?.index
    current = nil
    guard let chunk = try receive(returning: previous) else { return false }
    current = (chunk.index, chunk.count, 0)
    return true
  }

  /// Returns buffer `previous` (if any) and waits for the next; `nil` at the end.
  private func receive(returning previous: Int?) throws -> (index: Int, count: Int)? {
    if let outcome {
      if let previous { pipeline.giveBack(previous) }
      try outcome.get()
      return nil
    }
    switch pipeline.next(returning: previous) {
    case .chunk(let index, let count):
      return (index, count)
    case .end:
      producer.join()
      outcome = .success(())
      return nil
    case .failure(let error):
      producer.join()
      outcome = .failure(error)
      throw error
    }
  }

  // MARK: Lending

  var headroom: Int { pipeline.headroom }

  func borrowChunk() throws -> LentChunk? {
    guard let chunk = try receive(returning: nil) else { return nil }
    return LentChunk(index: chunk.index, bytes: pipeline.starts[chunk.index], count: chunk.count)
  }

  func giveBack(_ chunk: LentChunk) {
    pipeline.giveBack(chunk.index)
  }
}
