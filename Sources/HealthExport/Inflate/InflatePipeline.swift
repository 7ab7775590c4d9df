import Foundation

/// A fixed ring of buffers passed between one producer thread (inflating) and
/// one consumer (the scanner).
///
/// The producer takes a free buffer, fills it, and hands it over in order; the
/// consumer hands each buffer back when done with it. Memory is bounded by the
/// buffer count. Every mutable field is guarded by `condition`; the buffers'
/// bytes belong to whichever side currently holds the buffer's index.
///
/// Each buffer has `headroom` writable bytes in front of it that the producer
/// never touches: a consumer scanning the buffers in place puts the unfinished
/// token of the previous buffer there, so the two join without copying the
/// buffer itself. After each buffer come ``trailingSlack`` more readable bytes,
/// for the scanner's word-wide searches.
final class InflatePipeline: @unchecked Sendable {
  // Safe to share: every `var` is read and written only under `condition`; a buffer's bytes are
  // written by the producer only while it holds the buffer's index (taken from `freeIndices`) and read
  // by the consumer only after it was delivered in `filled`, until it is given back.
  /// What the consumer gets next.
  enum Next {
    /// Buffer `index` holds `count` bytes, with their CRC-32 when the
    /// producer computed it (`nil`: the consumer is to).
    case chunk(index: Int, count: Int, crc: UInt32?)
    /// The producer finished; every chunk has been delivered.
    case end
    /// The producer failed after delivering every chunk before the failure.
    case failure(HealthExportError)
  }

  /// The buffers the producer fills (each preceded by ``headroom`` bytes).
  let buffers: [UnsafeMutableRawBufferPointer]
  /// The first byte of each buffer, as bytes.
  let starts: [UnsafeMutablePointer<UInt8>]
  /// Bytes in front of each buffer that belong to the consumer while it holds the buffer.
  let headroom: Int
  private let allocations: [UnsafeMutableRawPointer]
  private let condition = NSCondition()
  private var freeIndices: [Int]
  private var filled: [(index: Int, count: Int, crc: UInt32?)] = []
  private var consumerWaiting = false
  private var failure: HealthExportError?
  private var finished = false
  private var cancelled = false

  /// Readable bytes after each buffer (zeroed; the producer never writes them).
  static let trailingSlack = 64

  init(bufferSize: Int, bufferCount: Int, headroom: Int = 0) {
    let count = max(bufferCount, 2)
    let size = max(bufferSize, 4096)
    // Rounded to whole cache lines, so every buffer starts 64-byte aligned.
    let headroom = (max(headroom, 0) + 63) & ~63
    let allocations = (0..<count).map { _ in
      let total = headroom + size + Self.trailingSlack
      let raw = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 64)
      // Bound to bytes once: the producer writes raw bytes, the scanner reads `UInt8`s.
      raw.bindMemory(to: UInt8.self, capacity: total).initialize(repeating: 0, count: total)
      return raw
    }
    self.headroom = headroom
    self.allocations = allocations
    starts = allocations.map { ($0 + headroom).assumingMemoryBound(to: UInt8.self) }
    buffers = starts.map { UnsafeMutableRawBufferPointer(start: $0, count: size) }
    freeIndices = Array(0..<count)
  }

  deinit {
    for allocation in allocations { allocation.deallocate() }
  }

  // MARK: Producer

  /// Waits for a free buffer; `nil` once the consumer has cancelled.
  func takeFreeBuffer() -> Int? {
    condition.lock()
    defer { condition.unlock() }
    while freeIndices.isEmpty, !cancelled { condition.wait() }
    if cancelled { return nil }
    return freeIndices.removeFirst()
  }

  /// Whether the consumer is waiting for a buffer right now (the producer is
  /// the slower side, so work it can leave to the consumer should go there).
  var isConsumerWaiting: Bool {
    condition.lock()
    defer { condition.unlock() }
    return consumerWaiting
  }

  /// Hands buffer `index`, holding `count` bytes (and their CRC-32, if computed), to the consumer.
  func deliver(index: Int, count: Int, crc: UInt32?) {
    condition.lock()
    filled.append((index, count, crc))
    condition.broadcast()
    condition.unlock()
  }

  /// Ends the stream, returning the unused buffer `index`.
  func finish(returning index: Int) {
    condition.lock()
    freeIndices.append(index)
    finished = true
    condition.broadcast()
    condition.unlock()
  }

  /// Ends the stream with `error`, returning the unused buffer `index`.
  func fail(_ error: HealthExportError, returning index: Int) {
    condition.lock()
    freeIndices.append(index)
    failure = error
    condition.broadcast()
    condition.unlock()
  }

  // MARK: Consumer

  /// Returns buffer `previous` (if any) and waits for the next chunk.
  func next(returning previous: Int?) -> Next {
    condition.lock()
    defer { condition.unlock() }
    if let previous {
      freeIndices.append(previous)
      condition.broadcast()
    }
    while filled.isEmpty, failure == nil, !finished, !cancelled {
      consumerWaiting = true
      condition.wait()
    }
    consumerWaiting = false
    if !filled.isEmpty {
      let chunk = filled.removeFirst()
      return .chunk(index: chunk.index, count: chunk.count, crc: chunk.crc)
    }
    if let failure { return .failure(failure) }
    return .end
  }

  /// Returns buffer `index` without waiting for another (for a consumer that
  /// holds two buffers while it joins a token across them).
  func giveBack(_ index: Int) {
    condition.lock()
    freeIndices.append(index)
    condition.broadcast()
    condition.unlock()
  }

  /// Stops the producer at its next step; buffers are freed when both sides let go.
  func cancel() {
    condition.lock()
    cancelled = true
    condition.broadcast()
    condition.unlock()
  }
}

/// Hands a value that is not `Sendable` to another thread that becomes its only
/// user (the sender keeps no reference).
struct TransferredOwnership<Value>: @unchecked Sendable {
  // Safe to share: the sender keeps no reference, so only the receiving thread ever uses `value`.
  let value: Value
}
