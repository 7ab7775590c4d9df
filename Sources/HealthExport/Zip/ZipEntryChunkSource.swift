import Foundation

/// A zip entry's uncompressed bytes, inflated on a thread of its own into a
/// small ring of buffers while the consumer works on the previous one.
///
/// Memory stays at `bufferCount × bufferSize` whatever the entry's size. The
/// CRC-32 is computed buffer by buffer on whichever thread has time for it:
/// the inflating thread, unless the consumer is already waiting for it, in
/// which case the consumer checksums the buffer it receives; the parts are
/// combined in order. A mismatch (or a wrong size) arrives as the stream's
/// error after the last byte. Errors reach the consumer after
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
  private let engine: InflateEngine
  private let expectedCRC: UInt32
  /// The CRC-32 of every byte received so far.
  private var crc: UInt32 = 0

  /// Which thread computes each buffer's CRC-32.
  enum ChecksumSide: Sendable {
    /// The inflating thread, unless the consumer is waiting for it at that moment.
    case whicheverIsIdle
    /// Always the inflating thread.
    case producer
    /// Always the consumer.
    case consumer
  }

  /// Starts inflating `entry` of `archive` on a new thread.
  ///
  /// - Parameters:
  ///   - archive: The archive holding the entry.
  ///   - entry: The entry to read.
  ///   - bufferSize: Bytes per ring buffer (1–4 MiB works best).
  ///   - bufferCount: Buffers in the ring (at least 2).
  ///   - headroom: Bytes in front of each buffer for a borrower's unfinished token.
  ///   - engine: The deflate implementation to inflate with.
  ///   - checksumSide: Which thread computes the CRC-32 (tests pin it to one).
  /// - Throws: What ``ZipEntryReader/init(archive:entry:verifiesChecksum:inputChunkSize:engine:)``
  ///   throws; later errors arrive through ``read(into:)``.
  init(
    archive: ZipArchive, entry: ZipEntry, bufferSize: Int = 1 << 20, bufferCount: Int = 4,
    headroom: Int = ZipEntryChunkSource.defaultHeadroom, engine: InflateEngine = .preferred,
    checksumSide: ChecksumSide = .whicheverIsIdle
  ) throws {
    // The reader checks the size; the CRC-32 is checked here, as buffers arrive.
    let reader = try ZipEntryReader(archive: archive, entry: entry, verifiesChecksum: false, engine: engine)
    displayName = reader.displayName
    expectedByteCount = entry.uncompressedSize
    expectedCRC = entry.crc32
    self.engine = engine
    pipeline = InflatePipeline(bufferSize: bufferSize, bufferCount: bufferCount, headroom: headroom)
    let transfer = TransferredOwnership(value: reader)
    let pipeline = self.pipeline
    guard
      let producer = ProducerThread({
        Self.produce(reader: transfer.value, pipeline: pipeline, engine: engine, checksumSide: checksumSide)
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

  private static func produce(
    reader: ZipEntryReader, pipeline: InflatePipeline, engine: InflateEngine, checksumSide: ChecksumSide
  ) {
    while let index = pipeline.takeFreeBuffer() {
      do {
        let buffer = pipeline.buffers[index]
        let count = try reader.read(into: buffer)
        if count == 0 {
          pipeline.finish(returning: index)
          return
        }
        let computesChecksum =
          switch checksumSide {
          case .producer: true
          case .consumer: false
          case .whicheverIsIdle: !pipeline.isConsumerWaiting
          }
        let crc = computesChecksum ? engine.crc32(0, UnsafeRawBufferPointer(rebasing: buffer[..<count])) : nil
        pipeline.deliver(index: index, count: count, crc: crc)
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
    case .chunk(let index, let count, let partCRC):
      let part =
        partCRC ?? engine.crc32(0, UnsafeRawBufferPointer(rebasing: pipeline.buffers[index][..<count]))
      crc = crc32Combine(crc, part, count: count)
      return (index, count)
    case .end:
      producer.join()
      guard crc == expectedCRC else {
        let error = HealthExportError.checksumMismatch(entry: displayName)
        outcome = .failure(error)
        throw error
      }
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
